"""The one package of hand-written SQL (``docs``: design.md, "ops/db"): :mod:`ops.db.sql`.

Every other module reads and writes through the ORM; a module that needs a statement the ORM
makes too slowly (the hand write path, the live region's row digest) or cannot make
(``SELECT 1`` of the health check) calls a public function of :mod:`ops.db.sql`.
``tests/test_architecture.py`` holds this for every first-party package.
"""
