"""Fixtures of the i18n tests: the public pages' Rook tournament (nine players in Kolkata)."""

from tests.tournaments.test_pages_public import tournament  # noqa: F401 (the fixture)
