"""Local times of a tournament: the one rule that turns what people type into an instant.

Every time a tournament takes (its start time today; any later time a director types) is read
here, whatever the way in: the director's form (:class:`tournaments.forms.LocalDateTimeField`),
the API (:class:`tournaments.serializers.LocalDateTimeField`), the services called from Python
(the demo, commands). The fields only :func:`parse` the text; the service converts it with
:func:`instant`, knowing the tournament's zone. The rule:

- the zone is a name of the IANA time zone database (``Europe/London``, ``Asia/Kolkata``,
  ``UTC``), checked by :func:`zone`; the files of the system's zone database that are not time
  zones (``localtime``, ``posixrules``, ``Factory``) are refused;
- a time written without an offset (``2025-03-15T18:30``) is a wall time: what the clocks in the
  tournament's zone show (the zone sent in the same request, else the tournament's own);
- a time written with an offset (``2025-03-15T18:30-05:00``, ``…Z``) is that instant, whatever
  the zone: an offset other than the zone's that day contradicts nothing, it is the same
  instant written elsewhere;
- a wall time the zone skips that day (the hour the clocks go forward) is refused:
  ``bad_format`` (detail ``time_gap``), naming the field, the time and the zone;
- a wall time the zone shows twice that day (the hour the clocks go back) is refused unless its
  offset is given: ``bad_format`` (detail ``time_fold``), naming both instants it could be.

Instants are stored in UTC (``USE_TZ``); :func:`local` shows one in the tournament's zone.
Pure ``zoneinfo`` logic: no database, no request, no clock.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta
from typing import overload
from zoneinfo import ZoneInfo, available_timezones

from django.utils.translation import gettext_lazy as _

from tournaments.errors import TournamentError

#: Files of the system's zone database that are not time zones.
NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})

#: The one written form of a time: ISO 8601's extended calendar form, ``T`` (or a space)
#: between date and time, minutes required, seconds and microseconds optional, then an
#: optional offset (``Z`` or ``±hh:mm``).
TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$"
_TIME = re.compile(TIME_PATTERN)

_YEAR = "[1-9][0-9]{3}"
_LEAP_YEAR = "(?:[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)"
_DAY = (
    "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
_CLOCK = "(?:[01][0-9]|2[0-3]):[0-5][0-9]"
#: :data:`TIME_PATTERN` as the schema documents it: only times that exist on the calendar
#: and the clock (no month 13, February 30th, 24:00 or an offset of 25 hours), years 1000 to
#: 9999 (:func:`parse` reads the same).
SCHEMA_TIME_PATTERN = (
    f"^(?:{_YEAR}-{_DAY}|{_LEAP_YEAR}-02-29)[T ]{_CLOCK}"
    "(?::[0-5][0-9](?:\\.[0-9]{1,6})?)?"
    f"(?:Z|[+-]{_CLOCK})?$"
)

#: How every field that takes a time documents the rule (form help, OpenAPI description).
DESCRIPTION = _(
    "A wall time in the tournament's time zone (2025-03-15T18:30), or an ISO 8601 instant "
    "with its offset (2025-03-15T18:30-05:00, 2025-03-16T00:30Z). A wall time the zone skips "
    "(the clocks go forward) is refused; one it shows twice (the clocks go back) is refused "
    "unless its offset is given. Answers give the instant with its offset."
)


@functools.cache
def zone_names() -> tuple[str, ...]:
    """Every time zone name :func:`zone` accepts, sorted (the form's choices)."""
    return tuple(sorted(available_timezones() - NOT_ZONES))


@functools.cache
def _zone_set() -> frozenset[str]:
    return frozenset(zone_names())


def zone(name: object, *, field: str = "time_zone") -> ZoneInfo:
    """The IANA time zone ``name`` (``"America/Chicago"``).

    Raises:
        TournamentError: ``bad_time_zone`` for anything else (not text, unknown, a file of the
            zone database that is not a zone, such as ``localtime``), on ``field``.
    """
    if not isinstance(name, str) or name not in _zone_set():
        raise TournamentError("bad_time_zone", params={"time_zone": name}, field=field)
    return ZoneInfo(name)


def parse(text: object, *, field: str) -> datetime:
    """Read a time as typed: naive (a wall time, no zone yet) or aware (an instant).

    Args:
        text: ``YYYY-MM-DDThh:mm[:ss[.ffffff]][Z|±hh:mm]`` (:data:`TIME_PATTERN`, a space may
            stand for the ``T``); nothing around it.
        field: the request field, named by the error.

    Returns:
        a naive ``datetime`` for a wall time, an aware one for a time with an offset.

    Raises:
        TournamentError: ``bad_format`` (detail ``time``) for anything else, a date alone
            included.
    """
    value = None
    if isinstance(text, str) and _TIME.match(text):
        try:
            value = datetime.fromisoformat(text)
        except ValueError:  # month 13, 24:00, an offset of 25 hours
            value = None
    if value is None:
        raise TournamentError(
            "bad_format.time",
            params={"field": field, "text": repr(text)[:80]},
            field=field,
            detail="time",
        )
    return value


def instant(value: datetime | str, time_zone: str | ZoneInfo, *, field: str) -> datetime:
    """The instant ``value`` means in ``time_zone``: THE conversion of every time taken.

    Args:
        value: a naive ``datetime`` (a wall time in ``time_zone``), an aware one (that
            instant), or text as :func:`parse` reads it.
        time_zone: the tournament's zone, a name (checked by :func:`zone`) or a ``ZoneInfo``.
        field: the request field, named by the errors.

    Returns:
        the instant, aware, in UTC.

    Raises:
        TournamentError: ``bad_time_zone`` (the zone); ``bad_format`` with detail ``time``
            (not a time), ``time_gap`` (a wall time the zone skips that day: details ``time``
            and ``zone``) or ``time_fold`` (a wall time the zone shows twice: details
            ``time``, ``zone`` and ``instants``, the two it could be, earlier first).
    """
    tz = time_zone if isinstance(time_zone, ZoneInfo) else zone(time_zone)
    if isinstance(value, str):
        value = parse(value, field=field)
    if not isinstance(value, datetime):
        raise TournamentError(
            "bad_format.time",
            params={"field": field, "text": repr(value)[:80]},
            field=field,
            detail="time",
        )
    try:
        if value.utcoffset() is not None:
            return value.astimezone(UTC)
        earlier, later = value.replace(tzinfo=tz, fold=0), value.replace(tzinfo=tz, fold=1)
        if earlier.utcoffset() == later.utcoffset():
            return earlier.astimezone(UTC)
        back = earlier.astimezone(UTC).astimezone(tz).replace(tzinfo=None)
    except OverflowError:  # year 1 or 9999 moved past the calendar by the offset
        raise TournamentError(
            "bad_format.time",
            params={"field": field, "text": repr(value.isoformat())},
            field=field,
            detail="time",
        ) from None
    wall = value.isoformat(timespec="minutes" if not value.second else "seconds")
    name = str(tz.key)
    if back != value:  # the clocks skip it: no instant shows this wall time
        raise TournamentError(
            "bad_format.time_gap",
            params={
                "field": field,
                "before": _offset(earlier.utcoffset()),
                "after": _offset(later.utcoffset()),
            },
            field=field,
            detail="time_gap",
            time=wall,
            zone=name,
        )
    first, second = earlier.isoformat(), later.isoformat()
    raise TournamentError(
        "bad_format.time_fold",
        params={"field": field, "first": first, "second": second},
        field=field,
        detail="time_fold",
        time=wall,
        zone=name,
        instants=[first, second],
    )


def _offset(delta: timedelta | None) -> str:
    """``+05:30``, ``-06:00``: an offset from UTC as ISO 8601 writes it."""
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@overload
def local(moment: datetime, time_zone: str) -> datetime: ...
@overload
def local(moment: None, time_zone: str) -> None: ...
def local(moment: datetime | None, time_zone: str) -> datetime | None:
    """The instant ``moment`` as the clocks of ``time_zone`` show it (aware, with that zone's
    offset), for display; None for None. A stored zone is trusted (it was checked by
    :func:`zone` when stored)."""
    if moment is None:
        return None
    return moment.astimezone(ZoneInfo(time_zone))
