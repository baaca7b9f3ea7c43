"""The tournaments tests' club, director and players, for the background work's tests."""

from tests.tournaments.conftest import club, director, make_players

__all__ = ["club", "director", "make_players"]
