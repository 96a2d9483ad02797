"""A worker on a machine with no web process serves its own metrics
(WHIZI_WORKER_METRICS_PORT). Its own module: no other worker may take its tasks."""

import httpx
import pytest

from bench.stack import broker_purge, free_port
from tests.conftest import suite_worker_start

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_serves_its_own_metrics_on_its_port(django_db_blocker, tmp_path, wait_for):
    """For a machine with no web process: the worker's pool processes count into its own
    directory and its main process serves them (WHIZI_WORKER_METRICS_PORT)."""
    port = free_port()
    broker_purge()
    worker = suite_worker_start(django_db_blocker, PROMETHEUS_MULTIPROC_DIR=str(tmp_path),
                                WHIZI_WORKER_METRICS_PORT=str(port))  # it answered a ping to start
    try:
        def pings_counted() -> bool:
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
            except httpx.HTTPError:
                return False
            return 'whizi_worker_tasks_total{state="SUCCESS",task="whizi.ping"} 1.0' in text

        assert wait_for(pings_counted, timeout=20)
    finally:
        worker.stop()
        broker_purge()
