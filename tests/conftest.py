"""Test set-up: the real PostgreSQL, Redis and a real Celery worker process.

Personas used across the suite:
- guest: a visitor with no account; may see and clear only their own guest memory.
- user: a signed-in account; may see and clear only their own memory.
- other user: another account; must never see the user's data.
- support staff: view-only admin access; can clear an owner's memory, never edit facts.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

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


def _database_url_for(name: str) -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{name}"


class WorkerProcess:
    """A real `celery worker` subprocess on the real broker and the test database."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.log_path = ARTIFACTS / f"worker-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"

    def start(self) -> None:
        from django.core.cache import cache

        ARTIFACTS.mkdir(exist_ok=True)
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "whizi", "worker", "--pool=prefork",
             "--concurrency=2", "--without-gossip", "--without-mingle", "--loglevel=INFO"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        # Ready when a ping task has made the full round trip.
        from whizi.celery import ping

        token = uuid.uuid4().hex
        ping.delay(token)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if cache.get(f"ping:{token}") == "pong":
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"Celery worker did not start; see {self.log_path}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Kill the whole worker (main process and pool children)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        # A cold shutdown (SIGQUIT): a test's worker has nothing to finish, and a warm one
        # waits for its pool, which a pass blocked on a scripted gate can hold for a minute.
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGQUIT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def _purge_broker() -> None:
    from whizi.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge("celery")


@pytest.fixture(scope="module")
def _module_worker(django_db_setup, django_db_blocker):
    """One real worker process per test module, on the test database, with the scripted
    memory model: starting one costs seconds, so a module's tests share it."""
    from django.conf import settings

    env = dict(os.environ)
    env["DATABASE_URL"] = _database_url_for(settings.DATABASES["default"]["NAME"])
    env.pop("WHIZI_TEST_DATABASE_NAME", None)
    env["WHIZI_MEMORY_MODEL"] = "scripted/memory"
    _purge_broker()
    worker = WorkerProcess(env)
    with django_db_blocker.unblock():
        worker.start()
    yield worker
    worker.stop()
    _purge_broker()


@pytest.fixture
def celery_worker(transactional_db, _module_worker):
    """A real worker process for the test (shared by its module), with the scripted memory
    model. The broker's queue is empty when the test starts. A pass left over from an
    earlier test finds its row flushed and does nothing. Tests that use it must commit
    their data: mark them `@pytest.mark.django_db(transaction=True)`.
    """
    _purge_broker()
    yield _module_worker
    _purge_broker()


@pytest.fixture
def wait_for():
    """Poll a condition that a background process brings about, up to a bound."""

    def _wait_for(condition, timeout: float = 30, interval: float = 0.1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(interval)
        raise AssertionError(f"condition not met within {timeout}s")

    return _wait_for


class PrivateRedis:
    """A redis-server of the test's own, on its own port, that a test may stop."""

    def __init__(self) -> None:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("private redis-server did not start")

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
