"""Logs and request ids (issue 13, "Health and logs"): with ``DEBUG`` off, a 500 leaves its
traceback on stderr, on lines that carry the request's id; the id is the incoming
``X-Request-ID`` when that is a UUID, a new one otherwise, and is returned in the response.

The 500 case runs in a fresh interpreter configured from the environment alone (as a server
is), its standard error read as written: what an operator would find in the server's log."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.test import Client

from config.settings import BASE_DIR

RAISES_500 = """
import json, sys
import django
from django.urls import path

def boom(request):
    raise RuntimeError("the scorer fell over")

urlpatterns = [path("boom/", boom)]

django.setup()
from django.test import Client
from django.test.utils import override_settings

answers = []
with override_settings(ROOT_URLCONF="__main__"):
    client = Client(raise_request_exception=False)
    for headers in ({"X-Request-ID": sys.argv[1]}, {}):
        response = client.get("/boom/", headers=headers)
        answers.append([response.status_code, response.get("X-Request-ID")])
print(json.dumps(answers))
"""

LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?P<level>[A-Z]+) \[(?P<id>[^\]]+)\] "
    r"(?P<logger>[\w.]+): (?P<message>.*)$"
)


def server_environment(tmp_path: Path) -> dict[str, str]:
    """A real-mode environment with DEBUG off, whatever the test run or a ``.env`` holds."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": "test-" + uuid.uuid4().hex,
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "CELERY_BROKER_URL": "",
        "CACHE_URL": "",
        "LOG_LEVEL": "",
    }


def test_a_500_with_debug_off_leaves_its_traceback_on_stderr_with_the_request_id(
    tmp_path: Path,
) -> None:
    given = uuid.uuid4().hex

    done = subprocess.run(
        [sys.executable, "-c", RAISES_500, given],
        cwd=BASE_DIR,
        env=server_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    (first_status, first_id), (second_status, made_id) = json.loads(done.stdout)
    assert (first_status, first_id) == (500, given)
    assert second_status == 500
    assert re.fullmatch(r"[0-9a-f]{32}", made_id) and made_id != given
    # Each 500: an ERROR line of django.request with the request's id, then the traceback.
    lines = done.stderr.splitlines()
    for request_id in (given, made_id):
        at = next(
            i
            for i, line in enumerate(lines)
            if (found := LINE.match(line))
            and found["level"] == "ERROR"
            and found["logger"] == "django.request"
            and found["id"] == request_id
        )
        assert lines[at].endswith("Internal Server Error: /boom/")
        traceback = lines[at + 1 : at + 40]
        assert traceback[0] == "Traceback (most recent call last):"
        assert any("in boom" in line for line in traceback)
        end = next(i for i, line in enumerate(traceback) if not line.startswith((" ", "T")))
        assert traceback[end] == "RuntimeError: the scorer fell over"
    # Every log line names its request id, or "-" outside a request.
    for line in lines:
        if LINE.match(line) is None:
            continue
        assert LINE.match(line)["id"] in {given, made_id, "-"}, line  # type: ignore[index]


@pytest.mark.django_db
def test_an_incoming_uuid_request_id_is_taken_and_returned(client: Client) -> None:
    given = str(uuid.uuid4())

    response = client.get("/healthz", headers={"X-Request-ID": given})

    assert response["X-Request-ID"] == given


@pytest.mark.django_db
def test_a_request_without_an_id_gets_a_new_one(client: Client) -> None:
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]

    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert re.fullmatch(r"[0-9a-f]{32}", second)
    assert first != second


@pytest.mark.django_db
def test_an_incoming_id_that_is_not_a_uuid_is_replaced(client: Client) -> None:
    forged = "x ERROR [admin] django.request: forged"

    response = client.get("/healthz", headers={"X-Request-ID": forged})

    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])
