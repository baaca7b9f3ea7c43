"""Migration tournaments 0007: the games of tables seated before issue 12 become directed, with
their tournament's confirmation; a casual game stays as it was; existing seats get their own
keys (scoring 0005)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [
    ("scoring", "0004_kind_choices_from_registry"),
    ("tournaments", "0005_tournament_round_count"),
]
AFTER = [("scoring", "0005_trust"), ("tournaments", "0007_tables_games_directed")]


def _migrate(targets: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture(autouse=True)
def _back_to_the_latest():  # type: ignore[no-untyped-def]
    """Leave the database migrated to the latest state, whatever comes after these."""
    yield
    executor = MigrationExecutor(connection)
    _migrate(executor.loader.graph.leaf_nodes())


def test_tables_games_become_directed_with_their_tournaments_confirmation() -> None:
    old = _migrate(BEFORE)
    Club = old.get_model("tournaments", "Club")
    Tournament = old.get_model("tournaments", "Tournament")
    Round = old.get_model("tournaments", "Round")
    Table = old.get_model("tournaments", "Table")
    Game = old.get_model("scoring", "Game")
    Seat = old.get_model("scoring", "Seat")
    club = Club.objects.create(name="Old club")
    tournament = Tournament.objects.create(
        club=club,
        name="Old night",
        kind="tonk",
        round_count=2,
        sizes=[2],
        prefer=2,
        hands_per_round=3,
    )
    rnd = Round.objects.create(tournament=tournament, number=1)
    table_game = Game.objects.create(kind="tonk", rules_version="1", table_key="old-table")
    casual = Game.objects.create(kind="tonk", rules_version="1", table_key="old-casual")
    for game in (table_game, casual):
        Seat.objects.create(game=game, position=0, name="Ana")
        Seat.objects.create(game=game, position=1, name="Ben")
    Table.objects.create(round=rnd, number=1, game=table_game)

    new = _migrate(AFTER)
    Game = new.get_model("scoring", "Game")
    Seat = new.get_model("scoring", "Seat")
    assert Game.objects.get(table_key="old-table").directed is True
    assert Game.objects.get(table_key="old-table").confirmation == "one_other"
    assert (
        Game.objects.get(table_key="old-casual").directed,
        Game.objects.get(table_key="old-casual").confirmation,
    ) == (False, "none")
    keys = list(Seat.objects.values_list("seat_key", flat=True))
    assert len(keys) == 4 and len(set(keys)) == 4 and all(len(k) >= 24 for k in keys)
