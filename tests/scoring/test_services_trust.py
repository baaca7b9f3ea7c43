"""Trust at the table (issue 12), the services' side: confirmation as each game's
``confirmation`` requires, disputes and a director's resolution, a void kept with who and why
and its restore, ``Game.version`` bumped by every write, each change announced once, and who
may do what (``scoring.permissions.check``) at a tournament table and at a casual game."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from scoring import selectors, services
from scoring.errors import (
    HandDisputed,
    HandLimitReached,
    HandNotFound,
    IdempotencyKeyReused,
    NotAllowed,
    ReasonRequired,
    RestoreRefused,
)
from scoring.events import Change, GameChanged
from scoring.models import Game, Hand, HandEvent
from scoring.permissions import Act, Actor, check, may_see_keys
from scoring.services import SeatSpec
from tests.factories import MembershipFactory, PlayerFactory, UserFactory
from tests.scoring.test_services_hands import ANA_WINS, BEN_WINS, CY_CAUGHT, assert_rebuilds
from tournaments.models import Membership

pytestmark = pytest.mark.django_db

P3 = ["Ana", "Ben", "Cy"]


@dataclass
class Table:
    """A game of a club with its three seats' actors, the club's director, the game's
    creator, a member of the club not seated, and a director of another club."""

    game: Game
    a: Actor
    b: Actor
    c: Actor
    director: Actor
    creator: Actor
    member: Actor
    other_director: Actor
    link: Actor  # the table link, no seat chosen

    def refresh(self) -> Game:
        self.game.refresh_from_db()
        return self.game


def table(
    confirmation: str = Game.Confirmation.ONE_OTHER,
    *,
    kind: str = "tonk",
    directed: bool = False,
    **kwargs: Any,
) -> Table:
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    club = director.club
    creator = MembershipFactory(club=club).user
    game, _ = services.game_start(
        kind=kind,
        players=P3,
        club=club,
        created_by=creator,
        confirmation=confirmation,
        directed=directed,
        **kwargs,
    )
    a, b, c = (Actor(seat_id=s.pk) for s in game.seats.order_by("position"))
    return Table(
        game=game,
        a=a,
        b=b,
        c=c,
        director=Actor(user=director.user),
        creator=Actor(user=creator),
        member=Actor(user=MembershipFactory(club=club).user),
        other_director=Actor(user=MembershipFactory(role=Membership.Role.DIRECTOR).user),
        link=Actor(table=True),
    )


def status(game: Game, number: int = 1) -> str:
    return game.hands.get(number=number, state=Hand.State.CURRENT).status


def events(game: Game) -> list[tuple[int, str, int | None, str]]:
    return list(
        HandEvent.objects.filter(game=game)
        .order_by("id")
        .values_list("number", "action", "seat_id", "reason")
    )


# --- confirmation --------------------------------------------------------------------------------


def test_with_confirmation_none_a_seats_hand_counts_at_once() -> None:
    t = table(Game.Confirmation.NONE)
    hand, _ = services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    assert (hand.status, hand.entered_seat_id, hand.entered_via) == (
        Hand.Status.CONFIRMED,
        t.a.seat_id,
        Hand.Via.SEAT,
    )


def test_one_other_a_hand_waits_for_another_seat_and_its_own_seat_may_not_confirm_it() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    hand, _ = services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    assert hand.status == Hand.Status.PROVISIONAL
    with pytest.raises(NotAllowed) as refused:
        services.hand_confirm(game=t.game, number=1, by=t.a)
    assert refused.value.key == "not_allowed.own_hand"
    assert status(t.game) == Hand.Status.PROVISIONAL
    services.hand_confirm(game=t.game, number=1, by=t.b)
    assert status(t.game) == Hand.Status.CONFIRMED
    assert events(t.game) == [(1, "confirm", t.b.seat_id, "")]


def test_all_a_hand_counts_once_every_other_seat_confirmed_and_a_repeat_counts_once() -> None:
    t = table(Game.Confirmation.ALL)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_confirm(game=t.game, number=1, by=t.b)
    services.hand_confirm(game=t.game, number=1, by=t.b)  # the same seat again: nothing
    assert status(t.game) == Hand.Status.PROVISIONAL
    services.hand_confirm(game=t.game, number=1, by=t.c)
    assert status(t.game) == Hand.Status.CONFIRMED
    assert [e[1:3] for e in events(t.game)] == [
        ("confirm", t.b.seat_id),
        ("confirm", t.c.seat_id),
    ]


def test_director_confirmation_refuses_the_seats_and_takes_a_directors() -> None:
    t = table(Game.Confirmation.DIRECTOR)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    with pytest.raises(NotAllowed) as refused:
        services.hand_confirm(game=t.game, number=1, by=t.b)
    assert refused.value.key == "not_allowed.director_confirms"
    services.hand_confirm(game=t.game, number=1, by=t.director)
    assert status(t.game) == Hand.Status.CONFIRMED


def test_a_confirmation_keeps_its_optional_reason() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)

    services.hand_confirm(game=t.game, number=1, by=t.b, reason="  saw the cards  ")

    assert status(t.game) == Hand.Status.CONFIRMED
    assert events(t.game)[-1] == (1, HandEvent.Action.CONFIRM, t.b.seat_id, "saw the cards")


def test_a_director_confirms_a_complete_rounds_hand_only_with_a_reason() -> None:
    t = table(Game.Confirmation.ONE_OTHER, directed=True)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    Game.objects.filter(pk=t.game.pk).update(state=Game.State.FINISHED)
    version = t.refresh().version

    with pytest.raises(ReasonRequired) as refused:
        services.hand_confirm(game=t.game, number=1, by=t.director)

    assert refused.value.key == "reason_required.closed"
    assert (status(t.game), t.refresh().version) == (Hand.Status.PROVISIONAL, version)
    services.hand_confirm(game=t.game, number=1, by=t.director, reason="checked with the table")
    assert status(t.game) == Hand.Status.CONFIRMED
    assert events(t.game)[-1] == (1, HandEvent.Action.CONFIRM, None, "checked with the table")


@pytest.mark.parametrize("who", ["director", "a"])
def test_nobody_finishes_a_tournament_table_it_ends_with_its_round(who: str) -> None:
    t = table(directed=True)
    version = t.refresh().version

    with pytest.raises(NotAllowed) as refused:
        services.game_finish(game=t.game, by=getattr(t, who))

    assert refused.value.key == "not_allowed.ends_with_round"
    assert (t.refresh().state, t.game.version) == (Game.State.IN_PLAY, version)
    services.game_finish(game=t.game, by=None)  # the round's own step
    assert t.refresh().state == Game.State.FINISHED


def test_the_table_link_alone_records_nothing_at_a_casual_game() -> None:
    t = table(Game.Confirmation.NONE)

    with pytest.raises(NotAllowed) as refused:
        services.hand_record(game=t.game, entry=ANA_WINS, by=t.link)

    assert refused.value.key == "not_allowed.table_link"
    assert Hand.objects.filter(game=t.game).count() == 0
    hand, _ = services.hand_record(game=t.game, entry=ANA_WINS, by=t.creator)
    assert (hand.entered_by, hand.entered_via, hand.entered_seat_id) == (
        t.creator.user,
        Hand.Via.USER,
        None,
    )


@pytest.mark.parametrize("confirmation", ["one_other", "all", "director"])
def test_a_directors_entry_is_confirmed_at_once(confirmation: str) -> None:
    t = table(confirmation)
    hand, _ = services.hand_record(game=t.game, entry=ANA_WINS, by=t.director)
    assert (hand.status, hand.entered_seat_id, hand.entered_via) == (
        Hand.Status.CONFIRMED,
        None,
        Hand.Via.USER,
    )


def test_a_correction_makes_a_confirmed_hand_provisional_again() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_confirm(game=t.game, number=1, by=t.b)
    fixed, _ = services.hand_correct(
        game=t.game, number=1, revision=1, entry=BEN_WINS, by=t.c, reason="Ben went out"
    )
    assert (fixed.revision, fixed.status, fixed.entered_seat_id, fixed.reason) == (
        2,
        Hand.Status.PROVISIONAL,
        t.c.seat_id,
        "Ben went out",
    )
    # The seat that corrected it may not confirm its own revision; the one that entered
    # revision 1 may.
    with pytest.raises(NotAllowed):
        services.hand_confirm(game=t.game, number=1, by=t.c)
    services.hand_confirm(game=t.game, number=1, by=t.a)
    assert status(t.game) == Hand.Status.CONFIRMED


def test_a_confirmation_of_a_hand_that_does_not_exist_is_hand_not_found() -> None:
    t = table()
    with pytest.raises(HandNotFound):
        services.hand_confirm(game=t.game, number=1, by=t.b)


# --- disputes and resolutions -------------------------------------------------------------------


@pytest.mark.parametrize("reason", [None, "", "   ", 12])
def test_a_dispute_needs_a_reason_and_changes_nothing_without_one(reason: object) -> None:
    t = table()
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    version = t.refresh().version
    with pytest.raises(ReasonRequired):
        services.hand_dispute(game=t.game, number=1, by=t.b, reason=reason)
    assert (status(t.game), events(t.game), t.refresh().version) == (
        Hand.Status.PROVISIONAL,
        [],
        version,
    )


def test_a_reason_longer_than_500_characters_is_refused() -> None:
    t = table()
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    with pytest.raises(ReasonRequired) as refused:
        services.hand_dispute(game=t.game, number=1, by=t.b, reason="x" * 501)
    assert refused.value.key == "reason_too_long"


def test_a_disputed_hand_shows_disputed_and_refuses_confirmation_until_resolved() -> None:
    t = table()
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_dispute(game=t.game, number=1, by=t.b, reason=" Ben held KD ")
    services.hand_dispute(game=t.game, number=1, by=t.b, reason="Ben held KD")  # a retry
    assert status(t.game) == Hand.Status.DISPUTED
    assert events(t.game) == [(1, "dispute", t.b.seat_id, "Ben held KD")]
    with pytest.raises(HandDisputed):
        services.hand_confirm(game=t.game, number=1, by=t.c)
    assert status(t.game) == Hand.Status.DISPUTED


def test_even_a_confirmed_hand_may_be_disputed() -> None:
    t = table()
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_confirm(game=t.game, number=1, by=t.b)
    services.hand_dispute(game=t.game, number=1, by=t.c, reason="I held QH, not QD")
    assert status(t.game) == Hand.Status.DISPUTED


def disputed(confirmation: str = Game.Confirmation.ONE_OTHER) -> Table:
    t = table(confirmation)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_dispute(game=t.game, number=1, by=t.b, reason="Ben held KD")
    return t


@pytest.mark.parametrize("who", ["a", "b", "creator", "member", "other_director"])
def test_only_a_director_resolves_a_dispute(who: str) -> None:
    t = disputed()
    with pytest.raises(NotAllowed):
        services.hand_resolve(
            game=t.game, number=1, by=getattr(t, who), action="confirm", reason="checked"
        )
    assert status(t.game) == Hand.Status.DISPUTED


@pytest.mark.parametrize("action", ["confirm", "correct", "void"])
def test_a_resolution_needs_a_reason(action: str) -> None:
    t = disputed()
    with pytest.raises(ReasonRequired):
        services.hand_resolve(
            game=t.game, number=1, by=t.director, action=action, reason="", entry=BEN_WINS
        )
    assert status(t.game) == Hand.Status.DISPUTED


def test_a_director_confirms_a_disputed_hand_with_a_reason() -> None:
    t = disputed()
    hand = services.hand_resolve(
        game=t.game, number=1, by=t.director, action="confirm", reason="both agree now"
    )
    assert (hand.revision, hand.status) == (1, Hand.Status.CONFIRMED)
    resolve = HandEvent.objects.get(game=t.game, action=HandEvent.Action.RESOLVE)
    assert (resolve.user_id, resolve.reason, resolve.details) == (
        t.director.user.pk,  # type: ignore[union-attr]
        "both agree now",
        {"resolution": "confirm"},
    )


def test_a_directors_correction_resolves_a_dispute_and_is_confirmed() -> None:
    t = disputed()
    hand = services.hand_resolve(
        game=t.game, number=1, by=t.director, action="correct", reason="Ben won", entry=BEN_WINS
    )
    assert (hand.revision, hand.status, hand.reason, hand.entered_by_id) == (
        2,
        Hand.Status.CONFIRMED,
        "Ben won",
        t.director.user.pk,  # type: ignore[union-attr]
    )
    assert t.refresh().totals == {"Ana": -1, "Ben": 2, "Cy": -1}
    assert_rebuilds(t.game)


def test_a_directors_void_resolves_a_dispute_and_keeps_who_and_why() -> None:
    t = disputed()
    hand = services.hand_resolve(
        game=t.game, number=1, by=t.director, action="void", reason="not played"
    )
    assert hand.state == Hand.State.VOIDED
    assert [e[1] for e in events(t.game)] == ["dispute", "void", "resolve"]
    void = selectors.hand_void_step(t.game, 1)
    assert void is not None
    assert (void.user_id, void.reason) == (t.director.user.pk, "not played")  # type: ignore[union-attr]
    assert t.refresh().totals == {"Ana": 0, "Ben": 0, "Cy": 0}


def test_an_unknown_resolution_is_refused() -> None:
    t = disputed()
    with pytest.raises(ValueError, match="action"):
        services.hand_resolve(game=t.game, number=1, by=t.director, action="shrug", reason="x")


# --- voids and restores --------------------------------------------------------------------------


def test_a_void_is_kept_with_who_and_why_and_the_hand_restores_with_its_status() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    for entry in (ANA_WINS, BEN_WINS, CY_CAUGHT):
        services.hand_record(game=t.game, entry=entry, by=t.a)
    services.hand_confirm(game=t.game, number=1, by=t.b)
    totals = t.refresh().totals
    services.hand_void(game=t.game, number=2, by=t.c, reason="a misdeal")  # Tonk: any hand
    voided = selectors.voided_hands(t.game)
    assert [(h.number, h.void.seat_id, h.void.reason) for h in voided] == [  # type: ignore[attr-defined]
        (2, t.c.seat_id, "a misdeal")
    ]
    assert t.refresh().totals != totals
    restored = services.hand_restore(game=t.game, number=2, by=t.b, reason="it was dealt right")
    assert (restored.state, restored.status, restored.revision) == (
        Hand.State.CURRENT,
        Hand.Status.PROVISIONAL,
        1,
    )
    assert t.refresh().totals == totals
    assert selectors.voided_hands(t.game) == []
    assert selectors.hand_void_step(t.game, 2) is None
    assert [e[1:] for e in events(t.game)][-2:] == [
        ("void", t.c.seat_id, "a misdeal"),
        ("restore", t.b.seat_id, "it was dealt right"),
    ]
    assert_rebuilds(t.game)
    # Restoring a hand that counts changes nothing.
    version = t.refresh().version
    services.hand_restore(game=t.game, number=2, by=t.b)
    assert (t.refresh().version, len(events(t.game))) == (version, 3)


def test_a_confirmed_hand_is_voided_by_a_director_and_a_players_restore_needs_confirming() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_confirm(game=t.game, number=1, by=t.b)
    before = t.refresh().version
    with pytest.raises(NotAllowed) as refused:  # one player alone cannot undo what two agreed
        services.hand_void(game=t.game, number=1, by=t.c, reason="I lost")
    assert refused.value.key == "not_allowed.void_confirmed"
    # ... nor by correcting it first: the number was confirmed once.
    services.hand_correct(game=t.game, number=1, revision=1, entry=ANA_WINS, by=t.c)
    with pytest.raises(NotAllowed):
        services.hand_void(game=t.game, number=1, by=t.c, reason="I lost")
    assert t.refresh().current_hands == 1 and t.refresh().version == before + 1
    services.hand_void(game=t.game, number=1, by=t.director, reason="a misdeal")
    with pytest.raises(NotAllowed) as undone:  # a director's void is a director's to undo
        services.hand_restore(game=t.game, number=1, by=t.c)
    assert undone.value.key == "not_allowed.director_void"
    # A player's own void of a provisional hand comes back provisional, for the table.
    services.hand_record(game=t.game, entry=BEN_WINS, by=t.a)
    services.hand_void(game=t.game, number=2, by=t.a, reason="twice")
    restored = services.hand_restore(game=t.game, number=2, by=t.c)
    assert restored.status == Hand.Status.PROVISIONAL
    with pytest.raises(NotAllowed):
        services.hand_confirm(game=t.game, number=2, by=t.a)  # Ana entered it
    assert services.hand_confirm(game=t.game, number=2, by=t.b).status == Hand.Status.CONFIRMED


def test_restoring_a_hand_that_never_was_is_hand_not_found() -> None:
    t = table()
    with pytest.raises(HandNotFound):
        services.hand_restore(game=t.game, number=4, by=t.a)


ROOK_MELDS = {
    1: [["R7", "Y7", "G7"], ["R9", "Y9", "G9"]],
    2: [["R1", "R2", "R3", "R4"], ["B5", "G5", "Y5"]],
    3: [["Y1", "Y2", "Y3", "Y4"], ["G6", "G7", "G8", "G9"]],
}


def rook_round(number: int) -> dict[str, Any]:
    return {
        "round": number,
        "dealer": "Ana",
        "out": "Ana",
        "melds": {"Ana": ROOK_MELDS[number]},
        "held": {"Ben": "B13", "Cy": "Y4 G8" if number != 3 else "B4 G8"},
    }


def bluke_hand(number: int) -> dict[str, Any]:
    dealt = 14 - number  # 13, 12, ...
    return {
        "hand": number,
        "dealer": "Cy",
        "trump": "S",
        "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
        "tricks": {"Ana": 5, "Ben": dealt - 10, "Cy": 5},
    }


SEQUENCES: dict[str, Callable[[int], dict[str, Any]]] = {"rook": rook_round, "bluke": bluke_hand}


@pytest.mark.parametrize("kind", SEQUENCES)
def test_rook_and_bluke_restore_the_latest_only_while_it_still_follows(kind: str) -> None:
    t = table(Game.Confirmation.NONE, kind=kind)
    entry = SEQUENCES[kind]
    for number in (1, 2):
        services.hand_record(game=t.game, entry=entry(number), by=t.a)
    services.hand_void(game=t.game, number=2, by=t.a, reason="")
    services.hand_restore(game=t.game, number=2, by=t.a)  # it still follows round/hand 1
    assert [h.number for h in selectors.current_hands(t.game)] == [1, 2]
    # Voided and entered again (number 3): the old one no longer follows.
    services.hand_void(game=t.game, number=2, by=t.a)
    services.hand_record(game=t.game, entry=entry(2), by=t.a)
    with pytest.raises(RestoreRefused):
        services.hand_restore(game=t.game, number=2, by=t.a)
    # Once the new entry is voided in turn, the old one follows round/hand 1 again.
    services.hand_void(game=t.game, number=3, by=t.a)
    services.hand_restore(game=t.game, number=2, by=t.a)
    assert [h.number for h in selectors.current_hands(t.game)] == [1, 2]
    assert_rebuilds(t.game)


def test_a_restore_never_goes_beyond_the_hands_a_game_takes() -> None:
    t = table(Game.Confirmation.NONE)
    services.game_limit_set(game=t.game, hand_limit=1)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_void(game=t.game, number=1, by=t.a)
    services.hand_record(game=t.game, entry=BEN_WINS, by=t.a)
    with pytest.raises(HandLimitReached):
        services.hand_restore(game=t.game, number=1, by=t.a)
    assert [h.number for h in selectors.current_hands(t.game)] == [2]


# --- Game.version and the announcements ----------------------------------------------------------


class Spy:
    def __init__(self) -> None:
        self.heard: list[GameChanged] = []

    def __call__(self, event: GameChanged) -> None:
        self.heard.append(event)


@pytest.fixture
def spy() -> Iterator[Spy]:
    listener = Spy()
    services.game_changed_register(listener)
    yield listener
    services.game_changed_unregister(listener)


def test_each_write_bumps_the_version_once_and_is_announced_once(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    t = table(Game.Confirmation.ALL)
    g = t.game
    steps: list[tuple[str, Callable[[], object], list[Change]]] = [
        (
            "record",
            lambda: services.hand_record(game=g, entry=ANA_WINS, by=t.a),
            [Change.HAND_RECORDED],
        ),
        (
            "confirm b",
            lambda: services.hand_confirm(game=g, number=1, by=t.b),
            [Change.HAND_STATUS],
        ),
        (
            "confirm c",
            lambda: services.hand_confirm(game=g, number=1, by=t.c),
            [Change.HAND_CONFIRMED],
        ),
        (
            "record 2",
            lambda: services.hand_record(game=g, entry=BEN_WINS, by=t.b),
            [Change.HAND_RECORDED],
        ),
        (
            "correct",
            lambda: services.hand_correct(game=g, number=2, revision=1, entry=CY_CAUGHT, by=t.b),
            [Change.HAND_CORRECTED],
        ),
        (
            "dispute",
            lambda: services.hand_dispute(game=g, number=2, by=t.a, reason="no"),
            [Change.HAND_DISPUTED],
        ),
        (
            "resolve confirm",
            lambda: services.hand_resolve(
                game=g, number=2, by=t.director, action="confirm", reason="seen"
            ),
            [Change.HAND_CONFIRMED],
        ),
        (
            "resolve correct",
            lambda: services.hand_resolve(
                game=g, number=2, by=t.director, action="correct", reason="Ben", entry=BEN_WINS
            ),
            [Change.HAND_CORRECTED],
        ),
        (
            "resolve void",
            lambda: services.hand_resolve(
                game=g, number=2, by=t.director, action="void", reason="twice"
            ),
            [Change.HAND_VOIDED],
        ),
        (
            "restore",  # a director's void: a director's to undo
            lambda: services.hand_restore(game=g, number=2, by=t.director),
            [Change.HAND_RESTORED],
        ),
        (
            "void",  # a confirmed hand: a director's to void
            lambda: services.hand_void(game=g, number=1, by=t.director),
            [Change.HAND_VOIDED],
        ),
        ("finish", lambda: services.game_finish(game=g, by=t.a), [Change.FINISHED]),
    ]
    version = t.refresh().version
    for name, write, changes in steps:
        spy.heard.clear()
        with django_capture_on_commit_callbacks(execute=True):
            write()
        assert [e.change for e in spy.heard] == changes, name
        assert t.refresh().version == version + 1, name
        version += 1


def test_a_write_that_changes_nothing_keeps_the_version_and_announces_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    g = t.game
    services.hand_record(game=g, entry=ANA_WINS, by=t.a)
    services.hand_confirm(game=g, number=1, by=t.b)
    services.hand_void(game=g, number=1, by=t.director)
    version = t.refresh().version
    spy.heard.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.hand_void(game=g, number=1, by=t.b)  # already voided
        services.hand_restore(game=g, number=1, by=t.director)  # as it was: confirmed
        services.hand_restore(game=g, number=1, by=t.b)  # counts already
        services.hand_confirm(game=g, number=1, by=t.c)  # confirmed already
    assert [e.change for e in spy.heard] == [Change.HAND_RESTORED]
    assert t.refresh().version == version + 1


# --- who may: scoring.permissions.check ----------------------------------------------------------

# The rules of issue 12, written out here (not read from scoring.permissions), per act and who
# acts: True allowed, else the NotAllowed key (or "reason" for ReasonRequired).
HAND_ACTS = [Act.ENTER, Act.CORRECT, Act.VOID, Act.RESTORE, Act.CONFIRM, Act.DISPUTE]
WHO = ["a", "director", "creator", "member", "other_director", "link"]


def directed_rule(act: Act, who: str, *, complete: bool, reason: bool) -> object:
    """A tournament table: its seats while the round is open; the club's directors always
    (once complete, with a reason); resolving and rotating a director's; finishing nobody's
    (the round finishes it)."""
    if act == Act.FINISH:  # it ends with its round: nobody finishes it, a director included
        return "not_allowed.ends_with_round"
    if who == "director":
        # A new hand into a complete round is refused by the finished game, not for a reason.
        exempt = (Act.ROTATE, Act.ENTER)
        return "reason" if complete and not reason and act not in exempt else True
    if act in (Act.RESOLVE, Act.ROTATE):
        return "not_allowed.director"
    if who != "a":
        return "not_allowed.seat"
    return "not_allowed.round_complete" if complete else True


def casual_rule(act: Act, who: str) -> object:
    """A casual game: its seats, its creator and the club's directors change it (the table
    link alone only reads: every change records who made it); confirming and disputing need
    a seat (or a director); resolving is a director's; rotating the links the creator's or a
    director's."""
    if who == "director":
        return True
    if act == Act.RESOLVE:
        return "not_allowed.director"
    if act == Act.ROTATE:
        return True if who == "creator" else "not_allowed.director"
    if act in (Act.CONFIRM, Act.DISPUTE):
        return True if who == "a" else "not_allowed.seat"
    if who == "link":
        return "not_allowed.table_link"
    return True if who in ("a", "creator") else "not_allowed"


def outcome(act: Act, actor: Actor, game: Game, reason: str) -> object:
    try:
        check(act, actor=actor, game=game, reason=reason)
    except NotAllowed as exc:
        return exc.key
    except ReasonRequired:
        return "reason"
    return True


ALL_ACTS = [*HAND_ACTS, Act.RESOLVE, Act.FINISH, Act.ROTATE]


@pytest.mark.parametrize("complete", [False, True], ids=["round open", "round complete"])
@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("act", ALL_ACTS, ids=[a.value for a in ALL_ACTS])
def test_who_may_change_a_tournament_table(act: Act, who: str, complete: bool) -> None:
    t = table(directed=True)
    if complete:
        Game.objects.filter(pk=t.game.pk).update(state=Game.State.FINISHED)
        t.refresh()
    actor = getattr(t, who)
    assert outcome(act, actor, t.game, "") == directed_rule(
        act, who, complete=complete, reason=False
    )
    assert outcome(act, actor, t.game, "a reason") == directed_rule(
        act, who, complete=complete, reason=True
    )


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("act", ALL_ACTS, ids=[a.value for a in ALL_ACTS])
def test_who_may_change_a_casual_game(act: Act, who: str) -> None:
    t = table(Game.Confirmation.NONE)
    assert outcome(act, getattr(t, who), t.game, "") == casual_rule(act, who)


def test_a_signed_in_user_whose_club_player_sits_at_the_table_acts_as_that_seat() -> None:
    t = table(directed=True)
    user = UserFactory()
    player = PlayerFactory(club=t.game.club, user=user)
    seat = t.game.seats.get(position=1)
    seat.player = player
    seat.save(update_fields=("player",))
    role = check(Act.ENTER, actor=Actor(user=user), game=t.game)
    assert role.seat_id == seat.pk


def test_a_seat_key_of_another_game_is_no_seat_here() -> None:
    t = table(directed=True)
    other = table(directed=True)
    assert outcome(Act.ENTER, other.a, t.game, "") == "not_allowed.seat"


@pytest.mark.parametrize(
    ("directed", "who", "sees"),
    [
        (True, "director", True),
        (True, "creator", False),
        (True, "member", False),
        (True, "a", False),
        (True, "other_director", False),
        (False, "director", True),
        (False, "creator", True),
        (False, "member", False),
        (False, "a", False),
        (False, "link", False),
    ],
)
def test_keys_are_shown_to_directors_and_a_casual_games_creator_only(
    directed: bool, who: str, sees: bool
) -> None:
    t = table(directed=directed)
    assert may_see_keys(getattr(t, who), t.game) is sees


def test_a_directors_correction_retried_with_its_key_returns_the_revision_it_wrote() -> None:
    t = disputed()
    kwargs: dict[str, Any] = {
        "game": t.game,
        "number": 1,
        "by": t.director,
        "action": "correct",
        "reason": "Ben won",
        "entry": BEN_WINS,
        "idempotency_key": "fix-1",
    }
    first = services.hand_resolve(**kwargs)
    again = services.hand_resolve(**kwargs)
    assert (again.pk, again.revision) == (first.pk, 2)
    assert t.game.hands.count() == 2


# --- the reviewers' holes (issue 12) -----------------------------------------------------------


def test_one_device_is_one_player_whatever_seat_it_claims() -> None:
    t = table(Game.Confirmation.ALL)
    phone = "a-phone"
    ana = Actor(seat_id=t.a.seat_id, device=phone)
    services.hand_record(game=t.game, entry=ANA_WINS, by=ana)
    as_ben = Actor(seat_id=t.b.seat_id, device=phone)  # the same phone, now claiming Ben
    with pytest.raises(NotAllowed) as refused:
        services.hand_confirm(game=t.game, number=1, by=as_ben)
    assert refused.value.key == "not_allowed.same_device"
    services.hand_confirm(game=t.game, number=1, by=Actor(seat_id=t.b.seat_id, device="bens"))
    with pytest.raises(NotAllowed):  # Ben's phone cannot count for Cy as well
        services.hand_confirm(game=t.game, number=1, by=Actor(seat_id=t.c.seat_id, device="bens"))
    hand = services.hand_confirm(game=t.game, number=1, by=Actor(seat_id=t.c.seat_id, device="cys"))
    assert hand.status == Hand.Status.CONFIRMED
    assert Hand.objects.get(pk=hand.pk).entered_device == phone


def test_a_disputed_hand_waits_for_a_director_the_table_cannot_correct_or_void_it() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_dispute(game=t.game, number=1, by=t.c, reason="Ben won it")
    before = t.refresh().version
    with pytest.raises(HandDisputed):
        services.hand_correct(game=t.game, number=1, revision=1, entry=BEN_WINS, by=t.a)
    with pytest.raises(HandDisputed):
        services.hand_void(game=t.game, number=1, by=t.a, reason="never mind")
    assert t.refresh().version == before
    assert Hand.objects.get(game=t.game, number=1, state="current").status == "disputed"
    hand = services.hand_resolve(
        game=t.game, number=1, by=t.director, action="correct", reason="asked", entry=BEN_WINS
    )
    assert (hand.revision, hand.status) == (2, Hand.Status.CONFIRMED)


def test_a_resolution_already_applied_keeps_nothing() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_record(game=t.game, entry=BEN_WINS, by=t.a)
    for number in (1, 2):
        services.hand_dispute(game=t.game, number=number, by=t.b, reason="no")
    for _ in range(2):
        services.hand_resolve(game=t.game, number=1, by=t.director, action="confirm", reason="ok")
        services.hand_resolve(game=t.game, number=2, by=t.director, action="void", reason="dup")
    resolves = HandEvent.objects.filter(game=t.game, action=HandEvent.Action.RESOLVE)
    assert sorted(resolves.values_list("number", "details__resolution")) == [
        (1, "confirm"),
        (2, "void"),
    ]


def test_who_may_comes_before_the_reason() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    with pytest.raises(NotAllowed):  # a member: refused as such, not asked for a reason
        services.hand_dispute(game=t.game, number=1, by=t.member, reason="")
    with pytest.raises(NotAllowed):
        services.hand_resolve(game=t.game, number=1, by=t.b, action="confirm", reason="")
    with pytest.raises(ReasonRequired):
        services.hand_dispute(game=t.game, number=1, by=t.b, reason=" ")


def test_a_director_who_plays_is_confirmed_by_the_others() -> None:
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    seated = PlayerFactory(club=director.club, user=director.user, name="Dora")
    game, _ = services.game_start(
        kind="tonk",
        players=[SeatSpec("Dora", seated.pk), SeatSpec("Ben"), SeatSpec("Cy")],
        club=director.club,
        confirmation=Game.Confirmation.ONE_OTHER,
        directed=True,
    )
    entry = {
        "dealer": "Cy",
        "end": "knock",
        "by": "Dora",
        "held": {"Dora": "AS", "Ben": "KH", "Cy": "QH"},
    }
    hand, _ = services.hand_record(game=game, entry=entry, by=Actor(user=director.user))
    assert (hand.status, hand.entered_seat.name) == (Hand.Status.PROVISIONAL, "Dora")
    with pytest.raises(NotAllowed) as refused:
        services.hand_confirm(game=game, number=1, by=Actor(user=director.user))
    assert refused.value.key == "not_allowed.own_hand"


def test_a_game_of_no_club_is_its_creators_to_resolve() -> None:
    creator = UserFactory()
    game, _ = services.game_start(
        kind="tonk",
        players=["Ana", "Ben", "Cy"],
        created_by=creator,
        confirmation=Game.Confirmation.DIRECTOR,
    )
    ana, ben, _cy = (Actor(seat_id=s.pk) for s in game.seats.order_by("position"))
    services.hand_record(game=game, entry=ANA_WINS, by=ana)
    with pytest.raises(NotAllowed):
        services.hand_confirm(game=game, number=1, by=ben)
    assert services.hand_confirm(game=game, number=1, by=Actor(user=creator)).status == "confirmed"
    services.hand_record(game=game, entry=BEN_WINS, by=ana)
    services.hand_dispute(game=game, number=2, by=ben, reason="no")
    hand = services.hand_resolve(
        game=game, number=2, by=Actor(user=creator), action="void", reason="dup"
    )
    assert hand.state == Hand.State.VOIDED


def test_a_substitute_gets_the_seat_with_a_new_key() -> None:
    game, _ = services.game_start(kind="tonk", players=["Ana", "Ben"], waiting=True)
    old = game.seats.get(position=1).seat_key
    services.seat_replace(game=game, position=1, seat=SeatSpec("Zed"))
    seat = game.seats.get(position=1)
    assert seat.name == "Zed" and seat.seat_key != old and len(seat.seat_key) >= 24


def test_a_late_retry_of_a_step_answers_as_the_first_and_changes_nothing() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_dispute(game=t.game, number=1, by=t.b, reason="no", idempotency_key="d1")
    services.hand_resolve(
        game=t.game, number=1, by=t.director, action="confirm", reason="ok", idempotency_key="r1"
    )
    version = t.refresh().version
    # The dispute's answer was lost; its retry arrives after the director resolved it.
    again = services.hand_dispute(game=t.game, number=1, by=t.b, reason="no", idempotency_key="d1")
    assert again.status == Hand.Status.CONFIRMED
    services.hand_resolve(
        game=t.game, number=1, by=t.director, action="confirm", reason="ok", idempotency_key="r1"
    )
    assert t.refresh().version == version
    assert len(events(t.game)) == 2
    with pytest.raises(IdempotencyKeyReused):  # the same key for another kind of step
        services.hand_confirm(game=t.game, number=1, by=t.c, idempotency_key="d1")
    # A void retried after a restore does not void again.
    services.hand_record(game=t.game, entry=BEN_WINS, by=t.a)
    services.hand_void(game=t.game, number=2, by=t.a, reason="dup", idempotency_key="v2")
    services.hand_restore(game=t.game, number=2, by=t.a, idempotency_key="s2")
    hand = services.hand_void(game=t.game, number=2, by=t.a, reason="dup", idempotency_key="v2")
    assert Hand.objects.get(pk=hand.pk).state == Hand.State.CURRENT


def test_a_director_who_plays_does_not_resolve_the_tables_hands() -> None:
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    seated = PlayerFactory(club=director.club, user=director.user, name="Dora")
    game, _ = services.game_start(
        kind="tonk",
        players=[SeatSpec("Dora", seated.pk), SeatSpec("Ben"), SeatSpec("Cy")],
        club=director.club,
        confirmation=Game.Confirmation.ONE_OTHER,
        directed=True,
    )
    entry = {
        "dealer": "Cy",
        "end": "knock",
        "by": "Dora",
        "held": {"Dora": "AS", "Ben": "KH", "Cy": "QH"},
    }
    services.hand_record(game=game, entry=entry, by=Actor(user=director.user))
    with pytest.raises(NotAllowed) as refused:
        services.hand_resolve(
            game=game, number=1, by=Actor(user=director.user), action="confirm", reason="mine"
        )
    assert refused.value.key == "not_allowed.referee"
    assert game.hands.get(number=1).status == Hand.Status.PROVISIONAL


def test_a_steps_idempotency_key_belongs_to_its_hand_and_device() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)
    services.hand_record(game=t.game, entry=BEN_WINS, by=t.a)
    ben = Actor(seat_id=t.b.seat_id, device="bens-phone")
    services.hand_confirm(game=t.game, number=1, by=ben, idempotency_key="k1")
    with pytest.raises(IdempotencyKeyReused):  # another hand
        services.hand_confirm(game=t.game, number=2, by=ben, idempotency_key="k1")
    with pytest.raises(IdempotencyKeyReused):  # another device
        services.hand_confirm(game=t.game, number=1, by=t.link, idempotency_key="k1")
    assert game_hand(t, 2).status == Hand.Status.PROVISIONAL


def game_hand(t: Any, number: int) -> Hand:
    return Hand.objects.get(game=t.game, number=number, state=Hand.State.CURRENT)
