"""Errors raised by the rules engine, and the one error shape every domain error shares.

:class:`DomainError` (a ``ValueError``) is the base of every error of Tabletally's domain: the
engine's :class:`RuleError` family, ``tonkrules.sheet.SheetError``, ``scoring.errors``'s
conflicts and ``tournaments.errors``'s refusals. Each carries a stable ``code`` and the
``params`` its sentence names (players, cards, numbers, keys); none carries a sentence. The
sentence people read is made at the edge from the error's message ``key`` and its
:meth:`~DomainError.context`: ``tonkrules.messages.render`` in English (command line, logs,
``message``), ``scoring.messages.error_message`` through gettext (pages, API).

Every rule error carries a stable ``code`` from ``shared/formats/scoresheet.md``, the player
whose entry broke the rule and the cards concerned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import ClassVar

from .messages import RULE_MESSAGES, Template, render


class DomainError(ValueError):
    """A request, hand or sheet the domain refuses: a stable code and its parameters.

    The one constructor shape: ``SomeError(key, *, params=...)`` (subclasses add keyword-only
    facts such as ``player`` and ``cards``).

    Args:
        key: the message key: a stable code (``detail`` for rule errors, ``code`` for the
            others), optionally followed by ``.variant`` where one code has several sentences
            (``value_type.spreads``). The part before the first dot is the code.
        params: the values the sentence names, by placeholder name (numbers, keys, names).

    Attributes:
        code: the stable code clients branch on.
        key: the message key, found in :attr:`messages`.
        params: the parameters, as given.
        messages: the English sentence templates of this family, by message key.
    """

    code: str = "error"
    messages: ClassVar[Mapping[str, Template]] = {}

    def __init__(self, key: str, /, *, params: Mapping[str, object] | None = None) -> None:
        self.key = key
        self.params: dict[str, object] = dict(params or {})
        super().__init__(key)

    def context(self) -> dict[str, object]:
        """The values the sentence may name: ``params`` (subclasses add their facts)."""
        return dict(self.params)

    @property
    def template(self) -> Template:
        """The English sentence template of :attr:`key` (``KeyError`` if none is declared)."""
        return self.messages[self.key]

    @property
    def message(self) -> str:
        """The sentence in English (command line, logs); pages translate it at the edge.

        An error whose key has no template, or whose parameters miss one the template names,
        says so instead of raising (the test of the templates keeps that from happening).
        """
        try:
            return render(self.template, self.context())
        except (KeyError, TypeError, ValueError):
            return f"{self.code}: {self.key} {self.context()!r}"

    def __str__(self) -> str:
        return self.message


class ErrorCode(StrEnum):
    """The error codes of the score-sheet format, in the order checks are made inside a hand.

    When one hand breaks several rules, the code reported is the first of this list
    (scoresheet.md, "Results").
    """

    BAD_FORMAT = "bad_format"
    BAD_SEQUENCE = "bad_sequence"
    BAD_PLAYER = "bad_player"
    BAD_CARD = "bad_card"
    TOO_MANY_COPIES = "too_many_copies"
    HAND_SIZE = "hand_size"
    BAD_MELD = "bad_meld"
    BAD_TRUMP = "bad_trump"
    BAD_TOTAL = "bad_total"
    NOT_OUT = "not_out"
    CONTRACT_NOT_MET = "contract_not_met"
    BAD_BID = "bad_bid"
    TRICKS_MISMATCH = "tricks_mismatch"
    ILLEGAL_PLAY = "illegal_play"


class RuleError(DomainError):
    """A hand, round or score sheet that breaks a rule or the format.

    Args:
        key: the finer, stable ``detail`` code (e.g. ``run_too_short``), optionally followed
            by ``.variant`` where the detail has several sentences; its English template is
            declared in ``tonkrules.messages.RULE_MESSAGES``.
        player: the player whose entry is at fault, where one is (the template's
            ``%(player)s``).
        cards: the cards concerned, in canonical notation (for ``bad_card``: the token as
            typed); the template's ``%(cards)s`` names them separated by spaces.
        params: the other values the sentence names (numbers, keys).

    Attributes:
        detail: the ``key`` without its variant: the stable detail code of the format.
    """

    code: ErrorCode
    messages: ClassVar[Mapping[str, Template]] = RULE_MESSAGES

    def __init__(
        self,
        key: str,
        /,
        *,
        player: str | None = None,
        cards: Iterable[object] = (),
        params: Mapping[str, object] | None = None,
    ) -> None:
        self.player = player
        self.cards: tuple[str, ...] = tuple(str(c) for c in cards)
        super().__init__(key, params=params)

    @property
    def detail(self) -> str:
        """The stable detail code (the message key without its variant)."""
        return self.key.partition(".")[0]

    def context(self) -> dict[str, object]:
        """``params`` plus ``player`` and ``cards`` (space-separated), where given."""
        out = dict(self.params)
        if self.player is not None:
            out.setdefault("player", self.player)
        if self.cards:
            out.setdefault("cards", " ".join(self.cards))
        return out

    def to_dict(self) -> dict[str, object]:
        """The error as the ``error`` object of the format (without ``hand``); ``message`` in
        English (the edge replaces it with the translated sentence)."""
        out: dict[str, object] = {"code": str(self.code)}
        if self.player is not None:
            out["player"] = self.player
        if self.cards:
            out["cards"] = list(self.cards)
        out["detail"] = self.detail
        out["message"] = self.message
        return out

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.key!r}, code={self.code!s}, "
            f"player={self.player!r}, cards={list(self.cards)!r}, params={self.params!r})"
        )


class FormatError(RuleError):
    """Not JSON, a wrong ``format``, a missing or unknown key, a value of the wrong type."""

    code = ErrorCode.BAD_FORMAT


class SequenceError(RuleError):
    """Rook rounds or Bluke hands not consecutive and increasing, or out of range."""

    code = ErrorCode.BAD_SEQUENCE


class PlayerError(RuleError):
    """An unknown or duplicate name, a required player missing, a bad number of players."""

    code = ErrorCode.BAD_PLAYER


class CardError(RuleError):
    """A token that is not a card of the game's deck (rules/README.md, "Card notation")."""

    code = ErrorCode.BAD_CARD


class CopiesError(RuleError):
    """A card entered more often in one hand than the deck(s) in play hold."""

    code = ErrorCode.TOO_MANY_COPIES


class HandSizeError(RuleError):
    """The wrong number of cards in a hand, a trick or a play record."""

    code = ErrorCode.HAND_SIZE


class MeldError(RuleError):
    """A Tonk spread or Rook meld that is not a legal book, set or run."""

    code = ErrorCode.BAD_MELD


class TrumpError(RuleError):
    """Bluke: the turned-up card disagrees with the trump entered."""

    code = ErrorCode.BAD_TRUMP


class TotalError(RuleError):
    """Tonk: a tonk at the deal (or a tie) claimed on a total the rules do not allow."""

    code = ErrorCode.BAD_TOTAL


class NotOutError(RuleError):
    """The player said to have gone out still holds cards, or went out in a forbidden way."""

    code = ErrorCode.NOT_OUT


class ContractError(RuleError):
    """Rook: the going-out player's melds are not the round's contract."""

    code = ErrorCode.CONTRACT_NOT_MET


class BidError(RuleError):
    """Bluke: a bid outside the allowed range."""

    code = ErrorCode.BAD_BID


class TricksError(RuleError):
    """Bluke: tricks that do not add up to the cards dealt, or disagree with the play."""

    code = ErrorCode.TRICKS_MISMATCH


class PlayError(RuleError):
    """Bluke: a card played against the follow-suit rule, or the turned-up card played."""

    code = ErrorCode.ILLEGAL_PLAY


ERROR_CLASSES: dict[ErrorCode, type[RuleError]] = {
    cls.code: cls
    for cls in (
        FormatError,
        SequenceError,
        PlayerError,
        CardError,
        CopiesError,
        HandSizeError,
        MeldError,
        TrumpError,
        TotalError,
        NotOutError,
        ContractError,
        BidError,
        TricksError,
        PlayError,
    )
}
"""Each code's exception class."""
