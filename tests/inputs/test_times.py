"""Local times (issue 14, row 3): one conversion from what people type to an instant
(``tournaments.localtime``), through every entry point that takes a time.

Each entry point (the new-tournament page, ``POST /api/v1/tournaments/``, the service called
from Python as the demo and commands call it) is tried in zones with and without daylight
saving, north and south, with whole-hour and 30-minute shifts: a wall time is read in the
tournament's zone; a time with an offset is that instant; a wall time the zone skips is
refused, and so is one it shows twice unless its offset is given; an unknown zone is refused;
a refusal stores nothing. The entry points are discovered (the forms and input serializers of
scoring and tournaments, the admin, the commands): a new one that takes a time without the
project's field fails here."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.core.management import get_commands, load_command_class
from django.db import models
from django.test import Client, RequestFactory
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.test import APIClient

from tests.factories import ClubFactory, MembershipFactory, UserFactory
from tests.inputs.conftest import nothing_stored
from tests.schema_walk import body_properties
from tournaments import localtime, services
from tournaments.errors import TournamentError
from tournaments.forms import LocalDateTimeField as FormTimeField
from tournaments.forms import TournamentForm
from tournaments.models import Club, Membership, Tournament
from tournaments.serializers import LocalDateTimeField as ApiTimeField

pytestmark = pytest.mark.django_db


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@dataclass(frozen=True)
class Zone:
    """A zone and what its clocks do: a plain wall time and its instant; a wall time the
    clocks skip (None: the zone keeps one offset); a wall time they show twice, with its
    earlier and later instants."""

    name: str
    wall: str
    instant: datetime
    gap: str | None = None
    fold: str | None = None
    fold_instants: tuple[datetime, datetime] | None = None


ZONES = [
    Zone(
        "America/Chicago",
        "2025-03-15T18:30:00",
        utc(2025, 3, 15, 23, 30),
        gap="2025-03-09T02:30",
        fold="2025-11-02T01:30",
        fold_instants=(utc(2025, 11, 2, 6, 30), utc(2025, 11, 2, 7, 30)),
    ),
    Zone(
        "Europe/London",
        "2025-07-01T19:00",
        utc(2025, 7, 1, 18, 0),
        gap="2025-03-30T01:30",
        fold="2025-10-26T01:30",
        fold_instants=(utc(2025, 10, 26, 0, 30), utc(2025, 10, 26, 1, 30)),
    ),
    Zone("Asia/Kolkata", "2025-03-09T02:30", utc(2025, 3, 8, 21, 0)),  # +05:30, no DST
    Zone(
        "Asia/Dhaka",  # +06:00 today; one summer of DST in 2009
        "2025-06-01T12:00",
        utc(2025, 6, 1, 6, 0),
        gap="2009-06-19T23:30",
        fold="2009-12-31T23:30",
        fold_instants=(utc(2009, 12, 31, 16, 30), utc(2009, 12, 31, 17, 30)),
    ),
    Zone(
        "Australia/Lord_Howe",  # +10:30, +11:00 in summer: the clocks move 30 minutes
        "2025-07-01T09:00",
        utc(2025, 6, 30, 22, 30),
        gap="2025-10-05T02:15",
        fold="2025-04-06T01:45",
        fold_instants=(utc(2025, 4, 5, 14, 45), utc(2025, 4, 5, 15, 15)),
    ),
    Zone(
        "Australia/Sydney",  # southern hemisphere: summer time from October to April
        "2025-01-10T20:00",
        utc(2025, 1, 10, 9, 0),
        gap="2025-10-05T02:30",
        fold="2025-04-06T02:30",
        fold_instants=(utc(2025, 4, 5, 15, 30), utc(2025, 4, 5, 16, 30)),
    ),
]
SHIFTING = [z for z in ZONES if z.gap]


def _id(zone: Zone) -> str:
    return zone.name


# --- the entry points -------------------------------------------------------------------------


@dataclass
class Outcome:
    """What an entry point did: the instant stored (created), or the refusal: its status, the
    field it names and its words."""

    starts_at: datetime | None = None
    created: bool = False
    status: int = 0
    field: str | None = None
    words: str = ""
    body: dict[str, Any] | None = None


@dataclass
class Context:
    club: Club
    director: Any


Send = Callable[[Context, str, object], Outcome]


def _form_data(club: Club, zone: str, starts_at: object) -> dict[str, Any]:
    """The new-tournament page as a director submits it: every field as the page offers it,
    a Tonk tournament, with ``zone`` and ``starts_at`` typed."""
    form = TournamentForm(club=club)
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    data |= {"kind": "tonk", "name": "Night owls", "tonk__rounds": 3, "time_zone": zone}
    data["starts_at"] = starts_at
    return data


def via_form(ctx: Context, zone: str, starts_at: object) -> Outcome:
    client = Client()
    client.force_login(ctx.director)
    url = reverse("tournaments:new", args=[ctx.club.pk])
    response = client.post(url, _form_data(ctx.club, zone, starts_at))
    if response.status_code == 303:
        t = Tournament.objects.get(club=ctx.club, name="Night owls")
        return Outcome(starts_at=t.starts_at, created=True, status=303)
    errors = response.context["form"].errors
    field = next(iter(errors), None)
    return Outcome(
        status=response.status_code,
        field=field,
        words=" ".join(str(e) for e in errors.get(field, [])),
    )


def via_api(ctx: Context, zone: str, starts_at: object) -> Outcome:
    client = APIClient()
    client.force_authenticate(ctx.director)
    body = {"club": ctx.club.pk, "name": "Night owls", "game": "tonk", "rounds": 3}
    body["time_zone"] = zone
    body["starts_at"] = starts_at
    response = client.post("/api/v1/tournaments/", body, format="json")
    answer = response.json()
    if response.status_code == 201:
        t = Tournament.objects.get(pk=answer["id"])
        shown = answer["starts_at"]
        assert (datetime.fromisoformat(shown) if shown else None) == t.starts_at
        return Outcome(starts_at=t.starts_at, created=True, status=201, body=answer)
    error = answer["error"]
    fields = error.get("fields")
    if fields:  # a request that does not fit the endpoint: DRF's words per field
        field = next(iter(fields))
        return Outcome(
            status=response.status_code, field=field, words=" ".join(fields[field]), body=error
        )
    return Outcome(
        status=response.status_code, field=error.get("field"), words=error["message"], body=error
    )


def via_service(ctx: Context, zone: str, starts_at: object) -> Outcome:
    """``tournaments.services.tournament_create`` as Python calls it (the demo, commands)."""
    try:
        t, _created = services.tournament_create(
            club=ctx.club,
            created_by=ctx.director,
            name="Night owls",
            kind="tonk",
            rounds=3,
            time_zone=zone,
            starts_at=starts_at,  # type: ignore[arg-type]
        )
    except TournamentError as exc:
        return Outcome(status=400, field=exc.field, words=exc.message, body=exc.to_dict())
    return Outcome(starts_at=t.starts_at, created=True, status=201)


ENTRY_POINTS: dict[str, Send] = {"form": via_form, "api": via_api, "service": via_service}

#: Every input field that takes a time, by (form or serializer, field): what the tests above
#: go through. The discovery tests below fail when another one appears.
COVERED = {("TournamentForm", "starts_at"), ("TournamentInSerializer", "starts_at")}


@pytest.fixture
def ctx() -> Context:
    club = ClubFactory(name="Late Club")
    director = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    return Context(club, director)


@pytest.fixture(params=list(ENTRY_POINTS))
def send(request: pytest.FixtureRequest) -> Send:
    return ENTRY_POINTS[request.param]


def refused(outcome: Outcome, field: str) -> None:
    assert not outcome.created
    assert outcome.status in (400, 422), outcome
    assert outcome.field == field, outcome


# --- the rule, through every entry point ------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES, ids=_id)
def test_a_wall_time_is_read_in_the_tournaments_zone(send: Send, ctx: Context, zone: Zone) -> None:
    outcome = send(ctx, zone.name, zone.wall)
    assert outcome.created, outcome
    assert outcome.starts_at == zone.instant


@pytest.mark.parametrize("zone", ZONES, ids=_id)
def test_a_time_with_its_offset_is_that_instant_whatever_the_zone(
    send: Send, ctx: Context, zone: Zone
) -> None:
    assert send(ctx, zone.name, "2025-03-15T18:30:00+05:30").starts_at == utc(2025, 3, 15, 13, 0)
    Tournament.objects.all().delete()
    assert send(ctx, zone.name, "2025-03-15T18:30Z").starts_at == utc(2025, 3, 15, 18, 30)


@pytest.mark.parametrize("zone", SHIFTING, ids=_id)
def test_a_wall_time_the_clocks_skip_is_refused_naming_field_time_and_zone(
    send: Send, ctx: Context, zone: Zone
) -> None:
    assert zone.gap
    with nothing_stored():
        outcome = send(ctx, zone.name, zone.gap)
    refused(outcome, "starts_at")
    assert zone.gap in outcome.words and zone.name in outcome.words
    assert "does not exist" in outcome.words
    if outcome.body is not None:  # the API and the service: the format's error object
        assert outcome.body["code"] == "bad_format"
        assert outcome.body["detail"] == "time_gap"
        assert (outcome.body["time"], outcome.body["zone"]) == (zone.gap, zone.name)


@pytest.mark.parametrize("zone", SHIFTING, ids=_id)
def test_a_wall_time_shown_twice_is_refused_without_its_offset_naming_both_instants(
    send: Send, ctx: Context, zone: Zone
) -> None:
    assert zone.fold and zone.fold_instants
    tz = ZoneInfo(zone.name)
    both = [i.astimezone(tz).isoformat() for i in zone.fold_instants]
    with nothing_stored():
        outcome = send(ctx, zone.name, zone.fold)
    refused(outcome, "starts_at")
    assert zone.fold in outcome.words and zone.name in outcome.words
    assert both[0] in outcome.words and both[1] in outcome.words
    if outcome.body is not None:
        assert (outcome.body["code"], outcome.body["detail"]) == ("bad_format", "time_fold")
        assert outcome.body["instants"] == both


def test_the_page_offers_both_instants_of_a_time_shown_twice(ctx: Context) -> None:
    """A ``datetime-local`` input takes no offset: the refused page offers the two instants,
    and the one chosen is stored."""
    client = Client()
    client.force_login(ctx.director)
    url = reverse("tournaments:new", args=[ctx.club.pk])
    data = _form_data(ctx.club, "America/Chicago", "2025-11-02T01:30")
    with nothing_stored():
        page = client.post(url, data)
    assert page.status_code == 422
    html = page.content.decode()
    first, second = "2025-11-02T01:30:00-05:00", "2025-11-02T01:30:00-06:00"
    assert f'<option value="{first}">' in html and f'<option value="{second}">' in html
    response = client.post(url, data | {"starts_at": second})
    assert response.status_code == 303
    assert Tournament.objects.get(club=ctx.club).starts_at == utc(2025, 11, 2, 7, 30)


@pytest.mark.parametrize("zone", SHIFTING, ids=_id)
@pytest.mark.parametrize("which", [0, 1], ids=["earlier", "later"])
def test_a_wall_time_shown_twice_with_its_offset_is_that_instant(
    send: Send, ctx: Context, zone: Zone, which: int
) -> None:
    assert zone.fold_instants
    meant = zone.fold_instants[which]
    written = meant.astimezone(ZoneInfo(zone.name)).isoformat()  # e.g. 2025-11-02T01:30-06:00
    assert written.startswith(str(zone.fold))
    outcome = send(ctx, zone.name, written)
    assert outcome.created, outcome
    assert outcome.starts_at == meant


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "localtime", "posixrules", "Factory", "america/chicago", "UTC+5", ""]
)
def test_an_unknown_zone_is_refused(send: Send, ctx: Context, name: str) -> None:
    with nothing_stored():
        outcome = send(ctx, name, "2025-03-15T18:30")
    refused(outcome, "time_zone")


@pytest.mark.parametrize(
    "text",
    [
        "2025-03-15",  # a date alone
        "15/03/2025 18:30",
        "2025-03-15T25:30",
        "2025-02-30T18:30",
        "2025-03-15T18:30+0530",  # the offset without its colon
        "2025-03-15T18:30 ",
        "2025-W11-6T18:30",
        "tomorrow at 7",
    ],
)
def test_text_that_is_not_a_time_is_refused(send: Send, ctx: Context, text: str) -> None:
    if send is via_form and text.strip() != text:
        text = "x" + text  # the page trims what is typed: make the text wrong another way
    with nothing_stored():
        outcome = send(ctx, "America/Chicago", text)
    refused(outcome, "starts_at")


def test_no_start_time_is_none(send: Send, ctx: Context) -> None:
    outcome = send(ctx, "America/Chicago", "" if send is via_form else None)
    assert outcome.created and outcome.starts_at is None


def test_the_api_answers_with_the_instant_and_its_offset(ctx: Context) -> None:
    outcome = via_api(ctx, "America/Chicago", "2025-03-15T18:30")
    assert outcome.body is not None
    assert outcome.body["starts_at"] == "2025-03-15T23:30:00Z"
    assert outcome.body["time_zone"] == "America/Chicago"


def test_the_service_reads_a_python_datetime_by_the_same_rule(ctx: Context) -> None:
    """The demo and commands pass ``datetime`` objects: naive is a wall time, aware an
    instant, and a skipped wall time is refused just the same."""
    zone = "America/Chicago"
    assert via_service(ctx, zone, datetime(2025, 3, 15, 18, 30)).starts_at == utc(
        2025, 3, 15, 23, 30
    )
    Tournament.objects.all().delete()
    aware = datetime(2025, 3, 15, 18, 30, tzinfo=ZoneInfo("Asia/Kolkata"))
    assert via_service(ctx, zone, aware).starts_at == utc(2025, 3, 15, 13, 0)
    with nothing_stored():
        refused(via_service(ctx, zone, datetime(2025, 3, 9, 2, 30)), "starts_at")


# --- the conversion itself --------------------------------------------------------------------

WALL_TIMES = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2037, 12, 31))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(
        [z.name for z in ZONES] + ["Europe/Dublin", "America/Santiago", "Pacific/Chatham", "UTC"]
    ),
    wall=WALL_TIMES,
)
def test_a_wall_time_is_its_instant_or_refused_for_the_right_reason(
    name: str, wall: datetime
) -> None:
    """For every zone and wall time: the instant shows that wall time in the zone; or no
    instant does (refused as skipped); or two do (refused as shown twice, naming both)."""
    tz = ZoneInfo(name)
    # Independent of the rule: the instants whose clocks in ``tz`` show ``wall``, among the
    # wall time read with every offset the zone had within a day of it.
    offsets = {
        (wall + timedelta(hours=h)).replace(tzinfo=tz).utcoffset() for h in range(-24, 25, 1)
    }
    showing = sorted(
        instant
        for offset in offsets
        if offset is not None
        for instant in [(wall - offset).replace(tzinfo=UTC)]
        if instant.astimezone(tz).replace(tzinfo=None) == wall
    )
    try:
        got = localtime.instant(wall, name, field="starts_at")
    except TournamentError as exc:
        assert exc.code == "bad_format"
        if not showing:
            assert exc.details["detail"] == "time_gap"
        else:
            assert exc.details["detail"] == "time_fold"
            instants = [datetime.fromisoformat(str(i)) for i in exc.details["instants"]]  # type: ignore[attr-defined]
            assert instants == showing and len(showing) == 2
        return
    assert showing == [got]
    assert localtime.local(got, name).replace(tzinfo=None) == wall


def test_zone_names_are_the_iana_zones_without_the_database_files() -> None:
    names = localtime.zone_names()
    assert {"America/Chicago", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"} <= set(names)
    assert not {"localtime", "posixrules", "Factory"} & set(names)
    assert list(names) == sorted(names)


# --- discovering the entry points -------------------------------------------------------------

PROJECT = ("scoring", "tournaments", "ops")
PLAIN_FORM_TIMES = (forms.DateTimeField, forms.DateField, forms.TimeField, forms.DurationField)
PLAIN_API_TIMES = (
    serializers.DateTimeField,
    serializers.DateField,
    serializers.TimeField,
    serializers.DurationField,
)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _project_classes(base: type) -> list[type]:
    return sorted(
        {c for c in _subclasses(base) if c.__module__.split(".")[0] in PROJECT},
        key=lambda c: f"{c.__module__}.{c.__qualname__}",
    )


def _form_fields(form_class: type[forms.BaseForm]) -> dict[str, forms.Field]:
    fields = dict(form_class.base_fields)
    if form_class is TournamentForm:  # fields added per game in __init__
        club = ClubFactory()
        fields |= TournamentForm(club=club).fields
    return fields


def test_every_form_that_takes_a_time_uses_the_projects_field_and_is_covered() -> None:
    taking = set()
    for form_class in _project_classes(forms.BaseForm):
        for name, field in _form_fields(form_class).items():
            assert not isinstance(field, PLAIN_FORM_TIMES), (
                f"{form_class.__qualname__}.{name}: a time is read by "
                "tournaments.forms.LocalDateTimeField (tournaments.localtime), not Django's field"
            )
            if isinstance(field, FormTimeField):
                taking.add((form_class.__qualname__.split(".")[-1], name))
    assert taking == {c for c in COVERED if c[0].endswith("Form")}


def _input_serializers() -> list[type[serializers.Serializer[Any]]]:
    """The serializers that read requests: every serializer of the project's apps whose name
    does not end in ``Out`` (the output shapes)."""
    return [
        c
        for c in _project_classes(serializers.Serializer)
        if not c.__name__.endswith("Out") and c.__name__ != "StrictSerializer"
    ]


def test_every_input_serializer_that_takes_a_time_uses_the_projects_field_and_is_covered() -> None:
    taking = set()
    found = _input_serializers()
    assert any(c.__name__ == "TournamentInSerializer" for c in found)
    for cls in found:
        try:
            fields = cls().fields
        except Exception:
            fields = getattr(cls, "_declared_fields", {})
        for name, field in fields.items():
            assert not isinstance(field, PLAIN_API_TIMES), (
                f"{cls.__qualname__}.{name}: a time is read by "
                "tournaments.serializers.LocalDateTimeField (tournaments.localtime)"
            )
            if isinstance(field, ApiTimeField):
                taking.add((cls.__name__, name))
    assert taking == {c for c in COVERED if c[0].endswith("Serializer")}


def _request_fields(client: Client) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(operation, field, its schema)`` of every request body's top-level fields, each
    field once per operation (a body per game repeats its fields)."""
    schema = json.loads(client.get("/api/schema/?format=json").content)
    components = schema["components"]["schemas"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            for media in content.values():
                fields = dict(body_properties(media.get("schema", {}), components))
                for name, prop in fields.items():
                    yield f"{method.upper()} {path}", name, prop


def test_the_schema_documents_the_rule_on_every_time_a_request_takes() -> None:
    seen = []
    for operation, name, prop in _request_fields(Client()):
        assert prop.get("format") not in ("date-time", "date", "time", "duration"), (
            f"{operation} {name}: a plain time; use the project's field"
        )
        if prop.get("pattern") in (localtime.TIME_PATTERN, localtime.SCHEMA_TIME_PATTERN):
            assert prop["description"] == str(localtime.DESCRIPTION)
            seen.append((operation, name))
    assert set(seen) == {("POST /api/v1/tournaments/", "starts_at")}


def test_the_admin_edits_no_time() -> None:
    """A time edited in the admin would bypass the rule: every time field of the project's
    models is read-only there (or the admin changes nothing)."""
    superuser = UserFactory(is_staff=True, is_superuser=True)
    request = RequestFactory().get("/admin/")
    request.user = superuser
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in PROJECT:
            continue
        if not (
            model_admin.has_add_permission(request) or model_admin.has_change_permission(request)
        ):
            continue
        form_class = model_admin.get_form(request)
        for name, field in form_class.base_fields.items():
            assert not isinstance(field, (*PLAIN_FORM_TIMES, forms.SplitDateTimeField)), (
                f"admin of {model._meta.label}: {name} is an editable time"
            )


TIME_WORDS = ("time", "date", "deadline", "start", "starts", "end", "ends", "at", "when", "until")


def test_no_command_takes_a_time() -> None:
    """``manage.py`` commands of the project's apps take no time (if one comes to, it reads it
    with ``tournaments.localtime.instant`` and is added to the entry points above)."""
    for name, app in get_commands().items():
        if app.split(".")[0] not in PROJECT:
            continue
        parser = load_command_class(app, name).create_parser("manage.py", name)
        for action in _actions(parser):
            words = set(action.dest.split("_"))
            assert not words & set(TIME_WORDS), f"manage.py {name} --{action.dest}"


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)
        elif action.dest not in ("help", "version", "verbosity", "settings", "pythonpath"):
            yield action


def test_no_model_of_the_project_takes_a_time_but_through_the_services() -> None:
    """The times the project stores: a tournament's start (taken by the entry points above) and
    the times the services set themselves (clock, audit). A new editable time column shows up
    here, to be added to the entry points."""
    editable = sorted(
        f"{m._meta.label}.{f.name}"
        for m in apps.get_models()
        if m._meta.app_label in PROJECT
        for f in m._meta.get_fields()
        if isinstance(f, models.DateTimeField | models.DateField | models.TimeField)
        and f.editable
        and not (f.auto_now or f.auto_now_add)
    )
    set_by_services = {
        "ops.Heartbeat.at",
        "scoring.Game.finished_at",
        "scoring.Hand.voided_at",
        "scoring.ScoresheetJob.finished_at",
        "tournaments.Round.deadline",
        "tournaments.Round.time_called_at",
        "tournaments.Round.seated_at",
        "tournaments.Round.published_at",
        "tournaments.Round.completed_at",
        "tournaments.Round.seat_asked_at",
    }
    assert set(editable) - set_by_services == {"tournaments.Tournament.starts_at"}
