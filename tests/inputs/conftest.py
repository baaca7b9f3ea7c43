"""Helpers for the strict-input tests (issue 14): each kind of input is tried through every
entry point that takes it, and a refusal must leave every table as it was."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.apps import apps


def row_counts() -> dict[str, int]:
    """The number of rows of every model of the project's apps, by ``app_label.Model``."""
    return {
        model._meta.label: model._default_manager.count()
        for model in apps.get_models()
        if model._meta.app_label in ("scoring", "tournaments", "ops")
        and not model._meta.proxy
        and model._meta.managed
    }


@contextmanager
def nothing_stored() -> Iterator[None]:
    """Assert that the block leaves every row count of the project's tables unchanged."""
    before = row_counts()
    yield
    after = row_counts()
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not changed, f"rows changed (before, after): {changed}"


@pytest.fixture
def unchanged_rows() -> object:
    """``with unchanged_rows(): ...`` asserts the block stores nothing."""
    return nothing_stored
