"""The memory model fails: the list stays exactly as it was, and the pass is retried
within its bounds (real worker, real broker, scripted model).

Already covered elsewhere and not repeated here:
- a provider error (HTTP 500) on every attempt ends as failed after MAX_ATTEMPTS calls
  with the list untouched: tests/memory/test_pass_worker.py
  (test_retries_are_bounded_and_end_as_failed_with_the_list_untouched);
- one timeout then a good answer is retried with backoff and saved: same file;
- every shape of unusable answer, in process: tests/memory/test_pass_run.py
  (test_an_unusable_answer_fails_without_touching_the_list) and test_pass_compute.py;
- a clear racing a pass (the clear wins, nothing comes back): test_pass_worker.py
  (test_a_clear_while_a_pass_waits_on_the_model_wins).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.models import MemoryPass
from memory.run import MAX_ATTEMPTS
from memory.tasks import run_memory_pass_task
from tests.memory.conftest import chat, queue_pass, save_memory, saved_lines

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Outcome = MemoryPass.Outcome

FACTS = ["Likes tea", "Lives in Leeds"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def memory_pass(user):
    save_memory(user, FACTS)
    return queue_pass(user, through=chat(user, "I'm Sam.", "Hi Sam!", "Remember that."))


def finished(wait_for, memory_pass: MemoryPass, timeout: float = 60) -> MemoryPass:
    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, status="done").exists(), timeout=timeout)
    memory_pass.refresh_from_db()
    return memory_pass


@pytest.mark.parametrize("kind", ["timeout", "rate_limit"])
def test_a_model_that_keeps_failing_is_tried_a_bounded_number_of_times(kind, user, memory_pass, workers,
                                                                       script, wait_for):
    workers.start()
    for _ in range(MAX_ATTEMPTS + 2):
        script.error(kind)
    run_memory_pass_task.delay(memory_pass.pk)

    memory_pass = finished(wait_for, memory_pass)
    assert (memory_pass.outcome, memory_pass.error) == (Outcome.FAILED, f"model:{kind}")
    assert memory_pass.attempts == MAX_ATTEMPTS
    assert len(script.calls()) == MAX_ATTEMPTS
    assert script.remaining() == 2
    assert saved_lines(user) == FACTS


def test_garbage_from_the_model_is_not_retried_and_saves_nothing(user, memory_pass, workers, script,
                                                                 wait_for):
    workers.start()
    script.reply("Sure! I'd be glad to help you remember things. What else is on your mind?")
    script.reply("- Name is Sam")  # would be saved if the pass wrongly tried again
    run_memory_pass_task.delay(memory_pass.pk)

    memory_pass = finished(wait_for, memory_pass)
    assert (memory_pass.outcome, memory_pass.error) == (Outcome.FAILED, "answer:unparseable")
    assert memory_pass.attempts == 1
    assert len(script.calls()) == 1
    assert saved_lines(user) == FACTS


def test_a_model_call_that_hangs_is_cut_off_by_the_time_limit_and_retried(user, memory_pass, workers,
                                                                          script, wait_for):
    # A provider that never answers: the per-call timeout is the provider client's job; the
    # task's soft time limit is the backstop that always holds. Here it is 20 s (hard 50 s,
    # model timeout 5 s) instead of 270 s: room for a cold process to import litellm first.
    # The limits travel in the message from the publisher (web and worker share the
    # setting), so both are given them.
    workers.start(WHIZI_TASK_TIME_LIMIT="50", WHIZI_MEMORY_MODEL_TIMEOUT="5")
    script.gate("never", "- Likes tea\n- Lives in Leeds\n- Name is Sam")
    script.reply("- Likes tea\n- Lives in Leeds\n- Name is Sam")
    run_memory_pass_task.apply_async((memory_pass.pk,), time_limit=50, soft_time_limit=20)
    assert script.wait_arrived("never")
    assert saved_lines(user) == FACTS

    memory_pass = finished(wait_for, memory_pass)
    assert (memory_pass.outcome, memory_pass.attempts) == (Outcome.UPDATED, 2)
    assert saved_lines(user) == [*FACTS, "Name is Sam"]
    script.release("never")  # let the abandoned call end


CUT_IMPORT = """
import signal, sys
import django
django.setup()
from whizi import llm

class Cut(Exception):
    pass

def cut(*_):
    raise Cut()

signal.signal(signal.SIGALRM, cut)
for seconds in (0.4, 1.2, 2.0, 2.8):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        llm.litellm_module()
    except Cut:
        print("cut")
    signal.setitimer(signal.ITIMER_REAL, 0)
print(llm.complete(model="whizi/offline", messages=[{"role": "user", "content": "hi"}], timeout=5).text)
"""


def test_a_model_call_cut_short_while_litellm_is_first_imported_leaves_the_process_working():
    # What a soft time limit does to a fresh worker process whose first pass is still
    # importing litellm. Before the fix, every later call in that process failed with
    # "partially initialized module 'litellm'", so the worker could never run a pass again.
    import os
    import subprocess
    import sys

    from offline.provider import OFFLINE_NOTICE

    env = dict(os.environ, DJANGO_SETTINGS_MODULE="whizi.settings")
    result = subprocess.run([sys.executable, "-c", CUT_IMPORT], env=env, capture_output=True, text=True,
                            timeout=180, cwd=str(ROOT))
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert "cut" in lines  # the import really was interrupted at least once
    assert OFFLINE_NOTICE in lines[-1]
