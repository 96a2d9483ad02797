"""The probes a load balancer and an orchestrator ask (whizi.probes, docs/DEPLOY.md →
Probes): /healthz says the process answers; /readyz says PostgreSQL and Redis answer and
every migration is applied, or names what does not with a 503. Neither makes a session,
a guest or any other row, nor sets a cookie.

Persona: the balancer, probing a backend by its address over plain HTTP, with no cookie.
Services are really stopped or unreachable: a redis-server of the test's own, stopped; a
PostgreSQL port nothing listens on; a migration's record really removed.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from django.apps import apps
from django.test import Client

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from tests.conftest import ARTIFACTS, server_env
from tests.db_faults import other_session
from whizi import probes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_readiness() -> Iterator[None]:
    probes.readiness_forget()
    yield
    probes.readiness_forget()


def _rows() -> dict[str, int]:
    return {model._meta.label: model._default_manager.count() for model in apps.get_models()}


def _probe(path: str, **extra):
    before = _rows()
    response = Client().get(path, **extra)
    assert _rows() == before, f"{path} wrote a row"
    assert not response.cookies and "Set-Cookie" not in response
    assert response["Cache-Control"] == "no-store"
    return response


def test_healthz_answers_without_a_session_a_guest_or_a_cookie():
    response = _probe("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_is_200_when_postgresql_redis_and_the_migrations_are_in_order():
    response = _probe("/readyz")

    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ready", "failed": [],
                               "checks": {"database": "ok", "migrations": "ok", "redis": "ok"}}


def test_with_redis_stopped_readyz_is_503_naming_it_and_healthz_is_still_200(private_redis, settings):
    settings.CELERY_BROKER_URL = private_redis.url
    settings.REDIS_CACHE_URL = private_redis.url.rsplit("/", 1)[0] + "/1"
    assert _probe("/readyz").status_code == 200
    private_redis.stop()
    probes.readiness_forget()

    response = _probe("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["redis"]
    assert body["checks"]["redis"] == ("broker unavailable (ConnectionError); "
                                       "cache unavailable (ConnectionError)")
    assert _probe("/healthz").status_code == 200


def test_with_a_migration_not_applied_readyz_is_503_naming_it():
    with other_session(autocommit=True) as other:
        app, name = other.execute("SELECT app, name FROM django_migrations WHERE app = 'memory' "
                                  "ORDER BY name DESC LIMIT 1").fetchone()
        other.execute("DELETE FROM django_migrations WHERE app = %s AND name = %s", [app, name])
        try:
            response = _probe("/readyz")
        finally:
            other.execute("INSERT INTO django_migrations (app, name, applied) VALUES (%s, %s, now())",
                          [app, name])

    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["migrations"]
    assert body["checks"]["migrations"] == f"1 not applied: {app}.{name}"


def test_a_balancer_probing_by_address_over_plain_http_gets_its_answer(settings):
    # As in production: HTTPS enforced and only the public name allowed. A page asked this
    # way is refused, a probe is answered.
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["whizi.example"]

    assert Client().get("/", HTTP_HOST="whizi.example").status_code == 301
    assert Client().get("/", HTTP_HOST="10.0.0.5:8000").status_code == 400
    assert _probe("/healthz", HTTP_HOST="10.0.0.5:8000").status_code == 200
    assert _probe("/readyz", HTTP_HOST="10.0.0.5:8000").status_code == 200


def test_a_flood_of_readiness_probes_is_one_check_a_second(private_redis, settings, monkeypatch):
    monkeypatch.setattr(probes, "READY_FOR_SECONDS", 60.0)
    settings.CELERY_BROKER_URL = settings.REDIS_CACHE_URL = private_redis.url
    assert _probe("/readyz").status_code == 200
    private_redis.stop()

    assert _probe("/readyz").status_code == 200  # the check a moment ago still stands

    probes.readiness_forget()
    assert _probe("/readyz").status_code == 503


def test_a_probe_only_answers_get():
    response = Client().post("/readyz")

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.slow
def test_a_server_with_postgresql_and_redis_unreachable_is_alive_and_not_ready(private_redis):
    """The real server process, started on a PostgreSQL port nothing listens on and a Redis
    that is stopped, as curl would see it."""
    private_redis.stop()
    port = free_port()
    env = server_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/whizi",
                     REDIS_URL=private_redis.url)
    server = uvicorn_start(env=env, log=ARTIFACTS / "uvicorn-probes.log", port=port)
    base_url = f"http://127.0.0.1:{port}"
    try:
        uvicorn_wait_ready(server, base_url, timeout=60)

        health = httpx.get(f"{base_url}/healthz", timeout=10)
        ready = httpx.get(f"{base_url}/readyz", timeout=10)
    finally:
        server.stop()

    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert ready.status_code == 503
    body = ready.json()
    assert body["failed"] == ["database", "migrations", "redis"]
    assert body["checks"]["database"] == "unavailable (OperationalError)"
    assert body["checks"]["migrations"] == "unknown"
    assert "set-cookie" not in health.headers and "set-cookie" not in ready.headers
