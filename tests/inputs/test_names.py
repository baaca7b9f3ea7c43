"""Names that look the same (issue 14, row 2): one name rule (``tonkrules.names``) at every
entry point that takes a name.

Each entry point is tried with examples of each kind: an invisible or direction-control
character (refused, the error naming the character, nothing stored), a name that is another
seat's or player's by the key (composed vs decomposed accents, letter case, spaces, full-width
letters: the duplicate refused naming both, or at registration the existing club player
found), spaces normalised, and names of Bengali, Tamil, Assamese and Filipino players that
must pass as typed (joiners between South Asian letters are spelling). The last tests find the
entry points (model columns, forms, the admin, the API schema), so that one added later
without the rule fails here.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import models
from django.test import Client, RequestFactory
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from scoring.forms import GameStartForm
from scoring.models import Game, Seat
from scoring.names import NameField, NameFormField
from scoring.scoresheet_cli import answer
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.hands import next_number, numbered
from tests.scoring.test_pages_games import start_form
from tonkrules.errors import PlayerError
from tonkrules.names import clean_name, name_key
from tournaments import services
from tournaments.models import Membership, Player, Registration, Round, TableSeat, Tournament

pytestmark = pytest.mark.django_db

JOSE = "Jos\u00e9"  # composed

#: Invisible and direction-control characters: each refused wherever a name is typed.
INVISIBLE = {
    "zero-width-space": ("Ana\u200bBell", "U+200B"),
    "right-to-left-override": ("\u202eAna", "U+202E"),
    "left-to-right-isolate": ("\u2066Ana\u2069", "U+2066"),
    "byte-order-mark": ("\ufeffAna", "U+FEFF"),
    "soft-hyphen": ("An\u00ada", "U+00AD"),
    "joiner-between-latin-letters": ("Ana\u200dBell", "U+200D"),
    "non-joiner-at-the-end": ("Ana\u200c", "U+200C"),
    "joiner-after-an-emoji-at-the-end": ("Ana \U0001f468\u200d", "U+200D"),
    "joiner-between-an-emoji-and-a-letter": ("\U0001f468\u200dAna", "U+200D"),
    "variation-selector-at-the-start": ("\ufe0fAna", "U+FE0F"),
    "variation-selector-after-a-digit-without-keycap": ("Ana 1\ufe0f", "U+FE0F"),
    "tag-after-a-letter-not-a-flag": ("Ana\U000e0067\U000e007f", "U+E0067"),
    "line-separator": ("Ana\u2028Bell", "U+2028"),
    "tab": ("Ana\tBell", "U+0009"),
    "private-use": ("Ana\ue000", "U+E000"),
    "tag-character": ("Ana\U000e0041", "U+E0041"),
    "unassigned": ("Ana\u0378", "U+0378"),
    # drawn as nothing although not format characters (Default_Ignorable_Code_Point)
    "variation-selector-16": ("Ana\ufe0f", "U+FE0F"),
    "variation-selector-supplement": ("Ana\U000e0100", "U+E0100"),
    "combining-grapheme-joiner": ("An\u034fa", "U+034F"),
    "mongolian-selector": ("Ana\u180b", "U+180B"),
    "khmer-inherent-vowel": ("Ana\u17b4", "U+17B4"),
    "hangul-filler-alone": ("\u3164", "U+3164"),
    "halfwidth-hangul-filler": ("Ana\uffa0", "U+FFA0"),
    "blank-braille-pattern": ("Ana\u2800", "U+2800"),
}

#: Names that are "José" by the key: the duplicate of a seat or a club player.
SAME_AS_JOSE = {
    "decomposed": "Jose\u0301",
    "upper-case": "JOS\u00c9",
    "surrounding-and-no-break-spaces": "\u00a0 Jos\u00e9  ",
    "full-width": "\uff2a\uff4f\uff53\u00e9",
}

#: Names that must pass exactly as typed.
VALID = {
    "bengali-non-joiner-after-virama": "\u0995\u09cd\u200c\u09b7\u09ae\u09be",
    "bengali-ra-phala-with-joiner": "\u09b0\u200d\u09cd\u09af\u09be\u09ac",
    "bengali-virama": "\u09b0\u09ac\u09c0\u09a8\u09cd\u09a6\u09cd\u09b0\u09a8\u09be\u09a5",
    "tamil": "\u0ba4\u0bae\u0bbf\u0bb4\u0bcd\u0b9a\u0bc6\u0bb2\u0bcd\u0bb5\u0bbf",
    "tamil-non-joiner": "\u0b95\u0bcd\u200c\u0bb7\u0bcd\u0bae\u0bbe",
    "assamese": "\u0985\u09b8\u09ae\u09c0\u09af\u09bc\u09be",
    "filipino": "Ni\u00f1o Dela Cruz",
    **{
        f"emoji-{kind}": name
        for kind, name in {
            "heart-with-selector": "\u2764\ufe0f Love",
            "family-zwj-sequence": "\U0001f468\u200d\U0001f469 Fam",
            "skin-tone": "\U0001f44d\U0001f3fd Ok",
            "skin-tone-in-zwj-sequence": "\U0001f469\U0001f3fd\u200d\U0001f4bb Dev",
            "selector-then-joiner": "\U0001f3f3\ufe0f\u200d\U0001f308 Pride",
            "keycap": "1\ufe0f\u20e3 One",
            "country-flag": "\U0001f1e7\U0001f1e9 Bangla",
            "subdivision-flag": "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074"
            "\U000e007f Scot",
            "text-presentation": "Ana \u2764\ufe0e",
        }.items()
    },
}


def ids(mapping: dict[str, Any]) -> list[str]:
    return list(mapping)


@pytest.fixture
def member() -> Any:
    club = ClubFactory(name="Riverside")
    PlayerFactory(club=club, name=JOSE)
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def api(member: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(member)
    return client


@pytest.fixture
def web(member: Any) -> Client:
    client = Client()
    client.force_login(member)
    return client


# --- a game's seats, through every entry point that seats a game -----------------------------


def _seat_api(api: APIClient, web: Client, names: list[str]) -> tuple[list[str] | None, str]:
    response = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": n} for n in names]},
        format="json",
    )
    if response.status_code == 201:
        game = Game.objects.get(pk=response.json()["id"])
        return [name for name, _seat in game.seating], ""
    assert response.status_code == 400, response.content
    return None, json.dumps(response.json(), ensure_ascii=True) + response.json()["error"][
        "message"
    ]


def _seat_page(api: APIClient, web: Client, names: list[str]) -> tuple[list[str] | None, str]:
    data = start_form(web, kind="tonk", **{f"player_{i}": n for i, n in enumerate(names, 1)})
    response = web.post("/games/new/", data)
    if response.status_code in (302, 303):
        game = Game.objects.latest("id")
        return [name for name, _seat in game.seating], ""
    assert response.status_code in (200, 422)
    return None, response.content.decode()


def _sheet(names: list[str]) -> dict[str, Any]:
    return {"format": "tabletally.scoresheet/1", "game": "tonk", "players": names, "hands": []}


def _seat_import(api: APIClient, web: Client, names: list[str]) -> tuple[list[str] | None, str]:
    response = api.post("/api/v1/scoresheets/", _sheet(names), format="json")
    if response.status_code == 201:
        game = Game.objects.latest("id")
        return [name for name, _seat in game.seating], ""
    assert response.status_code == 400, response.content
    return None, json.dumps(response.json(), ensure_ascii=True) + response.json()["error"][
        "message"
    ]


def _seat_cli(api: APIClient, web: Client, names: list[str]) -> tuple[list[str] | None, str]:
    status, out = answer("canonical", json.dumps(_sheet(names)).encode())
    if status == 0:
        return list(out["players"]), ""  # type: ignore[call-overload]
    return None, json.dumps(out, ensure_ascii=True) + str(out["error"]["message"])  # type: ignore[index]


#: Every entry point that seats players at a game (the CLI stores nothing: it checks).
SEAT_ENTRIES: dict[str, Callable[[APIClient, Client, list[str]], tuple[list[str] | None, str]]] = {
    "api-games": _seat_api,
    "page-new-game": _seat_page,
    "api-scoresheet-import": _seat_import,
    "cli-scoresheet": _seat_cli,
}


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
@pytest.mark.parametrize("entry", SEAT_ENTRIES.values(), ids=ids(SEAT_ENTRIES))
def test_a_seat_with_an_invisible_character_is_refused_naming_it(
    entry: Any, example: tuple[str, str], api: APIClient, web: Client, unchanged_rows: Any
) -> None:
    name, code = example
    with unchanged_rows():
        seated, error = entry(api, web, ["Ben", name])
    assert seated is None
    assert code in error


@pytest.mark.parametrize("variant", SAME_AS_JOSE.values(), ids=ids(SAME_AS_JOSE))
@pytest.mark.parametrize("entry", SEAT_ENTRIES.values(), ids=ids(SEAT_ENTRIES))
def test_two_seats_of_the_same_name_are_refused(
    entry: Any, variant: str, api: APIClient, web: Client, unchanged_rows: Any
) -> None:
    with unchanged_rows():
        seated, error = entry(api, web, [JOSE, variant])
    assert seated is None
    assert "same name" in error


@pytest.mark.parametrize("name", VALID.values(), ids=ids(VALID))
@pytest.mark.parametrize("entry", SEAT_ENTRIES.values(), ids=ids(SEAT_ENTRIES))
def test_names_of_every_script_our_players_write_are_seated_as_typed(
    entry: Any, name: str, api: APIClient, web: Client
) -> None:
    seated, error = entry(api, web, ["Ana", name])
    assert seated == ["Ana", name], error


@pytest.mark.parametrize("entry", SEAT_ENTRIES.values(), ids=ids(SEAT_ENTRIES))
def test_seats_are_stored_normalised(entry: Any, api: APIClient, web: Client) -> None:
    seated, error = entry(api, web, ["  Ana   Bell ", "Ben\u00a0Cole", "Jose\u0301"])
    assert seated == ["Ana Bell", "Ben Cole", JOSE], error
    assert all(unicodedata.is_normalized("NFC", n) for n in seated)


# --- names inside hands: the players they refer to -------------------------------------------


def _hand(held: dict[str, str], by: str = "Ben") -> dict[str, Any]:
    return {"dealer": "Ben", "end": "knock", "by": by, "held": held}


Sender = Callable[[dict[str, Any]], tuple[dict[str, int] | None, str]]


def _hand_api(api: APIClient) -> Sender:
    """A game seated with "José" (composed) and Ben; the sender posts a hand to it."""
    game_id = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": JOSE}, {"name": "Ben"}]},
        format="json",
    ).json()["id"]

    def send(hand: dict[str, Any]) -> tuple[dict[str, int] | None, str]:
        response = api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(hand, next_number(game_id)),
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )
        if response.status_code == 201:
            return Game.objects.get(pk=game_id).totals, ""
        assert response.status_code == 400, response.content
        return None, json.dumps(response.json(), ensure_ascii=True)

    return send


def _hand_import(api: APIClient) -> Sender:
    def send(hand: dict[str, Any]) -> tuple[dict[str, int] | None, str]:
        sheet = {**_sheet([JOSE, "Ben"]), "hands": [hand]}
        response = api.post("/api/v1/scoresheets/", sheet, format="json")
        if response.status_code == 201:
            return Game.objects.latest("id").totals, ""
        assert response.status_code == 400, response.content
        return None, json.dumps(response.json(), ensure_ascii=True)

    return send


def _hand_cli(api: APIClient) -> Sender:
    def send(hand: dict[str, Any]) -> tuple[dict[str, int] | None, str]:
        sheet = {**_sheet([JOSE, "Ben"]), "hands": [hand]}
        status, out = answer("score", json.dumps(sheet).encode())
        if status == 0:
            return dict(out["totals"]), ""  # type: ignore[call-overload]
        return None, json.dumps(out, ensure_ascii=True)

    return send


#: Every entry point that reads the names inside a hand (the table pages' entry forms take
#: seats by their stored names, never typed).
HAND_ENTRIES: dict[str, Callable[[APIClient], Sender]] = {
    "api-hands": _hand_api,
    "api-scoresheet-import": _hand_import,
    "cli-scoresheet": _hand_cli,
}


@pytest.mark.parametrize("entry", HAND_ENTRIES.values(), ids=ids(HAND_ENTRIES))
def test_a_hand_naming_a_seat_with_a_decomposed_accent_names_that_seat(
    entry: Any, api: APIClient
) -> None:
    send = entry(api)
    totals, error = send(_hand({"Jose\u0301": "AS 2D", "Ben": "KH QH"}, by="Jose\u0301"))
    assert totals == {JOSE: 1, "Ben": -1}, error


EMOJI = {kind: name for kind, name in VALID.items() if kind.startswith("emoji-")}


@pytest.mark.parametrize("name", EMOJI.values(), ids=ids(EMOJI))
@pytest.mark.parametrize("entry", ["api-hands", "api-scoresheet-import", "cli-scoresheet"])
def test_a_hand_names_an_emoji_seat_as_typed(entry: str, name: str, api: APIClient) -> None:
    """A seat named with an emoji sequence (selectors, joiners) is named by a hand exactly
    so, through every entry point that reads a hand."""
    hand = {"dealer": "Ben", "end": "knock", "by": name, "held": {name: "AS 2D", "Ben": "KH QH"}}
    if entry == "api-hands":
        game_id = api.post(
            "/api/v1/games/",
            {"game": "tonk", "players": [{"name": name}, {"name": "Ben"}]},
            format="json",
        ).json()["id"]
        response = api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(hand),
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )
        assert response.status_code == 201, response.content
        assert Game.objects.get(pk=game_id).totals == {name: 1, "Ben": -1}
        return
    sheet = {**_sheet([name, "Ben"]), "hands": [hand]}
    if entry == "api-scoresheet-import":
        response = api.post("/api/v1/scoresheets/", sheet, format="json")
        assert response.status_code == 201, response.content
        assert Game.objects.latest("id").totals == {name: 1, "Ben": -1}
        return
    status, out = answer("score", json.dumps(sheet).encode())
    assert (status, out["totals"]) == (0, {name: 1, "Ben": -1}), out


@pytest.mark.parametrize("entry", HAND_ENTRIES.values(), ids=ids(HAND_ENTRIES))
def test_a_hand_naming_one_seat_twice_is_refused_naming_both(
    entry: Any, api: APIClient, unchanged_rows: Any
) -> None:
    send = entry(api)
    with unchanged_rows():
        totals, error = send(_hand({JOSE: "AS 2D", "Jose\u0301": "3C", "Ben": "KH QH"}))
    assert totals is None
    assert '"code": "bad_player"' in error
    assert "are the same name" in error


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
@pytest.mark.parametrize("entry", HAND_ENTRIES.values(), ids=ids(HAND_ENTRIES))
def test_a_hand_naming_a_player_with_an_invisible_character_is_refused(
    entry: Any, example: tuple[str, str], api: APIClient, unchanged_rows: Any
) -> None:
    name, code = example
    send = entry(api)
    with unchanged_rows():
        totals, error = send(_hand({JOSE: "AS 2D", "Ben": "KH QH"}, by=name.replace("Ana", "Ben")))
    assert totals is None
    assert '"code": "bad_player"' in error
    assert code in error


# --- a club's players, tournaments and substitutes -------------------------------------------

CLUB_PLAYERS = ("Ana", "Ben", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal", JOSE)


@pytest.fixture
def club(member: Any) -> Any:
    club = member.clubs.get()
    for name in CLUB_PLAYERS[:-1]:
        PlayerFactory(club=club, name=name)
    return club


@pytest.fixture
def tournament(club: Any, member: Any) -> Tournament:
    tournament, _created = services.tournament_create(
        club=club, created_by=member, name="Rook night", kind="rook"
    )
    return tournament


@pytest.fixture
def seated(
    tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> tuple[Tournament, Round]:
    """The tournament with every club player registered and round 1 seated."""
    for player in Player.objects.filter(club=tournament.club):
        services.registration_add(tournament=tournament, player=player)
    with django_capture_on_commit_callbacks(execute=True):
        rnd, _created = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    assert rnd.tables.exists()
    return tournament, rnd


def _messages(response: Any) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


def _register_page(web: Client, tournament: Tournament, names: str) -> str:
    response = web.post(
        f"/tournaments/{tournament.pk}/manage/register/", {"names": names}, follow=True
    )
    return _messages(response) + response.content.decode()


@pytest.mark.parametrize("variant", [JOSE, *SAME_AS_JOSE.values()], ids=["same", *SAME_AS_JOSE])
def test_registering_a_name_of_a_club_player_registers_that_player(
    variant: str, web: Client, club: Any, tournament: Tournament
) -> None:
    jose = Player.objects.get(club=club, name=JOSE)
    players = Player.objects.count()

    _register_page(web, tournament, f"{variant}\njose\u0301")

    assert Player.objects.count() == players
    assert list(
        Registration.objects.filter(tournament=tournament).values_list("player", flat=True)
    ) == [jose.pk]


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
def test_registering_a_name_with_an_invisible_character_is_refused(
    example: tuple[str, str], web: Client, tournament: Tournament, unchanged_rows: Any
) -> None:
    name, code = example
    if "\t" in name or "\u2028" in name:
        name = name.replace("\t", "\x07").replace("\u2028", "\x07")  # a line is one name
        code = "U+0007"
    with unchanged_rows():
        text = _register_page(web, tournament, f"Newcomer\n{name}")
    assert code in text


@pytest.mark.parametrize("name", VALID.values(), ids=ids(VALID))
def test_registering_a_newcomer_stores_the_name_as_typed(
    name: str, web: Client, club: Any, tournament: Tournament
) -> None:
    _register_page(web, tournament, f"  {name}  ")
    assert Player.objects.get(club=club, name_key=name_key(name)).name == name
    assert tournament.registrations.get().player.name == name


def _substitute_page(web: Client, seated: tuple[Tournament, Round], name: str) -> tuple[bool, str]:
    tournament, rnd = seated
    seat = TableSeat.objects.filter(round=rnd).exclude(registration__player__name=JOSE).first()
    assert seat is not None
    response = web.post(
        f"/tournaments/{tournament.pk}/manage/rounds/{rnd.number}/substitute/",
        {"registration": seat.registration_id, "substitute": name},
        follow=True,
    )
    seat.refresh_from_db()
    return bool(seat.substitute), _messages(response)


def _substitute_api(
    api: APIClient, seated: tuple[Tournament, Round], name: str
) -> tuple[bool, str]:
    tournament, rnd = seated
    seat = TableSeat.objects.filter(round=rnd).exclude(registration__player__name=JOSE).first()
    assert seat is not None
    response = api.post(
        f"/api/v1/tournaments/{tournament.pk}/rounds/{rnd.number}/substitutes/",
        {"registration": seat.registration_id, "substitute": name},
        format="json",
    )
    seat.refresh_from_db()
    # 400: the name rule refuses the name; 409: the round's state does (a name already
    # seated or registered).
    assert response.status_code in (200, 400, 409), response.content
    refusal = response.json().get("error") or response.json().get("conflict") or {}
    return bool(seat.substitute), json.dumps(response.json(), ensure_ascii=True) + str(
        refusal.get("message", "")
    )


SUBSTITUTE_ENTRIES = {"page-substitute": "page", "api-substitutes": "api"}


def _substitute(how: str, web: Client, api: APIClient, seated: Any, name: str) -> tuple[bool, str]:
    return (
        _substitute_page(web, seated, name) if how == "page" else _substitute_api(api, seated, name)
    )


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
@pytest.mark.parametrize("how", SUBSTITUTE_ENTRIES.values(), ids=ids(SUBSTITUTE_ENTRIES))
def test_a_substitute_with_an_invisible_character_is_refused(
    how: str,
    example: tuple[str, str],
    web: Client,
    api: APIClient,
    seated: Any,
    unchanged_rows: Any,
) -> None:
    name, code = example
    with unchanged_rows():
        stored, text = _substitute(how, web, api, seated, name)
    assert not stored
    assert code in text


@pytest.mark.parametrize("variant", SAME_AS_JOSE.values(), ids=ids(SAME_AS_JOSE))
@pytest.mark.parametrize("how", SUBSTITUTE_ENTRIES.values(), ids=ids(SUBSTITUTE_ENTRIES))
def test_a_substitute_named_as_a_registered_player_is_refused(
    how: str, variant: str, web: Client, api: APIClient, seated: Any, unchanged_rows: Any
) -> None:
    with unchanged_rows():
        stored, text = _substitute(how, web, api, seated, variant)
    assert not stored
    assert JOSE in text or "Jos\\u00e9" in text


@pytest.mark.parametrize("name", VALID.values(), ids=ids(VALID))
@pytest.mark.parametrize("how", SUBSTITUTE_ENTRIES.values(), ids=ids(SUBSTITUTE_ENTRIES))
def test_a_substitute_is_stored_as_typed(
    how: str, name: str, web: Client, api: APIClient, seated: Any
) -> None:
    stored, text = _substitute(how, web, api, seated, f" {name} ")
    assert stored, text
    assert TableSeat.objects.filter(substitute=name).count() == 1
    assert Seat.objects.filter(name=name).count() == 1


def _tournament_api(api: APIClient, club: Any, name: str) -> tuple[str | None, str]:
    response = api.post(
        "/api/v1/tournaments/",
        {"club": club.pk, "name": name, "game": "tonk", "rounds": 3},
        format="json",
    )
    if response.status_code == 201:
        return Tournament.objects.get(pk=response.json()["id"]).name, ""
    assert response.status_code == 400, response.content
    return None, json.dumps(response.json(), ensure_ascii=True) + response.json()["error"][
        "message"
    ]


def _tournament_page(web: Client, club: Any, name: str) -> tuple[str | None, str]:
    from tests.scoring.test_pages_games import Page

    url = f"/clubs/{club.pk}/tournaments/new/"
    page = Page(web.get(url).content.decode(), action=url)
    fields = page.fields or Page(web.get(url).content.decode(), action="").fields
    response = web.post(url, {**fields, "kind": "tonk", "tonk__rounds": "3", "name": name})
    if response.status_code in (302, 303):
        return Tournament.objects.latest("id").name, ""
    return None, response.content.decode()


TOURNAMENT_ENTRIES = {"api-tournaments": "api", "page-new-tournament": "page"}


def _tournament(
    how: str, web: Client, api: APIClient, club: Any, name: str
) -> tuple[str | None, str]:
    return _tournament_api(api, club, name) if how == "api" else _tournament_page(web, club, name)


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
@pytest.mark.parametrize("how", TOURNAMENT_ENTRIES.values(), ids=ids(TOURNAMENT_ENTRIES))
def test_a_tournament_name_with_an_invisible_character_is_refused(
    how: str, example: tuple[str, str], web: Client, api: APIClient, club: Any, unchanged_rows: Any
) -> None:
    name, code = example
    with unchanged_rows():
        stored, text = _tournament(how, web, api, club, f"Spring {name}")
    assert stored is None
    assert code in text


@pytest.mark.parametrize("name", EMOJI.values(), ids=ids(EMOJI))
@pytest.mark.parametrize("how", TOURNAMENT_ENTRIES.values(), ids=ids(TOURNAMENT_ENTRIES))
def test_a_tournament_name_may_hold_emoji_as_typed(
    how: str, name: str, web: Client, api: APIClient, club: Any
) -> None:
    stored, text = _tournament(how, web, api, club, f"Spring {name}")
    assert stored == f"Spring {name}", text


@pytest.mark.parametrize("how", TOURNAMENT_ENTRIES.values(), ids=ids(TOURNAMENT_ENTRIES))
def test_a_tournament_name_is_stored_normalised(
    how: str, web: Client, api: APIClient, club: Any
) -> None:
    stored, text = _tournament(how, web, api, club, "  Rook\u00a0night   at Jose\u0301's ")
    assert stored == f"Rook night at {JOSE}'s", text


# --- the admin: players and clubs added and renamed ------------------------------------------


@pytest.fixture
def staff(club: Any) -> Client:
    user = get_user_model().objects.create(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def _admin_player(staff: Client, club: Any, name: str, *, rename: bool) -> tuple[bool, str]:
    if rename:
        player = Player.objects.get(club=club, name="Ana")
        url = f"/admin/tournaments/player/{player.pk}/change/"
    else:
        url = "/admin/tournaments/player/add/"
    response = staff.post(url, {"club": club.pk, "name": name, "user": ""})
    return response.status_code == 302, response.content.decode()


def _admin_club(staff: Client, club: Any, name: str, *, rename: bool) -> tuple[bool, str]:
    url = f"/admin/tournaments/club/{club.pk}/change/" if rename else "/admin/tournaments/club/add/"
    management = {
        f"memberships-{k}": v
        for k, v in {
            "TOTAL_FORMS": "0",
            "INITIAL_FORMS": "0",
            "MIN_NUM_FORMS": "0",
            "MAX_NUM_FORMS": "1000",
        }.items()
    }
    if rename:
        memberships = list(club.memberships.all())
        management["memberships-TOTAL_FORMS"] = management["memberships-INITIAL_FORMS"] = str(
            len(memberships)
        )
        for i, m in enumerate(memberships):
            management |= {
                f"memberships-{i}-id": str(m.pk),
                f"memberships-{i}-club": str(club.pk),
                f"memberships-{i}-user": str(m.user_id),
                f"memberships-{i}-role": m.role,
            }
    response = staff.post(url, {"name": name, **management})
    return response.status_code == 302, response.content.decode()


ADMIN_ENTRIES = {
    "admin-player-add": (_admin_player, False),
    "admin-player-rename": (_admin_player, True),
    "admin-club-add": (_admin_club, False),
    "admin-club-rename": (_admin_club, True),
}


@pytest.mark.parametrize("example", INVISIBLE.values(), ids=ids(INVISIBLE))
@pytest.mark.parametrize("entry", ADMIN_ENTRIES.values(), ids=ids(ADMIN_ENTRIES))
def test_the_admin_refuses_a_name_with_an_invisible_character(
    entry: Any, example: tuple[str, str], staff: Client, club: Any, unchanged_rows: Any
) -> None:
    submit, rename = entry
    name, code = example
    names = [*sorted(Player.objects.values_list("name", flat=True)), club.name]
    with unchanged_rows():
        saved, text = submit(staff, club, name, rename=rename)
    assert not saved
    assert code in text
    club.refresh_from_db()
    assert [*sorted(Player.objects.values_list("name", flat=True)), club.name] == names


@pytest.mark.parametrize("variant", SAME_AS_JOSE.values(), ids=ids(SAME_AS_JOSE))
@pytest.mark.parametrize("rename", [False, True], ids=["admin-player-add", "admin-player-rename"])
def test_the_admin_refuses_a_second_club_player_of_the_same_name(
    rename: bool, variant: str, staff: Client, club: Any, unchanged_rows: Any
) -> None:
    with unchanged_rows():
        saved, _text = _admin_player(staff, club, variant, rename=rename)
    assert not saved
    assert Player.objects.get(club=club, name_key=name_key(JOSE)).name == JOSE
    assert Player.objects.filter(club=club, name="Ana").exists()


@pytest.mark.parametrize("entry", ADMIN_ENTRIES.values(), ids=ids(ADMIN_ENTRIES))
def test_the_admin_stores_names_normalised(entry: Any, staff: Client, club: Any) -> None:
    submit, rename = entry
    saved, text = submit(staff, club, "  Ni\u00f1o   Dela Cruz\u00a0", rename=rename)
    assert saved, text
    model = Player if submit is _admin_player else type(club)
    row = model.objects.get(name="Ni\u00f1o Dela Cruz")
    if model is Player:
        assert row.name_key == "ni\u00f1o dela cruz"


# --- every entry point of a name is found, and holds the rule --------------------------------

#: Columns called like a name that are not a person's, club's or event's name, and why.
NOT_NAMES = {"ops.Heartbeat.name": "a background job's name, chosen by the code"}


def _looks_like_a_name(field_name: str) -> bool:
    return field_name in ("name", "names", "substitute", "players") or field_name.endswith("_name")


def _project_models() -> Iterator[type[models.Model]]:
    for model in apps.get_models():
        if model._meta.app_label in ("scoring", "tournaments", "ops"):
            yield model


def test_every_name_column_is_a_name_field() -> None:
    """A model column called like a name (``name``, ``substitute``, ``*_name``) is a
    ``NameField``: the admin and ``full_clean`` read it by the rule."""
    found = {
        f"{model._meta.label}.{field.name}"
        for model in _project_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.CharField | models.TextField) and _looks_like_a_name(field.name)
    }
    assert {
        label
        for label in found - set(NOT_NAMES)
        if not isinstance(
            apps.get_model(label.rsplit(".", 1)[0])._meta.get_field(label.rsplit(".", 1)[1]),
            NameField,
        )
    } == set()
    assert found >= {
        "scoring.Seat.name",
        "tournaments.Club.name",
        "tournaments.Player.name",
        "tournaments.Tournament.name",
        "tournaments.TableSeat.substitute",
    }


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


#: Form fields called like a name that read several names, each line by the rule, and the test
#: that shows it.
MULTI_LINE = {
    "RegisterForm.names": "test_registering_a_name_with_an_invisible_character_is_refused"
}


def test_every_form_field_of_a_name_reads_it_by_the_rule(member: Any) -> None:
    """Every form of the project (pages and the admin) reads a field called like a name
    (``name``, ``substitute``, a game's seats ``player_N``) with ``NameFormField``."""
    project_forms = [
        form
        for form in _subclasses(forms.BaseForm)
        if form.__module__.split(".")[0] in ("scoring", "tournaments", "ops")
    ]
    assert {f.__name__ for f in project_forms} >= {
        "GameStartForm",
        "RegisterForm",
        "SubstituteForm",
        "TournamentForm",
    }
    fields = {
        f"{form.__name__}.{name}": field
        for form in project_forms
        for name, field in form.base_fields.items()  # type: ignore[attr-defined]
        if _looks_like_a_name(name)
    }
    game_form = GameStartForm(user=member)
    fields |= {
        f"GameStartForm.{n}": f for n, f in game_form.fields.items() if n.startswith("player_")
    }
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_staff=True, is_superuser=True)
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in ("scoring", "tournaments", "ops"):
            continue
        if not (
            model_admin.has_add_permission(request) or model_admin.has_change_permission(request)
        ):
            continue  # read-only (ops.admin.ReadOnlyAdmin): its form takes nothing
        form = model_admin.get_form(request)
        fields |= {
            f"admin:{model._meta.label}.{name}": field
            for name, field in form.base_fields.items()
            if _looks_like_a_name(name)
        }
    assert "admin:tournaments.Player.name" in fields and "admin:tournaments.Club.name" in fields
    assert "GameStartForm.player_1" in fields
    assert {
        label
        for label, field in fields.items()
        if isinstance(field, forms.CharField)  # typed, not picked from a list
        and not isinstance(field, NameFormField)
        and label not in MULTI_LINE
    } == set()


#: Every request field of the API that takes a name, (method, path, field): each is tried by
#: the tests above.
API_NAME_FIELDS = {
    ("post", "/api/v1/games/", "GameStart.players.SeatInput.name"),
    ("post", "/api/v1/scoresheets/", "ScoreSheet.players"),  # tried by _sheet's entries
    ("post", "/api/v1/tournaments/", "TournamentIn.name"),
    (
        "post",
        "/api/v1/tournaments/{tournament_id}/rounds/{number}/substitutes/",
        "SubstituteIn.substitute",
    ),
}


def _properties(
    node: Any, path: list[str], components: dict[str, Any], seen: frozenset[str]
) -> Iterator[tuple[list[str], dict[str, Any]]]:
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            if name not in seen:
                yield from _properties(components[name], [*path, name], components, seen | {name})
            return
        for key, value in node.items():
            if key == "properties":
                for prop, schema in value.items():
                    yield [*path, prop], schema
                    yield from _properties(schema, [*path, prop], components, seen)
            else:
                yield from _properties(value, path, components, seen)
    elif isinstance(node, list):
        for value in node:
            yield from _properties(value, path, components, seen)


def test_every_api_field_of_a_name_is_marked_and_covered() -> None:
    """The OpenAPI schema's request bodies: every string property called like a name is a
    ``NameSerializerField`` (``x-name-rule``), and is one this module tries."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not body:
                continue
            for where, prop in _properties(body["schema"], [], components, frozenset()):
                if _looks_like_a_name(where[-1]) and "string" in json.dumps(prop):
                    found[(method, path, ".".join(where))] = prop
    assert set(found) == API_NAME_FIELDS
    assert [key for key, prop in found.items() if "x-name-rule" not in json.dumps(prop)] == []


@pytest.mark.parametrize(
    "name",
    [n for k, n in VALID.items() if k.startswith("emoji-")],
    ids=lambda n: n.encode("unicode_escape").decode(),
)
@pytest.mark.parametrize("entry", ADMIN_ENTRIES.values(), ids=ids(ADMIN_ENTRIES))
def test_the_admin_stores_an_emoji_name_as_typed(
    entry: Any, name: str, staff: Client, club: Any
) -> None:
    submit, rename = entry
    saved, text = submit(staff, club, name, rename=rename)
    assert saved, text
    model = Player if submit is _admin_player else type(club)
    assert model.objects.filter(name=name).count() == 1


@pytest.mark.parametrize("entry", SEAT_ENTRIES.values(), ids=ids(SEAT_ENTRIES))
def test_an_emoji_typed_with_and_without_its_selector_is_the_same_name(
    entry: Any, api: APIClient, web: Client, unchanged_rows: Any
) -> None:
    with unchanged_rows():
        seated, error = entry(api, web, ["\u2764\ufe0f Love", "\u2764 love"])
    assert seated is None
    assert "same name" in error


def test_the_rule_itself() -> None:
    """The lowest layer: what is kept, what is folded, what is refused."""
    assert clean_name("  Ana \u3000 Bell\u00a0") == "Ana Bell"
    assert clean_name("Jose\u0301") == JOSE
    assert name_key("\uff2a\uff2f\uff33\u00c9") == name_key("jose\u0301") == "jos\u00e9"
    assert name_key("Stra\u00dfe") == name_key("STRASSE")
    assert name_key("\u2764\ufe0f Love") == name_key("\u2764 LOVE") == "\u2764 love"
    assert name_key("\U0001f468\u200d\U0001f469") != name_key("\U0001f468\U0001f469")
    for name in VALID.values():
        assert clean_name(name) == name
    for name, code in INVISIBLE.values():
        with pytest.raises(PlayerError) as info:
            clean_name(name)
        assert info.value.key == "name_invisible"
        assert code in info.value.message
    assert clean_name("x" * 80 + " \u00a0") == "x" * 80
    with pytest.raises(PlayerError) as too_long:
        clean_name("e\u0301" * 81)
    assert too_long.value.key == "name_too_long"
    assert clean_name("e\u0301" * 80) == "\u00e9" * 80  # counted after normalisation
