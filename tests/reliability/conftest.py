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

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from bench.stack import Process, broker_purge, children_of
from tests.conftest import suite_worker_start
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
        self.started: list[Process] = []

    def start(self, **overrides: str) -> Process:
        """A worker like the suite's, with these settings (environment variables) changed."""
        worker = suite_worker_start(self._blocker, **overrides)
        self.started.append(worker)
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


@pytest.fixture
def workers(transactional_db, django_db_blocker) -> Iterator[Workers]:
    # Messages a killed worker left unacknowledged are dropped too, so a later test's
    # worker with a short visibility timeout does not take them back.
    broker_purge(unacknowledged=True)
    pool = Workers(django_db_blocker)
    yield pool
    pool.stop_all()
    broker_purge(unacknowledged=True)


def kill_pool_children(worker: Process) -> None:
    """SIGKILL the processes running tasks; the worker's main process stays up."""
    children = children_of(worker.pid)
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
