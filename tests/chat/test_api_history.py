"""The app shows a conversation's history: GET /api/conversations/<id>/messages/ gives the
newest messages, oldest first, each reply with its memory mark, and a cursor to scroll
back that new messages never shift.

Personas:
- guest: reads their own conversations' messages.
- other user: every id of the guest's is a 404, as an unknown one.
- visitor: no guest yet; a 404, and no guest is made.
"""

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Guest
from chat.api import API_MESSAGES_PAGE_SIZE
from chat.models import Conversation, Message
from memory.models import MemoryChange, MemoryPass
from tests.chat.conftest import CHAT_A, api_client, owner_of, post_json

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _start(client) -> int:
    return post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]


def _history(client, conversation_id, **query):
    return client.get(f"/api/conversations/{conversation_id}/messages/", query)


def _filled(client, count: int) -> Conversation:
    chat = Conversation.objects.create(**owner_of(client).lookup, model=CHAT_A)
    Message.objects.bulk_create(
        Message(conversation=chat, role="user" if n % 2 == 0 else "assistant", content=f"message {n}",
                model="" if n % 2 == 0 else CHAT_A)
        for n in range(count))
    return chat


def test_the_app_reads_what_was_said_with_each_replys_memory_mark(guest, script_a):
    script_a.reply("Noted.").reply("Try a lentil curry.")
    chat = _start(guest)
    post_json(guest, f"/api/conversations/{chat}/messages/", {"content": "Remember that I am vegetarian"})
    post_json(guest, f"/api/conversations/{chat}/messages/", {"content": "What should I cook?"})

    pending = _history(guest, chat).json()
    first_reply = Message.objects.filter(role="assistant").order_by("id").first()
    memory_pass = MemoryPass.objects.get(through_message_id=first_reply.pk)
    MemoryPass.objects.filter(pk=memory_pass.pk).update(  # what the worker records
        status=MemoryPass.Status.DONE, outcome=MemoryPass.Outcome.UPDATED, finished_at=timezone.now())
    MemoryChange.objects.create(**owner_of(guest).lookup, memory_pass=memory_pass, reply_id=first_reply.pk,
                                kind="added", new_text="Is vegetarian")
    done = _history(guest, chat)

    assert done.status_code == 200 and "no-store" in done["Cache-Control"]
    messages = done.json()["messages"]
    assert [(m["role"], m["content"], m["model"]) for m in messages] == [
        ("user", "Remember that I am vegetarian", None), ("assistant", "Noted.", CHAT_A),
        ("user", "What should I cook?", None), ("assistant", "Try a lentil curry.", CHAT_A)]
    updated = {"state": "updated", "reason": None, "label": "Memory updated", "changes": [
        {"kind": "added", "old": None, "new": "Is vegetarian", "reason": None, "count": None,
         "text": "Added: Is vegetarian"}]}
    none = {"state": "none", "reason": None, "label": None, "changes": []}
    assert [m["memory_mark"] for m in messages] == [None, updated, None, none]
    assert [m["memory_mark"] for m in pending["messages"]][1]["state"] == "pending"
    assert messages[0]["created_at"] <= messages[-1]["created_at"]
    assert [m["id"] for m in messages] == sorted(m["id"] for m in messages)
    assert done.json()["before"] is None


def test_scrolling_back_reads_every_message_once_even_while_new_ones_arrive(guest):
    chat = _filled(guest, 2 * API_MESSAGES_PAGE_SIZE + 7)
    everything = list(chat.messages.order_by("id").values_list("content", flat=True))

    newest = _history(guest, chat.pk).json()
    Message.objects.create(conversation=chat, role="user", content="sent while scrolling back")
    middle = _history(guest, chat.pk, before=newest["before"]).json()
    oldest = _history(guest, chat.pk, before=middle["before"]).json()

    pages = [newest, middle, oldest]
    assert [len(page["messages"]) for page in pages] == [API_MESSAGES_PAGE_SIZE, API_MESSAGES_PAGE_SIZE, 7]
    read = [m["content"] for page in reversed(pages) for m in page["messages"]]
    assert read == everything
    assert oldest["before"] is None


def test_an_empty_conversation_has_no_messages_and_nothing_before(guest):
    assert _history(guest, _start(guest)).json() == {"messages": [], "before": None}


def test_someone_elses_conversation_is_a_404_and_a_visitor_becomes_no_guest(guest, make_user):
    chat = _filled(guest, 2)
    guests = Guest.objects.count()

    intruder = _history(api_client(make_user("mallory@example.com")), chat.pk)
    visitor = _history(Client(), chat.pk)
    unknown = _history(guest, 999_999)

    for response in (intruder, visitor, unknown):
        assert response.status_code == 404
        assert response.json()["error"]["title"] == "Not found"
    assert "message 0" not in intruder.content.decode()
    assert Guest.objects.count() == guests


@pytest.mark.parametrize(("before", "words"), [("soon", "before must be a whole number."),
                                               ("0", "before must be at least 1.")])
def test_a_cursor_that_is_not_one_is_a_400_naming_it(guest, before, words):
    chat = _filled(guest, 2)

    response = _history(guest, chat.pk, before=before)

    assert response.status_code == 400
    assert response.json()["error"] == {"title": "Invalid request", "message": words, "field": "before"}


def test_a_refused_cursor_is_told_in_the_requests_language(guest):
    chat = _filled(guest, 2)

    response = guest.get(f"/api/conversations/{chat.pk}/messages/?before=soon", HTTP_ACCEPT_LANGUAGE="vi")

    assert response.json()["error"]["title"] == "Yêu cầu không hợp lệ"
    assert response.json()["error"]["message"] != "before must be a whole number."
