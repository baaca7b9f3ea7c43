"""Failures are seen (issue 13): every request that seats checks first that the players can
fill the tables (the one pure rule, ``tournaments.seating.check_seatable``), refusing with the
reason and saving nothing; a seating task that fails leaves its round ``failed`` with the
reason, on the director's dashboard (with a Retry button) and in the API; a seating that waits
too long says so and may be asked for again.

Celery runs eagerly, as in the embedded mode; what the services enqueue runs when a test
executes the on-commit callbacks (``django_capture_on_commit_callbacks(execute=True)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ops import idempotency
from scoring import messages
from scoring.models import Game
from tournaments import seating, services
from tournaments.errors import TournamentError
from tournaments.models import AuditEntry, Club, Player, Registration, Round, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

Capture = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]

FOUR_AT_FIVE = "4 players cannot fill a table: the smallest table seats 5"

#: A catalogue of one sentence, to see the reader's language reach the page and the API.
CATALOGUE = {
    "%(players)s players cannot fill a table: the smallest table seats %(smallest)s": (
        "%(players)s joueurs ne remplissent pas une table : la plus petite en compte %(smallest)s"
    ),
}


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def rook_of_five(club: Club, director: Any, make_players: Callable[[int], list[Player]]) -> Any:
    """Rook at tables of exactly 5, five players registered, nothing seated."""
    tournament, _created = services.tournament_create(
        club=club, created_by=director, name="Five", kind="rook", rounds=3, sizes=[5]
    )
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in make_players(5)
    ]
    return tournament, registrations


def seated_round(tournament: Tournament, capture: Capture) -> Round:
    with capture(execute=True):
        rnd, created = services.round_seat(tournament=tournament)
    assert created
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return rnd


def planned_round(tournament: Tournament) -> Round:
    """Ask for the next round without running its task (the worker has not taken it yet)."""
    rnd, created = services.round_seat(tournament=tournament)
    assert created and rnd.state == Round.State.PLANNED
    return rnd


def snapshot(tournament: Tournament) -> dict[str, Any]:
    """What a refused request must leave as it was."""
    return {
        "rounds": list(tournament.round_set.values_list("number", "state", "seat_attempts")),
        "games": sorted(Game.objects.values_list("pk", flat=True)),
        "tables": sorted(tournament.round_set.values_list("tables__pk", flat=True), key=str),
        "audit": AuditEntry.objects.filter(tournament=tournament).count(),
        "withdrawn": list(
            tournament.registrations.order_by("pk").values_list("withdrawn_after", flat=True)
        ),
    }


def withdraw_behind_the_services_back(registration: Registration) -> None:
    """The players change between the request and the task (a withdrawal committed by another
    request while the task waited): only the task's own check can see it."""
    Registration.objects.filter(pk=registration.pk).update(withdrawn_after=0)


def plain(response: Any) -> str:
    """The page's text, tags dropped and white space collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.fixture
def web(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


def manage_url(tournament: Tournament) -> str:
    return reverse("tournaments:manage", args=[tournament.pk])


def seat_url(tournament: Tournament) -> str:
    return reverse("tournaments:seat", args=[tournament.pk])


def round_api(tournament: Tournament, number: int, action: str = "") -> str:
    url = f"/api/v1/tournaments/{tournament.pk}/rounds/{number}/"
    return f"{url}{action}/" if action else url


@pytest.fixture
def french(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(messages, "gettext", lambda message: CATALOGUE.get(message, message))
    yield


# --- the one rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sizes", [(5,), (3, 4, 5), (4,), (2, 3), (3, 4)], ids=lambda s: "-".join(map(str, s))
)
def test_check_seatable_refuses_exactly_what_the_seating_refuses(sizes: tuple[int, ...]) -> None:
    for players in range(0, 14):
        try:
            seating.check_seatable(players, sizes)
        except seating.SeatingError as refused:
            assert refused.code == "too_few_players"
            with pytest.raises(seating.SeatingError) as seat_refused:
                seating.seat_round(list(range(players)), sizes=sizes)
            assert seat_refused.value.params == refused.params
            with pytest.raises(seating.SeatingError):
                seating.plan_rounds(list(range(players)), 2, sizes=sizes)
        else:
            assert players >= min(sizes)
            seated = seating.seat_round(list(range(players)), sizes=sizes)
            assert len(seated.seated) + len(seated.sit_outs) == players  # sit-outs, no refusal


def test_check_seatable_names_the_players_and_the_smallest_table() -> None:
    with pytest.raises(seating.SeatingError) as refused:
        seating.check_seatable(4, [5])
    assert refused.value.message == FOUR_AT_FIVE
    assert seating.check_seatable(13, [4]) == ((4,), 4)  # one sits out


# --- refused at the request --------------------------------------------------------------------


def test_the_issue_s_impossible_seating_is_refused_at_the_regenerate_and_nothing_changes(
    rook_of_five: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament, registrations = rook_of_five
    rnd = seated_round(tournament, django_capture_on_commit_callbacks)

    # The round is seated: the withdrawal is allowed, and the round flagged.
    services.registration_withdraw(registration=registrations[0])
    rnd.refresh_from_db()
    assert rnd.superseded is True
    before = snapshot(tournament)

    with pytest.raises(TournamentError) as refused:
        services.round_regenerate(round=rnd)

    assert (refused.value.code, refused.value.status) == ("too_few_players", 409)
    assert refused.value.message == FOUR_AT_FIVE
    assert snapshot(tournament) == before
    rnd.refresh_from_db()
    assert (rnd.state, rnd.tables.count()) == (Round.State.SEATED, 1)


def test_the_impossible_regenerate_answers_409_with_the_conflict_object_in_the_api(
    rook_of_five: Any,
    director_api: APIClient,
    django_capture_on_commit_callbacks: Capture,
    french: None,
) -> None:
    tournament, registrations = rook_of_five
    seated_round(tournament, django_capture_on_commit_callbacks)
    withdrawn = director_api.post(
        f"/api/v1/tournaments/{tournament.pk}/registrations/{registrations[0].pk}/withdraw/"
    )
    assert withdrawn.status_code == 200
    before = snapshot(tournament)

    with django_capture_on_commit_callbacks(execute=True) as sent:
        response = director_api.post(round_api(tournament, 1, "regenerate"))

    assert response.status_code == 409
    assert response.json() == {
        "conflict": {
            "code": "too_few_players",
            "message": "4 joueurs ne remplissent pas une table : la plus petite en compte 5",
        }
    }
    assert sent == []
    assert snapshot(tournament) == before


def test_the_impossible_regenerate_is_a_message_on_the_dashboard(
    rook_of_five: Any, web: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament, registrations = rook_of_five
    seated_round(tournament, django_capture_on_commit_callbacks)
    services.registration_withdraw(registration=registrations[0])
    page = web.get(manage_url(tournament))
    assert "Seat round 1 again" in plain(page)  # offered: the players changed
    before = snapshot(tournament)

    response = web.post(reverse("tournaments:regenerate", args=[tournament.pk, 1]), follow=True)

    assert response.status_code == 200
    assert FOUR_AT_FIVE in messages_of(response)
    assert snapshot(tournament) == before


def test_asking_for_a_round_the_players_cannot_fill_is_refused_with_the_reason(
    rook_of_five: Any, director_api: APIClient
) -> None:
    tournament, registrations = rook_of_five
    # Before round 1 the registrations are still being taken: a withdrawal is allowed...
    services.registration_withdraw(registration=registrations[0])

    # ... and asking for the round says why it cannot be seated.
    response = director_api.post(f"/api/v1/tournaments/{tournament.pk}/rounds/")

    assert response.status_code == 409
    assert response.json()["conflict"] == {"code": "too_few_players", "message": FOUR_AT_FIVE}
    assert not tournament.round_set.exists()


def test_a_withdrawal_that_would_fail_the_seating_under_way_is_refused(
    rook_of_five: Any,
) -> None:
    tournament, registrations = rook_of_five
    planned_round(tournament)
    before = snapshot(tournament)

    with pytest.raises(TournamentError) as refused:
        services.registration_withdraw(registration=registrations[2])

    assert refused.value.code == "too_few_players"
    name = registrations[2].player.name
    assert refused.value.message == (
        f"withdrawing {name} would leave 4 players for round 1, who cannot fill a table: the "
        "smallest table seats 5; register another player first"
    )
    assert snapshot(tournament) == before


def test_a_withdrawal_that_would_leave_the_next_round_unseatable_is_refused(
    rook_of_five: Any,
    web: Client,
    django_capture_on_commit_callbacks: Capture,
    make_players: Callable[[int], list[Player]],
) -> None:
    tournament, registrations = rook_of_five
    rnd = seated_round(tournament, django_capture_on_commit_callbacks)
    services.round_publish(round=rnd)
    before = snapshot(tournament)

    response = web.post(
        reverse("tournaments:withdraw", args=[tournament.pk, registrations[1].pk]), follow=True
    )

    name = registrations[1].player.name
    assert (
        f"withdrawing {name} would leave 4 players for round 2, who cannot fill a table: the "
        "smallest table seats 5; register another player first"
    ) in messages_of(response)
    assert snapshot(tournament) == before

    # With a sixth player registered, the same withdrawal goes through.
    services.registration_add(tournament=tournament, player=make_players(1)[0])
    services.registration_withdraw(registration=registrations[1])
    registrations[1].refresh_from_db()
    assert registrations[1].withdrawn_after == 1


def test_after_the_last_round_is_seated_a_withdrawal_is_always_allowed(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, _created = services.tournament_create(
        club=club, created_by=director, name="One", kind="rook", rounds=1, sizes=[5]
    )
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in make_players(5)
    ]
    Round.objects.create(tournament=tournament, number=1, state=Round.State.PUBLISHED)

    services.registration_withdraw(registration=registrations[0])

    registrations[0].refresh_from_db()
    assert registrations[0].withdrawn_after == 1


# --- a seating that fails ----------------------------------------------------------------------


def test_a_seating_the_players_no_longer_fill_fails_with_its_reason_everywhere(
    rook_of_five: Any,
    web: Client,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
    django_capture_on_commit_callbacks: Capture,
    french: None,
) -> None:
    tournament, registrations = rook_of_five
    rnd = planned_round(tournament)
    withdraw_behind_the_services_back(registrations[0])

    services.round_seating_run(round_id=rnd.pk)

    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED
    assert rnd.failure == {
        "code": "too_few_players",
        "template": "%(players)s players cannot fill a table: the smallest table seats "
        "%(smallest)s",
        "params": {"players": 4, "smallest": 5},
    }
    assert (rnd.tables.count(), Game.objects.count()) == (0, 0)

    # The dashboard: the reason in the reader's language, and a Retry button.
    page = web.get(manage_url(tournament))
    html = page.content.decode()
    assert (
        "Seating failed: 4 joueurs ne remplissent pas une table : la plus petite en compte 5"
        in plain(page)
    )
    retry = re.search(
        r'<form method="post" action="' + re.escape(seat_url(tournament)) + r'" class="actions">'
        r'\s*<input type="hidden" name="csrfmiddlewaretoken" value="[^"]+">'
        r'<input type="hidden" name="idempotency_key" value="([0-9a-f]{32})">'
        r"\s*<button type=\"submit\">Retry</button>",
        html,
    )
    assert retry is not None, html
    assert "Seating…" not in plain(page)
    assert "hx-trigger" not in html  # it waits for the director: no poll re-announcing it

    # The API: the state and the failure, in the request's language.
    body = director_api.get(round_api(tournament, 1)).json()
    assert (body["state"], body["failure"], body["tables"], body["sit_outs"]) == (
        "failed",
        {
            "code": "too_few_players",
            "message": "4 joueurs ne remplissent pas une table : la plus petite en compte 5",
        },
        [],
        [],
    )

    # Retrying while the players still cannot fill a table: refused with the reason.
    before = snapshot(tournament)
    refused = director_api.post(f"/api/v1/tournaments/{tournament.pk}/rounds/")
    assert refused.status_code == 409
    assert refused.json()["conflict"]["code"] == "too_few_players"
    assert snapshot(tournament) == before

    # A late entry joins the failed round; Retry brings it back to planned, then seated.
    (newcomer,) = make_players(1)
    late = services.registration_add(tournament=tournament, player=newcomer)
    assert late.from_round == 1
    with django_capture_on_commit_callbacks(execute=False) as sent:
        retried = web.post(seat_url(tournament), {"idempotency_key": retry.group(1)})
    assert retried.status_code == 303
    rnd.refresh_from_db()
    assert (rnd.state, rnd.failure, rnd.seat_attempts) == (Round.State.PLANNED, None, 0)
    assert rnd.seat_asked_at is not None and rnd.seat_asked_at > timezone.now() - timedelta(
        minutes=1
    )
    assert len(sent) == 1
    step = AuditEntry.objects.filter(tournament=tournament).latest("id")
    assert (step.action, step.round_number, step.details) == (
        AuditEntry.Action.SEAT,
        1,
        {
            "retry": True,
            "idempotency_key": retry.group(1),
            "request_fingerprint": idempotency.fingerprint(
                "POST", f"tournaments/{tournament.pk}/rounds", {"reason": ""}
            ),
        },
    )
    sent[0]()  # the worker takes the task
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    seated = set(rnd.seats.values_list("registration__player__name", flat=True))
    assert newcomer.name in seated and registrations[0].player.name not in seated
    assert director_api.get(round_api(tournament, 1)).json()["failure"] is None


def test_a_double_tap_on_retry_retries_once(
    rook_of_five: Any, web: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament, registrations = rook_of_five
    rnd = planned_round(tournament)
    withdraw_behind_the_services_back(registrations[0])
    services.round_seating_run(round_id=rnd.pk)
    Registration.objects.filter(pk=registrations[0].pk).update(withdrawn_after=None)

    # The first tap's seating fails again at once (the players changed meanwhile).
    with django_capture_on_commit_callbacks(execute=False) as first:
        web.post(seat_url(tournament), {"idempotency_key": "tap"})
    withdraw_behind_the_services_back(registrations[1])
    for callback in first:
        callback()
    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED
    Registration.objects.filter(pk=registrations[1].pk).update(withdrawn_after=None)

    with django_capture_on_commit_callbacks(execute=True) as second:
        web.post(seat_url(tournament), {"idempotency_key": "tap"})

    rnd.refresh_from_db()
    assert (rnd.state, second) == (Round.State.FAILED, [])
    retries = AuditEntry.objects.filter(tournament=tournament, details__retry=True)
    assert retries.count() == 1


def test_unexpected_errors_fail_the_round_after_five_attempts_then_retry_seats_it(
    rook_of_five: Any,
    web: Client,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, _registrations = rook_of_five
    rnd = planned_round(tournament)
    from tournaments.services import seatings

    def broken(*, round_id: int) -> Round:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(seatings, "round_seating_compute", broken)
    for attempt in range(1, 6):
        with pytest.raises(RuntimeError):
            services.round_seating_run(round_id=rnd.pk)
        rnd.refresh_from_db()
        assert rnd.seat_attempts == attempt
        assert rnd.state == (Round.State.FAILED if attempt == 5 else Round.State.PLANNED)

    assert rnd.failure is not None and rnd.failure["code"] == "seating_unfinished"
    page = plain(web.get(manage_url(tournament)))
    assert (
        "Seating failed: the seating was started 5 times and never finished; try again, and if "
        "it fails again, tell whoever runs the server"
    ) in page
    assert "Retry" in page

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        web.post(seat_url(tournament), {"idempotency_key": "after-the-fix"})
    rnd.refresh_from_db()
    assert (rnd.state, rnd.seat_attempts, rnd.failure) == (Round.State.SEATED, 1, None)


def test_a_seating_refusal_of_the_pure_seating_fails_the_round(
    rook_of_five: Any, monkeypatch: pytest.MonkeyPatch, director_api: APIClient
) -> None:
    tournament, _registrations = rook_of_five
    rnd = planned_round(tournament)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise seating.SeatingError("duplicate_player", params={"names": ["Ana"]})

    monkeypatch.setattr(seating, "seat_round", refuse)
    services.round_seating_run(round_id=rnd.pk)  # a refusal: recorded, not raised

    rnd.refresh_from_db()
    assert (rnd.state, rnd.seat_attempts) == (Round.State.FAILED, 1)
    assert director_api.get(round_api(tournament, 1)).json()["failure"] == {
        "code": "duplicate_player",
        "message": "players listed twice: ['Ana']",
    }


def test_members_and_public_pages_do_not_see_a_failed_round(rook_of_five: Any, member: Any) -> None:
    tournament, registrations = rook_of_five
    rnd = planned_round(tournament)
    withdraw_behind_the_services_back(registrations[0])
    services.round_seating_run(round_id=rnd.pk)
    api = APIClient()
    api.force_authenticate(member)

    assert api.get(round_api(tournament, 1)).status_code == 404
    assert api.get(f"/api/v1/tournaments/{tournament.pk}/rounds/").json() == []
    public = Client()
    assert public.get(reverse("tournaments:round", args=[tournament.pk, 1])).status_code == 404
    assert public.get(reverse("tournaments:standings", args=[tournament.pk])).status_code == 200


# --- a seating that waits too long -----------------------------------------------------------


def test_a_seating_waiting_too_long_says_since_when_and_may_be_asked_for_again(
    rook_of_five: Any,
    web: Client,
    settings: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    settings.BACKGROUND_RESEND_SECONDS = 30
    tournament, _registrations = rook_of_five
    rnd = planned_round(tournament)

    fresh = plain(web.get(manage_url(tournament)))
    assert "Seating… Asked for at" in fresh
    assert "Seating delayed" not in fresh and "Ask again" not in fresh

    long_ago = timezone.now() - timedelta(seconds=45)
    Round.objects.filter(pk=rnd.pk).update(seat_asked_at=long_ago, seat_sent_at=long_ago)
    delayed = plain(web.get(manage_url(tournament)))
    assert "Seating delayed · Asked for at" in delayed
    assert 'hx-trigger="every 5s"' in web.get(manage_url(tournament)).content.decode()
    assert "Ask again" in delayed

    with django_capture_on_commit_callbacks(execute=False) as sent:
        web.post(seat_url(tournament), {"idempotency_key": "again"})
    rnd.refresh_from_db()
    assert len(sent) == 1 and rnd.seat_sent_at is not None and rnd.seat_sent_at > long_ago
    assert rnd.seat_asked_at == long_ago  # still waiting since it was first asked for
    for callback in sent:
        callback()
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
