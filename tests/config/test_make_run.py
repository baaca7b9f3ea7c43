"""`make run` on this checkout: migrates, prints the demo login and the demo games' table links,
and serves the home page and the admin (issue #2: "make run serves http://127.0.0.1:8000/";
issue #4: "one game of each kind in progress")."""

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from config.settings import BASE_DIR


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def test_make_run_serves_home_page_and_admin(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "DEBUG": "true",
        "CELERY_BROKER_URL": "",
        "CACHE_URL": "",
    }
    log = tmp_path / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, home = fetch(f"http://127.0.0.1:{port}/")
                break
            except OSError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
        assert status == 200
        for game in ("Tonk", "Toonerville Rook", "Bluke"):
            assert game in home
        status, admin = fetch(f"http://127.0.0.1:{port}/admin/login/")
        assert status == 200
        assert "Django administration" in admin or "Log in" in admin
        printed = log.read_text()
        assert "user 'demo', password 'demo'" in printed
        assert "for this machine only" in printed
        links = re.findall(r"^  (Tonk|Toonerville Rook|Bluke) .*: (/t/[\w-]+/)$", printed, re.M)
        assert [game for game, _link in links] == ["Tonk", "Toonerville Rook", "Bluke"]
        status, table = fetch(f"http://127.0.0.1:{port}{links[0][1]}")
        assert status == 200
        assert "Ana" in table and "Cyd" in table
        # The tick loop runs beside the server: once it has ticked, the health check passes.
        while True:
            try:
                status, health = fetch(f"http://127.0.0.1:{port}/healthz")
                break
            except urllib.error.HTTPError as error:
                assert time.monotonic() < deadline, error.read().decode()
                time.sleep(0.5)
        assert status == 200
        assert json.loads(health)["status"] == "ok"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
