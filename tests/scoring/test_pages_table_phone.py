"""The table page on a phone (issue 12): the entry form before the sheet, the live region every
phone polls (an ETag answered 304 while nothing changed), a conflict's form taking the current
dealer and number, card buttons named by what they show, a tournament table's event, round,
table and deadline, and "My games" keeping tournament tables apart from casual games."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db.models import F
from django.test import Client

from scoring import services
from scoring.models import Game, Hand
from tests.factories import ClubFactory, MembershipFactory, sit
from tests.scoring.test_pages_table import (
    CAUGHT_KNOCK,
    CY_TONKS_OUT,
    GAMES,
    HTMX,
    ROOK_ROUND_1,
    Node,
    form,
    parse,
    post_hand,
    rook_rounds,
    tonk_game,
    url,
    value_of,
)
from tournaments.models import Round, Table, Tournament

pytestmark = pytest.mark.django_db


def order_of(doc: Node, *ids: str) -> list[int]:
    """Where each element (by id) comes in the page, in document order."""
    positions = {node.attrs.get("id"): i for i, node in enumerate(doc.iter())}
    return [positions[i] for i in ids]


def etag_of(response: Any) -> str:
    return str(response["ETag"])


def tournament_table(game: Game, *, number: int = 3, round_number: int = 2) -> Table:
    """Seat ``game`` as table ``number`` of round ``round_number`` of a Tonk tournament."""
    tournament = Tournament.objects.create(
        club=ClubFactory(),
        name="Friday Tonk",
        kind="tonk",
        round_count=4,
        sizes=[3],
        prefer=3,
        hands_per_round=3,
        time_zone="Europe/Paris",
    )
    rnd = Round.objects.create(
        tournament=tournament,
        number=round_number,
        state=Round.State.PLAYING,
        deadline=dt.datetime(2026, 6, 5, 19, 45, tzinfo=dt.UTC),
    )
    return Table.objects.create(round=rnd, number=number, game=game)


# --- the page's order -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tonk", "rook", "bluke"])
def test_the_form_comes_right_after_the_next_facts_and_before_the_sheet_and_sharing(
    client: Client, kind: str
) -> None:
    game = sit(client, GAMES[kind]())

    doc = parse(client.get(url("table", game)))

    assert order_of(doc, "next-h", "entry", "sheet-h", "share-h") == sorted(
        order_of(doc, "next-h", "entry", "sheet-h", "share-h")
    )
    # The Record button is the form's last part (sticky at the bottom of the viewport).
    actions = doc.find("form", id="entry").find_all("div", class_="actions")
    assert [b.attrs["id"] for b in actions[-1].find_all("button")] == ["submit-hand"]


def test_the_form_stays_first_after_many_hands(client: Client) -> None:
    game = sit(client, tonk_game())
    for _ in range(12):
        assert post_hand(client, game, dict(CY_TONKS_OUT, dealer=0)).status_code == 302

    doc = parse(client.get(url("table", game)))

    first_hand, entry = order_of(doc, "hand-1", "entry")
    assert entry < first_hand
    assert len(doc.find("table", id="sheet").find("tbody").find_all("tr")) == 12


# --- card buttons -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tonk", "rook", "bluke"])
def test_every_card_button_is_named_by_what_it_shows(client: Client, kind: str) -> None:
    doc = parse(client.get(url("table", sit(client, GAMES[kind]()))))

    buttons = doc.find("div", id="cardgrid").find_all("button", class_="cardtap")
    assert len(buttons) == {"tonk": 52, "rook": 57, "bluke": 54}[kind]
    for button in buttons:
        assert "aria-label" not in button.attrs  # the name is the text, starting with the face
        face = "".join(c for c in button.children if isinstance(c, str)).strip()
        assert face and button.text().startswith(face)
    by_card = {b.attrs["data-card"]: b.text() for b in buttons}
    if kind == "rook":
        assert by_card["R5"] == "R5 Red" and by_card["ROOK"] == "ROOK Rook card"
    else:
        assert by_card["AS"] == "A♠ Spades" and by_card["10H"] == "10♥ Hearts"
    if kind == "bluke":
        assert (by_card["HB"], by_card["LB"]) == ("HB High Bluke", "LB Low Bluke")


# --- the live region --------------------------------------------------------------------------


def test_the_live_region_is_the_next_facts_and_the_sheet_without_the_form(client: Client) -> None:
    game = sit(client, tonk_game())
    post_hand(client, game, dict(CAUGHT_KNOCK))

    response = client.get(url("live", game))

    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    doc = parse(response)
    live = [n.attrs["id"] for n in doc.iter() if "data-live" in n.attrs]
    assert live == ["live-next", "live-sheet"]
    assert doc.find_all("form") == [] and doc.find_all("input") == []
    assert doc.find("div", id="live-next").attrs["data-mode"] == "open"
    assert doc.find("div", id="live-next").attrs["data-version"] in etag_of(response)
    assert "Deal Ana" in doc.find("div", id="live-next").text()  # Cy dealt hand 1
    assert len(doc.find("table", id="sheet").find("tbody").find_all("tr")) == 1


def test_the_live_region_answers_304_while_nothing_changed(client: Client) -> None:
    game = sit(client, tonk_game())
    first = client.get(url("live", game))

    again = client.get(url("live", game), HTTP_IF_NONE_MATCH=etag_of(first))

    assert again.status_code == 304
    assert again.content == b""


@pytest.mark.parametrize("change", ["record", "correct", "void", "finish"])
def test_the_live_region_changes_its_etag_with_every_write(client: Client, change: str) -> None:
    game = sit(client, tonk_game())
    services.hand_record(
        game=game, entry={"dealer": "Cy", "end": "tonk_out", "by": "Ana", "held": {}}
    )
    before = client.get(url("live", game))

    if change == "record":
        services.hand_record(
            game=game, entry={"dealer": "Ana", "end": "tonk_out", "by": "Ben", "held": {}}
        )
    elif change == "correct":
        services.hand_correct(
            game=game,
            number=1,
            revision=1,
            entry={"dealer": "Cy", "end": "tonk_out", "by": "Ben", "held": {}},
        )
    elif change == "void":
        services.hand_void(game=game, number=1)
    else:
        services.game_finish(game=game)
    after = client.get(url("live", game), HTTP_IF_NONE_MATCH=etag_of(before))

    assert after.status_code == 200
    assert etag_of(after) != etag_of(before)
    sheet = parse(after).find("div", id="live-sheet").text()
    if change == "void":
        assert "No hands yet." in sheet
    elif change == "correct":
        assert "✎2" in sheet


def test_the_etag_covers_the_rows_the_region_is_built_from_not_a_counter(
    client: Client,
) -> None:
    # Issue 14: the ETag is a digest of every column of the rows the region is built from
    # (scoring.live): a hand's status changed behind the services' back (no version bump) is
    # a 200 that shows it; any other column changed (here the counter alone) is a 200 too,
    # with the same body: never a 304 for a row that changed.
    game = sit(client, tonk_game())
    services.hand_record(
        game=game, entry={"dealer": "Cy", "end": "tonk_out", "by": "Ana", "held": {}}
    )
    before = client.get(url("live", game))
    assert "Disputed" not in before.content.decode()
    assert client.get(url("live", game), HTTP_IF_NONE_MATCH=etag_of(before)).status_code == 304

    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
    bumped = client.get(url("live", game), HTTP_IF_NONE_MATCH=etag_of(before))
    assert bumped.status_code == 200
    assert etag_of(bumped) != etag_of(before)

    game.hands.update(status=Hand.Status.DISPUTED)
    after = client.get(url("live", game), HTTP_IF_NONE_MATCH=etag_of(bumped))
    assert after.status_code == 200
    assert "Disputed" in after.content.decode()


def test_the_table_page_carries_the_version_its_live_region_shows(client: Client) -> None:
    game = sit(client, tonk_game())

    doc = parse(client.get(url("table", game)))

    live = doc.find("div", id="live-next")
    assert live.attrs["data-version"] == etag_of(client.get(url("live", game))).strip('"')
    main = doc.find("div", id="table-main")
    assert main.attrs["data-live-url"] == url("live", game)
    assert main.attrs["data-poll"] == "3"


def test_the_live_region_of_a_wrong_key_is_404(client: Client) -> None:
    game = sit(client, tonk_game())

    assert client.get(f"/t/not-{game.table_key}/live/").status_code == 404


# --- a conflict -------------------------------------------------------------------------------


def test_a_conflict_keeps_the_typed_cards_and_takes_the_current_dealer(client: Client) -> None:
    game = sit(client, tonk_game())
    # Phone A records Cy's deal (a caught knock); phone B typed a hand for the same deal.
    assert post_hand(client, game, form(**CAUGHT_KNOCK, after=0)).status_code == 302
    typed = dict(CAUGHT_KNOCK, held_0="2S 3S", held_1="KH", held_2="9D 9C", after=0)

    response = post_hand(client, game, form(**typed), **HTMX)

    assert response.status_code == 409
    doc = parse(response)
    assert "Another phone entered a hand meanwhile" in doc.find("div", id="entry-error").text()
    assert value_of(doc, "dealer") == "0"  # Cy dealt hand 1: Ana deals now
    assert value_of(doc, "after") == "1"
    assert [value_of(doc, f"held_{i}") for i in range(3)] == ["2S 3S", "KH", "9D 9C"]
    assert value_of(doc, "end") == "knock" and value_of(doc, "by") == "0"
    assert Hand.objects.filter(game=game).count() == 1


def test_a_rook_conflict_takes_the_next_round_and_dealer(client: Client) -> None:
    game = rook_rounds(client, ROOK_ROUND_1)  # round 1 dealt by Ana, entered by phone A
    typed = dict(ROOK_ROUND_1, after=0, melds_0="R2 Y2 G2\nB4 B4 R4", held_1="G5")

    response = post_hand(client, game, form(**typed))

    assert response.status_code == 409
    doc = parse(response)
    assert value_of(doc, "round") == "2"
    assert value_of(doc, "dealer") == "1"
    assert value_of(doc, "melds_0") == "R2 Y2 G2\nB4 B4 R4"
    assert value_of(doc, "held_1") == "G5"


# --- tournament tables ------------------------------------------------------------------------


def test_a_tournament_table_shows_its_event_round_table_and_deadline(client: Client) -> None:
    game = sit(client, tonk_game())
    table = tournament_table(game)

    doc = parse(client.get(url("table", game)))

    event = doc.find("p", id="event")
    # 19:45 UTC is 21:45 in Paris in June; the zone is named by its place (CLDR).
    assert event.text() == "Friday Tonk · round 2, table 3 · ends at 21:45 (Paris)"
    link = event.find("a")
    assert link.attrs["href"] == f"/tournaments/{table.round.tournament_id}/"
    assert event.find("time").attrs["datetime"].startswith("2026-06-05T21:45:00")


def test_a_casual_game_shows_no_event(client: Client) -> None:
    doc = parse(client.get(url("table", sit(client, tonk_game()))))

    assert doc.find_all("p", id="event") == []


# --- my games ---------------------------------------------------------------------------------


def test_my_games_keeps_tournament_tables_apart_from_casual_games(client: Client) -> None:
    membership = MembershipFactory()
    client.force_login(membership.user)
    casual, _ = services.game_start(
        kind="rook", players=["Xu", "Yo", "Zed"], created_by=membership.user
    )
    seated, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben", "Cy"], created_by=membership.user
    )
    tournament_table(seated, number=4, round_number=1)

    doc = parse(client.get("/games/"))

    headings = [h.text() for h in doc.find_all("h2")]
    assert headings == ["Tournament tables", "Casual games"]
    tables = doc.find("ul", id="tournament-tables")
    games = doc.find("ul", id="casual-games")
    assert [a.attrs["href"] for a in tables.find_all("a")] == [url("table", seated)]
    assert [a.attrs["href"] for a in games.find_all("a")] == [url("table", casual)]
    assert "Friday Tonk: round 1, table 4" in tables.text()


def test_my_games_without_tournament_tables_has_no_such_section(client: Client) -> None:
    membership = MembershipFactory()
    client.force_login(membership.user)
    services.game_start(kind="rook", players=["Xu", "Yo", "Zed"], created_by=membership.user)

    doc = parse(client.get("/games/"))

    assert [h.text() for h in doc.find_all("h2")] == ["Casual games"]
