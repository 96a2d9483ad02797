"""What a load balancer, an orchestrator and Prometheus ask (docs/DEPLOY.md → Probes,
Metrics), answered by whizi.middleware.ProbeMiddleware before any other middleware.

- /healthz: the process answers. Nothing else is touched.
- /readyz: PostgreSQL answers, every migration is applied, Redis (broker and cache)
  answers; 503 with the name of what failed otherwise.
- /metrics: Prometheus's text format, only to a scraper with WHIZI_METRICS_TOKEN or from
  an address in WHIZI_METRICS_ALLOW; with neither set it is not there at all (404).
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.db.utils import load_backend
from django.http import HttpRequest, HttpResponse, JsonResponse

from whizi.http import already_logged, json_error
from whizi.metrics import CONTENT_TYPE_LATEST, metrics_exposition
from whizi.redis import redis_client

log = logging.getLogger(__name__)

PROBE_PATHS = frozenset(["/healthz", "/readyz", "/metrics"])
# However often /readyz is asked (it needs no login), each process checks at most once a
# second, one check at a time: a flood of probes cannot become a flood of connections.
READY_FOR_SECONDS = 1.0
# A service that does not answer costs a check at most this long (balancers wait 2–5 s).
DATABASE_TIMEOUT_SECONDS = 2
REDIS_TIMEOUT_SECONDS = 0.5

_ready_lock = threading.Lock()
_ready_last: tuple[float, dict[str, Any]] | None = None


def _unavailable(exc: BaseException) -> str:
    # The error's class only: a driver's message can carry a host name or a password hint.
    return f"unavailable ({type(exc).__name__})"


def _probe_database() -> Any:
    """A connection of the probe's own, outside the request pool: the answer is about
    PostgreSQL, not about how busy the pool is, and a server that does not answer costs
    DATABASE_TIMEOUT_SECONDS at most."""
    base = connections[DEFAULT_DB_ALIAS].settings_dict
    options = {key: value for key, value in base.get("OPTIONS", {}).items() if key != "pool"}
    if base["ENGINE"].endswith("postgresql"):
        limit = f"-c statement_timeout={DATABASE_TIMEOUT_SECONDS * 1000}"
        options["connect_timeout"] = DATABASE_TIMEOUT_SECONDS
        options["options"] = f"{options['options']} {limit}" if options.get("options") else limit
    own = {**base, "OPTIONS": options, "CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": False}
    return load_backend(base["ENGINE"]).DatabaseWrapper(own, DEFAULT_DB_ALIAS)


@functools.cache
def _migrations_expected() -> frozenset[tuple[str, str]]:
    """The latest migration of every app, as this release's files have them (read once)."""
    return frozenset(MigrationLoader(None, ignore_no_migrations=True).graph.leaf_nodes())


def _database_checks() -> dict[str, str]:
    database = _probe_database()
    try:
        try:
            with database.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as exc:  # noqa: BLE001 - whatever the driver raised, it did not answer
            return {"database": _unavailable(exc), "migrations": "unknown"}
        applied = set(MigrationRecorder(database).applied_migrations())
        missing = sorted(_migrations_expected() - applied)
        if not missing:
            return {"database": "ok", "migrations": "ok"}
        names = ", ".join(f"{app}.{name}" for app, name in missing[:5])
        return {"database": "ok", "migrations": f"{len(missing)} not applied: {names}"}
    except Exception as exc:  # noqa: BLE001 - it answered SELECT 1, then failed
        return {"database": _unavailable(exc), "migrations": "unknown"}
    finally:
        database.close()


def _redis_check() -> str:
    failed = []
    for role, url in (("broker", settings.CELERY_BROKER_URL), ("cache", settings.REDIS_CACHE_URL)):
        try:
            redis_client(url=url, connect_timeout=REDIS_TIMEOUT_SECONDS, timeout=REDIS_TIMEOUT_SECONDS).ping()
        except Exception as exc:  # noqa: BLE001 - a RedisError, or a URL it cannot use
            failed.append(f"{role} {_unavailable(exc)}")
    return "; ".join(failed) or "ok"


def readiness() -> dict[str, Any]:
    """Check now: {"status": "ready" | "not ready", "checks": {name: "ok" | why}, "failed": [names]}."""
    checks = {**_database_checks(), "redis": _redis_check()}
    failed = [name for name, result in checks.items() if result != "ok"]
    return {"status": "not ready" if failed else "ready", "checks": checks, "failed": failed}


def readiness_shared() -> dict[str, Any]:
    """readiness(), at most once a second per process; concurrent probes share one check."""
    global _ready_last
    with _ready_lock:
        last = _ready_last
        if last is not None and time.monotonic() - last[0] < READY_FOR_SECONDS:
            return last[1]
        result = readiness()
        if last is None or last[1]["failed"] != result["failed"]:
            log.log(logging.WARNING if result["failed"] else logging.INFO, "readiness: %s%s",
                    result["status"], f" ({', '.join(result['failed'])})" if result["failed"] else "")
        _ready_last = (time.monotonic(), result)
        return result


def readiness_forget() -> None:
    """The next probe checks afresh (a test that just stopped a service)."""
    global _ready_last
    with _ready_lock:
        _ready_last = None


def metrics_access(request: HttpRequest) -> int:
    """200 for an allowed scraper, 403 for anyone else, 404 when metrics are not set up."""
    token, allow = settings.WHIZI_METRICS_TOKEN, settings.WHIZI_METRICS_ALLOW
    if not token and not allow:
        return 404
    if token and not hmac.compare_digest(request.headers.get("Authorization", "").encode(),
                                         f"Bearer {token}".encode()):
        return 403
    if allow and not _address_allowed(request.META.get("REMOTE_ADDR", ""), tuple(allow)):
        return 403
    return 200


@functools.lru_cache(maxsize=4)
def _networks(allow: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in allow)


def _address_allowed(address: str, allow: tuple[str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(allow))


def _answer(body: dict[str, Any] | bytes, *, status: int = 200, content_type: str = "") -> HttpResponse:
    if isinstance(body, dict):
        response: HttpResponse = JsonResponse(body, status=status)
    else:
        response = HttpResponse(body, status=status, content_type=content_type)
    response["Cache-Control"] = "no-store"
    response["Content-Length"] = str(len(response.content))  # CommonMiddleware, which would, is skipped
    return response


def probe_answer(request: HttpRequest) -> HttpResponse | None:
    """The answer to a probe path, or None to let the request through (metrics not set up:
    the product's own 404). Operators read these, so they are not translated."""
    path = request.path_info
    access = metrics_access(request) if path == "/metrics" else 200
    if access == 404:
        return None
    if request.method not in ("GET", "HEAD"):
        return json_error(405, "Method not allowed", "Use GET.", headers={"Allow": "GET, HEAD"})
    if access == 403:
        return json_error(403, "Forbidden", "Not allowed to read the metrics.")
    if path == "/healthz":
        return _answer({"status": "ok"})
    if path == "/readyz":
        result = readiness_shared()
        # Not ready is the answer, not a server error: said once, when it changes.
        return already_logged(_answer(result, status=503 if result["failed"] else 200))
    return _answer(metrics_exposition(), content_type=CONTENT_TYPE_LATEST)
