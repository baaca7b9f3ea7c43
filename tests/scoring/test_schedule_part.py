"""Games that play a fixed part of a schedule (a tournament table): waiting until opened, a
first round or hand, a most number of hands, Bluke's hands starting again after 25, and a
substitute seated before any hand."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring import services
from scoring.errors import GameNotOpen, HandLimitReached, SeatsFixed
from scoring.models import Game
from scoring.services import SeatSpec
from tests.factories import sit
from tonkrules.sheet import SheetError

pytestmark = pytest.mark.django_db

P3 = ["Ana", "Ben", "Cyd"]


def rook_round(number: int) -> dict[str, object]:
    return {"round": number, "dealer": "Ana", "out": None, "held": {n: "R1" for n in P3}}


def bluke_hand(number: int, cards: int) -> dict[str, object]:
    tricks = {"Ana": cards, "Ben": 0, "Cyd": 0}
    return {
        "hand": number,
        "dealer": "Ana",
        "trump": "S",
        "bids": dict.fromkeys(P3, 1),
        "tricks": tricks,
    }


def test_a_waiting_game_takes_no_hand_until_it_is_opened() -> None:
    game, _ = services.game_start(kind="rook", players=P3, waiting=True)

    with pytest.raises(GameNotOpen):
        services.hand_record(game=game, entry=rook_round(1))
    assert game.hands.count() == 0

    opened = services.game_open(game=game)
    assert opened.state == Game.State.IN_PLAY
    hand, created = services.hand_record(game=game, entry=rook_round(1))
    assert (hand.sequence, created) == (1, True)


def test_a_rook_table_of_round_5_takes_round_5_only_and_one_round() -> None:
    game, _ = services.game_start(kind="rook", players=P3, sequence_from=5, hand_limit=1)

    with pytest.raises(SheetError) as caught:
        services.hand_record(game=game, entry=rook_round(4))
    assert caught.value.error.code == "bad_sequence"

    services.hand_record(game=game, entry=rook_round(5), idempotency_key="k5")
    with pytest.raises(HandLimitReached) as limit:
        services.hand_record(game=game, entry=rook_round(6))
    assert limit.value.to_dict()["limit"] == 1
    # A retry of the recorded round is answered with it, even at the limit.
    replay, created = services.hand_record(game=game, entry=rook_round(5), idempotency_key="k5")
    assert (replay.sequence, created) == (5, False)


def test_voiding_the_only_round_asks_for_the_tables_round_again() -> None:
    game, _ = services.game_start(kind="rook", players=P3, sequence_from=5, hand_limit=1)
    hand, _ = services.hand_record(game=game, entry=rook_round(5))
    services.hand_void(game=game, number=hand.number)

    again, _ = services.hand_record(game=game, entry=rook_round(5))
    assert again.sequence == 5


def test_bluke_hands_start_again_at_1_after_25_when_the_game_wraps() -> None:
    game, _ = services.game_start(
        kind="bluke", players=P3, sequence_from=24, hand_limit=3, sequence_wraps=True
    )
    for number in (24, 25, 1):
        services.hand_record(game=game, entry=bluke_hand(number, abs(number - 13) + 1))
    assert list(game.hands.values_list("sequence", flat=True).order_by("number")) == [24, 25, 1]


def test_bluke_hand_26_stays_an_error_when_the_game_does_not_wrap() -> None:
    game, _ = services.game_start(kind="bluke", players=P3, sequence_from=25)
    services.hand_record(game=game, entry=bluke_hand(25, 13))

    with pytest.raises(SheetError) as caught:
        services.hand_record(game=game, entry=bluke_hand(1, 13))
    assert caught.value.error.code == "bad_sequence"


def test_calling_time_lowers_the_limit_to_the_hand_in_progress_never_raises_it() -> None:
    game, _ = services.game_start(kind="tonk", players=P3, hand_limit=10)
    tonk_out = {"dealer": "Ana", "end": "tonk_out", "by": "Ben", "held": {}}
    services.hand_record(game=game, entry=tonk_out)

    assert services.game_limit_set(game=game, hand_limit=2).hand_limit == 2
    assert services.game_limit_set(game=game, hand_limit=5).hand_limit == 2
    services.hand_record(game=game, entry=tonk_out)
    with pytest.raises(HandLimitReached):
        services.hand_record(game=game, entry=tonk_out)


def test_a_substitute_takes_a_seat_before_any_hand_and_not_after() -> None:
    game, _ = services.game_start(kind="tonk", players=P3)

    game = services.seat_replace(game=game, position=1, seat=SeatSpec("Sam"))
    assert [name for name, _seat in game.seating] == ["Ana", "Sam", "Cyd"]
    assert list(game.seats.order_by("position").values_list("name", flat=True)) == [
        "Ana",
        "Sam",
        "Cyd",
    ]
    with pytest.raises(SheetError):
        services.seat_replace(game=game, position=2, seat=SeatSpec("Ana"))  # already seated
    services.hand_record(
        game=game, entry={"dealer": "Ana", "end": "tonk_out", "by": "Sam", "held": {}}
    )
    with pytest.raises(SeatsFixed):
        services.seat_replace(game=game, position=0, seat=SeatSpec("Zoe"))


def test_the_table_page_of_a_waiting_game_says_so_and_shows_no_entry_form(client: Client) -> None:
    game, _ = services.game_start(kind="rook", players=P3, waiting=True, sequence_from=3)
    sit(client, game)

    page = client.get(f"/t/{game.table_key}/").content.decode()

    assert "not open yet" in page
    assert 'id="entry"' not in page
    services.game_open(game=game)
    page = client.get(f"/t/{game.table_key}/").content.decode()
    assert 'name="round" value="3"' in page
