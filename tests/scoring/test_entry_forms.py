"""The table page's entry forms (``scoring.entry``) without a request: form fields to a hand
object of the score-sheet format and back, shape errors, where a rule error is shown, and what
the sheet says comes next."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.entry import (
    CardGrid,
    EntryForm,
    entry_changes,
    error_text,
    next_defaults,
)
from scoring.games.bluke import BlukeEntryForm, bidding_order
from scoring.games.rook import RookEntryForm, contract_text
from scoring.games.tonk import TonkEntryForm
from tonkrules import find_game
from tonkrules.rook import CONTRACTS
from tonkrules.sheet import SheetError, read_sheet

P3 = ["Ana", "Ben", "Cy"]


def bound(form_class: type[EntryForm], *, options: Any = None, **fields: object) -> EntryForm:
    data = {"idempotency_key": "k1", **{k: str(v) for k, v in fields.items()}}
    engine = find_game(form_class.kind)
    return form_class(data, names=P3, options=options or engine.options(None))


def rule_error(game: str, hand: dict[str, Any]) -> SheetError:
    """The rule error the engine raises for one hand of a three-player sheet."""
    sheet = {"format": "tabletally.scoresheet/1", "game": game, "players": P3, "hands": [hand]}
    with pytest.raises(SheetError) as caught:
        read_sheet(sheet)
    return caught.value


# --- Tonk -------------------------------------------------------------------------------------


def test_tonk_knock_builds_the_hand_object_with_every_players_cards() -> None:
    form = bound(
        TonkEntryForm,
        dealer=2,
        end="knock",
        by=0,
        held_0="KC, QC",
        held_1="A♠ 4d",
        held_2="8H",
        spreads="4C 5C 6C | JH JS JD",
    )

    assert form.is_valid(), form.errors
    assert form.entry() == {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": ["KC", "QC"], "Ben": ["A♠", "4d"], "Cy": ["8H"]},
        "spreads": [["4C", "5C", "6C"], ["JH", "JS", "JD"]],
    }


def test_tonk_knock_needs_who_knocked_and_every_players_cards() -> None:
    form = bound(TonkEntryForm, dealer=0, end="knock", held_0="AS", held_1="", held_2="KD")

    assert not form.is_valid()
    assert form.errors["by"] == ["Say who it was."]
    assert form.errors["held_1"] == ["Enter the cards Ben held."]
    assert "held_0" not in form.errors


def test_tonk_deal_tonk_needs_the_five_cards_of_the_player_who_tonked() -> None:
    form = bound(TonkEntryForm, dealer=0, end="deal_tonk", by=1, held_0="AS")

    assert not form.is_valid()
    assert form.errors["held_1"] == ["Enter the five cards Ben was dealt."]


def test_tonk_deal_tonk_sends_every_players_cards_typed() -> None:
    # The others' cards go to the engine too: a second tonk total among them is a tie.
    form = bound(
        TonkEntryForm, dealer=0, end="deal_tonk", by=1, held_0="AS 2S", held_1="KH KD QS JC 10D"
    )

    assert form.is_valid(), form.errors
    assert form.entry()["held"] == {"Ana": ["AS", "2S"], "Ben": ["KH", "KD", "QS", "JC", "10D"]}


def test_tonk_out_under_the_new_spread_rule_says_whether_one_was_laid() -> None:
    options = find_game("tonk").options({"double_requires_new_spread": True})
    form = bound(TonkEntryForm, dealer=0, end="tonk_out", by=1, options=options)

    assert form.is_valid(), form.errors
    assert form.entry()["new_spread"] is False


def test_tonk_stock_out_has_no_by_even_when_one_is_chosen() -> None:
    form = bound(
        TonkEntryForm, dealer=0, end="stock_out", by=1, held_0="AS", held_1="2D", held_2="3C"
    )

    assert form.is_valid(), form.errors
    assert "by" not in form.entry()


def test_tonk_new_spread_is_sent_only_on_a_tonk_out() -> None:
    out = bound(TonkEntryForm, dealer=0, end="tonk_out", by=1, new_spread="on")
    knock = bound(
        TonkEntryForm,
        dealer=0,
        end="knock",
        by=1,
        held_0="AS",
        held_1="2D",
        held_2="3C",
        new_spread="on",
    )

    assert out.is_valid() and knock.is_valid()
    assert out.entry() == {
        "dealer": "Ana",
        "end": "tonk_out",
        "by": "Ben",
        "held": {},
        "new_spread": True,
    }
    assert "new_spread" not in knock.entry()


# --- Toonerville Rook -------------------------------------------------------------------------


def test_rook_round_sends_melds_one_per_line_and_leaves_the_going_out_player_out_of_held() -> None:
    form = bound(
        RookEntryForm,
        round=2,
        dealer=1,
        out=1,
        melds_1="R5 R6 ROOK R8\r\nY9 G9 B9\n",
        held_0="R1 Y12",
        held_2="ROOK B3",
        discard="g4",
    )

    assert form.is_valid(), form.errors
    assert form.entry() == {
        "round": 2,
        "dealer": "Ben",
        "out": "Ben",
        "melds": {"Ben": [["R5", "R6", "ROOK", "R8"], ["Y9", "G9", "B9"]]},
        "discard": "g4",
        "held": {"Ana": ["R1", "Y12"], "Cy": ["ROOK", "B3"]},
    }


def test_rook_cards_typed_for_the_player_who_went_out_are_sent_for_the_engine_to_refuse() -> None:
    form = bound(
        RookEntryForm,
        round=1,
        dealer=0,
        out=0,
        melds_0="R7 Y7 G7\nB2 Y2 G2",
        held_0="B5",
        held_1="R3",
        held_2="G12",
    )

    assert form.is_valid(), form.errors
    assert form.entry()["held"] == {"Ana": ["B5"], "Ben": ["R3"], "Cy": ["G12"]}


def test_rook_time_called_sends_out_none_every_players_cards_and_the_melds_typed() -> None:
    """Issue 24: melds typed for a time-called round are in the hand (the engine checks them,
    as it checks an API client's), never dropped."""
    form = bound(
        RookEntryForm,
        round=1,
        dealer=0,
        out="none",
        melds_0="R7 Y7 G7",
        held_0="R1",
        held_1="R2",
        held_2="R3",
    )

    assert form.is_valid(), form.errors
    assert form.entry() == {
        "round": 1,
        "dealer": "Ana",
        "out": None,
        "melds": {"Ana": [["R7", "Y7", "G7"]]},
        "held": {"Ana": ["R1"], "Ben": ["R2"], "Cy": ["R3"]},
    }


def test_rook_time_called_with_a_discard_is_a_field_error() -> None:
    form = bound(
        RookEntryForm,
        round=1,
        dealer=0,
        out="none",
        discard="R9",
        held_0="R1",
        held_1="R2",
        held_2="R3",
    )

    assert not form.is_valid()
    assert form.errors["discard"] == ["No discard when time was called: nobody went out."]


def test_rook_needs_the_going_out_players_melds_and_the_others_cards() -> None:
    form = bound(RookEntryForm, round=1, dealer=0, out=0, held_1="R3")

    assert not form.is_valid()
    assert form.errors["melds_0"] == ["Enter the melds Ana laid down to go out."]
    assert form.errors["held_2"] == ["Enter the cards Cy held."]
    assert "held_0" not in form.errors


def test_rook_round_outside_1_to_11_is_a_field_error() -> None:
    form = bound(
        RookEntryForm, round=12, dealer=0, out="none", held_0="R1", held_1="R2", held_2="R3"
    )

    assert not form.is_valid()
    assert list(form.errors) == ["round"]


# --- Bluke ------------------------------------------------------------------------------------


BIDS = {"bid_0": 4, "bid_1": 5, "bid_2": 3, "tricks_0": 5, "tricks_1": 3, "tricks_2": 5}


@pytest.mark.parametrize(
    ("turned", "trump"), [("QS", "S"), ("10♥", "H"), ("LB", "none"), ("hb", "none")]
)
def test_bluke_turned_card_sets_trump(turned: str, trump: str) -> None:
    form = bound(BlukeEntryForm, hand=1, dealer=0, turned=turned, **BIDS)

    assert form.is_valid(), form.errors
    assert form.entry()["trump"] == trump
    assert form.entry()["turned"] == turned


def test_bluke_turned_token_that_is_no_card_is_a_field_error() -> None:
    form = bound(BlukeEntryForm, hand=1, dealer=0, turned="R7", **BIDS)

    assert not form.is_valid()
    assert form.errors["turned"] == ["R7 is not a card of the Bluke deck."]


def test_bluke_needs_every_players_tricks_or_the_play() -> None:
    some = bound(BlukeEntryForm, hand=1, dealer=0, trump="S", **{**BIDS, "tricks_2": ""})
    none = bound(BlukeEntryForm, hand=1, dealer=0, trump="S", bid_0=1, bid_1=1, bid_2=1)

    assert not some.is_valid()
    assert some.non_field_errors() == ["Enter every player's tricks, or none and the play."]
    assert not none.is_valid()
    assert none.non_field_errors() == ["Enter the tricks each player took."]


def test_bluke_play_alone_is_sent_one_trick_per_line() -> None:
    form = bound(
        BlukeEntryForm,
        hand=13,
        dealer=0,
        trump="S",
        bid_0=1,
        bid_1=1,
        bid_2=1,
        play="AS 2S 3S",
    )

    assert form.is_valid(), form.errors
    entry = form.entry()
    assert entry["play"] == [["AS", "2S", "3S"]]
    assert "tricks" not in entry


# --- correcting: a stored hand back into the form ---------------------------------------------


@pytest.mark.parametrize(
    ("form_class", "entry"),
    [
        (
            TonkEntryForm,
            {
                "dealer": "Cy",
                "end": "knock",
                "by": "Ana",
                "held": {"Ana": ["KC", "QC"], "Ben": ["AS", "4D"], "Cy": ["8H"]},
                "spreads": [["4C", "5C", "6C"]],
            },
        ),
        (
            RookEntryForm,
            {
                "round": 2,
                "dealer": "Ben",
                "out": "Ben",
                "melds": {"Ben": [["R5", "R6", "ROOK", "R8"], ["Y9", "G9", "B9"]]},
                "discard": "G4",
                "held": {"Ana": ["R1", "Y12"], "Cy": ["ROOK", "B3"]},
            },
        ),
        (
            BlukeEntryForm,
            {
                "hand": 1,
                "dealer": "Ana",
                "trump": "H",
                "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
                "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
            },
        ),
    ],
    ids=["tonk", "rook", "bluke"],
)
def test_a_stored_hand_comes_back_through_the_form_unchanged(
    form_class: type[EntryForm], entry: dict[str, Any]
) -> None:
    initial = form_class.initial_from(entry, P3)
    data = {k: v for k, v in initial.items() if v is not None and v is not False}

    form = bound(form_class, **data)

    assert form.is_valid(), form.errors
    assert form.entry() == entry


def test_initial_from_a_hand_entered_with_card_strings() -> None:
    initial = TonkEntryForm.initial_from(
        {"dealer": "Ben", "end": "tonk_out", "by": "Cy", "held": {"Ana": "AS 2D"}}, P3
    )

    assert initial["dealer"] == 1
    assert initial["by"] == 2
    assert [initial[f"held_{i}"] for i in range(3)] == ["AS 2D", "", ""]


# --- rule errors next to the player and cards ---------------------------------------------------


def test_rook_bad_meld_goes_to_the_melds_field_holding_its_cards() -> None:
    form = bound(
        RookEntryForm,
        round=1,
        dealer=0,
        out=0,
        melds_0="R7 Y7 G7\nR4 Y4 G5",
        held_1="R3",
        held_2="G12",
    )
    assert form.is_valid()
    exc = rule_error("rook", form.entry())

    form.add_rule_error(exc)

    assert form.error_player == "Ana"
    assert form.error_cards == ("R4", "Y4", "G5")
    assert [str(e) for e in form.errors["melds_0"]] == [error_text(exc.error)]
    assert str(form.errors["melds_0"][0]).startswith("Not a legal meld — Ana — R4 Y4 G5: ")
    assert [s["at_fault"] for s in form.seats()] == [True, False, False]


def test_a_bad_card_typed_in_lower_case_is_found_in_the_field_it_was_typed_in() -> None:
    form = bound(
        TonkEntryForm, dealer=0, end="knock", by=0, held_0="AS", held_1="2D", held_2="kd 1c"
    )
    assert form.is_valid()
    exc = rule_error("tonk", form.entry())

    form.add_rule_error(exc)

    assert list(form.errors) == ["held_2"]


def test_tonk_bad_spread_goes_to_the_spreads_field() -> None:
    form = bound(
        TonkEntryForm,
        dealer=0,
        end="knock",
        by=0,
        held_0="AS",
        held_1="2D",
        held_2="KD",
        spreads="QC KC AC",
    )
    assert form.is_valid()
    exc = rule_error("tonk", form.entry())

    form.add_rule_error(exc)

    assert list(form.errors) == ["spreads"]


def test_bluke_bid_error_goes_to_that_players_bid_and_a_sum_error_to_the_form() -> None:
    bid = bound(BlukeEntryForm, hand=1, dealer=0, trump="S", **{**BIDS, "bid_1": 14})
    total = bound(BlukeEntryForm, hand=1, dealer=0, trump="S", **{**BIDS, "tricks_2": 4})
    assert bid.is_valid() and total.is_valid()

    bid.add_rule_error(rule_error("bluke", bid.entry()))
    total.add_rule_error(rule_error("bluke", total.entry()))

    assert list(bid.errors) == ["bid_1"]
    assert str(bid.errors["bid_1"][0]).startswith("Bid out of range — Ben: ")
    assert list(total.errors) == ["__all__"]
    assert total.non_field_errors()[0].startswith("The tricks do not add up: ")


# --- what comes next --------------------------------------------------------------------------


def test_next_defaults_before_the_first_hand() -> None:
    assert next_defaults("tonk", P3, None) == {"dealer": 0, "number": None, "done": False}
    assert next_defaults("rook", P3, None) == {"dealer": 0, "number": 1, "done": False}
    assert next_defaults("bluke", P3, None) == {"dealer": 0, "number": 1, "done": False}


def test_next_defaults_pass_the_deal_left_and_count_on() -> None:
    assert next_defaults("bluke", P3, {"hand": 7, "dealer": "Cy"}) == {
        "dealer": 0,
        "number": 8,
        "done": False,
    }
    assert next_defaults("rook", P3, {"round": 11, "dealer": "Ana"}) == {
        "dealer": 1,
        "number": 12,
        "done": True,
    }
    assert next_defaults("bluke", P3, {"hand": 25, "dealer": "Ben"})["done"] is True


def test_bidding_starts_left_of_the_dealer() -> None:
    assert bidding_order(P3, 0) == ["Ben", "Cy", "Ana"]
    assert bidding_order(["Ana", "Ben", "Cy", "Di"], 3) == ["Ana", "Ben", "Cy", "Di"]


@pytest.mark.parametrize(
    ("round_", "text"),
    [
        (1, "2 sets"),
        (2, "1 run and 1 set"),
        (3, "2 runs"),
        (6, "2 runs and 1 set"),
        (11, "2 runs and 2 sets"),
    ],
)
def test_contract_text(round_: int, text: str) -> None:
    assert contract_text(CONTRACTS[round_]) == text


def test_entry_changes_name_the_key_and_player_that_changed() -> None:
    before = {"dealer": "Cy", "end": "knock", "held": {"Ana": ["KC"], "Ben": ["AS", "4D"]}}
    after = {
        "dealer": "Cy",
        "end": "knock",
        "held": {"Ana": ["KC"], "Ben": ["KS", "KD"]},
        "spreads": [["4C", "5C", "6C"], ["JH", "JS", "JD"]],
    }

    assert entry_changes(before, after) == [
        ("held · Ben", "AS 4D", "KS KD"),
        ("spreads", "—", "4C 5C 6C | JH JS JD"),
    ]


def test_card_grid_of_each_game() -> None:
    rook = CardGrid("rook", players=4, options=find_game("rook").options({"decks": 2}))
    bluke = CardGrid("bluke", players=3, options=find_game("bluke").options(None))
    tonk = CardGrid("tonk", players=2, options=find_game("tonk").options(None))

    assert rook.copies == 2
    assert [len(cards) for _label, cards in rook.rows] == [14, 14, 14, 14]
    assert [(token, str(name)) for token, _face, _css, name in rook.extra] == [
        ("ROOK", "Rook card")
    ]
    assert bluke.copies == tonk.copies == 1
    assert [len(cards) for _label, cards in bluke.rows] == [13, 13, 13, 13]
    assert [(token, str(name)) for token, _face, _css, name in bluke.extra] == [
        ("HB", "High Bluke"),
        ("LB", "Low Bluke"),
    ]
    assert tonk.extra == []
    assert ("10H", "10♥", "suit-H") in tonk.rows[1][1]
