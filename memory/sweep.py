"""The pass sweep (Celery beat, every minute): publish again the passes the broker lost.

A pass is recorded in the same transaction as the message that made it due and is
published to the broker after the commit (memory.passes). The row is the record; the
broker message is only the nudge, and a nudge can be lost:

- publishing failed (Redis down at that moment, or the web process died between the
  commit and the publish): the pass sits `queued` and no message exists;
- a worker was killed mid-pass: the pass sits `running`, and its message comes back
  only after the broker's visibility timeout (an hour), or never if Redis lost it;
- a retry's delayed message was lost with the worker that held it.

Publishing again is always safe: the claim is a filtered UPDATE (memory.run), so
when the original message turns up as well, one run takes the pass and the other finds
it taken. Redeliveries are bounded by the pass's claim count: a stranded pass already
claimed MAX_CLAIMS times (something kills its worker every time) is recorded as failed
here instead of being published again, and the list stays as it was.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from memory.models import MemoryPass
from memory.passes import pass_publish
from memory.run import MAX_CLAIMS, pass_finish

log = logging.getLogger(__name__)

# A pass is published within milliseconds of its commit; one still queued and never
# started a minute later was not published (or its message was lost).
QUEUED_GRACE = timedelta(seconds=60)
# The same stranded pass is published again at most this often: while a long backlog
# drains, its original message is still on the way, and one extra copy is enough.
REPUBLISH_EVERY = timedelta(minutes=10)
# Passes published per sweep, oldest first; the rest wait for the next minute. Publishing
# 500 passes to a local Redis takes about 0.3 s, well inside the one-minute schedule.
BATCH = 500


@dataclass(frozen=True)
class SweepReport:
    published: list[int]
    failed: list[int]
    skipped: int = 0
    broker_error: str = ""


def _retry_grace() -> timedelta:
    """The latest a retry can be due after its claim: the run itself (at most the hard
    time limit), the longest backoff with its jitter, and the usual grace."""
    longest_wait = settings.WHIZI_MEMORY_RETRY_MAX_SECONDS * 1.25
    return timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + longest_wait) + QUEUED_GRACE


def _stranded(*, now: datetime) -> Q:
    """Passes no worker is running and no message is known to be coming for."""
    never_started = Q(status=MemoryPass.Status.QUEUED, started_at__isnull=True,
                      created_at__lt=now - QUEUED_GRACE)
    retry_overdue = Q(status=MemoryPass.Status.QUEUED, started_at__lt=now - _retry_grace())
    # No task runs past the hard time limit (the worker kills it), so a pass running
    # longer lost its worker; the claim takes such a pass back (memory.run._claim).
    worker_lost = Q(status=MemoryPass.Status.RUNNING,
                    started_at__lt=now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT))
    return never_started | retry_overdue | worker_lost


def _republish_key(memory_pass: dict) -> str:
    # Keyed on the claim count too: a pass that ran again and got stuck again is new news.
    created = memory_pass["created_at"].timestamp()
    return f"memory:sweep:{memory_pass['pk']}:{created:.6f}:{memory_pass['attempts']}"


def pass_sweep() -> SweepReport:
    """Publish again every stranded pass, and fail the ones that keep dying.

    1. Stranded passes already claimed MAX_CLAIMS times are recorded as failed
       ("attempts") through the one finisher (memory.run.pass_finish), each with a
       filtered UPDATE, so a pass a worker took meanwhile is left alone.
    2. The other stranded passes, oldest first (at most BATCH), are published again,
       each at most once per REPUBLISH_EVERY.
    3. If the broker refuses a publish, the sweep stops there: the passes stay as they
       are and the next sweep tries again.
    """
    now = timezone.now()
    stranded = MemoryPass.objects.filter(_stranded(now=now))
    # Through the one finisher, each only while still stranded and spent: a pass a worker
    # took meanwhile is left alone.
    poison = _stranded(now=now) & Q(attempts__gte=MAX_CLAIMS)
    failed = [memory_pass.pk for memory_pass in stranded.filter(attempts__gte=MAX_CLAIMS)[:BATCH]
              if pass_finish(memory_pass, outcome=MemoryPass.Outcome.FAILED, error="attempts", still=poison)]
    if failed:
        log.warning("memory sweep: %d pass(es) failed after %d claims", len(failed), MAX_CLAIMS)

    rows = stranded.filter(attempts__lt=MAX_CLAIMS).order_by("created_at").values(
        "pk", "created_at", "attempts"
    )[:BATCH]
    published: list[int] = []
    skipped = 0
    for row in rows:
        key = _republish_key(row)
        if cache.get(key):
            skipped += 1
            continue
        try:
            pass_publish(row["pk"])
        except Exception as exc:  # whatever the broker client raised: it is down
            log.warning("memory sweep stopped, broker unavailable (%s); %d published",
                        type(exc).__name__, len(published))
            return SweepReport(published=published, failed=failed, skipped=skipped,
                               broker_error=type(exc).__name__)
        cache.set(key, 1, timeout=int(REPUBLISH_EVERY.total_seconds()))
        published.append(row["pk"])
    if published:
        log.info("memory sweep: published %d stranded pass(es) again", len(published))
    return SweepReport(published=published, failed=failed, skipped=skipped)
