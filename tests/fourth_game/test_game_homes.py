"""One home per game, the last places (issue 11, "next"): the table page's "Next" panel, the
headline of a rule error, the home page's list of games, the start page's house-rules box and
the tournament texts of a game with a schedule all come from the game's adapter, so a game
defined only under ``tests/`` (Tally: no schedule; Countdown: a schedule, lowest total wins)
shows its own facts and none of the three real games'."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from scoring import games, services
from scoring.entry import error_text
from tests.factories import MembershipFactory, sit
from tests.fourth_game.adapter import TallyAdapter
from tests.fourth_game.countdown import CountdownAdapter
from tests.scoring.test_pages_table import all_errors, form, next_facts, parse, url
from tonkrules.errors import TotalError

#: The three real games' sentences on the home page, in the registry's order.
REAL_GAMES = [
    (
        "Tonk",
        "A fast knock-rummy game for two to four players, played for stakes: spread books and "
        "runs, knock with the lowest total or tonk out.",
    ),
    (
        "Toonerville Rook",
        "A contract-rummy game over eleven rounds with Rook cards: meet each round's contract, "
        "go out first, and keep your total low.",
    ),
    (
        "Bluke",
        "A trick-taking game of 25 hands with two jokers, the Blukes: bid the tricks you expect "
        "to take, then take at least that many.",
    ),
]


def _round(
    *, sequence_from: int | None, hand_limit: int | None, hands_per_round: int
) -> dict[str, SimpleNamespace]:
    """The ``game`` and ``tournament`` a table card reads (their numbers only)."""
    return {
        "game": SimpleNamespace(sequence_from=sequence_from, hand_limit=hand_limit),
        "tournament": SimpleNamespace(hands_per_round=hands_per_round),
    }


def _card(
    adapter: games.GameAdapter,
    *,
    sequence_from: int | None,
    hand_limit: int | None,
    hands_per_round: int,
) -> str:
    """A table card's "what to play" line of ``adapter``'s game, as printed."""
    parts = _round(
        sequence_from=sequence_from, hand_limit=hand_limit, hands_per_round=hands_per_round
    )
    play = adapter.table_play(round_number=1, players=3, options=None, **parts)
    return " ".join(render_to_string(adapter.play_template, {"play": play}).split())


# --- 1. the table page's "Next" panel ---------------------------------------------------------


@pytest.mark.django_db
def test_next_panel_of_a_game_without_a_schedule_names_only_the_dealer(
    tally: TallyAdapter, client: Client
) -> None:
    game, _ = services.game_start(kind="tally", players=["Ana", "Ben", "Cy"])

    doc = parse(client.get(url("table", game)))

    assert next_facts(doc) == {"Deal": "Ana"}  # not Tonk's "Cards dealt 5"


@pytest.mark.django_db
def test_next_panel_of_a_game_with_a_schedule_shows_its_hand_and_the_cards_dealt(
    countdown: CountdownAdapter, client: Client
) -> None:
    game = sit(client, services.game_start(kind="countdown", players=["Ana", "Ben", "Cy"])[0])

    doc = parse(client.get(url("table", game)))
    assert next_facts(doc) == {"Hand": "1", "Cards dealt": "5", "Deal": "Ana"}

    entered = client.post(
        url("hand-new", game),
        form(hand=1, after=0, dealer=0, points_0=3, points_1=9, points_2=4),
    )
    assert entered.status_code == 302
    doc = parse(client.get(url("table", game)))
    assert next_facts(doc) == {"Hand": "2", "Cards dealt": "4", "Deal": "Ben"}


# --- 2. the headline of a rule error ----------------------------------------------------------


def test_bad_total_headline_is_generic_unless_the_game_has_its_own(
    tally: TallyAdapter,
) -> None:
    error = TotalError("deal_tie_total", params={"totals": "49, 50"})

    with translation.override("en"):
        assert error_text(error, kind="tally").startswith("The totals do not add up: ")
        assert error_text(error).startswith("The totals do not add up: ")
        assert error_text(error, kind="tonk").startswith("This total does not tonk: ")


@pytest.mark.django_db
def test_bad_total_on_the_tonk_table_page_keeps_tonks_headline(client: Client) -> None:
    game, _ = services.game_start(kind="tonk", players=["Ana", "Ben", "Cy"], stake="0.25")
    sit(client, game)

    response = client.post(
        url("hand-new", game),
        form(dealer=0, after=0, end="deal_tonk", by=1, held_1="KH KD QS 9C 8D"),
    )

    assert response.status_code == 422
    assert any(e.startswith("This total does not tonk") for e in all_errors(parse(response)))


# --- 3. the home page's list of games ---------------------------------------------------------


def _home_games(client: Client) -> list[tuple[str, str]]:
    doc = parse(client.get("/"))
    items = doc.find("ul", class_="games").find_all("li")
    return [(li.find("h2").text(), p[0].text() if (p := li.find_all("p")) else "") for li in items]


@pytest.mark.django_db
def test_home_page_lists_the_three_games_with_todays_sentences_in_order(client: Client) -> None:
    assert _home_games(client) == REAL_GAMES


@pytest.mark.django_db
def test_home_page_lists_every_registered_game_with_its_adapters_description(
    tally: TallyAdapter, countdown: CountdownAdapter, client: Client
) -> None:
    assert _home_games(client) == [
        *REAL_GAMES,
        ("Tally", "A test game: each player reports their points, and the highest total wins."),
        ("Countdown", ""),  # no description: its name only
    ]


# --- 4. the start page's house-rules box ------------------------------------------------------


@pytest.mark.django_db
def test_start_page_shows_no_house_rules_box_for_a_game_without_house_rules(
    tally: TallyAdapter, client: Client
) -> None:
    client.force_login(MembershipFactory().user)

    doc = parse(client.get("/games/new/"))

    boxes = [f.attrs["data-game"] for f in doc.find_all("fieldset") if "data-game" in f.attrs]
    assert boxes == ["tonk", "rook", "bluke"]  # Tally: no house rules, no stakes, no box


# --- 5. the tournament texts of a game with a schedule ----------------------------------------


def test_hands_help_of_a_game_with_a_schedule_says_each_round_continues_the_sequence(
    countdown: CountdownAdapter,
) -> None:
    with translation.override("en"):
        assert countdown.hands_help() == (
            "A whole game is 5 hands. With fewer, each round continues where the last stopped "
            "(hands 1–5, 6–10, …), starting again after 5. Default: 2."
        )


def test_hands_help_of_the_real_games_is_unchanged(tally: TallyAdapter) -> None:
    with translation.override("en"):
        assert games.adapter_for("bluke").hands_help() == (
            "A whole game is 25 hands. With fewer, each round continues where the last stopped "
            "(hands 1–5, 6–10, …), starting again after 25. Default: 25."
        )
        assert games.adapter_for("tonk").hands_help() == (
            "Each round is a fresh sitting of this many hands. Default: 10."
        )
        assert tally.hands_help() == (
            "Each round is a fresh sitting of this many hands. Default: 2."
        )


def test_table_card_of_a_game_with_a_schedule_names_the_hands_the_table_plays(
    countdown: CountdownAdapter,
) -> None:
    with translation.override("en"):
        assert _card(countdown, sequence_from=4, hand_limit=3, hands_per_round=3) == (
            "hands 4–5, 1; cards dealt: 2, 1, 5."
        )
        assert _card(countdown, sequence_from=3, hand_limit=1, hands_per_round=1) == (
            "hand 3; cards dealt: 3."
        )
        assert countdown.round_play_text(
            **_round(sequence_from=4, hand_limit=3, hands_per_round=3)
        ) == ("Hands 4 to 1")


def test_table_card_of_a_game_without_a_schedule_counts_its_hands(tally: TallyAdapter) -> None:
    with translation.override("en"):
        assert _card(tally, sequence_from=None, hand_limit=None, hands_per_round=2) == "2 hands."
        assert tally.round_play_text(
            **_round(sequence_from=None, hand_limit=None, hands_per_round=2)
        ) == ("2 hands")
