"""The sweep publishes again the passes the broker lost, and stops the ones that keep dying.

Time passing is shown by moving a pass's timestamps back (as if it were queued or started
that long ago); the broker is the suite's real Redis, read directly.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from bench.stack import broker_purge
from memory.models import Memory, MemoryPass
from memory.run import MAX_CLAIMS
from memory.sweep import QUEUED_GRACE, pass_sweep
from memory.tasks import sweep_memory_passes_task
from tests.memory.conftest import chat, queue_pass, save_memory, saved_lines
from whizi.metrics import metric_total

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
Status = MemoryPass.Status


@pytest.fixture(autouse=True)
def empty_broker():
    broker_purge()
    yield
    broker_purge()


def published() -> list[int]:
    """Pass ids waiting on the real broker."""
    from whizi.celery import app

    with app.connection_for_write() as conn:
        raw = conn.default_channel.client.lrange("celery", 0, -1)
    messages = [json.loads(item) for item in raw]
    return [int(m["headers"]["argsrepr"].strip("(),")) for m in messages
            if m["headers"]["task"] == "memory.run_pass"]


def aged(memory_pass: MemoryPass, *, created: timedelta | None = None, started: timedelta | None = None,
         **fields) -> MemoryPass:
    now = timezone.now()
    if created is not None:
        fields["created_at"] = now - created
    if started is not None:
        fields["started_at"] = now - started
    MemoryPass.objects.filter(pk=memory_pass.pk).update(**fields)
    memory_pass.refresh_from_db()
    return memory_pass


@pytest.fixture
def a_pass(user):
    return queue_pass(user, through=chat(user, "I'm Sam.", "Hi Sam", "Remember that."))


TIME_LIMIT = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)


def test_a_pass_queued_a_moment_ago_is_left_alone(a_pass):
    # Its message is on the way; it was published after its commit.
    aged(a_pass, created=QUEUED_GRACE - timedelta(seconds=5))
    assert pass_sweep().published == []
    assert published() == []


def test_a_pass_still_queued_a_minute_later_is_published_again(a_pass):
    aged(a_pass, created=QUEUED_GRACE + timedelta(seconds=5))
    assert pass_sweep().published == [a_pass.pk]
    assert published() == [a_pass.pk]
    a_pass.refresh_from_db()
    assert (a_pass.status, a_pass.attempts) == (Status.QUEUED, 0)


def test_a_stranded_pass_is_published_once_not_every_minute(a_pass):
    aged(a_pass, created=timedelta(minutes=5))
    assert pass_sweep().published == [a_pass.pk]
    again = pass_sweep()
    assert (again.published, again.skipped) == ([], 1)
    assert published() == [a_pass.pk]


def test_a_pass_running_within_the_time_limit_is_left_alone(a_pass):
    aged(a_pass, created=timedelta(minutes=5), started=TIME_LIMIT - timedelta(seconds=10),
         status=Status.RUNNING, attempts=1)
    assert pass_sweep().published == []


def test_a_pass_running_past_the_time_limit_lost_its_worker_and_is_published(a_pass):
    aged(a_pass, created=timedelta(minutes=10), started=TIME_LIMIT + timedelta(seconds=10),
         status=Status.RUNNING, attempts=1)
    assert pass_sweep().published == [a_pass.pk]
    assert published() == [a_pass.pk]


def test_a_pass_waiting_for_its_retry_is_left_alone_until_the_retry_is_overdue(a_pass):
    # Handed back for a retry a moment ago: its delayed message is held by a worker.
    aged(a_pass, created=timedelta(minutes=3), started=timedelta(minutes=2), attempts=1)
    assert pass_sweep().published == []
    aged(a_pass, started=TIME_LIMIT + timedelta(minutes=3))
    assert pass_sweep().published == [a_pass.pk]


def test_done_passes_are_never_touched(a_pass):
    aged(a_pass, created=timedelta(hours=1), started=timedelta(hours=1), status=Status.DONE,
         outcome=MemoryPass.Outcome.UPDATED, attempts=1)
    assert pass_sweep().published == []
    a_pass.refresh_from_db()
    assert (a_pass.status, a_pass.outcome) == (Status.DONE, MemoryPass.Outcome.UPDATED)


def test_a_pass_that_keeps_killing_its_worker_is_failed_not_published(user, a_pass):
    save_memory(user, ["Likes tea"])
    aged(a_pass, created=timedelta(hours=1), started=TIME_LIMIT + timedelta(seconds=10),
         status=Status.RUNNING, attempts=MAX_CLAIMS)
    report = pass_sweep()
    assert (report.published, report.failed) == ([], [a_pass.pk])
    assert published() == []
    a_pass.refresh_from_db()
    assert (a_pass.status, a_pass.outcome, a_pass.error) == (
        Status.DONE, MemoryPass.Outcome.FAILED, "attempts")
    assert saved_lines(user) == ["Likes tea"]


def test_one_claim_short_of_the_bound_it_is_still_published(a_pass):
    aged(a_pass, created=timedelta(hours=1), started=TIME_LIMIT + timedelta(seconds=10),
         status=Status.RUNNING, attempts=MAX_CLAIMS - 1)
    assert pass_sweep().published == [a_pass.pk]


def test_beat_runs_the_sweep_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-memory-passes"]
    assert entry["task"] == sweep_memory_passes_task.name == "memory.sweep_passes"
    assert entry["schedule"] == 60.0
    # A sweep that waited past the next one's start is dropped, not run twice in a row.
    assert entry["options"]["expires"] < entry["schedule"]


@pytest.mark.worker
def test_the_sweep_task_in_a_real_worker_gets_a_lost_pass_run(user, a_pass, workers, script, wait_for):
    save_memory(user, ["Likes tea"])
    aged(a_pass, created=timedelta(minutes=2))
    workers.start()
    script.reply("- Likes tea\n- Name is Sam")

    sweep_memory_passes_task.delay()  # what beat sends every minute

    wait_for(lambda: MemoryPass.objects.filter(pk=a_pass.pk, status=Status.DONE).exists())
    a_pass.refresh_from_db()
    assert (a_pass.outcome, a_pass.attempts) == (MemoryPass.Outcome.UPDATED, 1)
    assert saved_lines(user) == ["Likes tea", "Name is Sam"]
    assert Memory.objects.get(user=user).version == 1


def test_a_pass_the_sweep_fails_is_logged_and_counted_as_a_run_failure_is(user, a_pass, caplog):
    aged(a_pass, created=timedelta(hours=1), started=TIME_LIMIT + timedelta(seconds=10),
         status=Status.RUNNING, attempts=MAX_CLAIMS)
    failures = metric_total("whizi_memory_pass_failures_total", error="attempts")
    passes = metric_total("whizi_memory_passes_total", trigger=a_pass.trigger, outcome="failed")
    with caplog.at_level(logging.INFO, logger="memory.run"):
        pass_sweep()
        pass_sweep()  # a pass already failed is not failed, nor counted, again
    assert metric_total("whizi_memory_pass_failures_total", error="attempts") == failures + 1
    assert metric_total("whizi_memory_passes_total", trigger=a_pass.trigger, outcome="failed") == passes + 1
    assert [r.getMessage() for r in caplog.records if r.name == "memory.run"] == [
        f"memory pass {a_pass.pk} for user:{user.pk}: failed [attempts] (0 model calls)"]
