"""The table pages of trust at the table (issue 12) through the Django test client: a seat's
private link and the seat chooser, each hand's status and who entered it, Confirm, Dispute, a
director's Resolve, voids kept struck through with who and why and restored, the seats' links
and new links, and a table's audit page; and the refusals (a member not seated, another
table's seat, anonymous), each with nothing changed."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.models import Game, Hand, HandEvent, ScoreLine, Seat
from scoring.permissions import Actor
from scoring.services import SeatSpec
from tests.factories import ClubFactory, MembershipFactory, UserFactory
from tests.hands import next_number
from tests.scoring.test_pages_table import (
    CAUGHT_KNOCK,
    CY_TONKS_OUT,
    P3,
    Node,
    form,
    parse,
    url,
)
from tournaments.models import Membership, Player

pytestmark = pytest.mark.django_db


# --- the cast -------------------------------------------------------------------------------------


@pytest.fixture
def club() -> Any:
    return ClubFactory()


@pytest.fixture
def director(club: Any) -> Any:
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def member(club: Any) -> Any:
    """A member of the club who sits at none of its tables."""
    return MembershipFactory(club=club).user


def start(club: Any, *, kind: str = "tonk", directed: bool, confirmation: str, **kw: Any) -> Game:
    players = [
        SeatSpec(name, Player.objects.get_or_create(club=club, name=name)[0].pk) for name in P3
    ]
    extra = {"stake": "0.25", "currency": "USD"} if kind == "tonk" else {}
    game, _created = services.game_start(
        kind=kind,
        players=players,
        club=club,
        directed=directed,
        confirmation=confirmation,
        **extra,
        **kw,
    )
    return game


@pytest.fixture
def table(club: Any) -> Game:
    """A tournament table of three (Ana, Ben, Cy): one other seat confirms each hand."""
    return start(club, directed=True, confirmation=Game.Confirmation.ONE_OTHER)


def seat_of(game: Game, name: str) -> Seat:
    return Seat.objects.get(game=game, name=name)


def phone(game: Game, name: str | None = None, *, user: Any = None) -> Client:
    """A phone at the table: opened by the seat link of ``name`` (or the table link alone),
    signed in as ``user`` if given."""
    client = Client()
    if user is not None:
        client.force_login(user)
    if name is not None:
        key = seat_of(game, name).seat_key
        response = client.get(reverse("scoring:seat", kwargs={"seat_key": key}))
        assert response.status_code == 302
    return client


def counts(game: Game) -> tuple[Any, ...]:
    """What a refused request must leave as it was: the rows of the game's trail and the
    game's version."""
    game.refresh_from_db()
    return (
        list(Hand.objects.filter(game=game).values_list("number", "revision", "state", "status")),
        HandEvent.objects.filter(game=game).count(),
        ScoreLine.objects.filter(hand__game=game).count(),
        game.version,
        game.table_key,
    )


def enter(client: Client, game: Game, data: dict[str, Any] = CAUGHT_KNOCK) -> Any:
    return client.post(url("hand-new", game), form(**{"after": next_number(game) - 1, **data}))


def row_status(doc: Node, number: int) -> str:
    return doc.find("tr", id=f"hand-{number}").find("span", class_="status").text()


def buttons(doc: Node) -> list[str]:
    return [b.text() for b in doc.find_all("button")] + [
        a.text() for a in doc.find_all("a", class_="button")
    ]


# --- the seat this device is ----------------------------------------------------------------------


def test_seat_link_remembers_the_seat_for_that_game_and_opens_the_table(table: Game) -> None:
    client = Client()
    ben = seat_of(table, "Ben")

    response = client.get(reverse("scoring:seat", kwargs={"seat_key": ben.seat_key}))

    assert response.status_code == 302
    assert response["Location"] == url("table", table)
    assert client.session["seats"] == {str(table.pk): ben.pk}
    doc = parse(client.get(url("table", table)))
    assert doc.find("p", id="you-are").text() == "You are Ben (seat 2) · change"
    assert doc.find_all("form", id="entry") != []


def test_an_unknown_seat_link_is_404_and_remembers_nothing(table: Game) -> None:
    client = Client()

    assert client.get(reverse("scoring:seat", kwargs={"seat_key": "nope"})).status_code == 404
    assert "seats" not in client.session


def test_a_tournament_table_asks_for_the_seat_before_the_entry_form(table: Game) -> None:
    client = Client()
    doc = parse(client.get(url("table", table)))

    assert doc.find_all("form", id="entry") == []
    chooser = doc.find("form", id="seat-form")
    assert [b.text() for b in chooser.find_all("button")] == [
        "Ana (seat 1)",
        "Ben (seat 2)",
        "Cy (seat 3)",
    ]
    assert chooser.find("input", name="idempotency_key").attrs["value"]

    cy = seat_of(table, "Cy")
    response = client.post(url("seat-choose", table), {"seat": cy.pk, "idempotency_key": "k1"})

    assert response.status_code == 302
    assert client.session["seats"] == {str(table.pk): cy.pk}
    doc = parse(client.get(url("table", table)))
    assert doc.find("p", id="you-are").text().startswith("You are Cy (seat 3)")
    assert doc.find_all("form", id="entry") != []


def test_a_casual_game_shows_the_chooser_first_and_the_form_one_tap_later(club: Any) -> None:
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE)
    client = Client()
    doc = parse(client.get(url("table", game)))

    assert doc.find_all("form", id="entry") == []
    first = doc.find("section", id="seat-first")
    assert first.find("h2").text() == "Which seat is this phone?"
    assert [b.text() for b in first.find_all("button")] == [
        "Ana (seat 1)",
        "Ben (seat 2)",
        "Cy (seat 3)",
    ]
    assert "the table link alone only shows the game" in doc.find("p", id="choose-first").text()
    before = counts(game)
    response = enter(client, game)
    assert response.status_code == 403
    assert "the table link alone only shows this game" in response.content.decode()
    assert counts(game) == before

    ben = seat_of(game, "Ben")
    response = client.post(url("seat-choose", game), {"seat": ben.pk, "idempotency_key": "k"})
    assert response["Location"] == url("table", game)
    doc = parse(client.get(url("table", game)))
    assert doc.find("p", id="you-are").text().startswith("You are Ben (seat 2)")
    assert doc.find_all("form", id="entry") != []
    assert enter(client, game).status_code == 302
    hand = Hand.objects.get(game=game)
    assert (hand.entered_via, hand.entered_seat_id) == ("seat", ben.pk)
    assert row_status(parse(client.get(url("table", game))), 1) == "Confirmed"


def test_a_casual_games_creator_enters_without_a_seat_and_is_offered_one(club: Any) -> None:
    creator = UserFactory()
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE, created_by=creator)
    client = phone(game, user=creator)
    doc = parse(client.get(url("table", game)))

    assert doc.find_all("form", id="entry") != []
    offer = doc.find("div", id="seat-choice").find("details")
    assert "open" in offer.attrs
    assert "You started this game: which seat are you?" in offer.text()
    assert enter(client, game).status_code == 302
    hand = Hand.objects.get(game=game)
    assert (hand.entered_via, hand.entered_by, hand.entered_seat_id) == ("user", creator, None)
    # With a hand on the sheet the offer stays folded.
    doc = parse(client.get(url("table", game)))
    assert "open" not in doc.find("div", id="seat-choice").find("details").attrs


def test_a_member_not_seated_at_a_casual_game_gets_the_chooser_and_writes_nothing(
    club: Any, member: Any
) -> None:
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE)
    client = phone(game, user=member)

    doc = parse(client.get(url("table", game)))

    assert doc.find_all("form", id="entry") == []
    assert doc.find("section", id="seat-first")
    before = counts(game)
    assert enter(client, game).status_code == 403
    assert client.post(url("finish", game)).status_code == 403
    assert counts(game) == before


def test_choosing_a_seat_of_another_table_is_refused_and_remembers_nothing(
    table: Game, club: Any
) -> None:
    other = start(club, directed=True, confirmation=Game.Confirmation.ONE_OTHER)
    client = Client()

    response = client.post(
        url("seat-choose", table), {"seat": seat_of(other, "Ana").pk, "idempotency_key": "k"}
    )

    assert response.status_code == 422
    assert "Choose one of this table's seats." in parse(response).find("div", class_="error").text()
    assert "seats" not in client.session


def test_a_tournament_table_refuses_a_hand_from_the_table_link_without_a_seat(
    table: Game,
) -> None:
    before = counts(table)

    response = enter(Client(), table)

    assert response.status_code == 403  # htmx swaps it in place (htmx-config in base.html)
    assert "only the players seated at this table" in response.content.decode()
    assert counts(table) == before


# --- status, confirm, dispute ---------------------------------------------------------------------


def test_a_seats_hand_is_provisional_with_who_entered_it_and_confirm_for_the_others(
    table: Game,
) -> None:
    ana, ben = phone(table, "Ana"), phone(table, "Ben")

    assert enter(ana, table).status_code == 302

    hand = Hand.objects.get(game=table)
    assert (hand.status, hand.entered_seat_id) == ("provisional", seat_of(table, "Ana").pk)
    own = parse(ana.get(url("table", table)))
    assert row_status(own, 1) == "Provisional"
    assert own.find("tr", id="hand-1").find("span", class_="who").text() == "entered by Ana"
    assert "Confirm hand 1" not in buttons(own)  # one's own hand: another seat confirms
    assert "Dispute hand 1" in buttons(own)
    other = parse(ben.get(url("table", table)))
    assert "Confirm hand 1" in buttons(other)
    assert "Dispute hand 1" in buttons(other)

    response = ben.post(url("hand-confirm", table, number=1), {"idempotency_key": "c1"})

    assert response.status_code == 302
    hand.refresh_from_db()
    assert hand.status == "confirmed"
    doc = parse(ben.get(url("table", table)))
    assert row_status(doc, 1) == "Confirmed"
    assert "Confirm hand 1" not in buttons(doc)
    event = HandEvent.objects.get(game=table, action="confirm")
    assert event.seat_id == seat_of(table, "Ben").pk


def test_confirming_ones_own_hand_is_refused_with_nothing_changed(table: Game) -> None:
    ana = phone(table, "Ana")
    enter(ana, table)
    before = counts(table)

    response = ana.post(url("hand-confirm", table, number=1), {"idempotency_key": "c"})

    assert response.status_code == 403
    assert "another player at the table confirms it" in response.content.decode()
    assert counts(table) == before


@pytest.mark.parametrize("who", ["member", "anonymous", "other table's seat"])
def test_confirm_and_dispute_are_refused_to_whoever_is_not_seated_here(
    table: Game, club: Any, member: Any, who: str
) -> None:
    enter(phone(table, "Ana"), table)
    if who == "member":
        client = phone(table, user=member)
    elif who == "anonymous":
        client = phone(table)
    else:  # a seat of another table, passed off as this table's in the session
        other = start(club, directed=True, confirmation=Game.Confirmation.ONE_OTHER)
        client = Client()
        session = client.session
        session["seats"] = {str(table.pk): seat_of(other, "Ben").pk}
        session.save()
    before = counts(table)
    doc = parse(client.get(url("table", table)))
    assert "Confirm hand 1" not in buttons(doc)
    assert "Dispute hand 1" not in buttons(doc)

    confirm = client.post(url("hand-confirm", table, number=1), {"idempotency_key": "c"})
    dispute = client.post(
        url("hand-dispute", table, number=1), {"reason": "wrong", "idempotency_key": "d"}
    )

    assert (confirm.status_code, dispute.status_code) == (403, 403)
    assert counts(table) == before


def test_dispute_asks_for_a_reason_and_shows_the_hand_disputed_with_it(table: Game) -> None:
    enter(phone(table, "Ana"), table)
    cy = phone(table, "Cy")
    page = parse(cy.get(url("hand-dispute", table, number=1)))
    assert page.find("textarea", name="reason")
    assert page.find("input", name="idempotency_key").attrs["value"]
    before = counts(table)

    empty = cy.post(url("hand-dispute", table, number=1), {"reason": "  ", "idempotency_key": "d"})

    assert empty.status_code == 409
    assert parse(empty).find("textarea", name="reason")
    assert "This field is required." in empty.content.decode()
    assert counts(table) == before

    response = cy.post(
        url("hand-dispute", table, number=1),
        {"reason": "Ben held 4D, not 5D", "idempotency_key": "d"},
    )

    assert response.status_code == 302
    assert Hand.objects.get(game=table).status == "disputed"
    doc = parse(cy.get(url("table", table)))
    assert row_status(doc, 1) == "Disputed"
    assert doc.find("tr", id="actions-1").text() == "Disputed: Ben held 4D, not 5D"
    assert "Confirm hand 1" not in buttons(parse(phone(table, "Ben").get(url("table", table))))


# --- a director resolves --------------------------------------------------------------------------


@pytest.fixture
def disputed(table: Game) -> Game:
    enter(phone(table, "Ana"), table)
    services.hand_dispute(
        game=table,
        number=1,
        by=Actor(seat_id=seat_of(table, "Cy").pk, table=True),
        reason="Cy held 8H only",
    )
    return table


def test_a_director_sees_the_resolve_form_and_a_seat_does_not(
    disputed: Game, director: Any
) -> None:
    boss = phone(disputed, user=director)
    page = parse(boss.get(url("hand-edit", disputed, number=1)))
    resolve = page.find("form", id="resolve")
    assert resolve.find("textarea", name="reason").attrs.get("required") is not None
    assert [b.attrs["value"] for b in resolve.find_all("button")] == ["confirm", "void"]
    assert page.find("form", id="entry").find("input", name="resolve").attrs["value"] == "correct"

    seat_page = parse(phone(disputed, "Ben").get(url("hand-edit", disputed, number=1)))
    assert seat_page.find_all("form", id="resolve") == []


def test_a_director_resolves_by_confirming_with_a_reason(disputed: Game, director: Any) -> None:
    boss = phone(disputed, user=director)
    before = counts(disputed)

    missing = boss.post(
        url("hand-resolve", disputed, number=1), {"action": "confirm", "idempotency_key": "r"}
    )

    assert missing.status_code == 409
    assert parse(missing).find("textarea", name="reason")
    assert counts(disputed) == before

    response = boss.post(
        url("hand-resolve", disputed, number=1),
        {"action": "confirm", "reason": "Checked the cards", "idempotency_key": "r"},
    )

    assert response.status_code == 302
    assert Hand.objects.get(game=disputed).status == "confirmed"
    resolve = HandEvent.objects.get(game=disputed, action="resolve")
    assert (resolve.user_id, resolve.reason, resolve.details["resolution"]) == (
        director.pk,
        "Checked the cards",
        "confirm",
    )


def test_a_director_resolves_by_voiding(disputed: Game, director: Any) -> None:
    response = phone(disputed, user=director).post(
        url("hand-resolve", disputed, number=1),
        {"action": "void", "reason": "Misdeal", "idempotency_key": "r"},
    )

    assert response.status_code == 302
    assert Hand.objects.get(game=disputed).state == "voided"


def test_a_director_resolves_by_correcting_through_the_correction_form(
    disputed: Game, director: Any
) -> None:
    boss = phone(disputed, user=director)
    data = form(**dict(CAUGHT_KNOCK, held_2="9H", revision=1, resolve="correct"))

    missing = boss.post(url("hand-edit", disputed, number=1), data)

    assert missing.status_code == 409
    assert "a reason is needed" in missing.content.decode()
    assert Hand.objects.filter(game=disputed).count() == 1

    response = boss.post(url("hand-edit", disputed, number=1), {**data, "reason": "Cy held 9H"})

    assert response.status_code == 302
    new = Hand.objects.get(game=disputed, state="current")
    assert (new.revision, new.status, new.reason) == (2, "confirmed", "Cy held 9H")
    assert HandEvent.objects.get(game=disputed, action="resolve").details == {
        "resolution": "correct"
    }


def test_a_seat_cannot_resolve_and_nothing_changes(disputed: Game) -> None:
    ben = phone(disputed, "Ben")
    before = counts(disputed)

    response = ben.post(
        url("hand-resolve", disputed, number=1),
        {"action": "confirm", "reason": "fine", "idempotency_key": "r"},
    )
    no_reason = ben.post(url("hand-resolve", disputed, number=1), {"action": "void"})

    assert (response.status_code, no_reason.status_code) == (403, 403)
    assert counts(disputed) == before


def test_the_print_view_says_each_hands_status_and_a_disputes_reason_without_buttons(
    disputed: Game, director: Any
) -> None:
    """Paper shows what the table page shows of a hand that does not count: disputed (and
    why) or provisional, with who entered it; no Confirm, Dispute or Resolve on it, even
    for a seat or a director who could act on the table page."""
    enter(phone(disputed, "Ben"), disputed, {**CAUGHT_KNOCK, "after": "1"})  # provisional
    for client in (phone(disputed, "Cy"), phone(disputed, user=director), Client()):
        doc = parse(client.get(url("print", disputed)))
        assert row_status(doc, 1) == "Disputed"
        assert row_status(doc, 2) == "Provisional"
        assert doc.find("tr", id="hand-1").find("span", class_="who").text() == "entered by Ana"
        assert doc.find("tr", id="actions-1").text() == "Disputed: Cy held 8H only"
        acts = [b for b in buttons(doc) if b.startswith(("Confirm", "Dispute", "Resolve"))]
        assert acts == []
        posts = [f.attrs["action"] for f in doc.find_all("form") if "/hands/" in f.attrs["action"]]
        assert posts == []
        assert "Resolve" not in doc.find("tr", id="actions-1").text()


# --- voids and restores ---------------------------------------------------------------------------


def test_a_void_stays_on_the_sheet_struck_through_with_who_and_why_and_restores(
    club: Any,
) -> None:
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE)
    ana = phone(game, "Ana")
    enter(ana, game)
    enter(ana, game, CY_TONKS_OUT)

    response = ana.post(
        url("hand-void", game, number=1), {"reason": "Dealt twice", "idempotency_key": "v"}
    )

    assert response.status_code == 302
    doc = parse(ana.get(url("table", game)))
    item = doc.find("li", id="voided-1")
    struck = item.find("del")
    assert struck.text().startswith("voided: Hand 1")
    assert "Ana -5" in struck.text()
    assert item.find("span", class_="void-who").text() == "voided by Ana: Dealt twice"
    assert doc.find_all("tr", id="hand-1") == []
    page = parse(ana.get(url("hand-edit", game, number=1)))
    assert "voided by Ana: Dealt twice" in page.find("section", id="hand-trust").text()

    restored = ana.post(url("hand-restore", game, number=1), {"idempotency_key": "x"})

    assert restored.status_code == 302
    assert Hand.objects.get(game=game, number=1).state == "current"
    doc = parse(ana.get(url("table", game)))
    assert doc.find_all("li", id="voided-1") == []
    assert doc.find("tr", id="hand-1")
    assert HandEvent.objects.filter(game=game, action="restore").count() == 1


def test_voiding_a_complete_rounds_hand_is_a_directors_with_a_reason(
    table: Game, director: Any
) -> None:
    enter(phone(table, "Ana"), table)
    services.game_finish(game=table)
    before = counts(table)

    seat = phone(table, "Ben").post(
        url("hand-void", table, number=1), {"reason": "x", "idempotency_key": "v"}
    )
    boss = phone(table, user=director)
    page = parse(boss.get(url("hand-edit", table, number=1)))
    assert page.find("textarea", id="id_void_reason").attrs.get("required") is not None
    missing = boss.post(url("hand-void", table, number=1), {"idempotency_key": "v"})

    assert seat.status_code == 403
    assert missing.status_code == 409
    assert parse(missing).find("textarea", name="reason")
    assert "the round is complete" in missing.content.decode()
    assert counts(table) == before

    done = boss.post(
        url("hand-void", table, number=1), {"reason": "Wrong table", "idempotency_key": "v"}
    )

    assert done.status_code == 302
    void = HandEvent.objects.get(game=table, action="void")
    assert (void.user_id, void.reason) == (director.pk, "Wrong table")


def test_a_complete_rounds_restore_is_refused_to_a_seat(table: Game, director: Any) -> None:
    enter(phone(table, "Ana"), table)
    services.hand_void(game=table, number=1)
    services.game_finish(game=table)
    before = counts(table)

    response = phone(table, "Ben").post(url("hand-restore", table, number=1))

    assert response.status_code == 403
    assert counts(table) == before
    assert "Restore" not in buttons(parse(phone(table, "Ben").get(url("table", table))))


def test_a_complete_rounds_restore_and_confirm_are_a_directors_with_a_reason(
    table: Game, director: Any
) -> None:
    enter(phone(table, "Ana"), table)
    enter(phone(table, "Ana"), table, CY_TONKS_OUT)
    services.hand_void(game=table, number=2)
    services.game_finish(game=table)
    boss = phone(table, user=director)
    sheet = parse(boss.get(url("table", table)))
    assert sheet.find("textarea", id="id_restore_reason_2").attrs.get("required") is not None
    page = parse(boss.get(url("hand-edit", table, number=1)))
    assert page.find("textarea", id="id_confirm_reason").attrs.get("required") is not None
    before = counts(table)

    restore = boss.post(url("hand-restore", table, number=2), {"idempotency_key": "r"})
    confirm = boss.post(url("hand-confirm", table, number=1), {"idempotency_key": "c"})

    for missing in (restore, confirm):
        assert missing.status_code == 409
        assert parse(missing).find("textarea", name="reason")
        assert "the round is complete" in missing.content.decode()
    assert counts(table) == before

    restored = boss.post(
        url("hand-restore", table, number=2),
        {"reason": "Voided by mistake", "idempotency_key": "r"},
    )
    confirmed = boss.post(
        url("hand-confirm", table, number=1), {"reason": "Checked", "idempotency_key": "c"}
    )

    assert (restored.status_code, confirmed.status_code) == (302, 302)
    assert HandEvent.objects.get(game=table, action="restore").reason == "Voided by mistake"
    assert HandEvent.objects.get(game=table, action="confirm").reason == "Checked"
    assert Hand.objects.get(game=table, number=1, state="current").status == "confirmed"


def test_a_seats_restore_and_confirm_keep_an_optional_reason(club: Any) -> None:
    game = start(club, directed=False, confirmation=Game.Confirmation.ONE_OTHER)
    ana, ben = phone(game, "Ana"), phone(game, "Ben")
    enter(ana, game)
    enter(ana, game, CY_TONKS_OUT)
    services.hand_void(game=game, number=2)
    assert (
        "required"
        not in parse(ben.get(url("table", game))).find("textarea", id="id_restore_reason_2").attrs
    )

    assert (
        ben.post(url("hand-confirm", game, number=1), {"idempotency_key": "c"}).status_code == 302
    )
    restored = ben.post(
        url("hand-restore", game, number=2), {"reason": "Oops", "idempotency_key": "r"}
    )

    assert restored.status_code == 302
    assert [
        (e.action, e.seat_id, e.reason) for e in HandEvent.objects.filter(game=game).order_by("id")
    ][-2:] == [
        ("confirm", seat_of(game, "Ben").pk, ""),
        ("restore", seat_of(game, "Ben").pk, "Oops"),
    ]


@pytest.mark.parametrize("who", ["director", "Ana"])
def test_nobody_finishes_a_tournament_table_from_its_page(
    table: Game, director: Any, who: str
) -> None:
    client = phone(table, user=director) if who == "director" else phone(table, who)
    assert "Finish the game" not in client.get(url("table", table)).content.decode()
    before = counts(table)

    response = client.post(url("finish", table))

    assert response.status_code == 403
    assert "a tournament table ends with its round" in response.content.decode()
    assert counts(table) == before
    table.refresh_from_db()
    assert table.state != Game.State.FINISHED


# --- links ----------------------------------------------------------------------------------------


def test_a_casual_games_page_shows_each_seats_link_and_qr_code(club: Any) -> None:
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE)

    doc = parse(Client().get(url("table", game)))

    links = doc.find("details", id="seat-links")
    values = [i.attrs["value"] for i in links.find_all("input")]
    keys = [seat_of(game, n).seat_key for n in P3]
    assert values == [f"http://testserver/s/{k}/" for k in keys]
    assert len(links.find_all("div", class_="qr")) == 3


def test_a_tournament_tables_seat_links_are_a_directors_only(
    table: Game, member: Any, director: Any
) -> None:
    for client in (phone(table, "Ana"), phone(table, user=member), phone(table)):
        body = client.get(url("table", table)).content.decode()
        assert all(seat_of(table, n).seat_key not in body for n in P3)

    body = phone(table, user=director).get(url("table", table)).content.decode()
    assert all(seat_of(table, n).seat_key in body for n in P3)


def test_new_links_by_the_casual_games_creator_replace_every_key(club: Any) -> None:
    creator = MembershipFactory(club=club).user
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE, created_by=creator)
    client = phone(game, user=creator)
    old_table, old_seat = game.table_key, seat_of(game, "Ana").seat_key
    assert parse(client.get(url("table", game))).find("button", id="rotate-links")

    response = client.post(url("links-rotate", game), {"idempotency_key": "l"})

    game.refresh_from_db()
    assert game.table_key != old_table
    assert response["Location"] == url("table", game)
    assert seat_of(game, "Ana").seat_key != old_seat
    assert Client().get(f"/t/{old_table}/").status_code == 404
    assert Client().get(f"/s/{old_seat}/").status_code == 404


def test_new_links_are_refused_to_a_seat_and_a_member(table: Game, member: Any) -> None:
    before = counts(table)
    for client in (phone(table, "Ana"), phone(table, user=member)):
        assert parse(client.get(url("table", table))).find_all("button", id="rotate-links") == []
        assert client.post(url("links-rotate", table)).status_code == 403
    assert counts(table) == before


# --- the audit ------------------------------------------------------------------------------------


def test_the_audit_lists_every_step_with_who_when_what_and_why(
    disputed: Game, director: Any
) -> None:
    phone(disputed, user=director).post(
        url("hand-resolve", disputed, number=1),
        {"action": "confirm", "reason": "Checked", "idempotency_key": "r"},
    )

    response = phone(disputed, user=director).get(url("audit", disputed))

    assert response.status_code == 200
    rows = parse(response).find("ol", id="audit").find_all("li")
    steps = [
        [li.find(class_=part).text() for part in ("hand", "what", "who", "why")] for li in rows
    ]
    assert steps == [
        ["hand 1, revision 1", "Entered", "Ana", "—"],
        ["hand 1, revision 1", "Disputed", "Cy", "Cy held 8H only"],
        ["hand 1, revision 1", "Resolved: Confirmed", director.username, "Checked"],
    ]
    assert all(li.find("time").attrs["datetime"] for li in rows)


def test_a_casual_games_creator_reads_its_audit(club: Any) -> None:
    creator = UserFactory()
    game = start(club, directed=False, confirmation=Game.Confirmation.NONE, created_by=creator)
    assert enter(phone(game, "Cy"), game).status_code == 302

    response = phone(game, user=creator).get(url("audit", game))

    assert response.status_code == 200
    step = parse(response).find("ol", id="audit").find("li")
    assert (step.find(class_="what").text(), step.find(class_="who").text()) == (
        "Entered",
        "Cy",
    )


def test_the_audit_is_refused_to_seats_members_and_anonymous(table: Game, member: Any) -> None:
    for client in (phone(table, "Ana"), phone(table, user=member), phone(table)):
        assert client.get(url("audit", table)).status_code == 403
        assert "audit-link" not in client.get(url("table", table)).content.decode()


def test_change_shows_the_chooser_with_the_seat_this_phone_is(table: Game) -> None:
    ben = phone(table, "Ben")
    doc = parse(ben.get(url("table", table)))
    change = doc.find("p", id="you-are").find("a")
    assert change.attrs["href"] == url("seat-choose", table)

    page = parse(ben.get(change.attrs["href"]))

    assert "This phone is Ben (seat 2) now." in page.text()
    assert len(page.find("form", id="seat-form").find_all("button")) == 3
    ben.post(url("seat-choose", table), {"seat": seat_of(table, "Cy").pk})
    assert ben.session["seats"] == {str(table.pk): seat_of(table, "Cy").pk}


def test_a_director_at_a_tournament_table_enters_without_choosing_a_seat(
    table: Game, director: Any
) -> None:
    boss = phone(table, user=director)
    doc = parse(boss.get(url("table", table)))
    assert doc.find_all("form", id="entry") != []
    assert doc.find_all("p", id="choose-first") == []

    assert enter(boss, table).status_code == 302

    hand = Hand.objects.get(game=table)
    assert (hand.status, hand.entered_by_id, hand.entered_seat_id) == (
        "confirmed",
        director.pk,
        None,
    )


def test_the_hand_page_offers_confirm_and_dispute_to_another_seat(table: Game) -> None:
    enter(phone(table, "Ana"), table)
    ben = phone(table, "Ben")

    page = parse(ben.get(url("hand-edit", table, number=1)))

    trust = page.find("section", id="hand-trust")
    assert trust.find("span", id="hand-status").text() == "Provisional"
    assert "entered by Ana" in trust.text()
    assert [b.text() for b in trust.find_all("button")] == ["Confirm"]
    assert trust.find("a", class_="button").attrs["href"] == url("hand-dispute", table, number=1)
    own = parse(phone(table, "Ana").get(url("hand-edit", table, number=1)))
    assert own.find("section", id="hand-trust").find_all("button") == []


def test_the_hand_page_says_why_a_viewer_may_not_change_it_in_place_of_the_forms(
    table: Game, director: Any
) -> None:
    assert enter(phone(table, "Ana"), table).status_code == 302
    assert table.hands.count() == 1
    page = reverse("scoring:hand-edit", kwargs={"key": table.table_key, "number": 1})

    alone = phone(table).get(page).content.decode()
    assert "· Ana ·" in " ".join(alone.split())  # who entered it, in the history
    assert 'id="entry"' not in alone and 'id="void"' not in alone
    assert "Only the players seated at this table" in alone
    assert reverse("scoring:seat-choose", kwargs={"key": table.table_key}) in alone

    seated = phone(table, "Ben").get(page).content.decode()
    assert 'id="entry"' in seated and 'id="change-refused"' not in seated

    services.game_finish(game=table)  # the round is complete
    after = phone(table, "Ben").get(page).content.decode()
    assert 'id="entry"' not in after
    assert "The round is complete: only a club director may change its hands now." in after
    assert 'id="entry"' in phone(table, user=director).get(page).content.decode()


def test_one_phone_is_one_player_it_cannot_take_another_seat_to_confirm_its_own_hand(
    table: Game,
) -> None:
    ana = phone(table, "Ana")
    assert enter(ana, table).status_code == 302
    before = counts(table)

    by_link = ana.post(
        reverse("scoring:seat-choose", kwargs={"key": table.table_key}),
        {"seat": seat_of(table, "Ben").pk, "idempotency_key": "k"},
    )
    by_seat_link = ana.get(
        reverse("scoring:seat", kwargs={"seat_key": seat_of(table, "Ben").seat_key})
    )

    for response in (by_link, by_seat_link):
        assert response.status_code == 403
        assert "one phone is one player" in response.content.decode()
    assert ana.session["seats"][str(table.pk)] == seat_of(table, "Ana").pk
    assert counts(table) == before
    ben = phone(table, "Ben")  # Ben's own phone confirms it
    assert ben.post(url("hand-confirm", table, number=1)).status_code == 302
    assert table.hands.get(number=1).status == Hand.Status.CONFIRMED


def test_the_chooser_does_not_hand_out_a_seat_that_plays_on_another_phone(table: Game) -> None:
    ana = phone(table, "Ana")  # Ana's own phone, by her seat link
    assert enter(ana, table).status_code == 302
    before = counts(table)
    stranger = Client()  # a private window on the table link
    taken = stranger.post(
        reverse("scoring:seat-choose", kwargs={"key": table.table_key}),
        {"seat": seat_of(table, "Ana").pk, "idempotency_key": "k"},
    )
    assert taken.status_code == 403
    assert "already plays on another phone" in taken.content.decode()
    assert "seats" not in stranger.session
    assert counts(table) == before
    # Ana's own link takes the seat up again on a new phone.
    assert phone(table, "Ana").get(url("table", table)).status_code == 200


def test_a_confirmation_shown_before_a_correction_is_refused_with_nothing_changed(
    table: Game,
) -> None:
    """One hand, once (issue 24): a trust step says the revision it acts on. Ben's phone shows
    hand 1 at revision 1; Ana corrects it meanwhile; Ben's confirmation of revision 1 is 409,
    nothing changed."""
    ana, ben = phone(table, "Ana"), phone(table, "Ben")
    enter(ana, table)
    shown = parse(ben.get(url("table", table)))
    confirm = shown.find("tr", id="actions-1").find("form")
    assert confirm.find("input", name="revision").attrs["value"] == "1"
    services.hand_correct(
        game=table, number=1, revision=1, entry=Hand.objects.get(game=table).entry
    )
    before = counts(table)

    response = ben.post(
        url("hand-confirm", table, number=1), {"idempotency_key": "c", "revision": "1"}
    )

    assert response.status_code == 409
    assert "Someone corrected this hand meanwhile" in response.content.decode()
    assert counts(table) == before
    # The correction (the system's) counts at once: confirming what is shown now is a no-op.
    assert (
        ben.post(
            url("hand-confirm", table, number=1), {"idempotency_key": "c2", "revision": "2"}
        ).status_code
        == 302
    )
    assert Hand.objects.get(game=table, state="current").status == "confirmed"
