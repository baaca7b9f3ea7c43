"""Benchmarks (``bench/engine.py``, ``bench/entry.py``) and the settings and URLs that
``bench/entry.py`` serves under gunicorn; nothing here is part of the app."""
