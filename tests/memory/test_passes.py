"""When a pass is queued (docs/DESIGN.md §2.3): every 6 turns, right away on
a remember or forget request, once at the end of a voice session, after a merge over the
cap; never twice for one message, never with the operator switch off."""

import pytest
from django.utils import timezone

from accounts.owner import Owner
from chat.models import Message
from memory.models import MemoryPass
from memory.passes import pass_request
from memory.store import MemoryMerge

from .conftest import chat, queue_after_reply, voice

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def exchange(who, user_text, conversation=None, reply="OK."):
    user_message = chat(who, user_text, conversation=conversation)
    assistant = chat(who, reply, conversation=user_message.conversation)
    return user_message, assistant


def after_reply(user_message, assistant):
    return queue_after_reply(user_message, assistant)


def test_a_pass_is_queued_when_the_conversation_crosses_six_turns(user, django_capture_on_commit_callbacks):
    user_message, assistant = exchange(user, "Hi")
    conversation = user_message.conversation
    queued = [after_reply(user_message, assistant)]
    for text in ("How are you?", "Tell me a joke", "Another", "And one more", "Last"):
        with django_capture_on_commit_callbacks() as callbacks:
            queued.append(after_reply(*exchange(user, text, conversation)))
        if queued[-1] is not None:  # a worker takes it, so the next one is not joined to it
            MemoryPass.objects.filter(pk=queued[-1].pk).update(status=MemoryPass.Status.RUNNING,
                                                               started_at=timezone.now())
    turns_when_queued = [2 * (i + 1) for i, p in enumerate(queued) if p is not None]
    assert turns_when_queued == [6, 12]
    assert all(p.trigger == MemoryPass.Trigger.CADENCE for p in queued if p)
    assert MemoryPass.objects.count() == 2
    assert len(callbacks) == 1  # the last exchange (turn 12) published its pass on commit


@pytest.mark.parametrize("text", ["Remember that my name is Sam.", "nhớ điều đó nhé", "记住这个",
                                  "それを覚えて", "그거 기억해", "ingat itu", "Forget my old address."])
def test_a_request_queues_a_pass_right_away(user, text, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        memory_pass = after_reply(*exchange(user, text))
    assert memory_pass.trigger == MemoryPass.Trigger.REQUEST
    assert memory_pass.through_message_id == Message.objects.get(role="assistant").pk
    assert len(callbacks) == 1


def test_a_mention_queues_nothing_before_the_sixth_turn(user):
    assert after_reply(*exchange(user, "I can't remember where I parked.")) is None
    assert MemoryPass.objects.count() == 0


def test_a_sixth_turn_that_is_also_a_request_queues_one_pass(user):
    user_message, assistant = exchange(user, "Hi")
    conversation = user_message.conversation
    after_reply(*exchange(user, "Hello again", conversation))
    memory_pass = after_reply(*exchange(user, "Please remember I'm vegetarian.", conversation))
    assert conversation.messages.count() == 6
    assert memory_pass.trigger == MemoryPass.Trigger.REQUEST
    assert MemoryPass.objects.count() == 1


def test_a_voice_session_queues_one_pass_at_its_end(user, django_capture_on_commit_callbacks):
    session = voice(user, "I'm Sam.", "Hi Sam.")
    with django_capture_on_commit_callbacks() as callbacks:
        first = pass_request(owner=Owner.of(session), trigger=MemoryPass.Trigger.VOICE,
                             voice_session_id=session.pk)
        second = pass_request(owner=Owner.of(session), trigger=MemoryPass.Trigger.VOICE,
                              voice_session_id=session.pk)
    assert first.trigger == MemoryPass.Trigger.VOICE and first.voice_session_id == session.pk
    assert second is None
    assert len(callbacks) == 1


@pytest.mark.parametrize("before,after,due", [(0, 2, False), (4, 6, True), (5, 7, True), (6, 8, False),
                                              (10, 12, True), (12, 14, False)])
def test_the_cadence_is_every_multiple_of_six(user, before, after, due):
    owner = Owner(user_id=user.pk)
    memory_pass = pass_request(owner=owner, trigger=MemoryPass.Trigger.CADENCE, turns_after=after)
    assert (memory_pass is not None) is due


def test_no_pass_is_queued_with_the_operator_switch_off(user, settings):
    settings.WHIZI_MEMORY_ENABLED = False
    assert after_reply(*exchange(user, "Remember that my name is Sam.")) is None
    over_cap = MemoryMerge(lines=[], tokens=0, over_budget=True)
    owner = Owner(user_id=user.pk)
    assert pass_request(owner=owner, trigger=MemoryPass.Trigger.MERGE, merge=over_cap) is None
    assert MemoryPass.objects.count() == 0
