"""A queued pass as the worker runs it (memory.run.pass_run), called directly:
claim, read, model, compare-and-swap save, and a log row with no fact text."""

import pytest
from django.utils import timezone

from memory.models import Memory, MemoryChange, MemoryPass
from memory.run import MAX_ATTEMPTS, PassRetry, pass_run
from memory.store import memory_clear
from whizi.llm.scripted import Script

from .conftest import chat, owner_of, queue_pass, save_memory, saved_lines, voice

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Outcome = MemoryPass.Outcome


def test_a_pass_saves_the_rewritten_list_and_logs_only_metrics(user, model):
    save_memory(user, ["Likes green tea"])
    last = chat(user, "My name is Sam Okafor.", "Nice to meet you, Sam!", "Please remember that.")
    memory_pass = queue_pass(user, through=last)
    model.reply("[+] Name is Sam Okafor")

    report = pass_run(pass_id=memory_pass.pk)

    assert saved_lines(user) == ["Likes green tea", "Name is Sam Okafor"]
    memory = Memory.objects.get(user=user)
    assert memory.version == 1
    assert memory.tokens > 0
    memory_pass.refresh_from_db()
    assert memory_pass.status == MemoryPass.Status.DONE
    assert memory_pass.outcome == report.outcome == Outcome.UPDATED
    assert (memory_pass.lines_before, memory_pass.lines_after) == (1, 2)
    assert memory_pass.attempts == 1
    assert memory_pass.input_tokens > 0 and memory_pass.output_tokens > 0
    assert memory_pass.model == "scripted/memory-direct"
    assert memory_pass.finished_at is not None
    assert memory_pass.duration_ms >= memory_pass.model_ms
    assert memory_pass.changes == {"kept": 1, "edited": 0, "added": 1, "removed": {}, "refused": 0,
                                   "refused_by": {}, "asked": "remember", "already": False, "blocked": ""}
    text_fields = [str(getattr(memory_pass, f.attname)) for f in MemoryPass._meta.concrete_fields]
    assert not any("Sam" in value or "tea" in value for value in text_fields)
    # The words of the change live with the owner's memory, on the reply the pass ran through.
    recorded = MemoryChange.objects.values_list("user_id", "memory_pass_id", "reply_id", "kind", "new_text")
    assert list(recorded) == [(user.pk, memory_pass.pk, last.pk, "added", "Name is Sam Okafor")]


def test_it_runs_on_the_memory_model_not_the_conversations_model(user, model):
    chat_model = Script("chat-model").reset()
    last = chat(user, "I'm Sam.", "Hi!", "Remember that.")
    last.conversation.model = "scripted/chat-model"
    last.conversation.save()
    model.reply("- Name is Sam")
    pass_run(pass_id=queue_pass(user, through=last).pk)
    assert len(model.calls()) == 1
    assert chat_model.calls() == []


def test_the_pass_reads_the_last_six_turns_up_to_its_message(user, model):
    conversation_last = chat(user, *[f"message {i}" for i in range(8)])
    through = conversation_last.conversation.messages.order_by("id")[6]
    chat(user, "message 8 (after the pass was queued)", conversation=conversation_last.conversation)
    model.reply("EMPTY")
    pass_run(pass_id=queue_pass(user, through=through).pk)
    prompt = model.calls()[0][1]["content"]
    assert [f"message {i}" in prompt for i in range(9)] == [False] + [True] * 6 + [False, False]


def test_a_guest_has_the_same_pipeline(guest, model):
    last = chat(guest, "Tên tôi là Nguyễn Thị Mai.", "Chào Mai!", "Nhớ điều đó nhé.")
    model.reply("- Tên là Nguyễn Thị Mai")
    pass_run(pass_id=queue_pass(guest, through=last).pk)
    assert saved_lines(guest) == ["Tên là Nguyễn Thị Mai"]


def test_running_a_pass_twice_does_the_work_once(user, model):
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    model.reply("- Name is Sam").reply("- Something else entirely")
    pass_run(pass_id=memory_pass.pk)
    assert pass_run(pass_id=memory_pass.pk) is None
    assert saved_lines(user) == ["Name is Sam"]
    assert len(model.calls()) == 1


def test_a_pass_that_is_gone_is_a_no_op(model):
    assert pass_run(pass_id=987654) is None
    assert model.calls() == []


def test_a_running_pass_is_taken_back_only_when_redelivered(user, model):
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status=MemoryPass.Status.RUNNING,
                                                        started_at=timezone.now(), attempts=1)
    model.reply("- Name is Sam")
    assert pass_run(pass_id=memory_pass.pk) is None
    assert pass_run(pass_id=memory_pass.pk, redelivered=True).outcome == Outcome.UPDATED
    memory_pass.refresh_from_db()
    assert memory_pass.attempts == 2


def test_a_retryable_failure_requeues_the_pass_and_leaves_the_list(user, model):
    save_memory(user, ["Likes tea"])
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    model.error("timeout")
    with pytest.raises(PassRetry):
        pass_run(pass_id=memory_pass.pk)
    memory_pass.refresh_from_db()
    assert memory_pass.status == MemoryPass.Status.QUEUED
    assert memory_pass.error == "model:timeout"
    assert saved_lines(user) == ["Likes tea"]

    model.reply("- Likes tea\n- Name is Sam")
    assert pass_run(pass_id=memory_pass.pk).outcome == Outcome.UPDATED
    assert saved_lines(user) == ["Likes tea", "Name is Sam"]


def test_the_last_attempt_records_a_failure(user, model):
    save_memory(user, ["Likes tea"])
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    for _ in range(MAX_ATTEMPTS):
        model.error("rate_limit")
    for _ in range(MAX_ATTEMPTS - 1):
        with pytest.raises(PassRetry):
            pass_run(pass_id=memory_pass.pk)
    report = pass_run(pass_id=memory_pass.pk)
    assert report.outcome == Outcome.FAILED
    memory_pass.refresh_from_db()
    assert (memory_pass.status, memory_pass.attempts, memory_pass.error) == (
        MemoryPass.Status.DONE, MAX_ATTEMPTS, "model:rate_limit")
    assert saved_lines(user) == ["Likes tea"]


def test_a_rejected_request_fails_at_once(user, model):
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    model.error("rejected")
    assert pass_run(pass_id=memory_pass.pk).outcome == Outcome.FAILED
    memory_pass.refresh_from_db()
    assert memory_pass.attempts == 1


@pytest.mark.parametrize("answer", ["", "I can't help with that."])
def test_an_empty_or_refused_answer_is_asked_again(user, model, answer):
    save_memory(user, ["Likes tea"])
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    model.reply(answer)
    with pytest.raises(PassRetry):
        pass_run(pass_id=memory_pass.pk)
    assert Memory.objects.get(user=user).version == 0
    assert saved_lines(user) == ["Likes tea"]
    memory_pass.refresh_from_db()
    assert memory_pass.status == MemoryPass.Status.QUEUED


def test_an_unreadable_answer_fails_without_touching_the_list(user, model):
    save_memory(user, ["Likes tea"])
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam", "Hi", "remember that"))
    model.reply("no list here")
    assert pass_run(pass_id=memory_pass.pk).outcome == Outcome.FAILED
    assert Memory.objects.get(user=user).version == 0
    assert saved_lines(user) == ["Likes tea"]


def test_nothing_to_read_after_a_clear_is_unchanged_with_no_model_call(user, model):
    last = chat(user, "I'm Sam", "Hi", "remember that")
    memory_clear(owner=owner_of(user))
    report = pass_run(pass_id=queue_pass(user, through=last).pk)
    assert report.outcome == Outcome.UNCHANGED
    assert model.calls() == []
    assert saved_lines(user) == []


def test_after_a_clear_a_pass_reads_only_newer_turns(user, model):
    first = chat(user, "I live in Hanoi.", "Lovely city.")
    memory_clear(owner=owner_of(user))
    last = chat(user, "My name is Sam.", "Hi Sam!", conversation=first.conversation)
    model.reply("- Name is Sam")
    pass_run(pass_id=queue_pass(user, through=last).pk)
    prompt = model.calls()[0][1]["content"]
    assert "Sam" in prompt and "Hanoi" not in prompt


def test_a_voice_pass_reads_its_session_after_the_last_clear(user, model):
    session = voice(user, "I used to work at Acme.")
    memory_clear(owner=owner_of(user))
    from chat.models import VoiceTurn

    VoiceTurn.objects.create(session=session, role="user", text="I work at Globex now.")
    model.reply("- Works at Globex")
    report = pass_run(pass_id=queue_pass(user, voice=session, trigger=MemoryPass.Trigger.VOICE).pk)
    assert report.outcome == Outcome.UPDATED
    system, prompt = model.calls()[0]
    assert "Globex" in prompt["content"] and "Acme" not in prompt["content"]
    assert "speech recognition" in system["content"]


def test_an_answer_that_leaves_lines_out_keeps_them(user, model):
    lines = ["Name is Sam", "Lives in Leeds", "Has a daughter, Ana", "Works as a nurse"]
    save_memory(user, lines)
    memory_pass = queue_pass(user, through=chat(user, "What's the weather?", "Sunny."))
    model.reply("- Likes sun")  # only the new line: an old-format answer that drops four
    assert pass_run(pass_id=memory_pass.pk).outcome == Outcome.UPDATED
    assert saved_lines(user) == [*lines, "Likes sun"]


def test_an_oversized_answer_is_saved_within_budget(user, model):
    from django.conf import settings

    said = "I'm Sam. " + " ".join(f"Sam's story, part {i}: a long and winding tale." for i in range(400))
    memory_pass = queue_pass(user, through=chat(user, said, "Hi", "remember that"))
    model.reply("\n".join(f"[+] Sam's story, part {i}: a long and winding tale" for i in range(400)))
    model.error("error")
    assert pass_run(pass_id=memory_pass.pk).outcome == Outcome.TRIMMED
    assert Memory.objects.get(user=user).tokens <= settings.WHIZI_MEMORY_MAX_TOKENS
    memory_pass.refresh_from_db()
    assert memory_pass.error == "compaction:server"
