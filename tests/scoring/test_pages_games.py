"""The signed-in member's pages: the games list, starting a game, signing in, the home page's
call to action."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.models import Game
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.scoring.sheets import TONK_KNOCK_HAND
from tonkrules import find_game

pytestmark = pytest.mark.django_db

NEW = "/games/new/"
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class Page(HTMLParser):
    """What a browser would submit from the page's form posting to ``action``, the text of
    every element with an id, and which form controls have a label."""

    def __init__(self, text: str, action: str = NEW) -> None:
        super().__init__(convert_charrefs=True)
        self.action = action
        self.fields: dict[str, str] = {}
        self.controls: list[dict[str, str]] = []
        self.label_for: set[str] = set()
        self.text_of: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []  # (tag, id) of open elements
        self._labels = 0  # labels open around the current position
        self._select: str | None = None
        self._select_first: str | None = None
        self._in_form = False
        self.feed(text)

    VOID = frozenset({"input", "meta", "link", "br", "img", "hr"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._in_form = a.get("action") == self.action
        if tag == "label":
            self._labels += 1
            if a.get("for"):
                self.label_for.add(a["for"])
        if tag in ("input", "select", "textarea"):
            self.controls.append({**a, "tag": tag, "wrapped": "1" if self._labels else ""})
        if self._in_form:
            self._submit(tag, a)
        if tag not in self.VOID:
            self._open.append((tag, a.get("id")))
            if a.get("id"):
                self.text_of.setdefault(a["id"], "")

    def _submit(self, tag: str, a: dict[str, str]) -> None:
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields[name] = a.get("value", "on")
            elif kind != "submit":
                self.fields[name] = a.get("value", "")
        elif tag == "select":
            self._select, self._select_first = name, None
        elif tag == "option" and self._select:
            if self._select_first is None:
                self._select_first = a.get("value", "")
                self.fields.setdefault(self._select, self._select_first)
            if "selected" in a:
                self.fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._labels -= 1
        if tag == "select":
            self._select = None
        if tag == "form":
            self._in_form = False
        while self._open:
            open_tag, _id = self._open.pop()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for _tag, element_id in self._open:
            if element_id:
                self.text_of[element_id] += data

    def text(self, element_id: str) -> str:
        return " ".join(self.text_of.get(element_id, "").split())


@pytest.fixture
def member() -> Any:
    """A signed-in club member, and the club's player Ana."""
    membership = MembershipFactory()
    PlayerFactory(club=membership.club, name="Ana")
    return membership


@pytest.fixture
def signed_in(client: Client, member: Any) -> Client:
    client.force_login(member.user)
    return client


def start_form(client: Client, **changes: str) -> dict[str, str]:
    """The start form as a browser submits it after the given changes (None: leave out)."""
    page = Page(client.get(NEW).content.decode())
    return {k: v for k, v in {**page.fields, **changes}.items() if v is not None}


def error_of(response: Any, field: str) -> str:
    """The error shown next to ``field``, checked to be tied to its control."""
    page = Page(response.content.decode())
    control = next(c for c in page.controls if c.get("name") == field)
    assert f"id_{field}_error" in control.get("aria-describedby", "").split()
    return page.text(f"id_{field}_error")


# --- the games list ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/games/", NEW])
def test_game_pages_send_an_anonymous_visitor_to_sign_in(client: Client, url: str) -> None:
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


def test_game_list_shows_the_games_of_the_users_clubs_and_own_newest_first(
    signed_in: Client, member: Any
) -> None:
    other_member = MembershipFactory(club=member.club).user
    club_game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben"], club=member.club, created_by=other_member
    )
    services.hand_record(game=club_game, entry=TONK_KNOCK_HAND)
    own_game, _ = services.game_start(
        kind="rook", players=["Xu", "Yo", "Zed"], created_by=member.user
    )
    hidden_game, _ = services.game_start(
        kind="bluke", players=["Pat", "Quin"], club=ClubFactory(), created_by=UserFactory()
    )

    response = signed_in.get("/games/")

    page = response.content.decode()
    assert response.status_code == 200
    own_link = reverse("scoring:table", kwargs={"key": own_game.table_key})
    assert page.index(f'href="{own_link}"') < page.index("Ana, Ben")
    # Another member's casual game is listed without its table link (issue 12).
    assert club_game.table_key not in page
    assert hidden_game.table_key not in page
    assert "Pat, Quin" not in page
    assert "Xu, Yo, Zed" in page and "0 rounds" in page and "no club" in page
    assert "Ana, Ben" in page and "1 hand" in page and member.club.name in page
    assert page.count("In play") == 2
    assert f'href="{NEW}"' in page and "Start a game" in page


def test_game_list_with_no_games_invites_to_start_one(signed_in: Client) -> None:
    page = signed_in.get("/games/").content.decode()

    assert "No games yet." in page
    assert f'href="{NEW}"' in page


# --- starting a game --------------------------------------------------------------------------


def test_start_tonk_with_stake_house_rule_club_player_and_guest(
    signed_in: Client, member: Any
) -> None:
    ana = member.club.players.get(name="Ana")
    data = start_form(
        signed_in,
        kind="tonk",
        player_1=" ana ",
        player_2="Gus the guest",
        stake="0.25",
        tonk__caught_low_bonus="non_knockers",
        tonk__initial_tonk_totals="50",
    )

    response = signed_in.post(NEW, data)

    game = Game.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/t/{game.table_key}/"
    assert response["Location"] == reverse("scoring:table", kwargs={"key": game.table_key})
    assert game.kind == "tonk"
    assert game.options == {"caught_low_bonus": "non_knockers", "initial_tonk_totals": [50]}
    assert (game.stake, game.currency) == ("0.25", "USD")
    assert game.club == member.club
    assert game.created_by == member.user
    assert game.idempotency_key == data["idempotency_key"]
    assert list(game.seats.values_list("position", "name", "player_id")) == [
        (0, "Ana", ana.pk),
        (1, "Gus the guest", None),
    ]


def test_the_starter_lands_on_the_table_with_the_form_and_is_asked_their_seat(
    signed_in: Client,
) -> None:
    data = start_form(signed_in, kind="tonk", player_1="Ana", player_2="Gus", stake="0.25")
    response = signed_in.post(NEW, data)
    assert response.status_code == 303

    page = signed_in.get(response["Location"]).content.decode()

    assert 'id="entry"' in page  # the creator enters as themselves
    assert 'id="seat-first"' not in page
    assert "You started this game: which seat are you?" in page
    assert '<details class="panel" open>' in page
    assert "Gus (seat 2)" in page


def test_start_with_every_rule_at_its_default_stores_no_options(signed_in: Client) -> None:
    data = start_form(
        signed_in,
        kind="rook",
        player_1="Ana",
        player_2="Ben",
        player_3="Cyd",
        stake="1",  # the Tonk stake, typed before choosing Rook: not read
        currency="EUR",
    )

    response = signed_in.post(NEW, data)

    game = Game.objects.get()
    assert response.status_code == 303
    assert (game.kind, game.options, game.stake, game.currency) == ("rook", {}, "", "")
    assert list(game.seats.values_list("name", flat=True)) == ["Ana", "Ben", "Cyd"]


def test_start_reads_only_the_chosen_games_house_rules(signed_in: Client) -> None:
    data = start_form(
        signed_in,
        kind="bluke",
        player_1="Ana",
        player_2="Ben",
        bluke__allow_zero_bid="on",
        rook__decks="not a number",
        tonk__initial_tonk_totals="x",
    )

    response = signed_in.post(NEW, data)

    assert response.status_code == 303
    assert Game.objects.get().options == {"allow_zero_bid": True}


def test_start_rook_with_number_rules_and_a_currency_without_stake_for_tonk(
    signed_in: Client,
) -> None:
    rook = start_form(
        signed_in,
        kind="rook",
        player_1="Ana",
        player_2="Ben",
        player_3="Cyd",
        rook__decks="2",
        rook__max_rooks_per_meld="0",
        rook__contract_mode="at_least",
    )
    tonk = start_form(signed_in, kind="tonk", player_1="Ana", player_2="Ben", currency="eur")

    signed_in.post(NEW, rook)
    signed_in.post(NEW, tonk)

    rook_game, tonk_game = Game.objects.order_by("id")
    assert rook_game.options == {"decks": 2, "contract_mode": "at_least", "max_rooks_per_meld": 0}
    assert (tonk_game.stake, tonk_game.currency) == ("", "EUR")


def test_a_member_with_no_club_starts_a_game_with_no_club(client: Client) -> None:
    user = UserFactory()
    client.force_login(user)
    page = client.get(NEW).content.decode()
    data = start_form(client, kind="bluke", player_1="Ana", player_2="Ben")

    response = client.post(NEW, data)

    assert 'name="club"' not in page and "You are not a member of a club" in page
    assert response.status_code == 303
    game = Game.objects.get()
    assert game.club is None and game.created_by == user
    assert list(game.seats.values_list("player_id", flat=True)) == [None, None]


def test_a_name_of_another_clubs_player_seats_a_guest(signed_in: Client, member: Any) -> None:
    other_club = MembershipFactory(user=member.user).club
    PlayerFactory(club=other_club, name="Bea")
    data = start_form(
        signed_in, kind="tonk", player_1="Ana", player_2="Bea", club=str(member.club.pk)
    )

    signed_in.post(NEW, data)

    game = Game.objects.get()
    assert game.club == member.club
    assert list(game.seats.values_list("name", "player__club")) == [
        ("Ana", member.club.pk),
        ("Bea", None),
    ]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"kind": "tonk", "player_1": "Ana"},
            "player_2",
            "Tonk is played by 2 to 4 players, not 1.",
        ),
        (
            {
                "kind": "tonk",
                "player_1": "Ana",
                "player_2": "Ben",
                "player_3": "Cyd",
                "player_4": "Dee",
                "player_5": "Eve",
            },
            "player_5",
            "Tonk is played by 2 to 4 players, not 5.",
        ),
        (
            {"kind": "rook", "player_1": "Ana", "player_2": "Ben", "player_3": "ben"},
            "player_3",
            "“ben” and “Ben” are the same name (letter case and accents aside): give each seat a "
            "different name.",
        ),
        (
            {"kind": "tonk", "player_1": "Ana", "player_2": "Ben", "stake": "abc"},
            "stake",
            "Type the stake as an amount such as 0.25: digits and a point, no sign.",
        ),
        (
            {"kind": "tonk", "player_1": "Ana", "player_2": "Ben", "currency": "$$"},
            "currency",
            "Type a three-letter currency code such as USD.",
        ),
        (
            {
                "kind": "rook",
                "player_1": "Ana",
                "player_2": "Ben",
                "player_3": "Cyd",
                "rook__min_natural_per_meld": "0",
            },
            "rook__min_natural_per_meld",
            "Type a whole number of at least 1.",
        ),
        (
            {
                "kind": "tonk",
                "player_1": "Ana",
                "player_2": "Ben",
                "tonk__initial_tonk_totals": "49, fifty",
            },
            "tonk__initial_tonk_totals",
            "Type whole numbers separated by commas, such as 49, 50.",
        ),
        (
            {"kind": "bluke", "player_1": "Ana", "player_2": "Bo\tBo"},
            "player_2",
            "the name 'Bo\\tBo' holds an invisible or direction-control character, U+0009 "
            "(character 3): type the name without it",
        ),
    ],
    ids=[
        "one-player",
        "five-for-tonk",
        "duplicate-name",
        "stake-abc",
        "currency",
        "option",
        "totals",
        "control-character",
    ],
)
def test_a_bad_entry_shows_the_error_next_to_its_field_and_starts_nothing(
    signed_in: Client, changes: dict[str, str], field: str, message: str
) -> None:
    data = start_form(signed_in, **changes)

    response = signed_in.post(NEW, data)

    assert response.status_code == 200
    assert error_of(response, field) == message
    assert Game.objects.count() == 0
    page = Page(response.content.decode())
    assert page.fields["idempotency_key"] == data["idempotency_key"]  # a retry stays one game
    for name, value in changes.items():
        if name.startswith("player_") and "\t" not in value:
            assert page.fields[name] == value  # what was typed stays


def test_a_double_post_with_the_same_key_starts_one_game(signed_in: Client) -> None:
    data = start_form(signed_in, kind="tonk", player_1="Ana", player_2="Ben", stake="0.25")

    first = signed_in.post(NEW, data)
    second = signed_in.post(NEW, data)

    game = Game.objects.get()
    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"] == f"/t/{game.table_key}/"


def test_a_new_form_gets_a_new_key(signed_in: Client) -> None:
    first = start_form(signed_in)["idempotency_key"]
    second = start_form(signed_in)["idempotency_key"]

    assert len(first) == 32 and first != second


def test_a_key_reused_for_other_details_says_so_and_offers_a_fresh_key(
    signed_in: Client,
) -> None:
    data = start_form(signed_in, kind="tonk", player_1="Ana", player_2="Ben")
    signed_in.post(NEW, data)

    response = signed_in.post(NEW, {**data, "player_2": "Cyd"})

    page = Page(response.content.decode())
    assert response.status_code == 200
    assert "This form already started a game with other details." in response.content.decode()
    assert page.fields["idempotency_key"] not in ("", data["idempotency_key"])
    assert Game.objects.count() == 1
    assert signed_in.post(NEW, {**data, **page.fields}).status_code == 303
    assert Game.objects.count() == 2


# --- what the start page shows ----------------------------------------------------------------

DEFAULTS_SHOWN = {
    "tonk__initial_tonk_totals": "Default: 49, 50",
    "tonk__caught_low_bonus": "Default: everyone outside the lowest group",
    "tonk__stock_tie": "Default: each tied player collects",
    "tonk__double_requires_new_spread": "Default: off",
    "tonk__must_lay_down_spreads": "Default: off",
    "tonk__upcard": "Default: on",
    "rook__decks": "Default: one per player",
    "rook__contract_mode": "Default: exact: exactly the contract",
    "rook__min_natural_per_meld": "Default: 1",
    "rook__max_rooks_per_meld": "Default: no cap",
    "bluke__allow_zero_bid": "Default: off",
    "bluke__bluke_lead_rule": "Default: free: no suit to follow",
}


def test_the_house_rules_list_every_option_with_its_help_and_default(signed_in: Client) -> None:
    text = signed_in.get(NEW).content.decode()
    page = Page(text)

    shown = set()
    for game in ("tonk", "rook", "bluke"):
        assert f'data-game="{game}"' in text
        for option in find_game(game).options_type.describe():
            name = f"{game}__{option['key']}"
            shown.add(name)
            help_text = page.text(f"id_{name}_helptext")
            assert help_text == f"{option['help']} {DEFAULTS_SHOWN[name]}"
            assert html.escape(str(option["help"]), quote=True) in text
    assert shown == set(DEFAULTS_SHOWN)
    # The controls start at the defaults, so an untouched form stores no options.
    assert page.fields["tonk__initial_tonk_totals"] == "49, 50"
    assert page.fields["tonk__upcard"] == "on"
    assert "tonk__double_requires_new_spread" not in page.fields
    assert page.fields["rook__contract_mode"] == "exact"
    assert page.fields["rook__decks"] == ""
    assert page.fields["rook__min_natural_per_meld"] == "1"
    assert page.fields["bluke__bluke_lead_rule"] == "free"


def test_the_start_page_offers_each_game_with_its_player_count_and_the_club_players(
    signed_in: Client, member: Any
) -> None:
    PlayerFactory(club=member.club, name="Ben")
    text = signed_in.get(NEW).content.decode()
    page = Page(text)

    radios = [c for c in page.controls if c.get("name") == "kind"]
    assert [r["value"] for r in radios] == ["tonk", "rook", "bluke"]
    assert "Tonk, 2–4 players" in text
    assert "Toonerville Rook, 3–5 players" in text
    assert "Bluke, 2–4 players" in text
    assert page.fields["kind"] == "tonk"
    assert page.fields["club"] == str(member.club.pk)
    assert '<datalist id="club-players"><option value="Ana"></option><option value="Ben">' in text
    seats = [c for c in page.controls if c.get("name", "").startswith("player_")]
    assert [s["name"] for s in seats] == [f"player_{n}" for n in range(1, 6)]
    assert all(s["list"] == "club-players" for s in seats)


@pytest.mark.parametrize("url", [NEW, "/accounts/login/"])
def test_every_form_control_has_a_label(client: Client, member: Any, url: str) -> None:
    if url == NEW:
        client.force_login(member.user)
    page = Page(client.get(url).content.decode())

    controls = [c for c in page.controls if c.get("type") != "hidden"]
    assert len(controls) >= 2
    unlabelled = [c for c in controls if not c["wrapped"] and c.get("id") not in page.label_for]
    assert unlabelled == []


# --- signing in, and the home page ------------------------------------------------------------


def test_sign_in_goes_to_the_games_list(client: Client, settings: Any) -> None:
    settings.PASSWORD_HASHERS = FAST_HASHERS
    UserFactory(username="ana", password="a good passphrase")

    wrong = client.post("/accounts/login/", {"username": "ana", "password": "nope"})
    right = client.post("/accounts/login/", {"username": "ana", "password": "a good passphrase"})

    assert wrong.status_code == 200
    assert "Please enter a correct username and password" in wrong.content.decode()
    assert right.status_code == 302 and right["Location"] == "/games/"


def test_sign_in_returns_to_the_start_page(client: Client, settings: Any) -> None:
    settings.PASSWORD_HASHERS = FAST_HASHERS
    UserFactory(username="ana", password="a good passphrase")
    page = Page(client.get(f"/accounts/login/?next={NEW}").content.decode(), "/accounts/login/")

    response = client.post(
        "/accounts/login/", {**page.fields, "username": "ana", "password": "a good passphrase"}
    )

    assert page.fields["next"] == NEW
    assert response["Location"] == NEW


def test_home_invites_an_anonymous_visitor_to_sign_in_and_start_a_game(client: Client) -> None:
    page = client.get("/").content.decode()

    assert '<a class="button" href="/accounts/login/?next=/games/new/">Start a game</a>' in page
    assert '<a class="button secondary" href="/accounts/login/">Sign in</a>' in page


def test_home_sends_a_member_straight_to_start_a_game(signed_in: Client) -> None:
    page = signed_in.get("/").content.decode()

    assert f'<a class="button" href="{NEW}">Start a game</a>' in page
    assert '<a class="button secondary" href="/games/">My games</a>' in page
