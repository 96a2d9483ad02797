"""A worker killed with SIGKILL in the middle of a pass: the pass runs again, and the list
is the old one until the new one is saved whole, never a mix.

The pass is held at a scripted gate (its model call blocks), then the worker dies. Three
real ways the pass comes back, all tested:

- only the pool process running the pass dies: the worker's main process sees it lost
  and, because tasks are acknowledged late and rejected when their worker is lost,
  puts the message straight back on the queue;
- the whole worker dies: its message stays unacknowledged in Redis, and the broker hands
  it to the next worker once the visibility timeout has passed (an hour in production;
  the restarted worker here is given one second, WHIZI_BROKER_VISIBILITY_TIMEOUT);
- the whole worker dies and the message is not back yet: the sweep (every minute)
  publishes the pass again once it has been running longer than any task may. This is
  what brings a pass back first in production (about five minutes, not an hour).

Redeliveries are bounded: a pass claimed MAX_CLAIMS times is recorded as failed.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from memory.models import Memory, MemoryPass
from memory.run import MAX_CLAIMS
from memory.sweep import pass_sweep
from memory.tasks import run_memory_pass_task
from tests.memory.conftest import chat, queue_pass, save_memory, saved_lines

from .conftest import kill_pool_children

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Status = MemoryPass.Status
Outcome = MemoryPass.Outcome

OLD = ["Likes tea", "Lives in Leeds"]
NEW = ["Likes tea", "Lives in Leeds", "Name is Sam Okafor"]


def answer(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


@pytest.fixture
def memory_pass(user):
    save_memory(user, OLD)
    return queue_pass(user, through=chat(user, "I'm Sam Okafor.", "Hi Sam!", "Remember that."))


class ListWatcher:
    """Every list a reader saw while the pass was being retried."""

    def __init__(self, user) -> None:
        self.user = user
        self.seen: set[tuple[str, ...]] = set()

    def pass_done(self, memory_pass: MemoryPass):
        def check() -> bool:
            self.seen.add(tuple(saved_lines(self.user)))
            return MemoryPass.objects.filter(pk=memory_pass.pk, status=Status.DONE).exists()

        return check


def killed_at_the_gate(memory_pass, script, worker, *, kill) -> None:
    script.gate("g", answer(NEW))  # this run never answers: its worker dies first
    run_memory_pass_task.delay(memory_pass.pk)
    assert script.wait_arrived("g")
    kill(worker)
    memory_pass.refresh_from_db()
    assert (memory_pass.status, memory_pass.attempts) == (Status.RUNNING, 1)


def test_a_killed_pool_process_puts_the_pass_straight_back(user, memory_pass, workers, script, wait_for):
    worker = workers.start()
    watcher = ListWatcher(user)
    killed_at_the_gate(memory_pass, script, worker, kill=kill_pool_children)
    assert saved_lines(user) == OLD
    script.reply(answer(NEW))

    wait_for(watcher.pass_done(memory_pass))  # same worker, new pool process, no restart

    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.attempts) == (Outcome.UPDATED, 2)
    assert saved_lines(user) == NEW
    assert watcher.seen <= {tuple(OLD), tuple(NEW)}
    assert Memory.objects.get(user=user).version == 1  # saved once
    assert len(script.calls()) == 2


def test_a_killed_worker_s_pass_is_redelivered_to_the_next_worker(user, memory_pass, workers, script,
                                                                  wait_for):
    first = workers.start()
    watcher = ListWatcher(user)
    killed_at_the_gate(memory_pass, script, first, kill=lambda worker: worker.kill())
    assert saved_lines(user) == OLD
    script.reply(answer(NEW))

    workers.start(WHIZI_BROKER_VISIBILITY_TIMEOUT="1")
    wait_for(watcher.pass_done(memory_pass))

    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.attempts) == (Outcome.UPDATED, 2)
    assert saved_lines(user) == NEW
    assert watcher.seen <= {tuple(OLD), tuple(NEW)}
    assert Memory.objects.get(user=user).version == 1


def test_the_sweep_brings_back_a_killed_worker_s_pass_before_the_broker_does(
    user, memory_pass, workers, script, wait_for
):
    first = workers.start()
    killed_at_the_gate(memory_pass, script, first, kill=lambda worker: worker.kill())
    workers.start()  # the production visibility timeout: the broker holds the message an hour
    assert pass_sweep().published == []  # running, and maybe still alive

    # Five minutes on, no task may still be running it: the worker is gone.
    MemoryPass.objects.filter(pk=memory_pass.pk).update(
        started_at=timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 5))
    script.reply(answer(NEW))
    assert pass_sweep().published == [memory_pass.pk]

    watcher = ListWatcher(user)
    wait_for(watcher.pass_done(memory_pass))
    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.attempts) == (Outcome.UPDATED, 2)
    assert saved_lines(user) == NEW
    assert watcher.seen <= {tuple(OLD), tuple(NEW)}


def test_a_pass_that_kills_its_worker_every_time_stops_after_max_claims(user, memory_pass, workers,
                                                                       script, wait_for):
    worker = workers.start()
    for n in range(MAX_CLAIMS):
        script.gate(f"g{n}", answer(NEW))
    run_memory_pass_task.delay(memory_pass.pk)
    for n in range(MAX_CLAIMS):
        assert script.wait_arrived(f"g{n}")
        kill_pool_children(worker)

    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, status=Status.DONE).exists())
    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.error) == (Outcome.FAILED, "attempts")
    assert memory_pass.attempts == MAX_CLAIMS + 1
    assert len(script.calls()) == MAX_CLAIMS  # the last delivery did not call the model
    assert saved_lines(user) == OLD
