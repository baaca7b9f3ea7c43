"""Browser tests: headless Debian Chromium driven by pytest-playwright against pytest-django's
live server. Marked ``e2e``; they skip with the reason when no Chromium is installed (and fail
instead under ``REQUIRE_SERVICES=1``, as in CI, where `.ci/run` installs Debian's ``chromium``).
Playwright's own browser download is never used: the launch points at the system Chromium.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.services import skip_or_fail

# Playwright's sync API runs an event loop in the test's thread; the test's own database work
# there is still synchronous, so Django's async-safety guard must stand aside in these tests.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

VIEWPORT = {"width": 360, "height": 740}
# Not pytest-playwright's own output folder (test-results/), which it empties at every start.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
# As the machine's own probe starts it: no sandbox as root, no GPU, no calls home.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The system Chromium (Debian's ``chromium`` package), or None."""
    return (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch the system Chromium, never a downloaded one."""
    path = chromium_path()
    if path is None:
        skip_or_fail("no Chromium installed: apt-get install chromium (the browser tests need it)")
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A phone: 360 × 740 CSS pixels, touch."""
    return {**browser_context_args, "viewport": VIEWPORT, "has_touch": True}


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(autouse=True, scope="session")
def _close_connections_after_each_request() -> None:
    """The live server answers each request in a thread of its own: persistent connections
    (``CONN_MAX_AGE``) would outlive those threads and keep the test database from being
    dropped, so here every request closes its connection."""
    from django.db import connections

    connections.settings["default"]["CONN_MAX_AGE"] = 0


@pytest.fixture
def new_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Callable[[], Any]]:
    """Pages in fresh browser contexts (another phone, another screen: no shared sign-in),
    closed when the test ends, so that no page keeps polling the live server afterwards."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(**browser_context_args)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def phone(new_page: Callable[[], Any], live_server: Any) -> Callable[..., Any]:
    """``phone(language, who="anonymous")``: a page in a fresh 360 × 740 context whose requests
    say ``Accept-Language: <language>`` (as a phone set to that language does; no language
    cookie), signed in as the site's director when ``who="director"`` (a session made on the
    server, its cookie given to the browser: no sign-in form on the way)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.e2e.site import DIRECTOR

    def make(language: str, who: str = "anonymous") -> Any:
        page = new_page()
        page.context.set_extra_http_headers({"Accept-Language": language})
        if who == "director":
            client = Client()
            client.force_login(get_user_model().objects.get(username=DIRECTOR[0]))
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            page.context.add_cookies(
                [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
            )
        return page

    return make
