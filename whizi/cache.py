"""A Redis cache that degrades instead of failing: Redis is an accelerator here, never
the only way to serve a page. When Redis is down, reads miss and writes are dropped
(logged), so login, signup and chat keep working (allauth's login rate limit fails
open for the length of the outage); callers that must know whether
Redis answered (rate limits) talk to Redis themselves (accounts.ratelimit).
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from whizi.degraded import degraded_note


def _degraded(operation: str, exc: Exception) -> None:
    degraded_note("cache", f"cache {operation}", exc)


class ResilientRedisCache(RedisCache):
    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except RedisError as exc:
            # As if the key were absent and now stored: callers such as allauth's
            # rate-limit lock then proceed, so login keeps working without Redis.
            _degraded("add", exc)
            return True

    def get(self, key: str, default: Any = None, version: Any = None) -> Any:
        try:
            return super().get(key, default, version)
        except RedisError as exc:
            _degraded("get", exc)
            return default

    def set(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except RedisError as exc:
            _degraded("set", exc)

    def touch(self, key: str, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except RedisError as exc:
            _degraded("touch", exc)
            return False

    def delete(self, key: str, version: Any = None) -> bool:
        try:
            return super().delete(key, version)
        except RedisError as exc:
            _degraded("delete", exc)
            return False

    def get_many(self, keys: Any, version: Any = None) -> dict:
        try:
            return super().get_many(keys, version)
        except RedisError as exc:
            _degraded("get_many", exc)
            return {}

    def has_key(self, key: str, version: Any = None) -> bool:
        try:
            return super().has_key(key, version)
        except RedisError as exc:
            _degraded("has_key", exc)
            return False

    def incr(self, key: str, delta: int = 1, version: Any = None) -> int:
        try:
            return super().incr(key, delta, version)
        except RedisError as exc:
            # Treated like a missing key, which is what callers already handle.
            _degraded("incr", exc)
            raise ValueError(f"Key '{key}' not found (Redis unavailable)") from exc

    def set_many(self, data: dict, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list:
        try:
            return super().set_many(data, timeout, version)
        except RedisError as exc:
            _degraded("set_many", exc)
            return list(data)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        try:
            super().delete_many(keys, version)
        except RedisError as exc:
            _degraded("delete_many", exc)
