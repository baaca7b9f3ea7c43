"""The table pages (``/t/<table key>/``) through the Django test client: what each game's page
shows, entering hands through the entry forms as a browser posts them (plain and htmx),
rejected hands, double submits, corrections and voids, settle-up, exports, labels, and who is
recorded as having entered a hand."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from xml.etree import ElementTree

import pytest
from django.test import Client
from django.urls import reverse

from scoring import selectors, services
from scoring.models import Game, Hand, ScoreLine
from tests.factories import UserFactory, sit
from tests.hands import next_number

pytestmark = pytest.mark.django_db

P3 = ["Ana", "Ben", "Cy"]
HTMX = {"HTTP_HX_REQUEST": "true"}

# --- reading the HTML -------------------------------------------------------------------------

VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


@dataclass
class Node:
    """An element of a parsed page, enough of a DOM to find fields, errors and labels."""

    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        """Descendants with ``tag`` whose attributes equal ``attrs`` (``class_`` matches one
        class)."""
        found = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            wanted = dict(attrs)
            css = wanted.pop("class_", None)
            if css is not None and css not in node.classes:
                continue
            if all(node.attrs.get(k) == v for k, v in wanted.items()):
                found.append(node)
        return found

    def find(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag} {attrs}> on the page"
        return found[0]

    def text(self) -> str:
        parts = [c if isinstance(c, str) else c.text() for c in self.children]
        return " ".join(" ".join(parts).split())

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID_ELEMENTS:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.current
        while node is not None and node is not self.root and node.tag != tag:
            node = node.parent
        if node is not None and node is not self.root and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(response: Any) -> Node:
    builder = _Builder()
    builder.feed(response.content.decode())
    builder.close()
    return builder.root


def control(doc: Node, name: str) -> Node:
    """The entry form's control named ``name`` (the first, for radios); the page's first
    where there is no entry form (the other forms carry their own keys and reasons)."""
    entries = doc.find_all("form", id="entry")
    for node in (entries[0] if entries else doc).iter():
        if node.tag in ("input", "select", "textarea") and node.attrs.get("name") == name:
            return node
    raise AssertionError(f"no control named {name!r}")


def value_of(doc: Node, name: str) -> str:
    """What a control shows: a text field's value, a textarea's text, the selected option,
    the checked radio."""
    node = control(doc, name)
    if node.tag == "textarea":
        return "".join(c for c in node.children if isinstance(c, str)).strip()
    if node.tag == "select":
        selected = [o for o in node.find_all("option") if "selected" in o.attrs]
        return selected[0].attrs["value"] if selected else ""
    if node.attrs.get("type") == "radio":
        radios = [
            n
            for n in doc.iter()
            if n.tag == "input" and n.attrs.get("name") == name and "checked" in n.attrs
        ]
        return radios[0].attrs["value"] if radios else ""
    return node.attrs.get("value", "")


def holder(doc: Node, name: str) -> Node:
    """The element that holds the control ``name`` (its field, or its table cell)."""
    parent = control(doc, name).parent
    assert parent is not None
    return parent


def errors_beside(doc: Node, name: str) -> list[str]:
    """The error messages shown in the element that holds the control ``name``."""
    return [n.text() for n in holder(doc, name).find_all(class_="error")]


def all_errors(doc: Node) -> list[str]:
    return [n.text() for n in doc.find_all(class_="error")]


def sheet_cells(doc: Node) -> list[list[tuple[int, int]]]:
    """Per hand row of the score sheet: (points, running total) per player, in seat order."""
    rows = []
    for tr in doc.find("table", id="sheet").find_all("tr"):
        if not tr.attrs.get("id", "").startswith("hand-"):
            continue
        cells = []
        for td in tr.find_all("td"):
            spans = td.find_all("span")
            running = spans[1].text().removeprefix("running total")  # read out, not shown
            cells.append((int(spans[0].text()), int(running)))
        rows.append(cells)
    return rows


def sheet_totals(doc: Node) -> dict[str, str]:
    """The totals row of the score sheet: player → the text of their cell."""
    return {td.attrs["data-player"]: td.text() for td in doc.find("tfoot").find_all("td")}


def next_facts(doc: Node) -> dict[str, str]:
    """What comes next, as the page lists it (term → value)."""
    facts = doc.find("dl", class_="facts")
    terms = [n.text() for n in facts.find_all("dt")]
    values = [n.text() for n in facts.find_all("dd")]
    return dict(zip(terms, values, strict=True))


def grid_cards(doc: Node) -> list[str]:
    return [
        b.attrs["data-card"]
        for b in doc.find("div", id="cardgrid").find_all("button", class_="cardtap")
    ]


def unlabelled_controls(doc: Node) -> list[str]:
    """Every visible form control that has no label: neither a ``<label for>`` its id, nor a
    ``<label>`` around it."""
    label_for = {n.attrs.get("for") for n in doc.find_all("label")}
    missing = []
    for node in doc.iter():
        if node.tag not in ("input", "select", "textarea"):
            continue
        if node.tag == "input" and node.attrs.get("type") == "hidden":
            continue
        if node.attrs.get("id") in label_for and node.attrs.get("id"):
            continue
        if any(a.tag == "label" for a in node.ancestors()):
            continue
        missing.append(node.attrs.get("name") or node.attrs.get("id") or node.tag)
    return missing


# --- games and posts --------------------------------------------------------------------------


def tonk_game(players: list[str] = P3) -> Game:
    game, _ = services.game_start(kind="tonk", players=players, stake="0.25", currency="USD")
    return game


def rook_game(players: list[str] = P3) -> Game:
    game, _ = services.game_start(kind="rook", players=players)
    return game


def bluke_game(players: list[str] = P3) -> Game:
    game, _ = services.game_start(kind="bluke", players=players)
    return game


GAMES = {"tonk": tonk_game, "rook": rook_game, "bluke": bluke_game}


def url(name: str, game: Game, **kwargs: Any) -> str:
    return reverse(f"scoring:{name}", kwargs={"key": game.table_key, **kwargs})


def form(**fields: object) -> dict[str, str]:
    """Form data as a browser posts it, with a fresh idempotency key unless one is given."""
    data = {"idempotency_key": uuid.uuid4().hex}
    data.update({k: str(v) for k, v in fields.items()})
    return data


# Ana knocks holding 20 (KC QC); Ben holds 5 (AS 4D), Cy 8 (8H): Ana is caught. rules/tonk.md:
# (a) Ana pays 2 to Ben and 2 to Cy, both at or below her 20; (b) Ben, lowest, collects 1
# from each player outside the lowest group, Ana and Cy. Ana −5, Ben +4, Cy +1.
CAUGHT_KNOCK = dict(dealer=2, end="knock", by=0, held_0="KC QC", held_1="AS 4D", held_2="8H")
CAUGHT_KNOCK_SCORES = {"Ana": -5, "Ben": 4, "Cy": 1}
# Cy tonks out (nothing held): each other player pays 2. Ana −2, Ben −2, Cy +4.
CY_TONKS_OUT = dict(dealer=0, end="tonk_out", by=2, held_0="3C", held_1="9S 9D", held_2="")
# Ben shows K K Q J 10 = 50 at the deal: each other player pays 2. Ana −2, Ben +4, Cy −2.
BEN_DEAL_TONK = dict(dealer=1, end="deal_tonk", by=1, held_1="KH KD QS JC 10D")


def post_hand(client: Client, game: Game, data: dict[str, Any], **extra: Any) -> Any:
    """Send ``data`` as the table page's entry form does: with an idempotency key and the
    hand the page was shown after (``after``: the game's last hand number now, unless given)."""
    if "idempotency_key" not in data:
        data = form(**data)
    data.setdefault("after", str(next_number(game) - 1))
    return client.post(url("hand-new", game), data, **extra)


def tonk_three_hands(client: Client) -> Game:
    """A Tonk game with a caught knock, a tonk out and a tonk at the deal entered by form:
    Ana −9, Ben +6, Cy +3."""
    game = sit(client, tonk_game())
    for data in (CAUGHT_KNOCK, CY_TONKS_OUT, BEN_DEAL_TONK):
        assert post_hand(client, game, dict(data)).status_code == 302
    return game


# Round 1 (two sets): Ana goes out; Ben holds R3 (5), Cy G12 (10).
ROOK_ROUND_1 = dict(
    round=1, dealer=0, out=0, melds_0="R7 Y7 G7\nB11 B11 R11", held_1="R3", held_2="G12"
)
# Round 2 (one run, one set): Ben goes out with the Rook standing for R7 in the run R5-R8.
# Ana holds R1 Y12 (5 + 10), Cy holds ROOK B3 (25 + 5).
ROOK_ROUND_2 = dict(
    round=2, dealer=1, out=1, melds_1="R5 R6 ROOK R8\nY9 G9 B9", held_0="R1 Y12", held_2="ROOK B3"
)
# Round 3 (two runs): Cy goes out; Ana holds B13 (10), Ben Y4 G8 (5 + 5).
ROOK_ROUND_3 = dict(
    round=3, dealer=2, out=2, melds_2="Y1 Y2 Y3 Y4\nG6 G7 G8 G9", held_0="B13", held_1="Y4 G8"
)


def rook_rounds(client: Client, *rounds: dict[str, Any]) -> Game:
    game = sit(client, rook_game())
    for data in rounds:
        assert post_hand(client, game, dict(data)).status_code == 302
    return game


# Bluke hand 1 (13 cards), Ana deals: Ana bids 4 takes 5 (41), Ben bids 5 takes 3 (−50),
# Cy bids 3 takes 5 (32).
BLUKE_HAND_1 = dict(
    hand=1, dealer=0, trump="H", bid_0=4, bid_1=5, bid_2=3, tricks_0=5, tricks_1=3, tricks_2=5
)


def scores_of(hand: Hand) -> dict[str, int]:
    return {
        line.seat.name: line.points
        for line in ScoreLine.objects.filter(hand=hand).select_related("seat")
    }


# --- the table page of each game --------------------------------------------------------------


def test_tonk_table_page_shows_the_players_the_deal_and_the_52_card_grid(client: Client) -> None:
    game = sit(client, tonk_game())

    response = client.get(url("table", game))

    assert response.status_code == 200
    doc = parse(response)
    assert doc.find("h1").text() == "Tonk · Ana, Ben, Cy"
    assert next_facts(doc) == {"Cards dealt": "5", "Deal": "Ana"}
    cards = grid_cards(doc)
    assert len(cards) == len(set(cards)) == 52
    assert {"AS", "10H", "QD", "KC", "2C"} <= set(cards)
    assert not {"HB", "LB", "ROOK"} & set(cards)
    assert doc.find("form", id="entry").attrs["data-copies"] == "1"
    assert [o.text() for o in control(doc, "dealer").find_all("option")] == P3
    assert "No hands yet." in doc.text()


@pytest.mark.parametrize("players", [P3, ["Ana", "Ben", "Cy", "Di"]])
def test_rook_table_page_shows_round_1_its_contract_and_one_deck_per_player(
    client: Client, players: list[str]
) -> None:
    game = sit(client, rook_game(players))

    response = client.get(url("table", game))

    assert response.status_code == 200
    doc = parse(response)
    assert doc.find("h1").text() == f"Toonerville Rook · {', '.join(players)}"
    assert next_facts(doc) == {
        "Round": "1",
        "Contract": "2 sets",
        "Cards dealt": "12",
        "Decks": str(len(players)),
        "Deal": "Ana",
    }
    assert value_of(doc, "round") == "1"
    expected = [f"{c}{n}" for c in "RYGB" for n in range(1, 15)] + ["ROOK"]
    assert grid_cards(doc) == expected
    assert doc.find("form", id="entry").attrs["data-copies"] == str(len(players))
    assert json.loads(doc.find("script", id="entry-data").text())["copies"] == len(players)
    assert [r.attrs["value"] for r in doc.find_all("input", name="out")] == [
        *(str(i) for i in range(len(players))),
        "none",
    ]
    assert "Nobody: time called" in doc.find("fieldset", class_="choices").text()


def test_bluke_table_page_shows_hand_1_13_cards_and_bidding_from_left_of_the_dealer(
    client: Client,
) -> None:
    game = sit(client, bluke_game())

    response = client.get(url("table", game))

    assert response.status_code == 200
    doc = parse(response)
    assert next_facts(doc) == {
        "Hand": "1",
        "Cards dealt": "13",
        "Trump": "turn up the next card",
        "Bidding": "Ben → Cy → Ana",
        "Deal": "Ana",
    }
    assert value_of(doc, "hand") == "1"
    cards = grid_cards(doc)
    assert len(cards) == len(set(cards)) == 54
    assert cards[-2:] == ["HB", "LB"]
    assert {"AS", "10H", "2D", "KC"} <= set(cards)
    assert [r.attrs["value"] for r in doc.find_all("input", name="trump")] == [
        "S",
        "H",
        "D",
        "C",
        "none",
    ]


def test_after_a_hand_the_deal_passes_to_the_next_seat(client: Client) -> None:
    game = sit(client, bluke_game())

    response = post_hand(client, game, dict(BLUKE_HAND_1))

    assert response.status_code == 302
    doc = parse(client.get(url("table", game)))
    assert next_facts(doc) == {
        "Hand": "2",
        "Cards dealt": "12",
        "Trump": "turn up the next card",
        "Bidding": "Cy → Ana → Ben",
        "Deal": "Ben",
    }
    assert value_of(doc, "dealer") == "1"
    assert value_of(doc, "hand") == "2"


def test_the_deal_wraps_from_the_last_seat_to_the_first(client: Client) -> None:
    game = sit(client, tonk_game())

    post_hand(client, game, dict(CAUGHT_KNOCK))  # dealt by Cy, the last seat

    doc = parse(client.get(url("table", game)))
    assert next_facts(doc)["Deal"] == "Ana"
    assert value_of(doc, "dealer") == "0"


def test_sheet_fragment_is_the_table_main_region_alone(client: Client) -> None:
    game = sit(client, tonk_game())

    response = client.get(url("sheet", game))

    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="table-main" ')
    assert "<html" not in body


# --- Tonk -------------------------------------------------------------------------------------


def test_caught_knock_entered_by_form_pays_as_the_rules_say(client: Client) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CAUGHT_KNOCK))

    assert response.status_code == 302
    assert response["Location"] == url("table", game)
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == CAUGHT_KNOCK_SCORES
    assert hand.entry == {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": ["KC", "QC"], "Ben": ["AS", "4D"], "Cy": ["8H"]},
    }
    doc = parse(client.get(url("table", game)))
    assert sheet_cells(doc) == [[(-5, -5), (4, 4), (1, 1)]]
    # Totals with money at 0.25 USD a unit (CLDR's English currency format): −1.25, 1.00, 0.25.
    assert sheet_totals(doc) == {"Ana": "-5 -$1.25", "Ben": "4 $1.00", "Cy": "1 $0.25"}
    assert doc.find("p", id="leader").text() == "Leading: Ben"
    assert "Knock (drop): Ana" in doc.find("tr", id=f"hand-{hand.number}").text()


def test_tonk_out_entered_by_form_has_each_other_player_pay_two(client: Client) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CY_TONKS_OUT))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == {"Ana": -2, "Ben": -2, "Cy": 4}
    # The player who went out holds nothing and is left out of "held".
    assert hand.entry["held"] == {"Ana": ["3C"], "Ben": ["9S", "9D"]}


def test_deal_tonk_entered_by_form_has_each_other_player_pay_two(client: Client) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(BEN_DEAL_TONK))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == {"Ana": -2, "Ben": 4, "Cy": -2}
    assert hand.entry == {
        "dealer": "Ben",
        "end": "deal_tonk",
        "by": "Ben",
        "held": {"Ben": ["KH", "KD", "QS", "JC", "10D"]},
    }


def test_deal_tonk_on_a_total_that_does_not_tonk_is_refused_with_the_rule(
    client: Client,
) -> None:
    game = sit(client, tonk_game())

    # K K Q J 9 = 49 tonks, but K K Q 9 8 = 47 does not.
    response = post_hand(client, game, dict(BEN_DEAL_TONK, held_1="KH KD QS 9C 8D"))

    assert response.status_code == 422
    doc = parse(response)
    assert any(e.startswith("This total does not tonk") for e in all_errors(doc))
    assert value_of(doc, "held_1") == "KH KD QS 9C 8D"
    assert Hand.objects.filter(game=game).count() == 0


def test_knock_with_spreads_on_the_table_is_recorded_with_them(client: Client) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CAUGHT_KNOCK, spreads="4C 5C 6C\nJH JS JD"))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert hand.entry["spreads"] == [["4C", "5C", "6C"], ["JH", "JS", "JD"]]
    assert scores_of(hand) == CAUGHT_KNOCK_SCORES


def test_bad_spread_is_refused_next_to_the_spreads_field(client: Client) -> None:
    game = sit(client, tonk_game())

    # Q-K-A is no run: the ace is low only.
    response = post_hand(client, game, dict(CAUGHT_KNOCK, spreads="4C 5C 6C\nQS KS AC"))

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "spreads")
    assert error.startswith("Not a legal meld")
    assert "QS KS AC" in error
    assert value_of(doc, "spreads") == "4C 5C 6C\nQS KS AC"
    assert Hand.objects.filter(game=game).count() == 0


def test_knock_without_every_players_cards_is_refused_next_to_the_empty_field(
    client: Client,
) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CAUGHT_KNOCK, held_2=""))

    assert response.status_code == 422
    doc = parse(response)
    assert errors_beside(doc, "held_2") == ["Enter the cards Cy held."]
    assert errors_beside(doc, "held_0") == []
    assert value_of(doc, "held_0") == "KC QC"
    assert Hand.objects.filter(game=game).count() == 0


def test_bad_card_is_refused_next_to_the_field_that_holds_it(client: Client) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CAUGHT_KNOCK, held_1="AS 1D"))

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "held_1")
    assert error.startswith("Not a card of this deck — Ben — 1D")
    assert Hand.objects.filter(game=game).count() == 0


def test_htmx_post_answers_with_the_table_main_fragment_and_the_new_hand(
    client: Client,
) -> None:
    game = sit(client, tonk_game())
    data = form(**CAUGHT_KNOCK)

    response = post_hand(client, game, data, **HTMX)

    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="table-main" ')
    assert "<html" not in body
    doc = parse(response)
    assert doc.find("p", class_="ok").text() == "Hand 1 recorded."
    assert sheet_cells(doc) == [[(-5, -5), (4, 4), (1, 1)]]
    # A fresh form for the next hand, with a new idempotency key and the next dealer.
    assert value_of(doc, "idempotency_key") not in ("", data["idempotency_key"])
    assert value_of(doc, "dealer") == "0"
    assert value_of(doc, "held_0") == ""


def test_htmx_post_of_a_rejected_hand_answers_400_with_the_fragment_and_the_entry(
    client: Client,
) -> None:
    game = sit(client, tonk_game())
    data = form(**dict(CAUGHT_KNOCK, held_1="AS 1D"))

    response = post_hand(client, game, data, **HTMX)

    assert response.status_code == 422
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="table-main" ')
    doc = parse(response)
    assert errors_beside(doc, "held_1")[0].startswith("Not a card of this deck — Ben — 1D")
    assert value_of(doc, "held_1") == "AS 1D"
    # The retry keeps the key of the rejected submission.
    assert value_of(doc, "idempotency_key") == data["idempotency_key"]
    assert Hand.objects.filter(game=game).count() == 0


def test_settle_up_shows_net_units_money_and_the_fewest_payments(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.get(url("settle-up", game))

    assert response.status_code == 200
    doc = parse(response)
    assert "One stake unit is $0.25." in doc.text()
    rows = {
        tr.find("th").text(): [td.text() for td in tr.find_all("td")]
        for tr in doc.find("table", id="settle").find("tbody").find_all("tr")
    }
    # Ana −5 −2 −2, Ben +4 −2 +4, Cy +1 +4 −2.
    assert rows == {"Ana": ["-9", "-$2.25"], "Ben": ["6", "$1.50"], "Cy": ["3", "$0.75"]}
    payments = [li.text() for li in doc.find("ul", id="payments").find_all("li")]
    assert payments == [
        "Ana pays Ben $1.50 (6 stake units)",
        "Ana pays Cy $0.75 (3 stake units)",
    ]


def test_settle_up_of_a_game_without_hands_owes_nothing(client: Client) -> None:
    game = sit(client, tonk_game())

    response = client.get(url("settle-up", game))

    assert response.status_code == 200
    assert "Nobody owes anything." in parse(response).text()


def test_table_page_shows_the_settle_up_once_hands_are_in(client: Client) -> None:
    game = tonk_three_hands(client)

    doc = parse(client.get(url("table", game)))

    assert sheet_cells(doc) == [
        [(-5, -5), (4, 4), (1, 1)],
        [(-2, -7), (-2, 2), (4, 5)],
        [(-2, -9), (4, 6), (-2, 3)],
    ]
    payments = [li.text() for li in doc.find("ul", id="payments").find_all("li")]
    assert payments == [
        "Ana pays Ben $1.50 (6 stake units)",
        "Ana pays Cy $0.75 (3 stake units)",
    ]


def test_settle_up_is_for_tonk_only(client: Client) -> None:
    game = sit(client, rook_game())

    assert client.get(url("settle-up", game)).status_code == 404


# --- Toonerville Rook -------------------------------------------------------------------------


def test_rook_round_with_a_rook_in_a_run_is_recorded_and_scores_the_others_cards(
    client: Client,
) -> None:
    game = rook_rounds(client, ROOK_ROUND_1)

    response = post_hand(client, game, dict(ROOK_ROUND_2))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game, sequence=2)
    assert scores_of(hand) == {"Ana": 15, "Ben": 0, "Cy": 30}
    assert hand.entry["melds"] == {"Ben": [["R5", "R6", "ROOK", "R8"], ["Y9", "G9", "B9"]]}
    doc = parse(client.get(url("table", game)))
    # Round 1: Ana 0, Ben 5, Cy 10; round 2: Ana 15, Ben 0, Cy 30.
    assert sheet_cells(doc) == [[(0, 0), (5, 5), (10, 10)], [(15, 15), (0, 5), (30, 40)]]
    assert doc.find("p", id="leader").text() == "Leading: Ben"
    assert next_facts(doc) == {
        "Round": "3",
        "Contract": "2 runs",
        "Cards dealt": "12",
        "Decks": "3",
        "Deal": "Cy",
    }


def test_rook_time_called_round_scores_every_players_cards(client: Client) -> None:
    game = sit(client, rook_game())

    response = post_hand(
        client,
        game,
        dict(
            round=1,
            dealer=0,
            out="none",
            held_0="R1 Y9 G10 B14 ROOK",
            held_1="R2 R2 Y13",
            held_2="G4 G5 G6 B8",
        ),
    )

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    # Ana 5+5+10+10+25, Ben 5+5+10, Cy 4 × 5.
    assert scores_of(hand) == {"Ana": 55, "Ben": 20, "Cy": 20}
    assert hand.entry["out"] is None
    assert "melds" not in hand.entry
    doc = parse(client.get(url("table", game)))
    assert "time called" in doc.find("tr", id=f"hand-{hand.number}").text()
    assert next_facts(doc)["Round"] == "2"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_rook_bad_meld_is_refused_next_to_the_players_melds_and_the_entry_stays(
    client: Client, headers: dict[str, str]
) -> None:
    game = sit(client, rook_game())
    melds = "R7 Y7 G7\nR4 Y4 G5"
    before = Hand.objects.count()

    response = post_hand(
        client,
        game,
        dict(round=1, dealer=0, out=0, melds_0=melds, held_1="R3", held_2="G12"),
        **headers,
    )

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "melds_0")
    assert error.startswith("Not a legal meld — Ana — R4 Y4 G5: ")
    assert all_errors(doc) == [error]
    assert "has-error" in holder(doc, "melds_0").classes
    assert "has-error" in doc.find("fieldset", **{"data-seat": "0"}).classes
    assert "has-error" not in doc.find("fieldset", **{"data-seat": "1"}).classes
    assert value_of(doc, "melds_0") == melds
    assert value_of(doc, "held_1") == "R3"
    assert value_of(doc, "out") == "0"
    assert Hand.objects.count() == before
    assert ScoreLine.objects.filter(game=game).count() == 0


def test_rook_bad_meld_of_a_player_not_out_is_shown_at_that_players_melds(
    client: Client,
) -> None:
    game = sit(client, rook_game())

    response = post_hand(
        client,
        game,
        dict(ROOK_ROUND_1, melds_1="R2 Y2"),
    )

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "melds_1")
    assert error.startswith("Not a legal meld — Ben — R2 Y2: ")
    assert errors_beside(doc, "melds_0") == []
    assert Hand.objects.filter(game=game).count() == 0


def test_rook_contract_not_met_is_shown_at_the_going_out_players_melds(client: Client) -> None:
    game = sit(client, rook_game())

    # Round 1 asks for two sets; one set is short of the contract.
    response = post_hand(client, game, dict(ROOK_ROUND_1, melds_0="R7 Y7 G7"))

    assert response.status_code == 422
    (error,) = errors_beside(parse(response), "melds_0")
    assert error.startswith("The contract is not met — Ana")
    assert Hand.objects.filter(game=game).count() == 0


def test_rook_cards_typed_for_the_player_who_went_out_are_refused_not_dropped(
    client: Client,
) -> None:
    game = sit(client, rook_game())

    response = post_hand(client, game, dict(ROOK_ROUND_1, held_0="B2"))

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "held_0")
    assert error.startswith("Not out — Ana — B2: ")
    assert Hand.objects.filter(game=game).count() == 0


def test_rook_after_round_11_the_page_asks_to_finish_and_round_12_is_refused(
    client: Client,
) -> None:
    game = sit(client, rook_game())
    for rnd in range(1, 12):
        services.hand_record(
            game=game,
            entry={
                "round": rnd,
                "dealer": P3[(rnd - 1) % 3],
                "out": None,
                "held": {"Ana": "R1", "Ben": "R10", "Cy": "ROOK"},
            },
        )

    doc = parse(client.get(url("table", game)))

    assert doc.find_all("form", id="entry") == []
    assert "Every hand this table plays is entered." in doc.text()
    assert sheet_totals(doc) == {"Ana": "55", "Ben": "110", "Cy": "275"}
    refused = post_hand(client, game, dict(ROOK_ROUND_1, round=12))
    assert refused.status_code == 422
    assert Hand.objects.filter(game=game).count() == 11


# --- Bluke ------------------------------------------------------------------------------------


def test_bluke_bids_and_tricks_score_made_and_set_hands(client: Client) -> None:
    game = sit(client, bluke_game())

    response = post_hand(client, game, dict(BLUKE_HAND_1))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert scores_of(hand) == {"Ana": 41, "Ben": -50, "Cy": 32}
    assert hand.entry == {
        "hand": 1,
        "dealer": "Ana",
        "trump": "H",
        "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
        "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
    }
    doc = parse(client.get(url("table", game)))
    assert sheet_cells(doc) == [[(41, 41), (-50, -50), (32, 32)]]
    assert doc.find("p", id="leader").text() == "Leading: Ana"


def test_bluke_turned_high_bluke_means_no_trump(client: Client) -> None:
    game = sit(client, bluke_game())
    data = dict(BLUKE_HAND_1)
    del data["trump"]

    response = post_hand(client, game, dict(data, turned="HB"))

    assert response.status_code == 302
    hand = Hand.objects.get(game=game)
    assert hand.entry["trump"] == "none"
    assert hand.entry["turned"] == "HB"
    assert "no trump" in parse(client.get(url("table", game))).find("tr", id="hand-1").text()


def test_bluke_tricks_that_do_not_add_up_are_refused(client: Client) -> None:
    game = sit(client, bluke_game())

    response = post_hand(client, game, dict(BLUKE_HAND_1, tricks_2=4))  # 5 + 3 + 4 = 12

    assert response.status_code == 422
    doc = parse(response)
    (error,) = doc.find("div", id="entry-error").find_all("p")
    assert error.text().startswith("The tricks do not add up: ")
    assert "12" in error.text() and "13" in error.text()
    assert value_of(doc, "tricks_2") == "4"
    assert Hand.objects.filter(game=game).count() == 0


@pytest.mark.parametrize(
    ("seat", "bid", "name"),
    [(0, 0, "Ana"), (1, 14, "Ben")],
    ids=["zero-without-allow-zero-bid", "more-than-the-13-cards-dealt"],
)
def test_bluke_bid_out_of_range_is_refused_next_to_that_players_bid(
    client: Client, seat: int, bid: int, name: str
) -> None:
    game = sit(client, bluke_game())

    response = post_hand(client, game, dict(BLUKE_HAND_1, **{f"bid_{seat}": bid}))

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, f"bid_{seat}")
    assert error.startswith(f"Bid out of range — {name}: ")
    assert all_errors(doc) == [error]
    assert "has-error" in doc.find("tr", **{"data-seat": str(seat)}).classes
    assert value_of(doc, f"bid_{seat}") == str(bid)
    assert Hand.objects.filter(game=game).count() == 0


def test_bluke_turned_card_that_disagrees_with_trump_is_refused_at_the_turned_card(
    client: Client,
) -> None:
    game = sit(client, bluke_game())

    response = post_hand(client, game, dict(BLUKE_HAND_1, trump="S", turned="9H"))

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "turned")
    assert error.startswith("Trump and the turned card disagree — 9H: ")
    assert value_of(doc, "trump") == "S"
    assert value_of(doc, "turned") == "9H"
    assert Hand.objects.filter(game=game).count() == 0


def test_bluke_without_trump_or_turned_card_asks_for_trump(client: Client) -> None:
    game = sit(client, bluke_game())
    data = dict(BLUKE_HAND_1)
    del data["trump"]

    response = post_hand(client, game, data)

    assert response.status_code == 422
    doc = parse(response)
    # The trump radios sit in a fieldset; the error follows it.
    assert all_errors(doc) == ["Choose trump, or enter the card turned up."]
    assert (
        doc.find("div", id="id_trump_error").text() == "Choose trump, or enter the card turned up."
    )


# --- one hand per submission ------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_double_submit_with_one_idempotency_key_records_one_hand(
    client: Client, headers: dict[str, str]
) -> None:
    game = sit(client, tonk_game())
    data = form(**CAUGHT_KNOCK | {"idempotency_key": "tap-tap"})

    first = post_hand(client, game, data, **headers)
    second = post_hand(client, game, data, **headers)

    assert first.status_code == second.status_code == (200 if headers else 302)
    assert Hand.objects.filter(game=game).count() == 1
    assert ScoreLine.objects.filter(game=game).count() == 3
    game.refresh_from_db()
    assert game.totals == CAUGHT_KNOCK_SCORES


def test_double_submit_of_a_rook_round_records_one_round(client: Client) -> None:
    game = sit(client, rook_game())
    data = form(**ROOK_ROUND_1)

    first = post_hand(client, game, data)
    second = post_hand(client, game, data)

    assert first.status_code == second.status_code == 302
    assert Hand.objects.filter(game=game).count() == 1
    assert next_facts(parse(client.get(url("table", game))))["Round"] == "2"


# --- corrections and voids --------------------------------------------------------------------


def test_hand_page_shows_the_form_prefilled_and_the_history(client: Client) -> None:
    game = tonk_three_hands(client)
    first = Hand.objects.get(game=game, number=1)

    response = client.get(url("hand-edit", game, number=1))

    assert response.status_code == 200
    doc = parse(response)
    assert value_of(doc, "dealer") == "2"
    assert value_of(doc, "end") == "knock"
    assert value_of(doc, "by") == "0"
    assert [value_of(doc, f"held_{i}") for i in range(3)] == ["KC QC", "AS 4D", "8H"]
    assert value_of(doc, "revision") == "1"
    assert value_of(doc, "idempotency_key") != first.idempotency_key
    entries = doc.find("ol", id="history").find_all("li")
    assert len(entries) == 1
    assert entries[0].text().startswith("Revision 1 · Ana · ")  # the seat that entered it
    assert "Ana -5 · Ben 4 · Cy 1" in entries[0].text()
    assert doc.find("form", id="entry").attrs["action"] == url("hand-edit", game, number=1)
    assert doc.find("button", class_="danger").text() == "Void this hand"


def test_correcting_an_earlier_tonk_hand_changes_later_totals_and_records_revision_2(
    client: Client,
) -> None:
    game = tonk_three_hands(client)
    user = UserFactory(username="dora")
    client.force_login(user)

    # Ben really held K K (20), the knocker's total: Ana pays 2 to Ben and 2 to Cy; Cy (8),
    # lowest, collects 1 from Ana and 1 from Ben. Ana −5, Ben +1, Cy +4.
    response = client.post(
        url("hand-edit", game, number=1),
        form(**dict(CAUGHT_KNOCK, held_1="KS KD", revision=1)),
    )

    assert response.status_code == 302
    assert response["Location"] == url("table", game)
    doc = parse(client.get(url("table", game)))
    assert sheet_cells(doc) == [
        [(-5, -5), (1, 1), (4, 4)],
        [(-2, -7), (-2, -1), (4, 8)],
        [(-2, -9), (4, 3), (-2, 6)],
    ]
    assert sheet_totals(doc) == {"Ana": "-9 -$2.25", "Ben": "3 $0.75", "Cy": "6 $1.50"}
    assert doc.find("tr", id="hand-1").find("span", title="corrected").text() == "✎2"
    revisions = Hand.objects.filter(game=game, number=1).order_by("revision")
    assert [(h.revision, h.state) for h in revisions] == [(1, "superseded"), (2, "current")]
    assert revisions[1].entered_by == user

    history = parse(client.get(url("hand-edit", game, number=1))).find("ol", id="history")
    entries = [li for li in history.children if isinstance(li, Node) and li.tag == "li"]
    assert entries[0].text().startswith("Revision 1 · Ana · ")  # the seat that entered it
    assert "corrected" in entries[0].text()
    assert entries[1].text().startswith("Revision 2 · Ana (dora) · ")
    assert "Ana -5 · Ben 1 · Cy 4" in entries[1].text()
    changes = [li.text() for li in entries[1].find_all("li")]
    assert changes == ["held · Ben: AS 4D → KS KD"]


def test_correction_from_a_stale_revision_is_refused_with_409(client: Client) -> None:
    game = tonk_three_hands(client)
    correction = dict(CAUGHT_KNOCK, held_1="KS KD", revision=1)
    assert client.post(url("hand-edit", game, number=1), form(**correction)).status_code == 302

    # A second phone still shows revision 1 and corrects Cy's cards.
    response = client.post(url("hand-edit", game, number=1), form(**dict(correction, held_2="9H")))

    assert response.status_code == 409
    doc = parse(response)
    assert doc.find("div", id="entry-error").text() == (
        "Someone corrected this hand meanwhile: here it is as it stands now."
    )
    # The form shows the hand as it stands now, ready to be corrected from revision 2.
    assert value_of(doc, "revision") == "2"
    assert value_of(doc, "held_1") == "KS KD"
    assert value_of(doc, "held_2") == "8H"
    assert Hand.objects.filter(game=game, number=1).count() == 2
    current = Hand.objects.get(game=game, number=1, state="current")
    assert current.revision == 2
    assert current.entry["held"]["Cy"] == ["8H"]


def test_correction_without_its_revision_is_refused_and_changes_nothing(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.post(
        url("hand-edit", game, number=1), form(**dict(CAUGHT_KNOCK, held_1="KS KD"))
    )

    assert response.status_code == 422
    assert (
        "does not say which revision it fixes"
        in parse(response).find("div", id="entry-error").text()
    )
    assert Hand.objects.filter(game=game, number=1).count() == 1


def test_correcting_a_voided_hand_is_refused_with_409(client: Client) -> None:
    game = tonk_three_hands(client)
    assert client.post(url("hand-void", game, number=1)).status_code == 302

    response = client.post(url("hand-edit", game, number=1), form(**dict(CAUGHT_KNOCK, revision=1)))

    assert response.status_code == 409
    assert parse(response).find("div", id="entry-error").text() == (
        "This hand is voided: it can no longer be corrected."
    )
    assert list(Hand.objects.filter(game=game, number=1).values_list("state", flat=True)) == [
        "voided"
    ]


def test_rejected_correction_is_400_with_the_error_and_changes_nothing(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.post(
        url("hand-edit", game, number=1),
        form(**dict(CAUGHT_KNOCK, held_1="AS 4D 5D 6D 7D 8D", revision=1)),
    )

    assert response.status_code == 422
    doc = parse(response)
    (error,) = errors_beside(doc, "held_1")
    assert error.startswith("Wrong number of cards — Ben")
    assert value_of(doc, "held_1") == "AS 4D 5D 6D 7D 8D"
    assert Hand.objects.filter(game=game, number=1).count() == 1


def test_correcting_a_rook_round_keeps_its_round_number(client: Client) -> None:
    game = rook_rounds(client, ROOK_ROUND_1, ROOK_ROUND_2)
    doc = parse(client.get(url("hand-edit", game, number=1)))
    assert value_of(doc, "round") == "1"
    assert value_of(doc, "out") == "0"
    assert value_of(doc, "melds_0") == "R7 Y7 G7\nB11 B11 R11"
    assert [value_of(doc, f"held_{i}") for i in range(3)] == ["", "R3", "G12"]

    response = client.post(
        url("hand-edit", game, number=1), form(**dict(ROOK_ROUND_1, held_2="G12 B1", revision=1))
    )

    assert response.status_code == 302
    doc = parse(client.get(url("table", game)))
    assert sheet_cells(doc) == [[(0, 0), (5, 5), (15, 15)], [(15, 15), (0, 5), (30, 45)]]


def test_voiding_a_tonk_hand_takes_it_off_the_sheet(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.post(url("hand-void", game, number=2))

    assert response.status_code == 302
    assert Hand.objects.get(game=game, number=2).state == "voided"
    doc = parse(client.get(url("table", game)))
    assert sheet_cells(doc) == [[(-5, -5), (4, 4), (1, 1)], [(-2, -7), (4, 8), (-2, -1)]]
    game.refresh_from_db()
    assert game.totals == {"Ana": -7, "Ben": 8, "Cy": -1}
    page = parse(client.get(url("hand-edit", game, number=2)))
    assert "This hand is voided: it no longer counts." in page.text()
    assert page.find_all("form", id="entry") == []
    assert "voided" in page.find("ol", id="history").text()


def test_voiding_a_rook_round_that_is_not_the_latest_is_refused_and_changes_nothing(
    client: Client,
) -> None:
    game = rook_rounds(client, ROOK_ROUND_1, ROOK_ROUND_2, ROOK_ROUND_3)
    before = list(Hand.objects.filter(game=game).values_list("number", "state"))
    page = parse(client.get(url("hand-edit", game, number=2)))
    assert page.find_all("button", class_="danger") == []

    response = client.post(url("hand-void", game, number=2))

    assert response.status_code == 409
    assert (
        parse(response)
        .find("p", class_="error")
        .text()
        .startswith("Only the latest round or hand can be voided")
    )
    assert list(Hand.objects.filter(game=game).values_list("number", "state")) == before
    game.refresh_from_db()
    assert game.totals == {"Ana": 25, "Ben": 15, "Cy": 40}


def test_voiding_the_latest_rook_round_opens_that_round_again(client: Client) -> None:
    game = rook_rounds(client, ROOK_ROUND_1, ROOK_ROUND_2)

    response = client.post(url("hand-void", game, number=2))

    assert response.status_code == 302
    doc = parse(client.get(url("table", game)))
    assert next_facts(doc)["Round"] == "2"
    assert sheet_cells(doc) == [[(0, 0), (5, 5), (10, 10)]]


def test_hand_page_of_an_unknown_hand_is_404(client: Client) -> None:
    game = sit(client, tonk_game())

    assert client.get(url("hand-edit", game, number=1)).status_code == 404
    assert client.post(url("hand-void", game, number=1)).status_code == 404


# --- exports ----------------------------------------------------------------------------------


def test_scoresheet_json_is_the_export_as_an_attachment(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.get(url("scoresheet-json", game))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="tabletally-tonk-{game.pk}.json"'
    )
    sheet = json.loads(response.content)
    assert sheet == selectors.scoresheet_export(game)
    assert sheet["players"] == P3
    assert sheet["stake"] == "0.25"
    assert len(sheet["hands"]) == 3


def test_scoresheet_csv_has_the_header_and_one_row_per_hand_and_player(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.get(url("scoresheet-csv", game))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="tabletally-tonk-{game.pk}.csv"'
    )
    text = response.content.decode()
    assert text.startswith("\ufeff")  # spreadsheets then read it as UTF-8
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0] == [
        "hand",
        "number",
        "revision",
        "round_or_hand",
        "seat",
        "player",
        "score",
        "running",
        "went_out",
        "bid_made",
        "won",
    ]
    assert len(rows) == 1 + 3 * 3
    assert rows[1][:8] == ["1", "1", "1", "", "1", "Ana", "-5", "-5"]
    assert [r[7] for r in rows[-3:]] == ["-9", "6", "3"]


def test_print_view_shows_the_sheet(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.get(url("print", game))

    assert response.status_code == 200
    doc = parse(response)
    assert doc.find("h1").text() == "Tonk · Ana, Ben, Cy"
    assert "stake $0.25" in doc.text()
    assert doc.find("h2", id="sheet-h").text() == "Score sheet (stake units)"
    assert sheet_totals(doc) == {"Ana": "-9 -$2.25", "Ben": "6 $1.50", "Cy": "3 $0.75"}
    assert doc.find_all("form", id="entry") == []


def test_qr_code_is_an_svg_image(client: Client) -> None:
    game = sit(client, tonk_game())

    response = client.get(url("qr", game))

    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    root = ElementTree.fromstring(response.content)
    # A standalone SVG document must be in the SVG namespace, or browsers do not draw it.
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


TABLE_URLS = [
    ("get", "table", {}),
    ("get", "sheet", {}),
    ("post", "hand-new", {}),
    ("get", "hand-edit", {"number": 1}),
    ("post", "hand-edit", {"number": 1}),
    ("post", "hand-void", {"number": 1}),
    ("post", "finish", {}),
    ("get", "settle-up", {}),
    ("get", "print", {}),
    ("get", "scoresheet-json", {}),
    ("get", "scoresheet-csv", {}),
    ("get", "qr", {}),
]


@pytest.mark.parametrize(
    ("method", "name", "kwargs"), TABLE_URLS, ids=[f"{m}-{n}" for m, n, _ in TABLE_URLS]
)
def test_a_wrong_table_key_is_404_on_every_table_url(
    client: Client, method: str, name: str, kwargs: dict[str, Any]
) -> None:
    game = sit(client, tonk_game())
    post_hand(client, game, dict(CAUGHT_KNOCK))
    wrong = reverse(f"scoring:{name}", kwargs={"key": game.table_key + "x", **kwargs})

    response = getattr(client, method)(wrong, form(**CAUGHT_KNOCK) if method == "post" else {})

    assert response.status_code == 404
    assert Hand.objects.filter(game=game).count() == 1
    game.refresh_from_db()
    assert game.state == Game.State.IN_PLAY


def test_a_finished_game_shows_no_entry_form_and_refuses_new_hands(client: Client) -> None:
    game = tonk_three_hands(client)

    response = client.post(url("finish", game))

    assert response.status_code == 302
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    doc = parse(client.get(url("table", game)))
    assert doc.find_all("form", id="entry") == []
    assert "The game is finished." in doc.text()
    assert "Finish the game" not in doc.text()

    refused = post_hand(client, game, dict(CAUGHT_KNOCK))

    assert refused.status_code == 409
    assert "The game is finished." in parse(refused).text()
    assert Hand.objects.filter(game=game).count() == 3


# --- labels -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tonk", "rook", "bluke"])
def test_every_control_on_the_table_and_hand_pages_has_a_label(client: Client, kind: str) -> None:
    game = sit(client, GAMES[kind]())
    first = {"tonk": CAUGHT_KNOCK, "rook": ROOK_ROUND_1, "bluke": BLUKE_HAND_1}[kind]
    assert post_hand(client, game, dict(first)).status_code == 302

    table = parse(client.get(url("table", game)))
    hand = parse(client.get(url("hand-edit", game, number=1)))

    assert len(table.find_all("textarea") + table.find_all("input")) > 3
    assert unlabelled_controls(table) == []
    assert unlabelled_controls(hand) == []


def test_every_control_has_a_label_on_a_rejected_entry(client: Client) -> None:
    game = sit(client, rook_game())

    response = post_hand(client, game, dict(ROOK_ROUND_1, melds_0="R7 Y7 G7\nR4 Y4 G5"))

    assert response.status_code == 422
    assert unlabelled_controls(parse(response)) == []


# --- who entered a hand -----------------------------------------------------------------------


def test_a_table_link_post_without_a_seat_is_refused_and_records_nothing(
    client: Client,
) -> None:
    game = tonk_game()

    response = post_hand(client, game, dict(CAUGHT_KNOCK))

    assert response.status_code == 403
    assert "the table link alone only shows this game" in response.content.decode()
    assert Hand.objects.filter(game=game).count() == 0


def test_a_seats_post_records_the_seat_and_no_user(client: Client) -> None:
    game = sit(client, tonk_game(), 1)

    post_hand(client, game, dict(CAUGHT_KNOCK))

    hand = Hand.objects.get(game=game)
    assert hand.entered_by is None
    assert hand.entered_via == Hand.Via.SEAT
    assert hand.entered_seat == game.seats.get(position=1)


def test_a_signed_in_creators_post_records_the_user(client: Client) -> None:
    user = UserFactory(username="dora")
    game, _ = services.game_start(kind="tonk", players=P3, created_by=user)
    client.force_login(user)

    post_hand(client, game, dict(CAUGHT_KNOCK))

    hand = Hand.objects.get(game=game)
    assert hand.entered_by == user
    assert hand.entered_via == Hand.Via.USER
    assert hand.entered_seat is None
    history = parse(client.get(url("hand-edit", game, number=1))).find("ol", id="history")
    assert history.text().startswith("Revision 1 · dora · ")


# --- two phones, lost answers, ties at the deal, Bluke play errors ---------------------------


def test_a_second_phone_entering_the_same_tonk_hand_is_stopped_before_it_records_twice(
    client: Client,
) -> None:
    game = sit(client, tonk_game())
    # Both phones show the empty sheet (after=0) and both enter Cy's tonk out.
    assert post_hand(client, game, form(**CY_TONKS_OUT, after=0)).status_code == 302

    response = post_hand(client, game, form(**CY_TONKS_OUT, after=0))

    assert response.status_code == 409
    doc = parse(response)
    assert "Another phone entered a hand meanwhile" in doc.find("div", id="entry-error").text()
    assert value_of(doc, "after") == "1"  # sending it again means "a different hand"
    assert Hand.objects.filter(game=game).count() == 1
    again = {k: value_of(doc, k) for k in ("idempotency_key", "after")}
    assert post_hand(client, game, form(**CY_TONKS_OUT, **again)).status_code == 302
    assert Hand.objects.filter(game=game).count() == 2


def test_a_retry_of_a_recorded_hand_with_its_key_is_no_second_hand_even_after_another(
    client: Client,
) -> None:
    game = sit(client, tonk_game())
    first = form(**CY_TONKS_OUT, after=0)
    assert post_hand(client, game, first).status_code == 302

    # The answer was lost; the phone sends the same submission again: the same hand.
    assert post_hand(client, game, first).status_code == 302
    assert Hand.objects.filter(game=game).count() == 1


def test_an_edited_retry_under_a_recorded_key_says_so_and_gets_a_new_key(client: Client) -> None:
    game = sit(client, tonk_game())
    first = form(**CY_TONKS_OUT)
    assert post_hand(client, game, first).status_code == 302

    response = post_hand(client, game, dict(first, held_0="4C"))

    assert response.status_code == 409
    doc = parse(response)
    assert "Your first send was recorded" in doc.find("div", id="entry-error").text()
    assert value_of(doc, "idempotency_key") != first["idempotency_key"]
    assert value_of(doc, "held_0") == "4C"
    # The first send was hand 1 (Ana dealt): the form now follows it, Ben (seat 1) to deal.
    assert (value_of(doc, "after"), value_of(doc, "dealer")) == ("1", "1")
    assert Hand.objects.filter(game=game).count() == 1


def test_a_tie_at_the_deal_entered_as_one_tonk_is_refused(client: Client) -> None:
    game = sit(client, tonk_game())
    # Ben shows 50, but Cy's typed cards total 49 too: that is a tie, not Ben's tonk.
    tie = dict(BEN_DEAL_TONK, held_2="KS QH JD 10C 9S")

    response = post_hand(client, game, tie)

    assert response.status_code == 422
    assert any("tie at the deal" in e for e in all_errors(parse(response)))
    assert Hand.objects.filter(game=game).count() == 0


def test_a_card_played_twice_in_the_bluke_play_is_shown_at_the_play(client: Client) -> None:
    game = sit(client, bluke_game())
    # Hand 13 deals one card each: the same 3S cannot be played twice.
    data = dict(hand=13, dealer=0, trump="S", bid_0=1, bid_1=1, bid_2=1, play="3S 3S 4S")

    response = post_hand(client, game, data)

    assert response.status_code == 422
    doc = parse(response)
    assert any("3S" in e for e in errors_beside(doc, "play"))
    assert errors_beside(doc, "bid_0") == errors_beside(doc, "bid_1") == []


def test_the_history_names_no_username_to_a_table_link(
    client: Client, django_user_model: Any
) -> None:
    game = sit(client, tonk_game())
    user = django_user_model.objects.create_user(username="dora-the-director")
    client.force_login(user)
    assert post_hand(client, game, CY_TONKS_OUT).status_code == 302
    client.logout()

    page = client.get(url("hand-edit", game, number=1)).content.decode()

    assert "dora-the-director" not in page
    history = parse(client.get(url("hand-edit", game, number=1))).find("ol", id="history").text()
    assert history.startswith("Revision 1 · Ana · ")  # the seat this phone chose


def test_the_page_script_reads_cards_with_the_engines_notation_table(client: Client) -> None:
    """The script's card table comes from the server (the engine's spellings), not a copy."""
    tonk = json.loads(
        parse(client.get(url("table", sit(client, tonk_game(["Ana", "Ben"])))))
        .find("script", id="entry-data")
        .text()
    )
    assert tonk["spellings"]["TH"] == "10H"
    assert tonk["spellings"]["10♥"] == "10H"
    assert tonk["spellings"]["Q♠"] == "QS"
    assert "HB" not in tonk["spellings"] and "ROOK" not in tonk["spellings"]
    assert tonk["separators"] == {"cards": r"[\s,]+", "groups": r"[\r\n|;]+"}
    rook = json.loads(
        parse(client.get(url("table", sit(client, rook_game(["Ana", "Ben", "Cyd"])))))
        .find("script", id="entry-data")
        .text()
    )
    assert len(rook["spellings"]) == 57
    assert rook["spellings"]["ROOK"] == "ROOK"
