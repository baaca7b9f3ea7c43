"""Score sheets shared by the scoring tests."""

# Ana knocks holding 3 against Ben's 20: Ben pays Ana one stake unit.
TONK_KNOCK_SHEET = {
    "format": "tabletally.scoresheet/1",
    "game": "tonk",
    "players": ["Ana", "Ben"],
    "hands": [
        {
            "dealer": "Ben",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS 2D", "Ben": "KH QH"},
        }
    ],
}
TONK_KNOCK_TOTALS = {"Ana": 1, "Ben": -1}
TONK_KNOCK_HAND = TONK_KNOCK_SHEET["hands"][0]

# "1S" is no card: an ace is A, never 1.
TONK_BAD_CARD_SHEET = {
    **TONK_KNOCK_SHEET,
    "hands": [{**TONK_KNOCK_SHEET["hands"][0], "held": {"Ana": "1S 2D", "Ben": "KH QH"}}],
}
