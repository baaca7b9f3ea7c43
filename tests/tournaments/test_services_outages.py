"""Faults an operator meets on a tournament night (issue 13), with PostgreSQL, a Redis of the
test's own (``redis-server`` on ports 6392-6395, never the shared one) and real ``celery worker``
subprocesses:

- a worker killed (SIGKILL of its process group) while it seats 450 players: once a worker
  starts again the round is seated, exactly once, within 60 s;
- Redis stopped across a round's deadline while the tables enter hands: no write answers 500,
  every hand answered 201 is stored once, the standings answer 200 from the database, and once
  Redis is back time is called and a seating asked for during the outage completes.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.db import connection, connections
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from config.settings import redis_cache
from ops.background import tick
from scoring.models import Game, Hand, Seat
from tests.factories import PlayerFactory
from tests.hands import next_number, numbered
from tests.services import (
    RedisServer,
    WorkerProcess,
    celery_beat_running,
    celery_configured,
    celery_worker_running,
    wait_until,
    xdist_port,
)
from tournaments import services, tasks
from tournaments.models import AuditEntry, Club, Round, Table, TableSeat, Tournament

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

#: Redis ports of this test process's own (6392-6393, and two more for each further
#: pytest-xdist worker): one per test, so they never meet.
OUTAGE_PORT = xdist_port(6392, per_worker=2)
KILL_PORT = OUTAGE_PORT + 1


def tournament_of(club: Club, director: Any, kind: str, players: int, **options: Any) -> Tournament:
    tournament, _ = services.tournament_create(
        club=club,
        created_by=director,
        name=f"{kind} {uuid.uuid4().hex[:6]}",
        kind=kind,
        rounds=3,
        **options,
    )
    for player in PlayerFactory.create_batch(players, club=club):
        services.registration_add(tournament=tournament, player=player)
    return tournament


def waiting_for_a_lock_on(table: str) -> bool:
    """Whether another session of the test database waits for a lock, in a statement on
    ``table``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query LIKE %s AND pid <> pg_backend_pid()",
            [f'%"{table}"%'],
        )
        return cursor.fetchone()[0] > 0


def director_api(director: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(director)
    return api


# --- a worker killed while it seats a round ------------------------------------------------------


def test_a_worker_killed_while_seating_450_players_seats_the_round_once_after_a_restart(
    club: Club, director: Any, tmp_path: Path
) -> None:
    """The round's row is held locked from the test's own connection, so the worker is provably
    inside the seating task (waiting for that lock, its message taken and not acknowledged)
    when its process group is SIGKILLed; the lock is then released and a new worker started:
    its start runs the tick, which sends every waiting seating again."""
    tournament = tournament_of(club, director, "rook", 450)
    database = connection.settings_dict
    log = tmp_path / "worker.log"
    with RedisServer(KILL_PORT, tmp_path) as broker_redis:
        broker = broker_redis.url(0)
        with celery_configured(task_always_eager=False, broker_url=broker):
            answer = director_api(director).post(f"/api/v1/tournaments/{tournament.pk}/rounds/")
            assert answer.status_code == 202
            rnd = Round.objects.get(tournament=tournament, number=1)
            assert redis.Redis.from_url(broker).llen("celery") == 1  # the seating, queued

            holder = connections.create_connection("default")
            try:
                holder.set_autocommit(False)
                with holder.cursor() as cursor:
                    cursor.execute(
                        'SELECT id FROM "tournaments_round" WHERE id = %s FOR UPDATE', [rnd.pk]
                    )
                with celery_worker_running(
                    database_settings=database, broker_url=broker, log_path=log, purge=False
                ) as worker:
                    wait_until(
                        "the worker waits for the round inside the seating task",
                        lambda: waiting_for_a_lock_on("tournaments_round"),
                        seconds=60,
                        log=worker.log()[-4000:],
                    )
                    worker.kill()
                    wait_until("the killed worker is gone", lambda: not worker.alive(), seconds=10)
                holder.rollback()
            finally:
                holder.close()

            rnd.refresh_from_db()
            assert (rnd.state, rnd.tables.count()) == (Round.State.PLANNED, 0)
            # The message waits among the unacknowledged until the visibility timeout; the tick
            # sends the seating again once it waited BACKGROUND_RESEND_SECONDS (30), not before.
            sent = rnd.seat_sent_at
            assert sent is not None
            assert tick(now=sent + timedelta(seconds=29))["seating"] == 0

            started = timezone.now()
            with celery_worker_running(
                database_settings=database, broker_url=broker, log_path=log, purge=False
            ) as worker:
                assert "tick at the worker's start: {" in worker.log()
                assert "'seating': 1" in worker.log().rsplit("tick at the worker's start", 1)[1]
                wait_until(
                    "the round is seated",
                    lambda: Round.objects.get(pk=rnd.pk).state == Round.State.SEATED,
                    seconds=60 - (timezone.now() - started).total_seconds(),
                    log=worker.log()[-4000:],
                )
                assert tick(now=timezone.now() + timedelta(hours=1))["seating"] == 0

            seated_once(rnd, 450)
            # A duplicate message (redelivered after the visibility timeout) changes nothing.
            tasks.round_seat.apply(args=[rnd.pk])
            seated_once(rnd, 450)


def seated_once(rnd: Round, players: int) -> None:
    """Round ``rnd`` is seated once: every registration once, one game a table, nothing left
    over from the killed attempt, one ``seat`` in the audit."""
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    tables = Table.objects.filter(round=rnd)
    seats = TableSeat.objects.filter(round=rnd)
    assert seats.count() + rnd.sit_outs.count() == players
    assert seats.values("registration").distinct().count() == seats.count()
    assert tables.values("game").distinct().count() == tables.count() > 0
    assert Game.objects.count() == tables.count()  # no game of a killed, rolled back attempt
    assert Seat.objects.count() == seats.count()
    audit = AuditEntry.objects.filter(tournament_id=rnd.tournament_id, round_number=rnd.number)
    actions = audit.exclude(action=AuditEntry.Action.REGISTER).values_list("action", flat=True)
    assert list(actions) == [AuditEntry.Action.SEAT]


# --- Redis stopped across a round's deadline ------------------------------------------------------


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(OUTAGE_PORT, tmp_path) as server:
        yield server


@pytest.fixture
def worker_on_own_redis(own_redis: RedisServer, tmp_path: Path) -> Iterator[WorkerProcess]:
    """A worker, and this process's Celery and cache, on the test's own Redis (broker db 0,
    cache db 1). The worker sends waiting work again after 1 s (``BACKGROUND_RESEND_SECONDS``),
    so that the tick sent after the outage re-sends what was asked during it."""
    broker, cache = own_redis.url(0), own_redis.url(1)
    with (
        celery_worker_running(
            database_settings=connection.settings_dict,
            broker_url=broker,
            log_path=tmp_path / "worker.log",
            env={"CACHE_URL": cache, "BACKGROUND_RESEND_SECONDS": "1"},
        ) as worker,
        celery_configured(task_always_eager=False, broker_url=broker),
        override_settings(CACHES={"default": redis_cache(cache)}),
    ):
        yield worker


@pytest.fixture
def beat_on_own_redis(own_redis: RedisServer, tmp_path: Path) -> Iterator[WorkerProcess]:
    """``celery beat`` on the test's own Redis, sending the tick every second
    (``TICK_SECONDS=1``)."""
    with celery_beat_running(
        database_settings=connection.settings_dict,
        broker_url=own_redis.url(0),
        log_path=tmp_path / "beat.log",
        env={"TICK_SECONDS": "1"},
    ) as beat:
        yield beat


def hand_senders(table: Table) -> list[Callable[[], tuple[int, str]]]:
    """Two hands for a table of 3: the first through the API with seat 1's key, the second
    from seat 2's phone (the table page, by htmx). Each answers (status, idempotency key)."""
    game = table.game
    seats = list(Seat.objects.filter(game=game).order_by("position"))
    names = [s.name for s in seats]
    api_key, page_key = uuid.uuid4().hex, uuid.uuid4().hex
    entry = {
        "dealer": names[0],
        "end": "knock",
        "by": names[0],
        "held": {names[0]: "AS", names[1]: "KH", names[2]: "QH"},
    }

    def by_api() -> tuple[int, str]:
        api = APIClient(HTTP_AUTHORIZATION=f"Seat {seats[0].seat_key}")
        answer = api.post(
            f"/api/v1/games/{game.pk}/hands/",
            numbered(entry, next_number(game)),
            format="json",
            HTTP_IDEMPOTENCY_KEY=api_key,
        )
        return answer.status_code, api_key

    phone = Client()
    assert phone.get(f"/s/{seats[1].seat_key}/").status_code == 302
    form = {
        "idempotency_key": page_key,
        "dealer": "1",
        "end": "knock",
        "by": "1",
        "held_0": "KH",
        "held_1": "AS",
        "held_2": "QH",
    }

    def by_page() -> tuple[int, str]:
        # the page as it shows the sheet now: after the first hand, when that was sent first
        shown = {**form, "after": str(next_number(game) - 1)}
        answer = phone.post(f"/t/{game.table_key}/hands/", shown, HTTP_HX_REQUEST="true")
        return answer.status_code, page_key

    return [by_api, by_page]


def test_redis_stopped_across_a_deadline_while_tables_enter_hands(
    club: Club,
    director: Any,
    own_redis: RedisServer,
    worker_on_own_redis: WorkerProcess,
    beat_on_own_redis: WorkerProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A controlled outage, as long as the events it must cover take (a few seconds, not 60):
    hands entered at every table, the standings read, a seating asked for, the deadline
    passed. Redis is then started again on the same port; a real ``celery beat`` (the tick
    every second here) and the worker reconnect by themselves, the worker runs the tick: time
    is called, and the seating asked during the outage, which waited longer than
    BACKGROUND_RESEND_SECONDS (1 s here), is sent again and completes."""
    worker = worker_on_own_redis
    api = director_api(director)
    playing = tournament_of(club, director, "tonk", 9, minutes_per_round=30)
    assert api.post(f"/api/v1/tournaments/{playing.pk}/rounds/").status_code == 202
    wait_until(
        "round 1 is seated by the worker",
        lambda: Round.objects.get(tournament=playing, number=1).state == Round.State.SEATED,
        seconds=30,
        log=worker.log()[-4000:],
    )
    assert api.post(f"/api/v1/tournaments/{playing.pk}/rounds/1/publish/").status_code == 200
    rnd = Round.objects.get(tournament=playing, number=1)
    tables = list(Table.objects.filter(round=rnd).select_related("game").order_by("number"))
    senders = [send for table in tables for send in hand_senders(table)]
    waiting = tournament_of(club, director, "tonk", 6)

    caplog.set_level(logging.WARNING)
    own_redis.stop()

    answers = [send_hand() for send_hand in senders]
    assert [status for status, _key in answers] == [201, 200] * len(tables)
    for _status, key in answers:
        assert Hand.objects.filter(idempotency_key=key).count() == 1
    assert Hand.objects.filter(game__tournament_table__round=rnd).count() == len(answers)
    assert Client().get(f"/tournaments/{playing.pk}/").status_code == 200
    standings = api.get(f"/api/v1/tournaments/{playing.pk}/standings/")
    assert standings.status_code == 200
    assert asked_round(api, waiting) == 202
    planned = Round.objects.get(tournament=waiting, number=1)
    assert planned.state == Round.State.PLANNED  # recorded; its task not sent
    Round.objects.filter(pk=rnd.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    logged = {record.name for record in caplog.records}
    assert {"ops.background", "django_redis.cache"} <= logged, logged

    own_redis.start()
    back = timezone.now()
    wait_until(
        "time is called",
        lambda: Round.objects.get(pk=rnd.pk).time_called_at is not None,
        seconds=30,
        log=worker.log()[-4000:],
    )
    called = Round.objects.get(pk=rnd.pk).time_called_at
    assert called is not None and called - back < timedelta(seconds=30)
    wait_until(
        "the seating asked during the outage completes",
        lambda: Round.objects.get(pk=planned.pk).state == Round.State.SEATED,
        seconds=30,
        log=worker.log()[-4000:],
    )
    assert worker.alive() and beat_on_own_redis.alive()
    assert Hand.objects.filter(game__tournament_table__round=rnd).count() == len(answers)


def asked_round(api: APIClient, tournament: Tournament) -> int:
    """A director asks for the next round's seating; the answer's status."""
    return api.post(f"/api/v1/tournaments/{tournament.pk}/rounds/").status_code
