"""A Redis cache that degrades instead of failing: Redis is an accelerator here, never
the only way to serve a page. When Redis is down, reads miss and writes are dropped
(logged), so login, signup and chat keep working (allauth's login rate limit fails
open for the length of the outage); callers that must know whether
Redis answered (rate limits) talk to Redis themselves (accounts.ratelimit).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from whizi.degraded import degraded_note


def _degraded(operation: str, exc: Exception) -> None:
    degraded_note("cache", f"cache {operation}", exc)


def _on_redis_error(fallback: Callable[..., Any]) -> Callable:
    """The cache method, answering like `fallback` (given the same arguments) when Redis
    cannot be reached."""

    def decorator(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(self: RedisCache, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except RedisError as exc:
                _degraded(method.__name__, exc)
                return fallback(*args, **kwargs)

        return wrapper

    return decorator


def _missing_key(key: str, *args: Any, **kwargs: Any) -> int:
    # incr of a missing key raises ValueError, which callers already handle.
    raise ValueError(f"Key '{key}' not found (Redis unavailable)")


class ResilientRedisCache(RedisCache):
    # As if the key were absent and now stored: callers such as allauth's rate-limit lock
    # then proceed, so login keeps working without Redis.
    add = _on_redis_error(lambda *args, **kwargs: True)(RedisCache.add)
    get = _on_redis_error(lambda key, default=None, version=None: default)(RedisCache.get)
    set = _on_redis_error(lambda *args, **kwargs: None)(RedisCache.set)
    touch = _on_redis_error(lambda *args, **kwargs: False)(RedisCache.touch)
    delete = _on_redis_error(lambda *args, **kwargs: False)(RedisCache.delete)
    get_many = _on_redis_error(lambda *args, **kwargs: {})(RedisCache.get_many)
    has_key = _on_redis_error(lambda *args, **kwargs: False)(RedisCache.has_key)
    incr = _on_redis_error(_missing_key)(RedisCache.incr)
    set_many = _on_redis_error(lambda data, *args, **kwargs: list(data))(RedisCache.set_many)
    delete_many = _on_redis_error(lambda *args, **kwargs: None)(RedisCache.delete_many)
