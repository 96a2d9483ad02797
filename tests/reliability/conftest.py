"""Fault tests: each one stops or breaks the real thing (a Redis of the test's own, a worker
process killed with SIGKILL, a PostgreSQL error raised by the server) and checks that no
fact is lost, none comes back after a clear, and the user still gets an answer.

Personas: `user` is a signed-in account with a saved list; the worker is a real
`celery worker` process with the scripted memory model (its queue is shared through Redis).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from tests.conftest import WorkerProcess, _database_url_for, _purge_broker
from whizi.llm.scripted import Script


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user(email="sam@example.com", username="sam",
                                                password="pw-12345678")


@pytest.fixture
def script() -> Script:
    return Script("memory").reset()


class Workers:
    """Start real worker processes with chosen settings; all are stopped after the test."""

    def __init__(self, django_db_blocker) -> None:
        self._blocker = django_db_blocker
        self.started: list[WorkerProcess] = []

    def env(self, **overrides: str) -> dict[str, str]:
        from django.conf import settings

        env = dict(os.environ)
        env["DATABASE_URL"] = _database_url_for(settings.DATABASES["default"]["NAME"])
        env.pop("WHIZI_TEST_DATABASE_NAME", None)
        env["WHIZI_MEMORY_MODEL"] = "scripted/memory"
        env.update(overrides)
        return env

    def start(self, **overrides: str) -> WorkerProcess:
        worker = WorkerProcess(self.env(**overrides))
        with self._blocker.unblock():
            worker.start()
        self.started.append(worker)
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


def _forget_unacknowledged() -> None:
    """Drop messages a killed worker left unacknowledged, so a later test's worker with a
    short visibility timeout does not take them back."""
    from whizi.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        channel.client.delete(channel.unacked_key, channel.unacked_index_key)


@pytest.fixture
def workers(transactional_db, django_db_blocker) -> Iterator[Workers]:
    _purge_broker()
    _forget_unacknowledged()
    pool = Workers(django_db_blocker)
    yield pool
    pool.stop_all()
    _purge_broker()
    _forget_unacknowledged()


def pool_children(worker: WorkerProcess) -> list[int]:
    """The worker's pool processes (the ones that run tasks), not its main process."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == worker.proc.pid:
            children.append(int(stat.parent.name))
    return children


def kill_pool_children(worker: WorkerProcess) -> None:
    """SIGKILL the processes running tasks; the worker's main process stays up."""
    children = pool_children(worker)
    assert children, "the worker has no pool processes"
    for pid in children:
        os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def broker_at(url: str) -> Iterator[None]:
    """This process publishes tasks to the broker at `url` (as a web process configured
    with that REDIS_URL would)."""
    from whizi.celery import app

    def reset_pools() -> None:
        # The app keeps its connection and producer pools once made; drop them so the
        # next publish connects to the broker now configured.
        app._pool = None
        app.amqp._producer_pool = None

    old = app.conf.broker_url
    reset_pools()
    app.conf.broker_url = url
    try:
        with override_settings(CELERY_BROKER_URL=url):
            yield
    finally:
        reset_pools()
        app.conf.broker_url = old


def cache_settings(url: str) -> dict:
    return {"default": {
        "BACKEND": "whizi.cache.ResilientRedisCache", "LOCATION": url, "KEY_PREFIX": "whizi",
        "OPTIONS": {"socket_connect_timeout": 0.3, "socket_timeout": 0.3},
    }}


def redis_db(url: str, db: int) -> str:
    return url.rsplit("/", 1)[0] + f"/{db}"
