"""Chat test set-up.

Personas:
- guest: a visitor with no account; may use chat, projects, voice and the API on their
  own conversations only.
- user: a signed-in account; the same, on the account's own conversations.
- other user: another account; every id of the user's is a 404 to them.

Chat models are scripted (`scripted/chat-a`, `scripted/chat-b`) beside the offline
model, so tests can read exactly what each model was sent (Script(name).calls()).
Chat requests read memory from a worker thread with its own database connection, so
tests that send messages commit their data: `django_db(transaction=True)`.
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.owner import GUEST_SESSION_KEY, Owner
from memory.models import Memory
from memory.reading import memory_read_skips
from memory.tokens import count_list_tokens
from tests.conftest import guest_start
from whizi.llm.scripted import Script

CHAT_A = "scripted/chat-a"
CHAT_B = "scripted/chat-b"
OFFLINE = "whizi/offline"


@pytest.fixture(autouse=True)
def chat_models(settings):
    settings.WHIZI_CHAT_MODELS = [CHAT_A, CHAT_B, OFFLINE]
    settings.WHIZI_MEMORY_READ_TIMEOUT = 2.0
    # A scripted queue gives one entry per call, so a retry would take the next test
    # answer; retries and fallbacks are tested against the fake provider instead.
    settings.WHIZI_CHAT_RETRIES = 0
    return settings.WHIZI_CHAT_MODELS


@pytest.fixture
def script_a() -> Script:
    return Script("chat-a").reset()


@pytest.fixture
def script_b() -> Script:
    return Script("chat-b").reset()


@pytest.fixture
def read_skips():
    """The memory reads skipped since the test started, by reason (counts only go up)."""
    before = memory_read_skips()
    return lambda: {reason: count - before[reason] for reason, count in memory_read_skips().items()}


@pytest.fixture(autouse=True)
def _empty_broker():
    """Passes are published to the real broker and no worker takes them here: start
    each test with an empty queue so a test can read what it published."""
    _purge()
    yield
    _purge()


def _purge() -> None:
    from whizi.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge("celery")


def published_passes() -> list[int]:
    """Pass ids waiting on the real broker for the memory worker."""
    from whizi.celery import app

    ids = []
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        for raw in client.lrange("celery", 0, -1):
            message = json.loads(raw)
            if message["headers"]["task"] == "memory.run_pass":
                ids.append(int(message["headers"]["argsrepr"].strip("(),")))
    return ids


def api_client(user=None) -> Client:
    """A client that must send the CSRF token, as the app does."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    client.get("/")  # sets the csrftoken cookie
    if user is None:
        guest_start(client)
    return client


def post_json(client: Client, path: str, data: object = None, **extra):
    body = "" if data is None else json.dumps(data)
    token = client.cookies["csrftoken"].value
    return client.post(path, data=body, content_type="application/json",
                       headers={"X-CSRFToken": token}, **extra)


def owner_of(client: Client, user=None) -> Owner:
    if user is not None:
        return Owner(user_id=user.pk)
    return Owner(guest_id=uuid.UUID(client.session[GUEST_SESSION_KEY]))


def save_memory(owner: Owner, lines: list[str]) -> Memory:
    return Memory.objects.create(**owner.lookup, lines=lines, tokens=count_list_tokens(lines), version=1)


def system_messages(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "system"]


def memory_messages(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "system" and "<memory>" in m["content"]]


@pytest.fixture
def guest():
    return api_client()


@pytest.fixture
def make_user(django_user_model):
    def _make(email: str = "ann@example.com"):
        return get_user_model().objects.create_user(email.split("@")[0], email, "pw-123456")

    return _make
