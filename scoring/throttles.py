"""The API's limit on writes by table links (issue 14): a table key or a seat key writing
(entering, correcting, confirming, voiding hands...) at most ``DEFAULT_THROTTLE_RATES
["table_write"]`` times a window from one address. The rate is far above any honest table's
(a hand takes minutes to play; a table's busiest minute is a few taps), so only a runaway
script or someone hammering a leaked link meets it. A signed-in user's writes and every read
are not limited here; refused keys are (``ops.guessing.KeyGuessThrottle``).
"""

from __future__ import annotations

from typing import Any

from rest_framework.throttling import SimpleRateThrottle

from ops.guessing import client_address
from scoring.api_auth import TableAccess
from scoring.permissions import device_digest


class TableLinkWriteThrottle(SimpleRateThrottle):
    """Writes (any method but GET, HEAD, OPTIONS) made with a table or seat key, counted per
    key (its digest: the key itself is never a cache key) and address. Installed for every API
    view (``DEFAULT_THROTTLE_CLASSES``); state in the default cache: with Redis down nothing is
    counted and nothing is refused (it fails open). ``timer`` is the clock (tests replace
    it)."""

    scope = "table_write"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        access = request.auth
        if not isinstance(access, TableAccess) or request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if access.seat is not None:
            key = device_digest("seat", access.seat.seat_key)
        else:
            key = device_digest("table", str(access.game_id))
        ident = f"{key}:{client_address(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
