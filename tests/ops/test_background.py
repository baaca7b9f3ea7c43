"""Background work is a database row first and a message second (``ops.background``): a send
the broker refuses is logged and loses nothing, the tick sends again what waited too long, a
worker's start sends everything that waits, and a seating that cannot finish is marked failed.

These run on any database, the broker refusing or the tasks eager; the `services` tests do the
same with PostgreSQL, Redis and a real worker, killed or cut off from Redis."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from ops import background
from ops.models import Heartbeat
from ops.worker import resend_waiting_work
from scoring.models import ScoresheetJob
from scoring.services import scoresheet_job_submit
from tests.factories import PlayerFactory
from tests.scoring.sheets import TONK_KNOCK_SHEET
from tests.services import celery_configured
from tournaments import services
from tournaments.errors import failure_message
from tournaments.models import Player, Round, Tournament
from tournaments.services import seatings

pytestmark = pytest.mark.django_db(transaction=True)

#: A broker address where nothing listens: every send is refused at once.
NOBODY = "redis://127.0.0.1:9/0"


@pytest.fixture
def broker_down() -> Iterator[None]:
    """Tasks go to a broker that refuses every connection."""
    with celery_configured(task_always_eager=False, broker_url=NOBODY):
        yield


def tonk_event(club: Any, director: Any, players: list[Any]) -> Tournament:
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Tonk night", kind="tonk", sizes=[2, 3, 4], rounds=3
    )
    for player in players:
        services.registration_add(tournament=tournament, player=player)
    return tournament


def test_a_seating_asked_while_the_broker_is_down_is_kept_and_the_tick_sends_it_again(
    club: Any, director: Any, make_players: Any, caplog: pytest.LogCaptureFixture
) -> None:
    tournament = tonk_event(club, director, make_players(8))
    with (
        caplog.at_level(logging.WARNING, logger="ops.background"),
        celery_configured(task_always_eager=False, broker_url=NOBODY),
    ):
        rnd, created = services.round_seat(tournament=tournament, by=director)

    assert created
    rnd.refresh_from_db()
    assert rnd.state == Round.State.PLANNED  # committed, answered, not lost
    assert rnd.seat_asked_at is not None and rnd.seat_sent_at == rnd.seat_asked_at
    [warning] = [r for r in caplog.records if r.name == "ops.background"]
    assert "tournaments.tasks.round_seat" in warning.getMessage()
    assert "the tick will send it again" in warning.getMessage()

    # A tick before BACKGROUND_RESEND_SECONDS leaves it: its message may still be on its way.
    soon = rnd.seat_sent_at + timedelta(seconds=5)
    assert background.tick(now=soon)["seating"] == 0
    rnd.refresh_from_db()
    assert rnd.state == Round.State.PLANNED

    later = rnd.seat_sent_at + background.resend_after() + timedelta(seconds=1)
    assert background.tick(now=later)["seating"] == 1
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    assert rnd.seat_sent_at == later
    assert rnd.seat_attempts == 1
    tables = rnd.tables.count()
    assert rnd.seats.count() == 8 and tables >= 2
    # Sent again once more (a duplicate message): nothing changes.
    seatings.round_seating_run(round_id=rnd.pk)
    assert (rnd.tables.count(), rnd.seats.count()) == (tables, 8)
    assert background.tick(now=later + timedelta(hours=1))["seating"] == 0


def test_a_worker_that_starts_sends_all_waiting_work_at_once(
    club: Any, director: Any, make_players: Any, broker_down: None
) -> None:
    tournament = tonk_event(club, director, make_players(6))
    rnd, _ = services.round_seat(tournament=tournament, by=director)
    with transaction.atomic():
        job = scoresheet_job_submit(sheet=TONK_KNOCK_SHEET)

    with celery_configured(task_always_eager=True):
        resend_waiting_work()  # the worker_ready handler: no waiting threshold

    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    job.refresh_from_db()
    assert job.status == ScoresheetJob.Status.DONE
    assert Heartbeat.objects.filter(name=background.TICK).exists()


def test_standings_wait_from_the_first_change_until_the_refresh(
    club: Any, director: Any, make_players: Any
) -> None:
    tournament = tonk_event(club, director, make_players(4))
    with celery_configured(task_always_eager=False, broker_url=NOBODY):
        before = timezone.now()
        services.round_seat(tournament=tournament, by=director)
        rnd = tournament.round_set.get()
        services.round_seating_compute(round_id=rnd.pk)
        services.round_publish(round=rnd, by=director)  # a results change: waits from now
        tournament.refresh_from_db()
        first = tournament.standings_waiting_since
        assert first is not None and first >= before
        services.round_close(round=rnd, by=director)  # another: still waiting since the first
        tournament.refresh_from_db()
        assert tournament.standings_waiting_since == first
        assert tournament.results_version > tournament.standings_version
    assert background.oldest_waiting() == ("standings", first)

    sent = tournament.standings_sent_at  # the refresh last asked for (the close's)
    assert sent is not None and sent >= first
    assert background.tick(now=sent + background.resend_after())["standings"] == 0
    assert background.tick(now=sent + background.resend_after() + timedelta(seconds=1)) == {
        "call_time": 0,
        "scoresheet_jobs": 0,
        "seating": 0,
        "standings": 1,
    }
    tournament.refresh_from_db()
    assert tournament.standings_waiting_since is None
    assert tournament.standings_version == tournament.results_version
    assert background.oldest_waiting() is None


def test_a_queued_scoresheet_job_is_sent_again_once_it_waited_too_long(broker_down: None) -> None:
    with transaction.atomic():
        job = scoresheet_job_submit(sheet=TONK_KNOCK_SHEET)
    job.refresh_from_db()
    assert job.status == ScoresheetJob.Status.QUEUED
    assert background.oldest_waiting() == ("scoresheet_jobs", job.created_at)

    with celery_configured(task_always_eager=True):
        assert background.tick(now=job.sent_at + timedelta(seconds=1))["scoresheet_jobs"] == 0
        later = job.sent_at + background.resend_after() + timedelta(seconds=1)
        assert background.tick(now=later)["scoresheet_jobs"] == 1
    job.refresh_from_db()
    assert job.status == ScoresheetJob.Status.DONE
    assert job.sent_at == later


def test_a_seating_that_keeps_breaking_is_marked_failed_after_its_attempts(
    club: Any, director: Any, make_players: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament = tonk_event(club, director, make_players(6))

    def broken(**_kwargs: Any) -> Round:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(seatings, "round_seating_compute", broken)
    with celery_configured(task_always_eager=False, broker_url=NOBODY):
        rnd, _ = services.round_seat(tournament=tournament, by=director)
    for attempt in range(1, seatings.SEATING_ATTEMPTS):
        with pytest.raises(RuntimeError):
            seatings.round_seating_run(round_id=rnd.pk)
        rnd.refresh_from_db()
        assert (rnd.state, rnd.seat_attempts) == (Round.State.PLANNED, attempt)
    with pytest.raises(RuntimeError):
        seatings.round_seating_run(round_id=rnd.pk)

    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED
    assert rnd.failure is not None
    assert rnd.failure["code"] == "seating_unfinished"
    assert rnd.failure["params"] == {"attempts": seatings.SEATING_ATTEMPTS}
    assert rnd.failure["template"].startswith("the seating was started %(attempts)s times")
    # A failed round waits for the director, not for the tick.
    assert background.tick(now=timezone.now() + timedelta(hours=1))["seating"] == 0
    assert background.oldest_waiting() is None or background.oldest_waiting()[0] != "seating"


def test_a_seating_whose_worker_is_killed_each_time_is_marked_failed_after_its_attempts(
    club: Any, director: Any, make_players: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed mid-seating (kill -9, out of memory, the hard time limit) runs no
    ``except``: here a BaseException stands in for the kill. The attempts it counted first
    stop the next delivery."""
    tournament = tonk_event(club, director, make_players(6))

    class Killed(BaseException):
        pass

    def killed(**_kwargs: Any) -> Round:
        raise Killed

    monkeypatch.setattr(seatings, "round_seating_compute", killed)
    with celery_configured(task_always_eager=False, broker_url=NOBODY):
        rnd, _ = services.round_seat(tournament=tournament, by=director)
    for attempt in range(1, seatings.SEATING_ATTEMPTS + 1):
        with pytest.raises(Killed):
            seatings.round_seating_run(round_id=rnd.pk)
        rnd.refresh_from_db()
        assert (rnd.state, rnd.seat_attempts) == (Round.State.PLANNED, attempt)

    monkeypatch.undo()  # the next delivery would finish, but the attempts are spent
    assert seatings.round_seating_run(round_id=rnd.pk) is not None
    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED
    assert rnd.failure is not None and rnd.failure["code"] == "seating_unfinished"
    assert rnd.failure["params"] == {"attempts": seatings.SEATING_ATTEMPTS}
    assert rnd.tables.count() == 0


def test_a_tick_job_that_raises_is_logged_the_others_still_run_and_no_heartbeat_is_kept(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []

    def broken(**_kwargs: Any) -> int:
        raise RuntimeError("boom")

    def counted(**_kwargs: Any) -> int:
        ran.append("counted")
        return 2

    monkeypatch.setattr(background, "_tick_jobs", {"broken": broken, "counted": counted})
    with caplog.at_level(logging.ERROR, logger="ops.background"):
        assert background.tick() == {"broken": -1, "counted": 2}
    assert ran == ["counted"]
    assert "tick job broken failed" in caplog.text
    # A tick whose job failed is not a heartbeat: /healthz will call the tick too old.
    assert not Heartbeat.objects.filter(name=background.TICK).exists()
    monkeypatch.setattr(background, "_tick_jobs", {"counted": counted})
    assert background.tick() == {"counted": 2}
    assert Heartbeat.objects.get(name=background.TICK).at <= timezone.now()


def test_a_table_the_game_cannot_take_fails_the_seating_at_once_with_its_reason(
    club: Any, director: Any
) -> None:
    """Two club players whose names differ only in case cannot sit at one table (the game
    tells seats apart by name, ignoring case): the round fails at the first attempt, saying
    so, instead of being tried again and reported as unfinished. A club holds such players
    only from before the name rule (the migration gives the later its own key), made here by
    an update that skips the key."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Pairs", kind="tonk", sizes=[2], rounds=1
    )
    first, second = PlayerFactory(club=club, name="Ana Bell"), PlayerFactory(club=club, name="B")
    Player.objects.filter(pk=second.pk).update(name="ana bell")
    for player in (first, second):
        services.registration_add(tournament=tournament, player=Player.objects.get(pk=player.pk))
    with celery_configured(task_always_eager=False, broker_url=NOBODY):
        rnd, _ = services.round_seat(tournament=tournament, by=director)

    seatings.round_seating_run(round_id=rnd.pk)

    rnd.refresh_from_db()
    assert (rnd.state, rnd.seat_attempts) == (Round.State.FAILED, 1)
    assert rnd.failure is not None and rnd.failure["code"] == "bad_names"
    assert rnd.tables.count() == 0
    assert "ana bell" in failure_message(rnd.failure).casefold()


def test_after_a_failed_send_the_process_skips_that_broker_for_its_back_off(
    broker_down: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    settings: Any,
) -> None:
    """While Redis hangs, each send would wait for its timeouts: after one fails, the sends
    within ``BROKER_BACKOFF_SECONDS`` are skipped (logged; the tick sends the work again)."""
    from tournaments import tasks

    tried: list[tuple[object, ...]] = []
    real = tasks.standings_refresh.apply_async

    def counted(args: tuple[object, ...], **options: Any) -> Any:
        tried.append(args)
        return real(args, **options)

    monkeypatch.setattr(tasks.standings_refresh, "apply_async", counted)
    clock = [1000.0]
    monkeypatch.setattr(background, "_clock", lambda: clock[0])
    settings.BROKER_BACKOFF_SECONDS = 5.0

    with caplog.at_level(logging.WARNING, logger="ops.background"):
        assert background.send(tasks.standings_refresh, 1) is False  # tried: refused
        clock[0] += 4.9
        assert background.send(tasks.standings_refresh, 2) is False  # skipped
        clock[0] += 0.2
        assert background.send(tasks.standings_refresh, 3) is False  # tried again: refused

    assert tried == [(1,), (3,)]
    messages = [r.getMessage() for r in caplog.records if r.name == "ops.background"]
    assert len(messages) == 3
    assert "(2,) not sent (the broker failed less than 5.0 s ago)" in messages[1]
    assert all("the tick will send it again" in m for m in messages)
