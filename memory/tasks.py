"""Celery tasks for memory: thin, ids in; the work is in memory.run and memory.sweep.

Safe to run twice: the pass row is claimed with a filtered UPDATE, so a duplicate
delivery finds it done (or running elsewhere) and returns. A retry never writes half
a result: the only write is the compare-and-swap save. A pass whose message was lost
(broker down at publish time, worker killed) is published again by the sweep, every
minute under Celery beat. Task names never change: messages already queued must run.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError

from memory.passes import RUN_PASS_TASK
from whizi.logs import log_context

log = logging.getLogger(__name__)


@shared_task(name=RUN_PASS_TASK, bind=True, acks_late=True, max_retries=8)
def run_memory_pass_task(self, pass_id: int) -> None:
    with log_context(pass_id=pass_id):  # every line of the pass names it
        _run_memory_pass(self, pass_id)


def _run_memory_pass(task, pass_id: int) -> None:
    from memory.run import PassRetry, pass_release, pass_run, retry_countdown

    redelivered = bool((task.request.delivery_info or {}).get("redelivered"))
    try:
        pass_run(pass_id=pass_id, redelivered=redelivered)
    except PassRetry as exc:
        # The pass bounds its attempts (memory.run.MAX_ATTEMPTS) and is already queued again.
        countdown = retry_countdown(task.request.retries, exc.retry_after)
        raise task.retry(exc=exc, countdown=countdown) from exc
    except (SoftTimeLimitExceeded, DatabaseError) as exc:
        log.warning("memory pass %s interrupted (%s); retrying", pass_id, type(exc).__name__)
        try:
            pass_release(pass_id=pass_id, error=type(exc).__name__)
        except DatabaseError:
            # Still down: the pass is reclaimed once it has been running longer than
            # any task may (memory.run._claim).
            pass
        raise task.retry(exc=exc, countdown=retry_countdown(task.request.retries)) from exc


@shared_task(name="memory.sweep_passes", acks_late=True)
def sweep_memory_passes_task() -> None:
    """Celery beat, every minute: publish again the passes the broker lost (memory.sweep)."""
    from memory.sweep import pass_sweep

    pass_sweep()
