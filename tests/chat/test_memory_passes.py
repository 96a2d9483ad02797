"""A reply saved through the API hands its exchange to memory, which queues the pass it
makes due (docs/DESIGN.md §2.3); the pass is published to the real broker after the
reply's commit, for the worker to run, and a reply that failed queues none. When a pass
is due (cadence, requests in six languages, one pass for a request on a sixth turn) is
memory's rule, tested once in tests/memory/test_passes.py."""

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


def test_a_failed_reply_queues_no_pass(guest, script_a):
    script_a.error("timeout")
    conversation_id = _conversation(guest)

    response = post_json(guest, f"/api/conversations/{conversation_id}/messages/",
                         {"content": "Remember that I am vegan"})

    assert response.status_code == 504
    assert MemoryPass.objects.count() == 0
    assert published_passes() == []
