"""Test set-up: the real PostgreSQL, Redis and a real Celery worker process.

Personas used across the suite:
- guest: a visitor with no account; may see and clear only their own guest memory.
- user: a signed-in account; may see and clear only their own memory.
- other user: another account; must never see the user's data.
- support staff: view-only admin access; can clear an owner's memory, never edit facts.
"""

import os
import subprocess
from pathlib import Path

import pytest

# The suite launches its servers with the benchmarks' own launcher (pytest runs from the
# repository root, where bench/ is importable), so both start them the same way.
from bench.stack import (
    Process,
    StackError,
    broker_purge,
    env_on_database,
    free_port,
    wait_until,
    worker_start,
    worker_wait_ping,
)

pytest_plugins = ["tests.fake_provider.fixtures"]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


# A test that uses one of these fixtures must carry the marker, so `make test-fast`
# (-m "not worker and not browser and not slow") never starts a worker or a browser.
_FIXTURE_MARKS = {"celery_worker": "worker", "workers": "worker", "browser": "browser",
                  "asgi_server": "browser"}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        for fixture, mark in _FIXTURE_MARKS.items():
            if fixture in getattr(item, "fixturenames", ()) and item.get_closest_marker(mark) is None:
                raise pytest.UsageError(f"{item.nodeid} uses the {fixture} fixture: mark it {mark}")


def server_env(**overrides: str) -> dict[str, str]:
    """The environment of a server process on this test run's database."""
    from django.conf import settings

    return env_on_database(settings.DATABASES["default"]["NAME"], **overrides)


def suite_worker_start(django_db_blocker, *, pool: str = "prefork", concurrency: int = 2,
                       **overrides: str) -> Process:
    """A real `celery worker` on the real broker and the test database, with the scripted
    memory model, ready once a ping made the round trip. It stops cold (SIGQUIT), and
    each pytest-xdist worker appends to a log of its own."""
    log = ARTIFACTS / f"worker-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"
    worker = worker_start(env=server_env(**{"WHIZI_MEMORY_MODEL": "scripted/memory", **overrides}),
                          log=log, pool=pool, concurrency=concurrency, cold_stop=True)
    with django_db_blocker.unblock():
        worker_wait_ping(worker)
    return worker


@pytest.fixture(scope="module")
def _module_worker(django_db_setup, django_db_blocker):
    """One real worker process per test module, on the test database, with the scripted
    memory model: starting one costs seconds, so a module's tests share it."""
    broker_purge()
    worker = suite_worker_start(django_db_blocker)
    yield worker
    worker.stop()
    broker_purge()


@pytest.fixture
def celery_worker(transactional_db, _module_worker):
    """A real worker process for the test (shared by its module), with the scripted memory
    model. The broker's queue is empty when the test starts. A pass left over from an
    earlier test finds its row flushed and does nothing. Tests that use it must commit
    their data: mark them `@pytest.mark.django_db(transaction=True)`.
    """
    broker_purge()
    yield _module_worker
    broker_purge()


@pytest.fixture(scope="session", autouse=True)
def _test_database_connections_closed(django_db_setup, django_db_blocker):
    """Every connection to the test database is closed before it is dropped: the memory
    reader threads' (memory.reading), this process's pool, and any left by a server."""
    yield
    from memory.reading import memory_readers_close

    memory_readers_close()
    with django_db_blocker.unblock():
        _database_leftover_sessions_end()


def _database_leftover_sessions_end() -> None:
    """Close this process's connection pool and end any other session still on the test
    database (a server's, a thread's); those are written to test-artifacts."""
    from django.db import connection, connections

    if connection.vendor != "postgresql":
        return
    for each in connections.all(initialized_only=True):
        if getattr(each, "pool", None) is not None:
            each.close_pool()  # this process's own pooled connections
    connections.close_all()  # and its own unpooled ones: what is left is someone else's
    name = connection.settings_dict["NAME"]
    with connection._nodb_cursor() as cursor:  # on the "postgres" database, outside the pool
        # Never this cursor's own session (Django falls back to the test database itself
        # when the "postgres" one cannot be reached).
        cursor.execute("SELECT pid, application_name, state, left(query, 200) FROM pg_stat_activity"
                       " WHERE datname = %s AND pid <> pg_backend_pid()", [name])
        leftovers = cursor.fetchall()
        for pid, *_ in leftovers:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    if leftovers:
        ARTIFACTS.mkdir(exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(ARTIFACTS / f"leftover-sessions-{worker}.txt", "a") as log:
            log.writelines(f"{row}\n" for row in leftovers)


@pytest.fixture
def wait_for():
    """Poll a condition that a background process brings about, up to a bound."""

    def _wait_for(condition, timeout: float = 30, interval: float = 0.1):
        try:
            return wait_until(condition, timeout=timeout, what="condition not met", interval=interval)
        except StackError as exc:
            raise AssertionError(str(exc)) from None

    return _wait_for


class PrivateRedis:
    """A redis-server of the test's own, on its own port, that a test may stop."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        wait_until(answers, timeout=10, what="the private redis-server did not start", interval=0.05)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    server.start()
    yield server
    server.stop()


def _database_quiet_wait(timeout: float = 20) -> None:
    """Wait until no other session on the test database is inside a statement or a
    transaction: a server or worker still saving a reply (the browser already shows its
    text) would otherwise deadlock with the flush's TRUNCATE."""
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                           " AND pid <> pg_backend_pid() AND state IS NOT NULL AND state <> 'idle'")
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)


@pytest.fixture(autouse=True)
def _database_quiet_before_flush(request):
    """A test on committed data (servers, workers, browsers) ends with the database flushed;
    this fixture's teardown runs first (pytest-django's own set-up comes before it)."""
    yield
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server", "celery_worker"))
    if transactional:
        _database_quiet_wait()


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in English: a language a request activated stays on its thread."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def _rate_limits_off_unless_asked(settings):
    """Every test shares 127.0.0.1; rate-limit tests turn limits on with their own Redis."""
    settings.WHIZI_RATE_LIMITS_ENABLED = False


def make_user(name: str, email: str | None = None):
    """A signed-up account (persona: user / other user)."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(name, email or f"{name}@example.com", "pw-123456")


@pytest.fixture
def user(db):
    return make_user("mai")


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


def guest_start(client):
    """Give this browser its guest, as its first kept request (a message, a saved
    preference) would; reading pages alone never makes one (tests/accounts/test_owner.py)."""
    from django.conf import settings

    from accounts.models import Guest
    from accounts.owner import GUEST_SESSION_KEY, Owner

    guest = Guest.objects.create()
    session = client.session
    session[GUEST_SESSION_KEY] = str(guest.pk)
    session.save()
    # Saving may start a new session (after a logout the cookie is empty): point the cookie at it.
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    return Owner(guest_id=guest.pk)
