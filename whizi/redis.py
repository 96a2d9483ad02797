"""The one way Whizi opens a Redis client of its own (outside Django's cache and Celery).

Clients are kept per URL and timeouts, so each caller reuses its connection pool. The
timeouts are the caller's: a rate limit must answer within a request's budget, a test's
scripted model may block on purpose.
"""

from __future__ import annotations

import threading

import redis
from django.conf import settings

_clients: dict[tuple[str, float, float, bool], redis.Redis] = {}
_lock = threading.Lock()


def redis_client(*, url: str | None = None, connect_timeout: float = 0.5, timeout: float = 0.5,
                 decode: bool = False) -> redis.Redis:
    """A client for `url` (the cache's Redis when None), shared by every caller asking the same."""
    url = url or settings.REDIS_CACHE_URL
    key = (url, connect_timeout, timeout, decode)
    client = _clients.get(key)
    if client is None:
        with _lock:
            client = _clients.get(key) or redis.Redis.from_url(
                url, socket_connect_timeout=connect_timeout, socket_timeout=timeout,
                retry_on_timeout=False, decode_responses=decode,
            )
            _clients[key] = client
    return client
