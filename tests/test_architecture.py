"""The rules engine stays a plain Python package: importable without Django."""

import subprocess
import sys

from config.settings import BASE_DIR


def test_tonkrules_imports_without_django() -> None:
    code = (
        "import sys, tonkrules, tonkrules.sheet; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
