# ruff: noqa: F811 (the fixtures of test_pages_director, imported and used by name)
"""The director's pages and the public standings with trust at the table (issue 12): the
confirmation option on the new-tournament page, the dashboard's flags for disputed and
provisional tables and its "new links" button, the table cards' seat links, the audit page,
and public standings that mark provisional results and players not reported."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring import services as scoring_services
from scoring.models import Game, Seat
from scoring.permissions import Actor
from tests.tournaments.test_pages_director import (  # noqa: F401 (fixtures)
    Capture,
    Page,
    _tonk_with_two_tables,
    act,
    club,
    director,
    plain,
    text,
    url,
    web,
)
from tournaments import services
from tournaments.models import AuditEntry, Club, Round, Table, Tournament

pytestmark = pytest.mark.django_db

#: A row of the public standings: its class, where its table stands, its cells.
ROW = r'<tr data-registration="\d+"( class="[a-z]+")?( data-in-play="([a-z_]+)")?>(.*?)</tr>'


def _seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game_id=game.pk).order_by("position"))


def _knock_as(game: Game, position: int, number: int = 1) -> None:
    """Hand ``number`` of a two-player Tonk table, entered at seat ``position``."""
    a, b = _seats(game)
    hand = {"dealer": b.name, "end": "knock", "by": a.name, "held": {a.name: "AS 2D", b.name: "KH"}}
    scoring_services.hand_record(
        game=game,
        entry=hand,
        by=Actor(seat_id=(a, b)[position].pk),
        idempotency_key=f"t-{game.pk}-{number}",
    )


def _published(
    club: Club, director: Any, capture: Capture, **kwargs: Any
) -> tuple[Tournament, Round, list[Table]]:
    tournament, rnd = _tonk_with_two_tables(club, director, capture, **kwargs)
    with capture(execute=True):
        services.round_publish(round=rnd, by=director)
    return tournament, rnd, list(rnd.tables.select_related("game").order_by("number"))


# --- the option -----------------------------------------------------------------------------------


def test_the_new_tournament_page_offers_who_confirms_with_its_default(
    web: Client,
    club: Club,
) -> None:
    page = text(web.get(url("new", club.pk)))
    form = Page(page, url("new", club.pk)).data()
    assert form["confirmation"] == ["one_other"]  # the default, checked
    assert "the standings and the next round&#x27;s seating count confirmed hands only" in page
    form["name"] = ["Checked Rook"]
    form["confirmation"] = ["director"]

    response = web.post(url("new", club.pk), form)

    assert response.status_code == 303
    tournament = Tournament.objects.get(name="Checked Rook")
    assert tournament.confirmation == "director"
    manage = plain(web.get(url("manage", tournament.pk)))
    assert "Hands count once confirmed by A club director" in manage


# --- the dashboard --------------------------------------------------------------------------------


def test_the_grid_flags_a_disputed_table_with_a_link_to_the_hand_and_a_provisional_one(
    web: Client,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd, (first, second) = _published(
        club, director, django_capture_on_commit_callbacks
    )
    with django_capture_on_commit_callbacks(execute=True):
        _knock_as(first.game, 0)
        _knock_as(second.game, 0)
        scoring_services.hand_dispute(
            game=first.game, number=1, by=Actor(seat_id=_seats(first.game)[1].pk), reason="No"
        )

    body = text(web.get(url("grid", tournament.pk, rnd.number)))

    cards = dict(
        re.findall(
            r'id="table-(\d)">(.*?)(?=<li class="table-card|</ol>)',
            body,
            re.S,
        )
    )
    hand = reverse("scoring:hand-edit", kwargs={"key": first.game.table_key, "number": 1})
    assert 'class="flag flag-disputed"' in cards["1"] and f'href="{hand}"' in cards["1"]
    assert "Resolve hand 1" in cards["1"]
    assert "flag-disputed" not in cards["2"]
    assert "1 hand waits for confirmation" in cards["2"]
    assert "waits for confirmation" not in cards["1"]


def test_closing_a_round_with_unconfirmed_hands_is_refused_on_the_dashboard(
    act: Any,
    web: Client,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd, (first, second) = _published(
        club, director, django_capture_on_commit_callbacks
    )
    with django_capture_on_commit_callbacks(execute=True):
        _knock_as(first.game, 0)  # provisional
    audit = list(AuditEntry.objects.filter(tournament=tournament).values_list("pk", flat=True))

    refused = act(url("close", tournament.pk, rnd.number), {"reason": "Time"})

    assert refused.status_code == 200
    assert [str(m) for m in refused.context["messages"]] == [
        "Round 1 cannot close yet. Tables with hands not confirmed: 1. Confirm or resolve "
        "those hands first: a director may confirm a hand, with a reason, on the table's hand "
        "page."
    ]
    assert "Close round 1" in plain(refused)  # still offered
    rnd.refresh_from_db()
    assert rnd.state == Round.State.PLAYING
    assert list(rnd.tables.order_by("number").values_list("state", flat=True)) == [
        Table.State.PLAYING,
        Table.State.SEATED,
    ]
    assert not Game.objects.filter(pk__in=[first.game_id, second.game_id], state="finished")
    assert list(AuditEntry.objects.filter(tournament=tournament).values_list("pk", flat=True)) == (
        audit
    )

    with django_capture_on_commit_callbacks(execute=True):
        scoring_services.hand_confirm(game=first.game, number=1, by=Actor(user=director))
    closed = act(url("close", tournament.pk, rnd.number), {"reason": "Time"})

    assert "Round 1 is closed." in [str(m) for m in closed.context["messages"]]
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert list(
        AuditEntry.objects.filter(tournament=tournament)
        .exclude(pk__in=audit)
        .values_list("action", "reason")
    ) == [("close", "Time"), ("complete", "")]


def test_new_links_for_a_table_replace_its_keys_and_are_audited(
    act: Any,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd, (first, _second) = _published(
        club, director, django_capture_on_commit_callbacks
    )
    old = first.game.table_key

    page = act(
        url("links", tournament.pk, rnd.number, first.number), {"reason": "Shared in a chat"}
    )

    assert Game.objects.get(pk=first.game_id).table_key != old
    assert "Table 1 has new links: print its card again." in plain(page)
    entry = AuditEntry.objects.filter(tournament=tournament).last()
    assert entry is not None
    assert (entry.action, entry.table_number, entry.user, entry.reason) == (
        "rotate",
        1,
        director,
        "Shared in a chat",
    )


def test_table_cards_print_each_seats_private_link_and_qr_code(
    web: Client,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd = _tonk_with_two_tables(club, director, django_capture_on_commit_callbacks)

    body = text(web.get(url("cards", tournament.pk, rnd.number)))

    cards = body.split('<article class="tcard"')[1:]
    for table, card in zip(rnd.tables.order_by("number"), cards, strict=True):
        for seat in _seats(table.game):
            link = f"http://testserver/s/{seat.seat_key}/"
            assert f'href="{link}"' in card
            assert f"QR code of {seat.name}'s seat link" in card
        assert card.count("<svg") == 1 + len(_seats(table.game))


# --- the audit page -------------------------------------------------------------------------------


def test_the_audit_page_lists_round_changes_and_hand_steps_with_who_and_why(
    web: Client,
    act: Any,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd, (first, second) = _published(
        club, director, django_capture_on_commit_callbacks
    )
    a, b = _seats(first.game)
    with django_capture_on_commit_callbacks(execute=True):
        _knock_as(first.game, 0)
        scoring_services.hand_dispute(
            game=first.game, number=1, by=Actor(seat_id=b.pk), reason="Miscounted"
        )
        scoring_services.hand_resolve(
            game=first.game,
            number=1,
            by=Actor(user=director),
            action="confirm",
            reason="Counted again",
        )
        _knock_as(second.game, 0)
        # Confirmed: a round closes once no table waits for a confirmation.
        scoring_services.hand_confirm(
            game=second.game, number=1, by=Actor(seat_id=_seats(second.game)[1].pk)
        )
    act(url("close", tournament.pk, rnd.number), {"reason": "Hall closes"})

    whole = plain(web.get(url("audit", tournament.pk)))
    table = plain(web.get(url("audit", tournament.pk) + "?round=1&table=1"))

    user = director.get_username()
    assert f"Published a round round 1 {user}" in whole
    assert f"Closed a round round 1 {user} Hall closes" in whole
    assert f"Entered round 1 · table 1 · hand 1, revision 1 {a.name} (seat)" in whole
    assert f"Disputed round 1 · table 1 · hand 1, revision 1 {b.name} (seat) Miscounted" in whole
    assert (
        f"Resolved: confirmed as entered round 1 · table 1 · hand 1, revision 1 {user} "
        "Counted again"
    ) in whole
    assert "table 2" in whole
    assert "Miscounted" in table and "table 2" not in table
    assert "Closed a round" not in table


# --- public standings -----------------------------------------------------------------------------


def test_public_standings_mark_provisional_results_and_list_unreported_players_unranked(
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, _rnd, (first, second) = _published(
        club, director, django_capture_on_commit_callbacks
    )
    with django_capture_on_commit_callbacks(execute=True):
        _knock_as(first.game, 0)  # provisional: nobody confirmed it

    body = text(Client().get(url("standings", tournament.pk)))

    rows = re.findall(
        r'<tr data-registration="\d+"( class="[a-z]+")?( data-in-play="([a-z_]+)")?>(.*?)</tr>',
        body,
        re.S,
    )
    marks = {re.findall(r'">([^<]+)</a>', row[3])[0]: (row[0], row[2]) for row in rows}
    firsts = {s.name for s in _seats(first.game)}
    seconds = {s.name for s in _seats(second.game)}
    # No hand counts yet (the only one is provisional): nobody is ranked, nobody "1=" on 0.
    assert set(marks) == firsts | seconds
    assert {marks[n] for n in firsts} == {(' class="unranked"', "provisional")}
    assert {marks[n] for n in seconds} == {(' class="unranked"', "not_reported")}
    assert "1=" not in body
    words = plain(Client().get(url("standings", tournament.pk)))
    assert words.count("provisional") >= 2 and words.count("not reported") >= 2

    # Confirmed by the other seat: the first table's players are ranked, the others still not.
    with django_capture_on_commit_callbacks(execute=True):
        scoring_services.hand_confirm(
            game=first.game, number=1, by=Actor(seat_id=_seats(first.game)[1].pk)
        )
    body = text(Client().get(url("standings", tournament.pk)))
    rows = re.findall(
        r'<tr data-registration="\d+"( class="[a-z]+")?( data-in-play="([a-z_]+)")?>(.*?)</tr>',
        body,
        re.S,
    )
    assert [(row[0], row[2]) for row in rows] == [
        ("", "reported"),
        ("", "reported"),
        (' class="unranked"', "not_reported"),
        (' class="unranked"', "not_reported"),
    ]
