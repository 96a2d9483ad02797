"""An account deleted while the model is still writing a reply: the reply is not saved
anywhere, and the request that was waiting for it is told the conversation is gone.

Personas: the user, whose browser sent a message; support, who deletes the account
while the chat model (scripted, held at a gate) has not answered yet.
"""

from __future__ import annotations

import threading
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.db import connections
from django.test import AsyncClient, Client

from accounts.owner import Owner
from chat.models import Conversation, Message
from tests.lifecycle.helpers import make_user, owned_rows
from whizi.llm.scripted import Script

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def model(settings) -> Script:
    script = Script("deletion-gate").reset()
    settings.WHIZI_CHAT_MODELS = [script.model]
    settings.WHIZI_CHAT_RETRIES = 0
    yield script
    script.reset()


@pytest.fixture
def chatting(model):
    user = make_user("mai@example.com")
    conversation = Conversation.objects.create(user=user, model=model.model)
    return user, conversation


def _in_thread(request) -> dict[str, object]:
    """Run `request` in a browser's thread of its own; the dict fills in when it is done."""
    done: dict[str, object] = {}

    def run() -> None:
        try:
            done["response"] = request()
        finally:
            connections.close_all()

    done["thread"] = thread = threading.Thread(target=run)
    thread.start()
    return done


def _delete_while_the_model_writes(model: Script, user_id: int, sent: dict[str, object]):
    assert model.wait_arrived("reply")
    call_command("delete_account", str(user_id), "--noinput", stdout=StringIO())
    model.release("reply")
    sent["thread"].join(timeout=60)
    return sent["response"]


def test_a_reply_finished_after_the_account_was_deleted_is_a_404_and_saves_nothing(model, chatting):
    user, conversation = chatting
    browser = Client(raise_request_exception=False)
    browser.force_login(user)
    model.gate("reply", "Noted: you like tea.")

    sent = _in_thread(lambda: browser.post(f"/api/conversations/{conversation.pk}/messages/",
                                           {"content": "Remember that I like tea."},
                                           content_type="application/json"))
    response = _delete_while_the_model_writes(model, user.pk, sent)

    assert response.status_code == 404
    assert response.json()["error"]["title"] == "Not found"
    assert set(owned_rows(user.pk).values()) == {0}
    assert not Message.objects.filter(conversation_id=conversation.pk).exists()


def test_a_streamed_reply_finished_after_the_account_was_deleted_ends_with_a_not_found_event(
        model, chatting):
    user, conversation = chatting
    model.gate("reply", "Noted: you like tea.")

    async def stream() -> tuple[int, str]:
        browser = AsyncClient(raise_request_exception=False)
        await browser.aforce_login(user)
        response = await browser.post("/send/stream/", {"content": "Remember that I like tea.",
                                                        "conversation": str(conversation.pk)})
        return response.status_code, b"".join([chunk async for chunk in response.streaming_content]).decode()

    sent = _in_thread(async_to_sync(stream))
    status, body = _delete_while_the_model_writes(model, user.pk, sent)

    assert status == 200  # the stream had started before the deletion
    last_event = body.strip().split("\n\n")[-1]
    assert last_event.startswith("event: error") and '"status": 404' in last_event
    assert set(owned_rows(user.pk).values()) == {0}
    assert not Conversation.objects.filter(**Owner(user_id=user.pk).lookup).exists()
