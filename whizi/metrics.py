"""Counters for monitoring, kept in Redis (the Django cache's database) and shared by every
process: `chat:model_failed:<kind>`, `chat:stream_failed` (a streamed failure is an HTTP
200 whose `error` event only the browser sees, so this is where monitoring sees it), and
memory's `chat:memory_read_skipped:<reason>`.

Counts gather in the process and go to Redis once a second in one round trip, so a burst
of chats costs no Redis connection per count; with Redis down they are dropped, quietly.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

from whizi.degraded import degraded_note
from whizi.redis import redis_client

FLUSH_EVERY_SECONDS = 1.0
_lock = threading.Lock()
_pending: Counter[str] = Counter()
_flusher: threading.Thread | None = None


def metric_count(name: str, amount: int = 1) -> None:
    global _flusher
    with _lock:
        _pending[name] += amount
        if _flusher is None or not _flusher.is_alive():
            _flusher = threading.Thread(target=_flush_forever, name="whizi-metrics", daemon=True)
            _flusher.start()


def _flush_forever() -> None:
    while True:
        time.sleep(FLUSH_EVERY_SECONDS)
        metrics_flush()


def metrics_flush() -> None:
    """Send what this process counted to Redis now."""
    with _lock:
        batch = dict(_pending)
        _pending.clear()
    if not batch:
        return
    try:
        pipe = redis_client(url=settings.REDIS_CACHE_URL).pipeline(transaction=False)
        for name, amount in batch.items():
            pipe.incrby(cache.make_key(name), amount)  # the cache reads these as plain integers
        pipe.execute()
    except RedisError as exc:
        degraded_note("cache", "counting metrics", exc)


def metric_read(name: str) -> int:
    """The count across every process (this one's flushed first)."""
    metrics_flush()
    return int(cache.get(name) or 0)
