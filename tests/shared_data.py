"""Data that the tests of one module share, built once per test process instead of once per
test (pytest-django's ``django_db_blocker``).

:func:`kept_for_the_module` opens a transaction on the test database and keeps it open while the
module's tests run: pytest-django runs each test inside it, in a savepoint of its own that is
rolled back after the test, so every test starts from the data as built, and the whole is rolled
back at the end. For modules whose tests are not ``transaction=True`` (those commit, and would
see nothing of an open transaction from their other connections).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import transaction
from django.test import Client

T = TypeVar("T")


@contextmanager
def kept_for_the_module(django_db_blocker: Any, build: Callable[[], T]) -> Iterator[T]:
    """Yield ``build()``'s result, its rows kept in an open transaction until the end."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            built = build()
        except BaseException:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            raise
    try:
        yield built
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


def without_cookies(shared: T) -> T:
    """``shared`` with the cookies of each test client among its attributes forgotten, so that
    nothing a response set in one test (a session, a language) is sent in the next."""
    for value in vars(shared).values():
        if isinstance(value, Client):
            value.cookies.clear()
    return shared
