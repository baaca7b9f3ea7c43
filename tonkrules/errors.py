"""Errors raised by the rules engine.

Every error is a :class:`RuleError` (a ``ValueError``) carrying a stable ``code`` from
``shared/formats/scoresheet.md``, the player whose entry broke the rule and the cards concerned.
``message`` is plain English for the command line and logs; the Django layer builds the message
people read from ``code``, ``detail`` and ``params`` so that it can be translated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import ClassVar


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


class RuleError(ValueError):
    """A hand, round or score sheet that breaks a rule or the format.

    Args:
        message: plain-English explanation (not translated).
        player: the player whose entry is at fault, where one is.
        cards: the cards concerned, in canonical notation (for ``bad_card``: the token as typed).
        detail: a finer, stable code (e.g. ``run_too_short``) for translated messages.
        params: values the translated message may name (numbers, keys).
    """

    code: ClassVar[ErrorCode]

    def __init__(
        self,
        message: str,
        *,
        player: str | None = None,
        cards: Iterable[object] = (),
        detail: str | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.player = player
        self.cards: tuple[str, ...] = tuple(str(c) for c in cards)
        self.detail = detail
        self.params: dict[str, object] = dict(params or {})

    def to_dict(self) -> dict[str, object]:
        """The error as the ``error`` object of the format (without ``hand``)."""
        out: dict[str, object] = {"code": str(self.code)}
        if self.player is not None:
            out["player"] = self.player
        if self.cards:
            out["cards"] = list(self.cards)
        if self.detail is not None:
            out["detail"] = self.detail
        out["message"] = self.message
        return out

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, code={self.code!s}, "
            f"player={self.player!r}, cards={list(self.cards)!r})"
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
