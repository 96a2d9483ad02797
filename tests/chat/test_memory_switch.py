"""The operator switch WHIZI_MEMORY_ENABLED (used by bench/load.py to measure what memory
costs). On, the default: every chat request carries the saved list and a remember
request queues a pass. Off: no memory block is sent and no pass is queued. Users have
no such switch; only the server's environment sets it."""

import pytest

from memory.models import MemoryPass
from tests.chat.conftest import (
    CHAT_A,
    memory_messages,
    owner_of,
    post_json,
    published_passes,
    save_memory,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FACTS = ["Name: Ann", "Lives in Đà Nẵng"]


def _chat_remember_request(guest) -> None:
    conversation_id = post_json(guest, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    response = post_json(guest, f"/api/conversations/{conversation_id}/messages/",
                         {"content": "Remember that I have a cat named Pixel"})
    assert response.status_code == 200, response.content


def test_by_default_the_list_is_sent_and_a_remember_request_queues_a_pass(guest, script_a):
    save_memory(owner_of(guest), FACTS)
    script_a.reply("I will.")

    _chat_remember_request(guest)

    [call] = script_a.calls()
    [block] = memory_messages(call)
    assert all(f"- {fact}" in block for fact in FACTS)
    [memory_pass] = MemoryPass.objects.all()
    assert published_passes() == [memory_pass.pk]


def test_with_memory_switched_off_no_list_is_sent_and_no_pass_is_queued(guest, script_a, settings):
    settings.WHIZI_MEMORY_ENABLED = False
    save_memory(owner_of(guest), FACTS)
    script_a.reply("I will.")

    _chat_remember_request(guest)

    [call] = script_a.calls()
    assert memory_messages(call) == []
    assert not any("Đà Nẵng" in message["content"] for message in call)
    assert MemoryPass.objects.count() == 0
    assert published_passes() == []
