"""After a reply is saved, the memory triggers queue a pass (docs/DESIGN.md §2.3): every 6 turns,
or at once on a remember/forget request; never two for one exchange. The pass is
published to the real broker after the reply's commit, for the worker to run."""

import pytest

from chat.models import Message
from memory.models import MemoryPass
from tests.chat.conftest import CHAT_A, post_json, published_passes

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _conversation(client) -> int:
    return post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]


def _send(client, conversation_id, content):
    response = post_json(client, f"/api/conversations/{conversation_id}/messages/", {"content": content})
    assert response.status_code == 200, response.content
    return response.json()


def test_the_third_reply_reaches_six_turns_and_queues_a_cadence_pass(guest, script_a):
    script_a.reply("One.").reply("Two.").reply("Three.")
    conversation_id = _conversation(guest)

    _send(guest, conversation_id, "I work as a nurse")
    _send(guest, conversation_id, "Mostly night shifts")
    assert MemoryPass.objects.count() == 0
    assert published_passes() == []

    answer = _send(guest, conversation_id, "It is tiring")

    assert answer["turns"] == 6
    [memory_pass] = MemoryPass.objects.all()
    last_reply = Message.objects.filter(conversation_id=conversation_id, role="assistant").last()
    assert memory_pass.trigger == MemoryPass.Trigger.CADENCE
    assert memory_pass.status == MemoryPass.Status.QUEUED
    assert memory_pass.through_message_id == last_reply.pk  # it reads up to the saved reply
    assert memory_pass.guest_id == last_reply.conversation.guest_id
    assert published_passes() == [memory_pass.pk]


def test_an_explicit_request_queues_a_pass_right_after_that_reply(guest, script_a):
    script_a.reply("Nice to meet you, Ann.").reply("I will.")
    conversation_id = _conversation(guest)
    _send(guest, conversation_id, "My name is Ann")

    _send(guest, conversation_id, "Remember that")

    [memory_pass] = MemoryPass.objects.all()
    assert memory_pass.trigger == MemoryPass.Trigger.REQUEST
    assert Message.objects.get(pk=memory_pass.through_message_id).content == "I will."
    assert published_passes() == [memory_pass.pk]


def test_a_request_on_the_sixth_turn_queues_one_pass_not_two(guest, script_a):
    script_a.reply("One.").reply("Two.").reply("Noted.")
    conversation_id = _conversation(guest)
    _send(guest, conversation_id, "Hi")
    _send(guest, conversation_id, "I like green tea")

    answer = _send(guest, conversation_id, "Please remember that I like green tea")

    assert answer["turns"] == 6
    [memory_pass] = MemoryPass.objects.all()
    assert memory_pass.trigger == MemoryPass.Trigger.REQUEST
    assert published_passes() == [memory_pass.pk]


def test_a_failed_reply_queues_no_pass(guest, script_a):
    script_a.error("timeout")
    conversation_id = _conversation(guest)

    response = post_json(guest, f"/api/conversations/{conversation_id}/messages/",
                         {"content": "Remember that I am vegan"})

    assert response.status_code == 504
    assert MemoryPass.objects.count() == 0
    assert published_passes() == []
