#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    """Run the management command named on the command line.

    ``scoresheet`` needs only the rules engine, so it runs without setting Django up (see
    ``scoring/scoresheet_cli.py``); ``manage.py help scoresheet`` still describes it.
    """
    if sys.argv[1:2] == ["scoresheet"]:
        from scoring.scoresheet_cli import main as scoresheet

        sys.exit(scoresheet(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
