# Tabletally: `make` lists the targets. `make run` and `make test` set everything up themselves.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.install-stamp
BOOT_PYTHON := $(shell command -v python3.11 2>/dev/null || command -v python3)
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
# Test processes for `make test` (pytest-xdist): one per CPU core; 0 runs every test in one
# process. worksteal: an idle process takes tests queued for a busy one (durations vary 1000-fold).
PYTEST_WORKERS ?= auto
# Refuses to start a worker or beat with no broker configured (environment or .env).
BROKER_CHECK = DJANGO_SETTINGS_MODULE=config.settings $(PY) -c "import sys, django; \
	django.setup(); from django.conf import settings as s; \
	sys.exit(0 if not s.CELERY_TASK_ALWAYS_EAGER else 'CELERY_BROKER_URL is not set (environment \
	or .env): without a broker tasks run eagerly in the web process and a worker has nothing to do.')"

.PHONY: help setup catalogues messages migrate demo run test lint serve worker beat clean

help: ## list the targets
	@echo "Tabletally: make TARGET"
	@awk 'BEGIN {FS = ":.*## "} /^[a-z][a-z-]*:.*## / {printf "  %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	test -x $(PY) || $(BOOT_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -e '.[dev]'
	touch $@

setup: $(STAMP) ## create .venv and install the project with its dev tools (once per pyproject change)

catalogues: setup ## compile locale/*/LC_MESSAGES/*.po into .mo (Babel: no GNU gettext needed)
	$(PY) manage.py compilemessages

# The languages with a catalogue, as settings.LANGUAGES lists them (written only there).
LANGS = $(shell $(PY) manage.py languages --translated)
MESSAGES_IGNORE := --ignore=.venv --ignore=tests --ignore=bench --ignore=staticfiles
messages: setup ## after changing strings: extract them into every locale/<code>/*.po (needs GNU gettext)
	$(PY) manage.py makemessages --no-obsolete $(MESSAGES_IGNORE) $(addprefix -l ,$(LANGS))
	$(PY) manage.py makemessages --no-obsolete -d djangojs $(MESSAGES_IGNORE) $(addprefix -l ,$(LANGS))
	$(PY) -m ops.catalogues locale

migrate: catalogues ## apply database migrations
	$(PY) manage.py migrate --noinput

demo: migrate ## create the local demo login (demo/demo; DEBUG only)
	$(PY) manage.py demo

run: demo ## embedded mode: SQLite, eager tasks, the round clock's tick; serves http://127.0.0.1:8000/
	$(PY) manage.py tick --loop & trap 'kill $$! 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver $(HOST):$(PORT)

test: catalogues ## run the whole test suite in parallel (PYTEST_ARGS="-k healthz", PYTEST_WORKERS=0)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: setup ## ruff check, ruff format --check, mypy (all apps; --strict tonkrules), import contracts
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy --strict tonkrules
	$(BIN)/lint-imports

serve: setup ## real-mode web server: collectstatic, then gunicorn (gunicorn.conf.py) on 127.0.0.1:8000
	$(PY) manage.py collectstatic --noinput
	HOST=$(HOST) PORT=$(PORT) $(BIN)/gunicorn -c gunicorn.conf.py config.wsgi

worker: setup ## a Celery worker (needs CELERY_BROKER_URL)
	@$(BROKER_CHECK)
	$(BIN)/celery -A config worker -l info

beat: setup ## Celery beat, for timed work (needs CELERY_BROKER_URL)
	@$(BROKER_CHECK)
	$(BIN)/celery -A config beat -l info

clean: ## remove .venv, collected static files and caches (keeps db.sqlite3)
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
