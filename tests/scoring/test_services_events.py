"""The seam to the layer above (``scoring.events``): every change a scoring service makes to a
game is announced once, after commit, as a typed ``GameChanged`` of the right kind; a change
made on a listener's own behalf (``origin``) is not delivered back to it; nothing is announced
for a write that changes nothing or rolls back."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import transaction

from scoring import services
from scoring.events import Change, GameChanged
from scoring.models import Game

pytestmark = pytest.mark.django_db

P3 = ["Ana", "Ben", "Cy"]
ANA_WINS = {
    "dealer": "Cy",
    "end": "knock",
    "by": "Ana",
    "held": {"Ana": "AS", "Ben": "KH", "Cy": "QH"},
}
BEN_WINS = {
    "dealer": "Cy",
    "end": "knock",
    "by": "Ben",
    "held": {"Ana": "KS", "Ben": "2C", "Cy": "QC"},
}


class Spy:
    """A listener that keeps the events it hears."""

    def __init__(self) -> None:
        self.heard: list[GameChanged] = []

    def __call__(self, event: GameChanged) -> None:
        self.heard.append(event)


@pytest.fixture
def spy() -> Iterator[Spy]:
    """A listener registered with no name: it hears every change."""
    listener = Spy()
    services.game_changed_register(listener)
    yield listener
    services.game_changed_unregister(listener)


@pytest.fixture
def named_spy() -> Iterator[Spy]:
    """A listener registered as ``"upper"``: it does not hear the changes made on its behalf."""
    listener = Spy()
    services.game_changed_register(listener, name="upper")
    yield listener
    services.game_changed_unregister(listener)


def announced(
    capture: Any, spy: Spy, write: Callable[[], object]
) -> list[tuple[int, Change, str | None]]:
    """The events ``spy`` hears for ``write``, run in a transaction that commits."""
    spy.heard.clear()
    with capture(execute=True):
        write()
    return [(e.game_id, e.change, e.origin) for e in spy.heard]


def started(**kwargs: Any) -> Game:
    game, created = services.game_start(kind="tonk", players=P3, **kwargs)
    assert created
    return game


def test_starting_a_game_announces_started_once(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    games: list[Game] = []
    events = announced(django_capture_on_commit_callbacks, spy, lambda: games.append(started()))
    assert events == [(games[0].pk, Change.STARTED, None)]


def test_opening_a_waiting_game_announces_opened_once_and_again_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started(waiting=True)
    capture = django_capture_on_commit_callbacks
    assert announced(capture, spy, lambda: services.game_open(game=game)) == [
        (game.pk, Change.OPENED, None)
    ]
    assert announced(capture, spy, lambda: services.game_open(game=game)) == []


def test_setting_a_limit_announces_limit_set_once_and_an_unchanged_limit_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    capture = django_capture_on_commit_callbacks
    assert announced(capture, spy, lambda: services.game_limit_set(game=game, hand_limit=2)) == [
        (game.pk, Change.LIMIT_SET, None)
    ]
    assert announced(capture, spy, lambda: services.game_limit_set(game=game, hand_limit=5)) == []


def test_replacing_a_seat_announces_seat_replaced_once(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    events = announced(
        django_capture_on_commit_callbacks,
        spy,
        lambda: services.seat_replace(game=game, position=1, seat=services.SeatSpec("Bo")),
    )
    assert events == [(game.pk, Change.SEAT_REPLACED, None)]


def test_recording_a_hand_announces_hand_recorded_once_and_a_retry_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    capture = django_capture_on_commit_callbacks

    def record() -> None:
        services.hand_record(game=game, entry=ANA_WINS, idempotency_key="k1")

    assert announced(capture, spy, record) == [(game.pk, Change.HAND_RECORDED, None)]
    assert announced(capture, spy, record) == []  # the retry records nothing


def test_correcting_a_hand_announces_hand_corrected_once(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    services.hand_record(game=game, entry=ANA_WINS)
    events = announced(
        django_capture_on_commit_callbacks,
        spy,
        lambda: services.hand_correct(game=game, number=1, revision=1, entry=BEN_WINS),
    )
    assert events == [(game.pk, Change.HAND_CORRECTED, None)]


def test_voiding_a_hand_announces_hand_voided_once_and_again_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    services.hand_record(game=game, entry=ANA_WINS)
    capture = django_capture_on_commit_callbacks
    assert announced(capture, spy, lambda: services.hand_void(game=game, number=1)) == [
        (game.pk, Change.HAND_VOIDED, None)
    ]
    assert announced(capture, spy, lambda: services.hand_void(game=game, number=1)) == []


def test_finishing_a_game_announces_finished_once_and_again_nothing(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    capture = django_capture_on_commit_callbacks
    assert announced(capture, spy, lambda: services.game_finish(game=game)) == [
        (game.pk, Change.FINISHED, None)
    ]
    assert announced(capture, spy, lambda: services.game_finish(game=game)) == []


def test_a_change_made_on_a_listeners_behalf_is_not_delivered_back_to_it(
    spy: Spy, named_spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started(waiting=True)
    capture = django_capture_on_commit_callbacks
    named_spy.heard.clear()
    assert announced(capture, spy, lambda: services.game_open(game=game, origin="upper")) == [
        (game.pk, Change.OPENED, "upper")
    ]
    assert named_spy.heard == []
    # A change a person makes reaches it.
    named_spy.heard.clear()
    services.hand_record(game=game, entry=ANA_WINS)  # not yet committed: nothing heard
    assert named_spy.heard == []
    with capture(execute=True):
        services.hand_record(game=game, entry=BEN_WINS)
    assert [(e.change, e.origin) for e in named_spy.heard] == [(Change.HAND_RECORDED, None)]


def test_nothing_is_announced_before_commit_nor_for_a_rolled_back_change(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    game = started()
    spy.heard.clear()
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        services.hand_record(game=game, entry=ANA_WINS)
        raise RuntimeError("rolled back")
    assert callbacks == []
    assert spy.heard == []


def test_a_listener_registered_twice_is_called_once(
    spy: Spy, django_capture_on_commit_callbacks: Any
) -> None:
    services.game_changed_register(spy)
    games: list[Game] = []
    events = announced(django_capture_on_commit_callbacks, spy, lambda: games.append(started()))
    assert events == [(games[0].pk, Change.STARTED, None)]


def test_the_event_is_a_frozen_value_that_says_whether_results_changed() -> None:
    event = GameChanged(game_id=7, change=Change.HAND_VOIDED)
    with pytest.raises(AttributeError):
        event.game_id = 8  # type: ignore[misc]
    assert event.results_changed
    assert not GameChanged(game_id=7, change=Change.OPENED).results_changed
    assert event == GameChanged(7, Change.HAND_VOIDED, None)
