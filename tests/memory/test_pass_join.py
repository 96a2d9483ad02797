"""At most one chat pass per conversation waits for a worker (memory.passes): a reply that
makes a pass due while one is queued and not yet started joins it, and the joined pass
reads every turn a separate pass would have read.

Promises: later turns join the waiting pass (through the newer reply, a request
upgrading a cadence pass, published once); a pass a worker has started, or that waits
for a retry, is never joined; another conversation, a voice pass and a merge's
compaction stay separate; a pass joined by more than 6 turns still saves every fact.
"""

import pytest
from django.utils import timezone

from accounts.owner import Owner
from memory.models import MemoryPass
from memory.passes import pass_request
from memory.run import pass_release, pass_run
from memory.sources import pass_turns
from memory.store import MemoryMerge

from .conftest import chat, queue_after_reply, saved_lines, voice

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Trigger = MemoryPass.Trigger


def send(who, user_text, conversation=None, reply="OK."):
    """One exchange as chat saves it: the user's message, the reply, then the pass check."""
    user_message = chat(who, user_text, conversation=conversation)
    assistant = chat(who, reply, conversation=user_message.conversation)
    return queue_after_reply(user_message, assistant), assistant


def start(memory_pass: MemoryPass) -> None:
    """What a worker's claim does to the row (memory.run)."""
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status=MemoryPass.Status.RUNNING,
                                                        started_at=timezone.now())


def test_later_requests_join_the_waiting_pass(user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as first_publish:
        waiting, first_reply = send(user, "Remember that I'm Sam.")
    conversation = first_reply.conversation
    with django_capture_on_commit_callbacks() as later_publishes:
        joined, _ = send(user, "Remember that I live in Leeds.", conversation)
        again, last_reply = send(user, "Please remember I play the cello.", conversation)

    assert joined.pk == again.pk == waiting.pk
    assert MemoryPass.objects.count() == 1
    waiting.refresh_from_db()
    assert waiting.through_message_id == last_reply.pk
    assert waiting.first_through_message_id == first_reply.pk
    assert waiting.conversation_id == conversation.pk
    assert (len(first_publish), len(later_publishes)) == (1, 0)  # the waiting pass's message stands


def test_a_request_upgrades_a_waiting_cadence_pass_and_a_cadence_turn_keeps_a_request(user):
    _, reply = send(user, "Hi")
    send(user, "How are you?", reply.conversation)
    cadence, _ = send(user, "Tell me a joke", reply.conversation)  # turn 6
    assert cadence.trigger == Trigger.CADENCE
    upgraded, _ = send(user, "Remember that I'm vegetarian.", reply.conversation)
    assert upgraded.pk == cadence.pk and upgraded.trigger == Trigger.REQUEST

    send(user, "Another", reply.conversation)
    kept, _ = send(user, "And one more", reply.conversation)  # turn 12: cadence
    assert kept.pk == cadence.pk and kept.trigger == Trigger.REQUEST
    assert MemoryPass.objects.count() == 1


def test_a_started_pass_is_not_joined(user, django_capture_on_commit_callbacks):
    running, reply = send(user, "Remember that I'm Sam.")
    start(running)
    with django_capture_on_commit_callbacks() as publishes:
        fresh, fresh_reply = send(user, "Remember that I live in Leeds.", reply.conversation)

    assert fresh.pk != running.pk
    assert fresh.status == MemoryPass.Status.QUEUED
    assert fresh.first_through_message_id == fresh.through_message_id == fresh_reply.pk
    running.refresh_from_db()
    assert running.through_message_id == reply.pk
    assert len(publishes) == 1


def test_a_pass_waiting_for_its_retry_is_not_joined(user):
    retrying, reply = send(user, "Remember that I'm Sam.")
    start(retrying)
    pass_release(pass_id=retrying.pk, error="model:timeout")  # queued again, started_at kept
    fresh, _ = send(user, "Remember that I live in Leeds.", reply.conversation)
    assert fresh.pk != retrying.pk
    retrying.refresh_from_db()
    assert retrying.through_message_id == reply.pk


def test_another_conversation_gets_its_own_pass(user, guest):
    first, reply = send(user, "Remember that I'm Sam.")
    other, other_reply = send(user, "Remember that I live in Leeds.")
    guests, _ = send(guest, "Remember that I'm Kim.")
    assert len({first.pk, other.pk, guests.pk}) == 3
    assert other.through_message_id == other_reply.pk
    first.refresh_from_db()
    assert first.through_message_id == reply.pk


def test_voice_and_merge_passes_stay_separate_from_a_chat_pass(user):
    owner = Owner(user_id=user.pk)
    session = voice(user, "I'm Sam.", "Hi Sam.")
    voice_pass = pass_request(owner=owner, trigger=Trigger.VOICE, voice_session_id=session.pk)
    merge_pass = pass_request(owner=owner, trigger=Trigger.MERGE,
                              merge=MemoryMerge(lines=[], tokens=0, over_budget=True))
    chat_pass, _ = send(user, "Remember that I live in Leeds.")
    assert len({voice_pass.pk, merge_pass.pk, chat_pass.pk}) == 3
    assert MemoryPass.objects.filter(through_message_id__isnull=True).count() == 2


def test_the_joined_pass_reads_six_turns_through_its_first_reply_and_every_later_turn(user):
    _, opening = send(user, "Hello there")
    conversation = opening.conversation
    send(user, "Nice weather", conversation)
    waiting, _ = send(user, "Remember that I'm Sam.", conversation)
    for text in ("Remember that I live in Leeds.", "Remember that I play the cello.",
                 "Remember that my sister is Ana."):
        send(user, text, conversation)

    waiting.refresh_from_db()
    read = [turn.content for turn in pass_turns(waiting, cleared_at=None)]
    said = list(conversation.messages.order_by("id").values_list("content", flat=True))
    assert read == said  # 6 turns through the first reply, then the 6 that joined


def test_a_pass_joined_by_more_than_six_turns_saves_every_fact(user, settings):
    """Four requests wait in one pass: a pass reading only the last 6 turns would miss the
    first one ("Sam"), so the pass reads from its first reply on."""
    settings.WHIZI_MEMORY_MODEL = "whizi/offline"
    waiting, reply = send(user, "Remember that my name is Sam.")
    for text in ("Remember that I live in Leeds.", "Remember that I play the cello.",
                 "Remember that my sister is called Ana."):
        joined, _ = send(user, text, reply.conversation)
        assert joined.pk == waiting.pk

    pass_run(pass_id=waiting.pk)

    saved = " | ".join(saved_lines(user))
    for fact in ("Sam", "Leeds", "cello", "Ana"):
        assert fact in saved, saved
