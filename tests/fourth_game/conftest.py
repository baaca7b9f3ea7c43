"""The fourth game's fixture: Tally registered on both sides (the engine's registry and the
adapters' registry) and its template directory added, for one test; removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scoring import games
from tests.fourth_game.adapter import TALLY_ADAPTER, TallyAdapter
from tests.fourth_game.countdown import COUNTDOWN, COUNTDOWN_ADAPTER, CountdownAdapter
from tests.fourth_game.rules import TALLY, TALLY_MESSAGES
from tonkrules import games as engine_games
from tonkrules.messages import RULE_MESSAGES, declare

TEMPLATES = Path(__file__).parent / "templates"


def _declare_messages() -> list[str]:
    """Declare the test games' error sentences beside the engine's; the keys added."""
    added = [key for key in TALLY_MESSAGES if key not in RULE_MESSAGES]
    declare(TALLY_MESSAGES, into=RULE_MESSAGES)
    return added


def _forget_messages(added: list[str]) -> None:
    for key in added:
        del RULE_MESSAGES[key]


@pytest.fixture
def tally(settings: Any) -> Iterator[TallyAdapter]:
    """Tally, playable everywhere for the length of the test."""
    engine_games.register(TALLY)
    games.register(TALLY_ADAPTER)
    added = _declare_messages()
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], TEMPLATES]}]
    try:
        yield TALLY_ADAPTER
    finally:
        games.unregister(TALLY.name)
        engine_games.unregister(TALLY.name)
        _forget_messages(added)


@pytest.fixture
def countdown(settings: Any) -> Iterator[CountdownAdapter]:
    """Countdown (a game with a schedule, lowest total wins), playable everywhere for the
    length of the test, registered after the three real games."""
    engine_games.register(COUNTDOWN)
    games.register(COUNTDOWN_ADAPTER)
    added = _declare_messages()
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], TEMPLATES]}]
    try:
        yield COUNTDOWN_ADAPTER
    finally:
        games.unregister(COUNTDOWN.name)
        engine_games.unregister(COUNTDOWN.name)
        _forget_messages(added)
