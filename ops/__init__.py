"""Operations: the background work's one way out (``ops.background``), the tick that re-sends
what waited too long, heartbeats and the health check. Below ``scoring`` and ``tournaments``:
they register their waiting work and timed jobs here; this app imports neither."""
