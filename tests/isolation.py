"""Loaded before Django (pytest -p tests.isolation, see pyproject.toml): where the suite's
PostgreSQL and Redis are, and a Redis server of its own for each pytest-xdist worker.

The suite's real services default to 127.0.0.1 (PostgreSQL 5432, Redis 6379). Under
pytest-xdist every worker process gets its own test database (pytest-django adds the
worker id to its name) and, started here, its own redis-server on a free port: tests
purge the broker's queue and share Celery workers, scripted models and rate-limit keys
through Redis, so two workers must never share one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
# A pass's retries come seconds apart in the suite, not minutes (the waits' shape is
# tested on its own; tests/reliability/test_timeouts.py checks the production figures).
os.environ.setdefault("WHIZI_MEMORY_RETRY_BASE_SECONDS", "0.5")
os.environ.setdefault("WHIZI_MEMORY_RETRY_MAX_SECONDS", "2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_redis() -> str:
    port = _free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    atexit.register(server.terminate)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the worker's redis-server did not start")


# Metrics in multiprocess mode, as under gunicorn: the workers this process starts count
# into the same directory, so a test reads what a real worker's pass counted
# (whizi.metrics). Set before anything imports prometheus_client.
_metrics_dir = tempfile.mkdtemp(prefix="whizi-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir
atexit.register(shutil.rmtree, _metrics_dir, True)

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_URL"] = _start_redis()
    os.environ.pop("REDIS_CACHE_URL", None)
