"""Names sort by their language (issue 24): one sort key (``ops.collation``: the Unicode
Collation Algorithm with CLDR's collation of the language) for every list of names.

The same players, named in Bengali, Assamese (ৰ, ৱ, ক্ষ), Tamil, Latin letters with accents and
Filipino (ñ, ng), are listed in the same order by every list of one tournament: the register
form, the substitute form, the director's registrations, the standings page, the big screen,
the standings API and the registrations API, in each of the five languages (the tournament's);
the new-game page lists a club's players in the page's language. The orders are CLDR's,
written out here; the same test runs on SQLite and on PostgreSQL (``DATABASE_URL``), since the
sort is done in Python, never by the database's collation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ops import collation
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tournaments import services
from tournaments.models import Membership, Player, Tournament

pytestmark = pytest.mark.django_db

#: The players, in no particular order: Bengali and Assamese spellings (ৰ U+09F0, ৱ U+09F1,
#: the conjunct ক্ষ), Tamil, Latin letters with accents, Filipino ñ and ng.
NAMES = [
    "Zoë",
    "হৰি",
    "Óscar",
    "যতীন",
    "ৰমেন",
    "Ngo",
    "ৱাহিদ",
    "তমিজ",
    "லீலா",
    "লীনা",
    "ক্ষমা",
    "அருண்",
    "Émile",
    "অমল",
    "Ñora",
    "கண்ணன்",
    "কমল",
    "Ana",
    "Nico",
]

BENGALI = ["অমল", "কমল", "ক্ষমা", "তমিজ", "যতীন", "ৰমেন", "লীনা", "ৱাহিদ", "হৰি"]
#: CLDR's Assamese: ৰ right after য, ৱ after ল, ক্ষ a letter of its own after হ.
ASSAMESE = ["অমল", "কমল", "তমিজ", "যতীন", "ৰমেন", "লীনা", "ৱাহিদ", "হৰি", "ক্ষমা"]
TAMIL = ["அருண்", "கண்ணன்", "லீலா"]
#: Accents sort with their letter (Émile among the E words, Óscar before Zoë).
LATIN = ["Ana", "Émile", "Ngo", "Nico", "Ñora", "Óscar", "Zoë"]
#: CLDR's Filipino: ñ after n, ng after both.
FILIPINO = ["Ana", "Émile", "Nico", "Ñora", "Ngo", "Óscar", "Zoë"]

#: Each language's order: its own script first, then the others in the UCA's script order.
EXPECTED = {
    "bn": BENGALI + TAMIL + LATIN,
    "as": ASSAMESE + TAMIL + LATIN,
    "ta": TAMIL + BENGALI + LATIN,
    "fil": FILIPINO + BENGALI + TAMIL,
    "en": LATIN + BENGALI + TAMIL,
}
LANGUAGES = list(EXPECTED)


def test_the_key_orders_each_language_as_cldr_does() -> None:
    for language, expected in EXPECTED.items():
        assert collation.sorted_by_name(NAMES, language=language) == expected, language
    # code point order, which the lists used before, puts ৰ after হ and Émile after Zoë
    assert sorted(NAMES).index("ৰমেন") > sorted(NAMES).index("হৰি")
    assert sorted(NAMES).index("Émile") > sorted(NAMES).index("Zoë")


def test_names_equal_by_the_collation_keep_a_fixed_order() -> None:
    """Equal at every level of the collation, names fall back to code points, then to the
    caller's tie-break: an order never depends on the database's."""
    names = ["ana", "Ana", "ANA"]
    assert collation.sorted_by_name(names, language="en") == ["ana", "Ana", "ANA"]
    rows = [(3, "Ana"), (1, "Ana"), (2, "Ana")]
    assert collation.sorted_by_name(
        rows, name=lambda r: r[1], then=lambda r: r[0], language="en"
    ) == [(1, "Ana"), (2, "Ana"), (3, "Ana")]


# --- one tournament's lists, in each language ---------------------------------------------------


@pytest.fixture
def director() -> Any:
    club = ClubFactory(name="Riverside")
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def web(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


@pytest.fixture
def api(director: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(director)
    return client


def _tournaments(director: Any, language: str, captured: Any) -> tuple[Tournament, Tournament]:
    """Two Tonk tournaments of the club in ``language``: the first with every player
    registered and round 1 seated and published, the second with nobody registered."""
    club = director.clubs.get()
    for name in NAMES:
        PlayerFactory(club=club, name=name)
    made = []
    for title in ("Spring", "Summer"):
        tournament, _created = services.tournament_create(
            club=club,
            created_by=director,
            name=title,
            kind="tonk",
            rounds=3,
            language=language,
        )
        made.append(tournament)
    first, second = made
    for player in Player.objects.filter(club=club).order_by("?"):
        services.registration_add(tournament=first, player=player)
    with captured(execute=True):
        rnd, _created = services.round_seat(tournament=first)
    rnd.refresh_from_db()
    services.round_publish(round=rnd)
    return first, second


def _in_page_order(html: str) -> list[str]:
    """The players' names in the order the page first shows them."""
    found = {name: html.find(name) for name in NAMES}
    assert all(at >= 0 for at in found.values()), [n for n, at in found.items() if at < 0]
    return sorted(NAMES, key=found.__getitem__)


def _name_of_choice(label: str) -> str:
    """The player's name in a substitute form's choice (``Ana, table 2``, as translated)."""
    return next(name for name in NAMES if label.startswith(name))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_list_of_a_tournament_orders_names_by_its_language(
    language: str,
    director: Any,
    web: Client,
    api: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    first, second = _tournaments(director, language, django_capture_on_commit_callbacks)
    expected = EXPECTED[language]
    lists: dict[str, list[str]] = {}

    # the director's page of the tournament nobody registered for: the register form
    page = web.get(f"/tournaments/{second.pk}/manage/")
    register_form = page.context["register_form"]
    lists["register-form"] = [str(label) for _pk, label in register_form.fields["players"].choices]
    lists["register-form-page"] = _in_page_order(page.content.decode())

    # the seated tournament: the substitute form and the registrations
    page = web.get(f"/tournaments/{first.pk}/manage/")
    lists["substitute-form"] = [
        _name_of_choice(str(label))
        for _pk, label in page.context["substitute_form"].fields["registration"].choices
    ]
    lists["director-registrations"] = [r.player.name for r in page.context["registrations"]]

    # the standings (nobody has a score yet: all listed by name), page, big screen and API
    lists["standings-page"] = _in_page_order(web.get(f"/tournaments/{first.pk}/").content.decode())
    lists["big-screen"] = _in_page_order(
        web.get(f"/tournaments/{first.pk}/screen/").content.decode()
    )
    standings = api.get(f"/api/v1/tournaments/{first.pk}/standings/").json()
    lists["standings-api"] = [row["name"] for row in standings["rows"]]
    registrations = api.get(f"/api/v1/tournaments/{first.pk}/registrations/").json()
    lists["registrations-api"] = [r["name"] for r in registrations]

    assert {where: names for where, names in lists.items() if names != expected} == {}
    assert len(lists) >= 8


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_game_page_lists_the_clubs_players_in_the_pages_language(
    language: str, director: Any, web: Client
) -> None:
    club = director.clubs.get()
    for name in NAMES:
        PlayerFactory(club=club, name=name)
    html = web.get("/games/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    datalist = re.search(r"<datalist[^>]*>(.*?)</datalist>", html, re.S)
    assert datalist is not None
    options = re.findall(r'<option value="([^"]*)"', datalist.group(1))
    assert options == EXPECTED[language]


def test_the_new_game_page_lists_the_users_clubs_by_name(web: Client, director: Any) -> None:
    for name in ("Zoë Club", "Émile Club", "Óscar Club"):
        MembershipFactory(club=ClubFactory(name=name), user=director)
    html = web.get("/games/new/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    select = re.search(r'<select name="club"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    clubs = re.findall(r">([^<]+)</option>", select.group(1))
    assert clubs == ["Émile Club", "Óscar Club", "Riverside", "Zoë Club"]


def test_standings_tied_on_every_score_list_names_by_the_tournaments_language() -> None:
    """The pure computation takes the order of names from its caller (the tournament's
    language); by default the name key, as before."""
    from tournaments.standings import compute_standings
    from tournaments.standings.shapes import Entry

    entries = [Entry(i, i, name) for i, name in enumerate(NAMES, 1)]
    for language, expected in EXPECTED.items():
        rows = compute_standings(
            kind="tonk",
            basis="total",
            missed="average",
            entries=entries,
            results=[],
            rounds_complete=0,
            name_order=collation.sort_key(language),
        )
        assert [row.name for row in rows] == expected, language


# --- every list of names is found -----------------------------------------------------------------

#: Where a list is still ordered by the database on a name column, and why.
DATABASE_ORDER_KEPT = {
    "tournaments/models.py": "Meta.ordering of Club and Player: the admin's changelists, paged "
    "by the database (no page lists them unpaged)",
}


def _orders_by_a_name(node: ast.AST) -> bool:
    """``.order_by(...)`` or ``ordering = (...)`` naming a name column (``name``,
    ``player__name``, ``registration__player__name``...)."""
    values: list[ast.expr] = []
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "order_by":
        values = list(node.args)
    elif isinstance(node, ast.Assign) and any(
        getattr(t, "id", "") == "ordering" for t in node.targets
    ):
        values = list(getattr(node.value, "elts", []))
    return any(
        isinstance(v, ast.Constant)
        and isinstance(v.value, str)
        and v.value.lstrip("-").split("__")[-1] in ("name", "substitute")
        for v in values
    )


def test_no_list_of_names_is_ordered_by_the_database() -> None:
    """Names are ordered in Python by ``ops.collation`` (the databases' collations differ and
    know no language): no ``order_by`` on a name column in the apps, but where stated."""
    root = Path(__file__).resolve().parents[2]
    found = {
        str(path.relative_to(root))
        for package in ("scoring", "tournaments", "ops")
        for path in (root / package).rglob("*.py")
        if "migrations" not in path.parts
        and any(_orders_by_a_name(n) for n in ast.walk(ast.parse(path.read_text("utf-8"))))
    }
    assert found == set(DATABASE_ORDER_KEPT)
