"""The memory pass as the Celery task runs it: claim, read, compute, save, record.

1. Claim the MemoryPass row with a filtered UPDATE (a duplicate delivery finds it taken).
2. Read the owner's list and the turns newer than its last clear (memory.store,
   memory.sources), then memory.compute.pass_compute() — holding no transaction or
   lock while the model answers.
3. Save with a compare-and-swap on the list's version (memory.store.memory_save).
4. Record the outcome on the pass row: metrics only, never fact text.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from accounts.owner import Owner
from memory.compute import Meter, Outcome, PassResult, pass_compute
from memory.models import MemoryPass
from memory.sources import Turn, pass_source, pass_turns
from memory.store import MemoryState, memory_save_changes, memory_state_get_or_create, memory_state_reload
from whizi.metrics import (
    metric_memory_pass,
    metric_memory_pass_retry,
    metric_memory_pass_wait,
    metric_model_usage,
)

log = logging.getLogger(__name__)

# A pass is tried at most this many times for retryable failures (timeouts, rate limits,
# provider errors, an empty answer or a refusal); each retry waits longer
# (retry_countdown). Beyond that the pass is recorded as failed and the list stays.
MAX_ATTEMPTS = 6
# A pass may be claimed (taken by a worker) at most this many times: its retries, plus
# one delivery after a worker died holding it. A pass claimed more often than this is a
# poison pass (something kills its worker every time): the next claim, or the sweep
# (memory.sweep), records it as failed and the list stays as it was.
MAX_CLAIMS = MAX_ATTEMPTS + 1
# How many times a pass re-runs on a fresher list after losing a compare-and-swap to a
# concurrent pass, before it gives up (discarded). Each round is one more model call.
MAX_CONFLICT_ROUNDS = 3


def retry_countdown(retries: int, retry_after: float | None = None) -> float:
    """The wait before the next try: the backoff (WHIZI_MEMORY_RETRY_BASE_SECONDS doubled
    each time, up to WHIZI_MEMORY_RETRY_MAX_SECONDS, with jitter so passes that failed
    together do not all come back in the same second), or longer when the provider said so."""
    longest = settings.WHIZI_MEMORY_RETRY_MAX_SECONDS
    wait = min(settings.WHIZI_MEMORY_RETRY_BASE_SECONDS * 2**retries, longest)
    wait += random.uniform(0, wait / 4)
    return max(wait, min(retry_after or 0.0, longest))


class PassRetry(Exception):
    """A retryable failure: the pass is queued again and the task retries it."""

    def __init__(self, error: str, *, retry_after: float | None = None) -> None:
        super().__init__(error)
        self.retry_after = retry_after


@dataclass(frozen=True)
class PassReport:
    """What pass_run() did, for the task log and for measurements."""

    pass_id: int
    outcome: str
    seconds: float
    model_seconds: float
    error: str = ""


def _current_owner(pass_id: int) -> Owner | None:
    """Who the pass belongs to now (a guest's passes move to the account on signup)."""
    values = MemoryPass.objects.filter(pk=pass_id).values("user_id", "guest_id").first()
    return Owner(**values) if values else None


def _claim(pass_id: int, *, redelivered: bool) -> MemoryPass | None:
    """Take the pass for this run: a queued one, or a running one whose worker is gone.

    A filtered UPDATE decides, so when a task is delivered twice only one run claims
    it. A running pass is reclaimed when its message was redelivered (the worker
    died mid-pass) or when it started longer ago than any task may run.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(status=MemoryPass.Status.QUEUED) | Q(
        status=MemoryPass.Status.RUNNING, started_at__lt=stale
    )
    if redelivered:
        claimable |= Q(status=MemoryPass.Status.RUNNING)
    claimed = MemoryPass.objects.filter(claimable, pk=pass_id).update(
        status=MemoryPass.Status.RUNNING, attempts=F("attempts") + 1, started_at=now,
        model=settings.WHIZI_MEMORY_MODEL, error="",
    )
    if not claimed:
        return None
    memory_pass = MemoryPass.objects.filter(pk=pass_id).first()
    if memory_pass is not None and memory_pass.attempts == 1:  # its first claim ends its wait
        waited = (now - memory_pass.created_at).total_seconds()
        metric_memory_pass_wait(trigger=memory_pass.trigger, seconds=waited)
    return memory_pass


def pass_release(*, pass_id: int, error: str = "") -> None:
    """Hand a running pass back to the queue, for a retry."""
    metric_memory_pass_retry(error=error)
    MemoryPass.objects.filter(pk=pass_id, status=MemoryPass.Status.RUNNING).update(
        status=MemoryPass.Status.QUEUED, error=error[:200]
    )


def pass_finish(memory_pass: MemoryPass, *, outcome: str, error: str = "", still: Q | None = None,
                seconds: float | None = None, meter: Meter | None = None, lines_before: int = 0,
                lines_after: int = 0, changes: dict[str, object] | None = None) -> bool:
    """Every way a pass ends, a run's or the sweep's: record the outcome on its row, log it
    and count it (metrics only, never fact text). False when another run holds the pass.

    `still` is what the row must still be for this ending to stand (by default: running);
    a row that is gone (its owner was deleted) still ends, logged and counted.
    """
    meter = meter or Meter()
    still = still if still is not None else Q(status=MemoryPass.Status.RUNNING)
    recorded = MemoryPass.objects.filter(still, pk=memory_pass.pk).update(
        status=MemoryPass.Status.DONE, outcome=outcome, error=error[:200],
        input_tokens=meter.input_tokens, output_tokens=meter.output_tokens, cost=meter.cost,
        lines_before=lines_before, lines_after=lines_after, changes=changes or {},
        duration_ms=round((seconds or 0) * 1000), model_ms=round(meter.seconds * 1000),
        finished_at=timezone.now(),
    )
    if not recorded and MemoryPass.objects.filter(pk=memory_pass.pk).exists():
        return False
    level = logging.WARNING if outcome == Outcome.FAILED else logging.INFO
    took = f", {seconds * 1000:.0f} ms" if seconds is not None else ""
    log.log(level, "memory pass %s for %s: %s%s (%d model calls%s)", memory_pass.pk,
            Owner.of(memory_pass).key, outcome, f" [{error}]" if error else "", meter.calls, took)
    metric_memory_pass(trigger=memory_pass.trigger, outcome=outcome, seconds=seconds, error=error)
    metric_model_usage(model=memory_pass.model or settings.WHIZI_MEMORY_MODEL, use="memory",
                       input_tokens=meter.input_tokens, output_tokens=meter.output_tokens, cost=meter.cost)
    return True


def _time_for_another_round(started: float) -> bool:
    """Can one more rewrite and compaction, at their timeouts, finish within the task's
    soft time limit?"""
    elapsed = time.perf_counter() - started
    return elapsed + 2 * settings.WHIZI_MEMORY_MODEL_TIMEOUT < settings.CELERY_TASK_SOFT_TIME_LIMIT


class _PassRun:
    """One claimed pass: what it read, what it has spent, and how it ends."""

    def __init__(self, memory_pass: MemoryPass) -> None:
        self.started = time.perf_counter()
        self.memory_pass = memory_pass
        self.meter = Meter()
        self.state: MemoryState | None = None
        self.turns: list[Turn] = []
        self.before = 0

    def read(self, state: MemoryState) -> None:
        self.state = state
        self.turns = pass_turns(self.memory_pass, cleared_at=state.cleared_at)
        self.before = len(state.lines)

    def compute(self) -> PassResult:
        # A merge's compaction has no turns and starts above the target, not the cap.
        compact_above = (settings.WHIZI_MEMORY_TARGET_TOKENS
                         if self.memory_pass.trigger == MemoryPass.Trigger.MERGE else None)
        # The reader already chose the turns: 6, or more when later turns joined the pass.
        result = pass_compute(existing=self.state.lines, turns=self.turns,
                              source=pass_source(self.memory_pass), model=settings.WHIZI_MEMORY_MODEL,
                              compact_above=compact_above, max_turns=len(self.turns))
        self.meter.add(result)
        return result

    def finish(self, outcome: str, *, error: str = "", lines_after: int | None = None,
               result: PassResult | None = None) -> PassReport:
        if lines_after is None:
            lines_after = len(self.state.lines) if self.state else 0
        changes = None
        if result is not None:  # counts by kind and reason, never text
            changes = {"kept": result.kept, "edited": result.edited, "added": result.added,
                       "removed": result.removed, "refused": result.refused, "refused_by": result.refused_by,
                       "asked": result.asked, "already": result.already, "blocked": result.blocked}
        seconds = time.perf_counter() - self.started
        pass_finish(self.memory_pass, outcome=outcome, seconds=seconds, meter=self.meter, error=error,
                    lines_before=self.before, lines_after=lines_after, changes=changes)
        return PassReport(pass_id=self.memory_pass.pk, outcome=outcome, seconds=seconds,
                          model_seconds=self.meter.seconds, error=error)

    def save(self, result: PassResult) -> bool:
        """Save the result over the list read, with each changed line on record for the
        reply the pass ran through; False when another write got there first."""
        return memory_save_changes(state=self.state, lines=result.lines, owner=Owner.of(self.memory_pass),
                                   pass_id=self.memory_pass.pk, reply_id=self.memory_pass.through_message_id,
                                   changes=result.line_changes)

    def retry(self, error: str, *, retry_after: float | None = None) -> PassRetry:
        pass_release(pass_id=self.memory_pass.pk, error=error)
        return PassRetry(error, retry_after=retry_after)

    def after_conflict(self) -> PassReport | None:
        """Another write got there first: a report to end with, or None to run again on
        the fresh list. Raises PassRetry when another round might outlast the task."""
        fresh = memory_state_reload(state=self.state)
        if fresh is None:
            # The row is gone: its owner was deleted, or was a guest who has since signed
            # up or logged in, in which case this pass moved to the account with
            # everything else. Follow it there and run again on the account's list.
            moved_to = _current_owner(self.memory_pass.pk)
            if moved_to not in (None, Owner.of(self.memory_pass)):
                fresh = memory_state_get_or_create(owner=moved_to)
            if fresh is None:
                return self.finish(Outcome.DISCARDED, error="owner_gone", lines_after=0)
            self.memory_pass = MemoryPass.objects.get(pk=self.memory_pass.pk)
            self.read(fresh)
            return None
        if fresh.epoch != self.state.epoch:
            # Memory was cleared while the model was thinking: the clear wins.
            return self.finish(Outcome.DISCARDED, error="conflict:cleared", lines_after=len(fresh.lines))
        if not _time_for_another_round(self.started) and self.memory_pass.attempts < MAX_ATTEMPTS:
            # Another rewrite (and compaction) might outlast the task's time limit:
            # start again as a fresh attempt instead.
            raise self.retry("conflict:time")
        self.state = fresh
        return None


def pass_run(*, pass_id: int, redelivered: bool = False) -> PassReport | None:
    """Run one queued memory pass. Raises PassRetry for a retryable model failure.

    1. Claim the pass (returns None if it is done, gone or running elsewhere).
    2. Read the owner's list, version, epoch and last clear; read the turns newer
       than that clear.
    3. pass_compute(), holding no transaction or lock.
    4. Save only over the version read. If another write got there first: a clear
       (epoch moved) or a deleted owner means discard — never write cleared facts back;
       a guest merged into an account means re-run on the account's list; otherwise
       re-run on the fresh list.
    5. Record the outcome and metrics on the pass row (no fact text).
    """
    memory_pass = _claim(pass_id, redelivered=redelivered)
    if memory_pass is None:
        log.info("memory pass %s not claimed: done, gone or running elsewhere", pass_id)
        return None
    run = _PassRun(memory_pass)
    if memory_pass.attempts > MAX_CLAIMS:
        # Delivered over and over (a worker dying mid-pass each time): stop here.
        return run.finish(Outcome.FAILED, error="attempts")
    state = memory_state_get_or_create(owner=Owner.of(memory_pass))
    if state is None:
        return run.finish(Outcome.DISCARDED, error="owner_gone")
    run.read(state)
    for _ in range(MAX_CONFLICT_ROUNDS):
        result = run.compute()
        if result.outcome == Outcome.FAILED and result.retryable and run.memory_pass.attempts < MAX_ATTEMPTS:
            raise run.retry(result.error, retry_after=result.retry_after)
        if not result.changed or run.save(result):
            return run.finish(result.outcome, error=result.error, lines_after=len(result.lines),
                              result=result)
        ended = run.after_conflict()
        if ended is not None:
            return ended
    return run.finish(Outcome.DISCARDED, error="conflict:retries")
