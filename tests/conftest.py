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

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


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
        self.log_path = ARTIFACTS / "worker.log"

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
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
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


@pytest.fixture
def celery_worker(transactional_db, django_db_blocker):
    """A real worker process for one test, with the scripted memory model.

    One per test, started after the test database is ready and stopped before it is
    flushed: no pass from one test runs into the next, and tests that only check
    what was published find it still on the broker. Tests that use it must commit
    their data: mark them `@pytest.mark.django_db(transaction=True)`.
    """
    from django.conf import settings

    _purge_broker()
    env = dict(os.environ)
    env["DATABASE_URL"] = _database_url_for(settings.DATABASES["default"]["NAME"])
    env.pop("WHIZI_TEST_DATABASE_NAME", None)
    env["WHIZI_MEMORY_MODEL"] = "scripted/memory"
    worker = WorkerProcess(env)
    with django_db_blocker.unblock():
        worker.start()
    yield worker
    worker.stop()
    _purge_broker()


@pytest.fixture(scope="session", autouse=True)
def _memory_reader_connections_closed(django_db_setup):
    """Memory reader threads keep a connection (memory.reading): closed before the test
    database is dropped."""
    yield
    from memory.reading import memory_readers_close

    memory_readers_close()


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
