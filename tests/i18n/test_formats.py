"""Local forms (issue 15, "Local forms"): numbers, signed points, amounts, dates and times in
each language's CLDR forms (``ops.l10n``, the builtin filters of
``ops.templatetags.local_forms``), on the pages and printouts; card notation, form values and
the API stay ASCII; a hand typed in ASCII notation (and Bengali digits in number fields) is
taken the same under every language."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from django.template import engines
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from ops import l10n
from ops.language_list import codes
from scoring.models import Game, Hand
from tests.factories import MembershipFactory, sit
from tests.hands import numbered
from tests.scoring.test_pages_table import (
    BLUKE_HAND_1,
    CAUGHT_KNOCK,
    CAUGHT_KNOCK_SCORES,
    ROOK_ROUND_1,
    bluke_game,
    errors_beside,
    form,
    parse,
    rook_game,
    scores_of,
    tonk_game,
    tonk_three_hands,
    url,
)
from tests.tournaments.test_pages_public import NAMES, enter_round_1, seated
from tests.tournaments.test_pages_public import url as public_url
from tournaments import services as tournament_services
from tournaments.models import Round, Tournament

LANGUAGES = codes()
BENGALI_DIGITS = set("০১২৩৪৫৬৭৮৯")
MARCH_15 = datetime(2026, 3, 15, 18, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _language_of_the_tests() -> Iterator[None]:
    """A request with Accept-Language leaves its language active in the thread (the locale
    middleware does not deactivate it): the next test module starts in the default again."""
    yield
    translation.deactivate()


# --- the module -------------------------------------------------------------------------------


def test_a_sentence_writes_its_whole_numbers_in_the_languages_digits_and_names_as_typed() -> None:
    text = "%(name)s plays round %(round)d at table %(table)s."
    values = {"name": "Ana 2", "round": 3, "table": 12}
    assert l10n.sentence(text, values, language="bn") == "Ana 2 plays round ৩ at table ১২."
    assert l10n.sentence(text, values, language="ta") == "Ana 2 plays round 3 at table 12."
    assert l10n.sentence("%(flag)s", {"flag": True}, language="bn") == "True"


@pytest.mark.parametrize(
    ("language", "limit", "expected"),
    [
        ("en", 1, "R5 is entered 3 times but only 1 copy is in play"),
        ("en", 2, "R5 is entered 3 times but only 2 copies are in play"),
        ("bn", 1, "R5 তাস ৩ বার দেওয়া হয়েছে, কিন্তু খেলায় এর কপি কেবল ১টি"),
        ("bn", 2, "R5 তাস ৩ বার দেওয়া হয়েছে, কিন্তু খেলায় এর কপি কেবল ২টি"),
        ("as", 2, "কাৰ্ড R5 ৩ বাৰ দিয়া হৈছে কিন্তু খেলত মাত্ৰ ২ খন কপি আছে"),
    ],
)
def test_a_rule_errors_numbers_are_in_the_languages_digits_its_cards_as_printed(
    language: str, limit: int, expected: str
) -> None:
    """The count still chooses the plural form after its digits are the language's; the
    English of the command line (``error.message``) keeps ASCII digits."""
    from scoring.messages import error_message
    from tonkrules.errors import RuleError

    error = RuleError("copies", cards=["R5"], params={"count": 3, "limit": limit})
    with translation.override(language):
        assert error_message(error) == expected
    assert error.message.startswith("R5 is entered 3 times but only ")


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "1,234"), ("bn", "১,২৩৪"), ("as", "১,২৩৪"), ("ta", "1,234"), ("fil", "1,234")],
)
def test_a_number_is_written_in_the_locales_default_digits_and_grouping(
    language: str, expected: str
) -> None:
    assert l10n.number(1234, language=language) == expected


def test_bengali_and_tamil_group_in_the_indian_way_english_and_filipino_in_thousands() -> None:
    assert l10n.number(1234567, language="bn") == "১২,৩৪,৫৬৭"
    assert l10n.number(1234567, language="ta") == "12,34,567"
    assert l10n.number(1234567, language="fil") == "1,234,567"


@pytest.mark.parametrize(
    ("language", "minus", "plus"),
    [("en", "-50", "+30"), ("ta", "-50", "+30"), ("bn", "-৫০", "+৩০"), ("as", "-৫০", "+৩০")],
)
def test_signed_points_carry_the_locales_minus_and_plus(
    language: str, minus: str, plus: str
) -> None:
    assert l10n.number(-50, language=language) == minus
    assert l10n.signed(-50, language=language) == minus
    assert l10n.signed(30, language=language) == plus
    assert l10n.signed(0, language=language) == l10n.number(0, language=language)


def test_an_amount_keeps_its_own_decimals() -> None:
    assert l10n.number("1.50", language="en") == "1.50"
    assert l10n.number("-0.75", language="bn") == "-০.৭৫"
    assert l10n.number(Decimal("0.125"), language="ta") == "0.125"
    assert l10n.number("12", language="fil") == "12"


def test_a_fractional_score_shows_two_decimals_and_exactly_as_a_fraction() -> None:
    assert l10n.score(Fraction(35, 3), language="en") == "11.67"
    assert l10n.score(Fraction(35, 3), language="bn") == "১১.৬৭"
    assert l10n.score(Fraction(4, 1), language="as") == "৪"
    assert l10n.fraction(Fraction(35, 3), language="bn") == "৩৫/৩"


@pytest.mark.parametrize(
    ("language", "day", "clock", "both"),
    [
        ("en", "Mar 15, 2026", "18:30", "Mar 15, 2026, 18:30"),
        ("fil", "Mar 15, 2026", "18:30", "Mar 15, 2026, 18:30"),
        ("bn", "১৫ মার্চ, ২০২৬", "১৮:৩০", "১৫ মার্চ, ২০২৬ ১৮:৩০"),
        ("as", "২০২৬ মাৰ্চ ১৫", "১৮:৩০", "২০২৬ মাৰ্চ ১৫ ১৮:৩০"),
        ("ta", "15 மார்., 2026", "18:30", "15 மார்., 2026, 18:30"),
    ],
)
def test_dates_and_times_follow_cldr_medium_date_and_the_24_hour_clock(
    language: str, day: str, clock: str, both: str
) -> None:
    assert l10n.date(MARCH_15, language=language) == day
    assert l10n.time(MARCH_15, language=language) == clock
    assert l10n.date_time(MARCH_15, language=language) == both


def test_a_time_is_shown_in_the_zone_given() -> None:
    # 18:30 UTC is 00:00 the next day in Kolkata (UTC+05:30).
    assert l10n.time(MARCH_15, "Asia/Kolkata", language="bn") == "০০:০০"
    assert l10n.date(MARCH_15, "Asia/Kolkata", language="en") == "Mar 16, 2026"


@pytest.mark.parametrize(
    ("language", "place"),
    [("en", "Kolkata"), ("bn", "কোলকাতা"), ("ta", "கொல்கத்தா"), ("fil", "Kolkata"), ("as", "কলকাতা")],
)
def test_a_time_zone_is_named_by_its_place_in_the_language(language: str, place: str) -> None:
    assert l10n.zone_place("Asia/Kolkata", language=language) == place
    # No place: the zone's id.
    assert l10n.zone_place("Etc/GMT+5", language=language) == "GMT+5"
    assert l10n.zone_place("America/No_Such_Place", language=language) == "America/No Such Place"
    with translation.override(language):
        assert render("{{ z|zone_place }}", language, z="Asia/Kolkata") == place


@pytest.mark.django_db
def test_the_new_tournament_page_lists_the_zones_by_their_places_in_the_language(
    client: Client,
) -> None:
    membership = MembershipFactory(role="director")
    client.force_login(membership.user)
    page = client.get(f"/clubs/{membership.club.pk}/tournaments/new/?lang=ta").content.decode()
    assert '<option value="Asia/Kolkata">கொல்கத்தா · Asia/Kolkata</option>' in page
    assert '<option value="UTC"' in page


def test_the_active_language_is_used_when_none_is_given() -> None:
    with translation.override("as"):
        assert l10n.number(7) == "৭"
    with translation.override("en"):
        assert l10n.number(7) == "7"


# --- the filters ------------------------------------------------------------------------------


def render(text: str, language: str, **context: Any) -> str:
    with translation.override(language):
        return engines["django"].from_string(text).render(context)


def test_the_filters_are_builtins_and_a_count_keeps_choosing_the_plural() -> None:
    text = (
        "{% load i18n %}{{ total|num }} {{ points|signed }} {{ money|amount }} "
        "{% blocktranslate count n=hands|num %}{{ n }} hand{% plural %}{{ n }} hands"
        "{% endblocktranslate %} {{ at|when_time:'Asia/Kolkata' }} {{ '—'|num }}"
    )
    context = {"total": 1234, "points": -50, "money": "2.25", "hands": 2, "at": MARCH_15}
    assert render(text, "en", **context) == "1,234 -50 2.25 2 hands 00:00 —"
    assert render(text, "en", **dict(context, hands=1)).split()[3:5] == ["1", "hand"]
    bengali = render(text, "bn", **context)
    assert bengali.startswith("১,২৩৪ -৫০ ২.২৫ ২")  # "২টি দান": the catalogue's plural
    assert "০০:০০" in bengali


def test_a_numeral_is_still_its_int() -> None:
    from ops.templatetags.local_forms import Numeral

    with translation.override("bn"):
        n = Numeral(12)
    assert n == 12 and n + 1 == 13 and str(n) == "১২"


# --- the pages --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_table_page_in_bengali_shows_bengali_digits_but_cards_and_values_stay_ascii(
    client: Client,
) -> None:
    game = tonk_three_hands(client)  # Ana −9, Ben +6, Cy +3

    doc = parse(client.get(url("table", game), HTTP_ACCEPT_LANGUAGE="bn"))

    totals = [td.text() for td in doc.find("table", id="sheet").find("tfoot").find_all("td")]
    assert [t.split()[0] for t in totals] == ["-৯", "৬", "৩"]
    # money under the totals: 0.25 USD a stake unit, in CLDR's Bengali currency format
    assert totals[0].split()[1] == "-২.২৫US$"
    row = doc.find("tr", id="hand-1").text()
    assert "-৫" in row and "৪" in row
    # the card grid: the notation as printed, the data the script reads ASCII
    taps = doc.find_all("button", class_="cardtap")
    assert {b.attrs["data-card"] for b in taps} >= {"AS", "10H", "KC"}
    assert "10♥" in {b.text().split()[0] for b in taps}
    assert not BENGALI_DIGITS & set("".join(b.attrs["data-card"] + b.text() for b in taps))
    # form values stay machine-readable
    for field in doc.find_all("input"):
        assert not BENGALI_DIGITS & set(field.attrs.get("value", "")), field.attrs
    for option in doc.find_all("option"):
        assert not BENGALI_DIGITS & set(option.attrs.get("value", ""))


@pytest.mark.django_db
def test_the_same_page_in_english_is_unchanged(client: Client) -> None:
    game = tonk_three_hands(client)

    doc = parse(client.get(url("table", game), HTTP_ACCEPT_LANGUAGE="en"))

    totals = [td.text() for td in doc.find("table", id="sheet").find("tfoot").find_all("td")]
    assert totals == ["-9 -$2.25", "6 $1.50", "3 $0.75"]


@pytest.mark.django_db
def test_the_print_view_and_settle_up_in_bengali(client: Client) -> None:
    game = tonk_three_hands(client)

    printed = parse(client.get(url("print", game), HTTP_ACCEPT_LANGUAGE="bn")).text()
    settle = parse(client.get(url("settle-up", game), HTTP_ACCEPT_LANGUAGE="bn"))

    assert "০.২৫" in printed  # the stake
    assert any(c in BENGALI_DIGITS for c in printed.split("·")[-2])  # the date
    net = {
        tr.find("th").text(): tr.find_all("td")[0].text()
        for tr in settle.find("table", id="settle").find("tbody").find_all("tr")
    }
    assert net == {"Ana": "-৯", "Ben": "৬", "Cy": "৩"}
    payments = settle.find("ul", id="payments").text()
    assert "১.৫০" in payments and "৬" in payments


@pytest.mark.django_db
def test_the_api_answers_ascii_digits_in_every_language() -> None:
    member = MembershipFactory()
    api = APIClient()
    api.force_authenticate(member.user)
    created = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Ben"}], "stake": "0.25"},
        format="json",
    )
    assert created.status_code == 201
    game_id = created.json()["id"]
    hand = {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D", "Ben": "KH QH"}}
    assert (
        api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(hand, 1),
            format="json",
            HTTP_IDEMPOTENCY_KEY="k-1",
        ).status_code
        == 201
    )

    answers = {
        lang: api.get(f"/api/v1/games/{game_id}/", HTTP_ACCEPT_LANGUAGE=lang).content
        for lang in LANGUAGES
    }

    assert len(set(answers.values())) == 1
    assert b'"money"' in answers["bn"]
    assert not any(c in BENGALI_DIGITS for c in answers["bn"].decode())


# --- entry in every language ------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_hand_typed_in_ascii_notation_is_taken_the_same_in_every_language(
    client: Client, language: str
) -> None:
    game = sit(client, tonk_game())

    response = client.post(
        url("hand-new", game), form(**CAUGHT_KNOCK, after=0), HTTP_ACCEPT_LANGUAGE=language
    )

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == CAUGHT_KNOCK_SCORES
    assert hand.entry["held"]["Ana"] == ["KC", "QC"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "digits"), [("bn", "০১২৩৪৫৬৭৮৯"), ("as", "০১২৩৪৫৬৭৮৯"), ("ta", "௦௧௨௩௪௫௬௭௮௯")]
)
def test_card_indices_typed_in_the_languages_digits_are_read_as_printed(
    client: Client, language: str, digits: str
) -> None:
    """A phone's keyboard in the language may type its own digits for an index (``৪D``): the
    card is the same, stored in the notation as printed (``4D``)."""
    game = sit(client, tonk_game())
    native = str.maketrans("0123456789", digits)
    data = {**CAUGHT_KNOCK, "held_1": "AS 4D".translate(native), "held_2": "8H".translate(native)}
    assert data["held_1"] != "AS 4D"

    response = client.post(
        url("hand-new", game), form(**data, after=0), HTTP_ACCEPT_LANGUAGE=language
    )

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == CAUGHT_KNOCK_SCORES
    assert hand.entry["held"]["Ben"] == ["AS", "4D"] and hand.entry["held"]["Cy"] == ["8H"]


@pytest.mark.django_db
def test_a_refused_card_typed_in_bengali_digits_is_named_beside_its_own_field(
    client: Client,
) -> None:
    """Round 1 with Ben's meld "R২ Y২" (two cards: no meld): the refusal is shown beside
    Ben's melds, where the card was typed, as for "R2 Y2"."""
    game = sit(client, rook_game())
    data = {**ROOK_ROUND_1, "melds_1": "R২ Y২"}

    refused = client.post(url("hand-new", game), form(**data, after=0), HTTP_ACCEPT_LANGUAGE="bn")

    assert refused.status_code == 422
    doc = parse(refused)
    assert errors_beside(doc, "melds_1") and "R2 Y2" in errors_beside(doc, "melds_1")[0]
    assert errors_beside(doc, "held_1") == []
    assert Hand.objects.filter(game=game).count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_api_takes_ascii_notation_the_same_in_every_language(language: str) -> None:
    member = MembershipFactory()
    api = APIClient()
    api.force_authenticate(member.user)
    game_id = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Ben"}]},
        format="json",
    ).json()["id"]
    hand = {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D", "Ben": "KH QH"}}

    response = api.post(
        f"/api/v1/games/{game_id}/hands/",
        numbered(hand, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"k-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 201, response.content
    game = api.get(f"/api/v1/games/{game_id}/").json()
    # Ana knocks with 3 (A + 2) against Ben's 20: Ben pays Ana 1 (rules/tonk.md).
    assert game["results"]["totals"] == {"Ana": 1, "Ben": -1}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["bn", "as"])
def test_bids_and_tricks_typed_in_bengali_digits_are_taken(client: Client, language: str) -> None:
    game = sit(client, bluke_game())
    native = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
    data = {
        k: str(v).translate(native) if k.startswith(("bid_", "tricks_")) else v
        for k, v in BLUKE_HAND_1.items()
    }

    response = client.post(
        url("hand-new", game), form(**data, after=0), HTTP_ACCEPT_LANGUAGE=language
    )

    assert response.status_code == 302
    assert scores_of(Hand.objects.get(game=game)) == {"Ana": 41, "Ben": -50, "Cy": 32}


def test_a_rook_contract_in_words_has_local_digits() -> None:
    from scoring.games.rook import contract_text
    from tonkrules.rook import CONTRACTS

    with translation.override("as"):
        text = contract_text(CONTRACTS[3])
    assert set(text) & BENGALI_DIGITS and not set(text) & set("0123456789")


def test_digits_of_any_script_are_read_as_ascii() -> None:
    assert l10n.ascii_digits("০.২৫") == "0.25"
    assert l10n.ascii_digits("௧௨, 3") == "12, 3"
    assert l10n.ascii_digits("KS 10H") == "KS 10H"


@pytest.mark.django_db
def test_a_stake_typed_in_bengali_digits_is_stored_in_ascii(client: Client) -> None:
    from tests.scoring.test_pages_games import NEW, start_form

    user = MembershipFactory().user
    client.force_login(user)
    data = start_form(
        client, kind="tonk", player_1="Ana", player_2="Ben", stake="০.২৫", currency="INR"
    )

    response = client.post(NEW, data, HTTP_ACCEPT_LANGUAGE="bn")

    assert response.status_code == 303
    game = Game.objects.get()
    assert (game.stake, game.currency) == ("0.25", "INR")


@pytest.mark.django_db
def test_the_standings_and_player_pages_in_bengali(
    client: Client, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    rnd = seated(tournament)  # Rook, nine players at three tables, in Kolkata
    tournament_services.round_publish(round=rnd)
    Round.objects.filter(pk=rnd.pk).update(deadline=datetime(2026, 11, 29, 14, 0, tzinfo=UTC))
    playing = parse(client.get(public_url("standings", tournament.pk), HTTP_ACCEPT_LANGUAGE="bn"))
    assert "১৯:৩০" in playing.text()  # 14:00 UTC in Kolkata, in Bengali digits
    assert f"({l10n.zone_place('Asia/Kolkata', language='bn')})" in playing.text()
    enter_round_1(rnd, django_capture_on_commit_callbacks)
    ana = tournament.registrations.get(player__name="Ana")

    standings = parse(client.get(public_url("standings", tournament.pk), HTTP_ACCEPT_LANGUAGE="bn"))
    player = parse(
        client.get(public_url("player", tournament.pk, ana.pk), HTTP_ACCEPT_LANGUAGE="bn")
    )
    english = parse(
        client.get(public_url("player", tournament.pk, ana.pk), HTTP_ACCEPT_LANGUAGE="en")
    )

    rows = {
        tr.find("th").text().split()[0]: [td.text() for td in tr.find_all("td")]
        for tr in standings.find("table", class_="standings").find("tbody").find_all("tr")
    }
    assert set(rows) == set(NAMES)
    assert rows["Ana"][1] == "১০"  # her total: R10
    assert rows["Ben"][1] == "৫"
    assert rows["Ana"][0] == "৯"  # last of nine, lowest total wins
    assert "১৯:৩০" not in standings.text()  # the round is complete: no end time any more
    history = player.find("table", class_="sheet").find("tbody").find("tr")
    assert [td.text().split()[0] for td in history.find_all("td")][::2] == ["১", "১০"]
    english_history = english.find("table", class_="sheet").find("tbody").find("tr")
    assert [td.text().split()[0] for td in english_history.find_all("td")][::2] == ["1", "10"]
