"""Per-owner and per-IP rate limits, counted in Redis (fixed one-minute windows).

Each limited endpoint says what happens when Redis cannot count: `fail_open=True`
lets the request through (chat and reading or clearing memory must not go down with
Redis), `fail_open=False` refuses it (for endpoints where unbounded use is worse than a
short outage).

Logins are allauth's to limit (ACCOUNT_RATE_LIMITS: failed logins per account and per
address, logins per address), the admin login's included (accounts.admin_login); those
counts live in the cache and fail open while Redis is down (whizi.cache).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from accounts.owner import owner_seen
from whizi.db import db_step
from whizi.degraded import degraded_note
from whizi.redis import redis_client
from whizi.views import error_response

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Limit:
    per_owner: int
    per_ip: int


def client_ip(request: HttpRequest) -> str:
    # Behind a proxy, the deployment sets REMOTE_ADDR correctly (e.g. uvicorn
    # --proxy-headers); a client-supplied X-Forwarded-For is never trusted here.
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def over_limit(*, scope: str, owner_key: str, ip: str, limit: Limit, fail_open: bool) -> bool:
    """Count this request; True when the owner or the IP is over its limit this window."""
    window = int(time.time() // WINDOW_SECONDS)
    keys = (f"whizi:rl:{scope}:o:{owner_key}:{window}", f"whizi:rl:{scope}:ip:{ip}:{window}")
    try:
        pipe = redis_client(connect_timeout=0.3, timeout=0.3).pipeline()
        for key in keys:
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS * 2)
        owner_count, _, ip_count, _ = pipe.execute()
    except redis.RedisError as exc:
        degraded_note("rate limits", f"counting {scope} (failing {'open' if fail_open else 'closed'})", exc)
        return not fail_open
    return owner_count > limit.per_owner or ip_count > limit.per_ip


def too_many_requests(request: HttpRequest) -> HttpResponse:
    """429 in the form the asker can show: JSON to the API and the page's fetch calls,
    the product's error page to a plain form post, a fragment to htmx."""
    response = error_response(request, status=429, title=_("Too many requests"),
                              message=_("You're going a little fast. Please wait a moment and try again."))
    response["Retry-After"] = str(WINDOW_SECONDS)
    return response


def _refusal(request: HttpRequest, name: str | None, fail_open: bool) -> HttpResponse | None:
    if not (settings.WHIZI_RATE_LIMITS_ENABLED and name):
        return None
    limit = Limit(*settings.WHIZI_RATE_LIMITS[name])
    # Counted before the view runs, so a refused request has written no row: a visitor
    # with no guest yet is counted by address alone.
    owner = owner_seen(request)
    ip = client_ip(request)
    owner_key = owner.key if owner is not None else f"anonymous:{ip}"
    if over_limit(scope=name, owner_key=owner_key, ip=ip, limit=limit,
                  fail_open=fail_open):
        return too_many_requests(request)
    return None


def rate_limited(scope: str | dict[str, str], *, fail_open: bool) -> Callable:
    """Decorate a view (sync or async): 429 when the requester's owner or IP is over the
    scope's limit. `scope` is one name, or a name per HTTP method (others not limited).
    """

    def scope_for(request: HttpRequest) -> str | None:
        return scope.get(request.method) if isinstance(scope, dict) else scope

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        if asyncio.iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
                refused = None
                if settings.WHIZI_RATE_LIMITS_ENABLED:
                    refused = await db_step(_refusal, request, scope_for(request), fail_open)
                return refused or await view(request, *args, **kwargs)

            return async_wrapper

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            return _refusal(request, scope_for(request), fail_open) or view(request, *args, **kwargs)

        return wrapper

    return decorator
