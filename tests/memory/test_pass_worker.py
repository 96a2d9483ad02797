"""Passes run by a real Celery worker on the real broker and PostgreSQL, with the
scripted memory model; interleavings are made deterministic with gates (a model call
that blocks until the test releases it).

Promises: a pass runs after the reply is committed; two overlapping passes lose no
update; a clear that lands while a pass waits on the model wins and the cleared facts
never come back; after a clear, passes read only newer turns; retryable model errors
are retried with backoff, a bounded number of times.
"""

import pytest
from django.db import transaction

from memory.models import Memory, MemoryPass
from memory.run import MAX_ATTEMPTS
from memory.store import memory_clear
from memory.tasks import run_memory_pass_task
from whizi.llm.scripted import Script

from .conftest import chat, owner_of, queue_after_reply, queue_pass, save_memory, saved_lines

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Outcome = MemoryPass.Outcome


@pytest.fixture
def script(celery_worker):
    return Script("memory").reset()


def publish(memory_pass: MemoryPass) -> MemoryPass:
    run_memory_pass_task.delay(memory_pass.pk)
    return memory_pass


def finished(wait_for, memory_pass: MemoryPass, timeout: float = 30) -> MemoryPass:
    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, status=MemoryPass.Status.DONE).exists(),
             timeout=timeout)
    memory_pass.refresh_from_db()
    return memory_pass


def test_a_remember_request_is_saved_by_the_worker_after_the_reply_commits(user, script, wait_for):
    script.reply("- Name is Sam Okafor")
    with transaction.atomic():
        user_message = chat(user, "My name is Sam Okafor. Please remember that.")
        reply = chat(user, "Got it, Sam!", conversation=user_message.conversation)
        memory_pass = queue_after_reply(user_message, reply)
        assert memory_pass.trigger == MemoryPass.Trigger.REQUEST
    assert finished(wait_for, memory_pass).outcome == Outcome.UPDATED
    assert saved_lines(user) == ["Name is Sam Okafor"]


def test_two_overlapping_passes_lose_no_update(user, script, wait_for):
    save_memory(user, ["Likes tea"])
    first = queue_pass(user, through=chat(user, "I'm Sam.", "Hi Sam", "Remember that."))
    second = queue_pass(user, through=chat(user, "I live in Leeds.", "Nice", "Note that."))

    # The first pass reads version 0 and waits on the model.
    script.gate("first", "- Likes tea\n- Name is Sam")
    publish(first)
    assert script.wait_arrived("first")
    # Meanwhile the second pass reads version 0 too, and saves first.
    script.reply("- Likes tea\n- Lives in Leeds")
    assert finished(wait_for, publish(second)).outcome == Outcome.UPDATED
    assert saved_lines(user) == ["Likes tea", "Lives in Leeds"]

    # The first pass's save over version 0 now fails; it re-runs on the fresh list.
    script.reply("- Likes tea\n- Lives in Leeds\n- Name is Sam")
    script.release("first")
    first = finished(wait_for, first)
    assert (first.outcome, first.attempts) == (Outcome.UPDATED, 1)

    assert saved_lines(user) == ["Likes tea", "Lives in Leeds", "Name is Sam"]
    assert Memory.objects.get(user=user).version == 2
    rerun = script.calls()[2][1]["content"]
    assert "[2] Lives in Leeds" in rerun.split("</saved_memory>")[0]


def test_a_clear_while_a_pass_waits_on_the_model_wins(user, script, wait_for):
    save_memory(user, ["Lives in Hanoi"])
    old = chat(user, "I live in Hanoi and my name is Mai.", "Hi Mai!", "Remember that.")
    memory_pass = queue_pass(user, through=old)
    script.gate("g", "- Lives in Hanoi\n- Name is Mai")
    publish(memory_pass)
    assert script.wait_arrived("g")

    memory_clear(owner=owner_of(user))
    script.release("g")

    memory_pass = finished(wait_for, memory_pass)
    assert memory_pass.outcome == Outcome.DISCARDED
    assert memory_pass.error == "conflict:cleared"
    assert memory_pass.attempts == 1
    assert saved_lines(user) == []
    assert len(script.calls()) == 1  # discarded, not re-run on the cleared list

    # A later pass in the same conversation reads only what came after the clear.
    newer = chat(user, "I like jazz.", "Nice!", conversation=old.conversation)
    script.reply("- Likes jazz")
    later = finished(wait_for, publish(queue_pass(user, through=newer)))
    assert later.outcome == Outcome.UPDATED
    prompt = script.calls()[1][1]["content"]
    assert "jazz" in prompt
    assert "Hanoi" not in prompt and "Mai" not in prompt
    assert saved_lines(user) == ["Likes jazz"]


def test_a_pass_never_brings_back_the_memory_of_a_deleted_guest(guest, script, wait_for, celery_worker):
    save_memory(guest, ["Name is Mai"])
    memory_pass = queue_pass(guest, through=chat(guest, "I'm Mai and I live in Hue.", "Hi", "remember"))
    script.gate("g", "- Name is Mai\n- Lives in Hue")
    publish(memory_pass)
    assert script.wait_arrived("g")

    guest_key = owner_of(guest).key
    guest.delete()
    script.release("g")

    log = celery_worker.log_path
    wait_for(lambda: f"memory pass {memory_pass.pk} for {guest_key}: discarded [owner_gone]"
             in log.read_text(errors="replace"))
    assert not Memory.objects.filter(guest_id=memory_pass.guest_id).exists()


def test_a_timeout_is_retried_with_backoff_and_then_saved(user, script, wait_for):
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam.", "Hi", "Remember that."))
    script.error("timeout").reply("- Name is Sam")
    memory_pass = finished(wait_for, publish(memory_pass))
    assert memory_pass.outcome == Outcome.UPDATED
    assert memory_pass.attempts == 2
    assert saved_lines(user) == ["Name is Sam"]


def test_retries_are_bounded_and_end_as_failed_with_the_list_untouched(user, script, wait_for):
    save_memory(user, ["Likes tea"])
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam.", "Hi", "Remember that."))
    for _ in range(MAX_ATTEMPTS + 2):
        script.error("error")
    memory_pass = finished(wait_for, publish(memory_pass), timeout=60)
    assert memory_pass.outcome == Outcome.FAILED
    assert memory_pass.attempts == MAX_ATTEMPTS
    assert len(script.calls()) == MAX_ATTEMPTS
    assert saved_lines(user) == ["Likes tea"]


def test_a_task_delivered_twice_runs_the_pass_once(user, script, wait_for, celery_worker):
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam.", "Hi", "Remember that."))
    script.gate("g", "- Name is Sam").reply("- Name is Somebody Else")
    publish(memory_pass)
    assert script.wait_arrived("g")
    publish(memory_pass)  # a duplicate delivery while the first run waits on the model
    script.release("g")
    assert finished(wait_for, memory_pass).outcome == Outcome.UPDATED
    log = celery_worker.log_path
    wait_for(lambda: f"memory pass {memory_pass.pk} not claimed" in log.read_text(errors="replace"))
    assert saved_lines(user) == ["Name is Sam"]
    assert script.remaining() == 1
