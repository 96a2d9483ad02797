"""Celery tasks for memory: thin, ids in; the work is in memory.pipeline.

Safe to run twice: the pass row is claimed with a filtered UPDATE, so a duplicate
delivery finds it done (or running elsewhere) and returns. A retry never writes half
a result: the only write is the pipeline's single compare-and-swap UPDATE. A pass whose
message was lost (broker down at publish time, worker killed) is published again by the
sweep (memory.sweep), every minute under Celery beat.
"""

from __future__ import annotations

import logging
import random

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError

log = logging.getLogger(__name__)

# Waits before retry n (0-based): 2 s, 4 s, … capped, with jitter so passes that
# failed together (a provider outage) do not all come back in the same second.
RETRY_BASE_SECONDS = 2.0
RETRY_MAX_SECONDS = 60.0


def retry_countdown(retries: int) -> float:
    wait = min(RETRY_BASE_SECONDS * 2**retries, RETRY_MAX_SECONDS)
    return wait + random.uniform(0, wait / 4)


@shared_task(name="memory.run_pass", bind=True, acks_late=True, max_retries=5)
def run_memory_pass_task(self, pass_id: int) -> None:
    from memory.pipeline import PassRetry, pass_release, pass_run

    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    try:
        pass_run(pass_id=pass_id, redelivered=redelivered)
    except PassRetry as exc:
        # The pipeline bounds the attempts (memory.pipeline.MAX_ATTEMPTS) and has
        # already put the pass back in the queue.
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    except (SoftTimeLimitExceeded, DatabaseError) as exc:
        log.warning("memory pass %s interrupted (%s); retrying", pass_id, type(exc).__name__)
        try:
            pass_release(pass_id=pass_id, error=type(exc).__name__)
        except DatabaseError:
            # Still down: the pass is reclaimed once it has been running longer than
            # any task may (memory.pipeline._claim).
            pass
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc


@shared_task(name="memory.sweep_passes", acks_late=True)
def sweep_memory_passes_task() -> None:
    """Celery beat, every minute: publish again the passes the broker lost (memory.sweep)."""
    from memory.sweep import pass_sweep

    pass_sweep()
