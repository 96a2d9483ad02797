"""Counters for monitoring, kept in the Django cache (Redis) and shared by every process.

`chat:model_failed:<kind>` and `chat:stream_failed` count chat replies that did not come
(a streamed failure is an HTTP 200 whose `error` event only the browser sees, so this is
where monitoring sees it). Counting never fails a request: with Redis down it is skipped.
"""

from __future__ import annotations

from django.core.cache import cache

PREFIX = "metric:"


def metric_count(name: str, amount: int = 1) -> None:
    key = PREFIX + name
    try:
        cache.add(key, 0, timeout=None)
        cache.incr(key, amount)
    except Exception:  # noqa: BLE001 - the cache being down must not fail the reply
        pass


def metric_read(name: str) -> int:
    return int(cache.get(PREFIX + name) or 0)
