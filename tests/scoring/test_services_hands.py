"""Recording, correcting and voiding hands: running totals follow, the rules for voids hold,
and the cached totals always equal a rebuild from the score lines."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError

from scoring import selectors, services
from scoring.errors import GameFinished, IdempotencyKeyReused, StaleRevision, VoidRefused
from scoring.events import GameChanged
from scoring.models import Game, Hand, ScoreLine
from tonkrules.sheet import SheetError

pytestmark = pytest.mark.django_db

P3 = ["Ana", "Ben", "Cy"]


def knock(by: str, **held: str) -> dict[str, Any]:
    return {"dealer": "Cy", "end": "knock", "by": by, "held": held}


ANA_WINS = knock("Ana", Ana="AS", Ben="KH", Cy="QH")  # Ana +2, Ben -1, Cy -1
BEN_WINS = knock("Ben", Ana="KS", Ben="2C", Cy="QC")  # Ben +2
CY_CAUGHT = knock("Cy", Ana="AD", Ben="KD", Cy="9D")  # Cy caught by Ana: Ana +4, Ben -1, Cy -3


def running(game: Game) -> list[dict[str, int]]:
    return [h["running"] for h in selectors.game_results(game)["hands"]]  # type: ignore[index]


def assert_rebuilds(game: Game) -> None:
    """The totals and the numbering state kept on the game row equal a rebuild from the
    hands and their score lines."""
    game.refresh_from_db()
    rebuilt = services.game_totals_rebuild(game=game)
    assert game.totals == rebuilt
    current = selectors.current_hands(game)
    assert game.current_hands == len(current)
    assert game.last_sequence == (current[-1].sequence if current else None)
    assert game.last_number == max([h.number for h in game.hands.all()], default=0)
    assert game.seating == [[s.name, s.pk] for s in game.seats.order_by("position")]
    # The results count the hands that count (issue 24): every current one unless the game
    # requires confirmation, then the confirmed ones.
    assert selectors.game_results(game)["totals"] == selectors.counted_totals(game)
    if game.confirmation == Game.Confirmation.NONE:
        assert selectors.counted_totals(game) == rebuilt
    assert sum(rebuilt.values()) == 0 or game.kind != "tonk"


def tonk_game(*hands: dict[str, Any]) -> Game:
    game, _ = services.game_start(kind="tonk", players=P3)
    for hand in hands:
        services.hand_record(game=game, entry=hand)
    return game


def rook_game() -> Game:
    game, _ = services.game_start(kind="rook", players=P3)
    for rnd in (1, 2, 3):
        melds = {
            1: [["R7", "Y7", "G7"], ["R9", "Y9", "G9"]],
            2: [["R1", "R2", "R3", "R4"], ["B5", "G5", "Y5"]],
            3: [["Y1", "Y2", "Y3", "Y4"], ["G6", "G7", "G8", "G9"]],
        }[rnd]
        services.hand_record(
            game=game,
            entry={
                "round": rnd,
                "dealer": "Ana",
                "out": "Ana",
                "melds": {"Ana": melds},
                "held": {"Ben": "B13", "Cy": "Y4 G8" if rnd != 3 else "B4 G8"},
            },
        )
    return game


def test_correcting_an_early_hand_moves_every_later_running_total() -> None:
    game = tonk_game(ANA_WINS, BEN_WINS, ANA_WINS)
    assert running(game) == [
        {"Ana": 2, "Ben": -1, "Cy": -1},
        {"Ana": 1, "Ben": 1, "Cy": -2},
        {"Ana": 3, "Ben": 0, "Cy": -3},
    ]
    hand, created = services.hand_correct(game=game, number=1, revision=1, entry=CY_CAUGHT)
    assert (hand.number, hand.revision, created) == (1, 2, True)
    assert hand.replaces is not None and hand.replaces.state == Hand.State.SUPERSEDED
    assert running(game) == [
        {"Ana": 4, "Ben": -1, "Cy": -3},
        {"Ana": 3, "Ben": 1, "Cy": -4},
        {"Ana": 5, "Ben": 0, "Cy": -5},
    ]
    assert_rebuilds(game)
    with pytest.raises(StaleRevision) as info:
        services.hand_correct(game=game, number=1, revision=1, entry=ANA_WINS)
    assert info.value.details["current_revision"] == 2
    assert [h.revision for h in selectors.hand_history(game, 1)] == [1, 2]


def test_a_correction_that_breaks_a_rule_changes_nothing() -> None:
    game = tonk_game(ANA_WINS, BEN_WINS)
    lines = ScoreLine.objects.count()
    with pytest.raises(SheetError) as info:
        services.hand_correct(
            game=game, number=2, revision=1, entry=knock("Ben", Ana="KS", Ben="1C", Cy="QC")
        )
    assert (info.value.hand, info.value.error.code, info.value.error.player) == (
        2,
        "bad_card",
        "Ben",
    )
    assert ScoreLine.objects.count() == lines
    assert_rebuilds(game)


def test_tonk_voids_any_hand() -> None:
    game = tonk_game(ANA_WINS, BEN_WINS, CY_CAUGHT)
    voided = services.hand_void(game=game, number=2)
    assert voided.state == Hand.State.VOIDED
    assert running(game) == [{"Ana": 2, "Ben": -1, "Cy": -1}, {"Ana": 6, "Ben": -2, "Cy": -4}]
    assert services.hand_void(game=game, number=2) == voided  # again: unchanged
    assert_rebuilds(game)
    hand, _ = services.hand_record(game=game, entry=BEN_WINS)
    assert (hand.number, hand.revision) == (4, 1)
    services.hand_void(game=game, number=4)
    hand, _ = services.hand_record(game=game, entry=BEN_WINS)  # a new number, never revision 2
    assert (hand.number, hand.revision, hand.replaces) == (5, 1, None)
    assert_rebuilds(game)


def test_rook_voids_only_the_latest_round_and_corrections_keep_the_sequence() -> None:
    game = rook_game()
    with pytest.raises(VoidRefused):
        services.hand_void(game=game, number=2)
    services.hand_void(game=game, number=3)
    assert [h.number for h in selectors.current_hands(game)] == [1, 2]
    assert_rebuilds(game)
    with pytest.raises(
        SheetError
    ) as info:  # round 2 may not become round 3 while round 1 is before it
        services.hand_correct(
            game=game,
            number=2,
            revision=1,
            entry={
                "round": 3,
                "dealer": "Ana",
                "out": "Ana",
                "melds": {"Ana": [["Y1", "Y2", "Y3", "Y4"], ["G6", "G7", "G8", "G9"]]},
                "held": {"Ben": "B13", "Cy": "Y4"},
            },
        )
    assert info.value.error.code == "bad_sequence"
    again, _ = services.hand_record(
        game=game,
        entry={
            "round": 3,
            "dealer": "Ana",
            "out": "Ben",
            "melds": {"Ben": [["Y1", "Y2", "Y3", "Y4"], ["G6", "G7", "G8", "G9"]]},
            "held": {"Ana": "R1", "Cy": "Y4"},
        },
    )
    assert (again.number, again.revision, again.sequence) == (4, 1, 3)  # 3 stays voided
    assert_rebuilds(game)


def test_idempotency_key_replays_and_refuses_reuse() -> None:
    game = tonk_game()
    first, created = services.hand_record(game=game, entry=ANA_WINS, idempotency_key="k")
    again, created_again = services.hand_record(game=game, entry=ANA_WINS, idempotency_key="k")
    assert (created, created_again, again.pk) == (True, False, first.pk)
    assert Hand.objects.filter(game=game).count() == 1
    with pytest.raises(IdempotencyKeyReused):
        services.hand_record(game=game, entry=BEN_WINS, idempotency_key="k")


def test_finished_game_takes_no_new_hand_but_takes_corrections() -> None:
    game = tonk_game(ANA_WINS)
    services.game_finish(game=game)
    with pytest.raises(GameFinished):
        services.hand_record(game=game, entry=BEN_WINS)
    services.hand_correct(game=game, number=1, revision=1, entry=BEN_WINS)
    assert_rebuilds(game)


def test_lines_carry_the_tie_break_facts() -> None:
    game, _ = services.game_start(kind="bluke", players=P3)
    services.hand_record(
        game=game,
        entry={
            "hand": 1,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
            "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
        },
    )
    facts = {
        (line.seat.name, line.points, line.bid_made, line.won)
        for line in ScoreLine.objects.select_related("seat")
    }
    assert facts == {("Ana", 41, True, True), ("Ben", -50, False, False), ("Cy", 32, True, False)}
    rook = rook_game()
    out = ScoreLine.objects.filter(game=rook, went_out=True).values_list("seat__name", flat=True)
    assert list(out) == ["Ana", "Ana", "Ana"]


def test_game_changed_callbacks_run_after_commit(django_capture_on_commit_callbacks: Any) -> None:
    heard: list[GameChanged] = []
    services.game_changed_register(heard.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            game = tonk_game(ANA_WINS)
        assert [event.game_id for event in heard] == [game.pk, game.pk]
    finally:
        services.game_changed_unregister(heard.append)


def test_settle_up_pays_in_fewest_payments() -> None:
    game, _ = services.game_start(kind="tonk", players=P3, stake="0.25", currency="usd")
    services.hand_record(game=game, entry=knock("Ana", Ana="KC QC", Ben="AS 4D", Cy="8H"))
    settle = selectors.settle_up(game)
    assert settle["net"] == {"Ana": -5, "Ben": 4, "Cy": 1}
    assert settle["money"] == {"Ana": "-1.25", "Ben": "1.00", "Cy": "0.25"}
    assert settle["payments"] == [
        {"payer": "Ana", "payee": "Ben", "units": 4, "amount": "1.00"},
        {"payer": "Ana", "payee": "Cy", "units": 1, "amount": "0.25"},
    ]
    assert settle["currency"] == "USD"


def test_a_retry_replays_even_when_the_hand_could_no_longer_be_recorded() -> None:
    game = rook_game()
    round_4 = {
        "round": 4,
        "dealer": "Ana",
        "out": "Ana",
        "melds": {"Ana": [["R7", "Y7", "G7"], ["R9", "Y9", "G9"], ["B2", "G2", "Y2"]]},
        "held": {"Ben": "B13", "Cy": "Y4"},
    }
    first, _ = services.hand_record(game=game, entry=round_4, idempotency_key="r4")
    services.hand_record(
        game=game,
        entry={
            **round_4,
            "round": 5,
            "melds": {"Ana": [["R1", "R2", "R3", "R4"], ["B5", "G5", "Y5"], ["B8", "G8", "Y8"]]},
        },
    )
    # round 4 again would break the sequence now, but it is a retry: the first answer
    again, created = services.hand_record(game=game, entry=round_4, idempotency_key="r4")
    assert (again.pk, created) == (first.pk, False)
    services.game_finish(game=game)
    again, created = services.hand_record(game=game, entry=round_4, idempotency_key="r4")
    assert (again.pk, created) == (first.pk, False)
    assert_rebuilds(game)


@pytest.mark.parametrize("key", [None, "fresh-key"])
def test_only_a_taken_idempotency_key_skips_the_insert(key: str | None) -> None:
    """Any other unique clash (here a number already used, as a stale game row would cause)
    raises instead of passing for a replay."""
    game = tonk_game(ANA_WINS)
    Game.objects.filter(pk=game.pk).update(last_number=0)
    with pytest.raises(IntegrityError):
        services.hand_record(game=game, entry=BEN_WINS, idempotency_key=key)
    assert Hand.objects.filter(game=game).count() == 1
