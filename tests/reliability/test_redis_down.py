"""Redis down: chat still answers, memory is still shown, and no pass is lost.

Redis here is a redis-server of the test's own that the test stops. It is Whizi's broker
and cache (and rate-limit counter) for the length of the outage. Memory is read from
PostgreSQL and there is no Redis copy of it, so the reply still carries the memory block
during the outage (better than going without it). The pass the reply made due is kept in
PostgreSQL, and the sweep publishes it once Redis is back.

The scripted chat and memory models keep their canned answers in the suite's own Redis:
that is the fake model's storage, not Whizi's, and it stays up.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client, override_settings
from django.utils import timezone

from chat.models import Message
from memory.models import Memory, MemoryPass
from memory.sweep import pass_sweep
from offline.provider import OFFLINE_NOTICE
from whizi.llm.scripted import Script

from .conftest import broker_at, cache_settings, redis_db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FACTS = ["Name is Sam Okafor", "Lives in Leeds"]


@pytest.fixture
def chat_model(settings) -> Script:
    settings.WHIZI_CHAT_MODELS = ["scripted/chat-a", "whizi/offline"]
    # The read runs in a thread with its own connection; give it room on a busy machine.
    settings.WHIZI_MEMORY_READ_TIMEOUT = 2.0
    return Script("chat-a").reset()


def signed_in(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/")  # the csrftoken cookie, as the app gets it
    return client


def post_json(client: Client, path: str, data: dict):
    return client.post(path, data=json.dumps(data), content_type="application/json",
                       headers={"X-CSRFToken": client.cookies["csrftoken"].value})


@contextlib.contextmanager
def redis_down(redis_url: str) -> Iterator[None]:
    """Whizi's broker and cache both point at the stopped server."""
    with override_settings(CACHES=cache_settings(redis_db(redis_url, 1))), broker_at(redis_url):
        yield


def chat_during_outage(client: Client, chat_model: Script) -> dict:
    chat_model.reply("Nice to meet Miso, Sam!")
    conversation = post_json(client, "/api/conversations/", {"model": "scripted/chat-a"})
    assert conversation.status_code == 201
    reply = post_json(client, f"/api/conversations/{conversation.json()['id']}/messages/",
                      {"content": "Please remember that I have a cat called Miso."})
    assert reply.status_code == 200, reply.content
    return reply.json()


def test_with_redis_down_chat_replies_with_the_memory_block_and_settings_show_the_list(
    user, chat_model, private_redis
):
    Memory.objects.create(user=user, lines=FACTS, tokens=12, version=1)
    client = signed_in(user)
    private_redis.stop()

    with redis_down(private_redis.url):
        body = chat_during_outage(client, chat_model)
        settings_page = client.get("/settings/?memory=open")
        api = client.get("/api/memory/")

    assert body["reply"] == "Nice to meet Miso, Sam!"
    # Memory lives in PostgreSQL only, so the outage does not cost the reply its memory.
    sent = chat_model.calls()[-1]
    memory_block = [m["content"] for m in sent if m["role"] == "system" and "<memory>" in m["content"]]
    assert len(memory_block) == 1
    assert "- Name is Sam Okafor\n- Lives in Leeds" in memory_block[0]

    assert settings_page.status_code == 200
    page = settings_page.content.decode()
    assert "Name is Sam Okafor" in page and "Lives in Leeds" in page
    assert "Memory is unavailable right now" not in page
    assert api.status_code == 200 and api.json()["facts"] == FACTS

    # Nothing lost: both turns are saved, the list is as it was, the pass is recorded.
    assert list(Message.objects.filter(conversation__user=user).values_list("role", flat=True)) == [
        "user", "assistant"]
    assert Memory.objects.get(user=user).lines == FACTS
    memory_pass = MemoryPass.objects.get(user=user)
    assert (memory_pass.status, memory_pass.attempts) == (MemoryPass.Status.QUEUED, 0)
    assert memory_pass.through_message_id == Message.objects.get(conversation__user=user, role="assistant").pk


@pytest.mark.worker
def test_a_pass_due_while_redis_was_down_is_published_by_the_sweep_and_run(
    user, chat_model, private_redis, workers, script, wait_for
):
    Memory.objects.create(user=user, lines=FACTS, tokens=12, version=1)
    client = signed_in(user)
    private_redis.stop()
    with redis_down(private_redis.url):
        chat_during_outage(client, chat_model)
        memory_pass = MemoryPass.objects.get(user=user)
        # A minute later the sweep finds it, but cannot publish yet: nothing changes.
        MemoryPass.objects.filter(pk=memory_pass.pk).update(
            created_at=timezone.now() - timedelta(minutes=2))
        still_down = pass_sweep()
    assert still_down.published == [] and still_down.broker_error
    memory_pass.refresh_from_db()
    assert (memory_pass.status, memory_pass.attempts) == (MemoryPass.Status.QUEUED, 0)

    private_redis.start()
    with broker_at(private_redis.url):
        # A worker on the recovered broker (its scripted model reads the suite's Redis).
        workers.start(REDIS_URL=private_redis.url, REDIS_CACHE_URL=django_settings.REDIS_CACHE_URL)
        script.reply("- Name is Sam Okafor\n- Lives in Leeds\n- Has a cat called Miso")
        report = pass_sweep()
    assert report.published == [memory_pass.pk]

    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, status="done").exists())
    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.attempts) == (MemoryPass.Outcome.UPDATED, 1)
    assert Memory.objects.get(user=user).lines == [*FACTS, "Has a cat called Miso"]
    prompt = script.calls()[0][1]["content"]
    assert "cat called Miso" in prompt


def test_rate_limits_let_chat_through_when_redis_cannot_count(user, settings, private_redis):
    # Chat fails open on purpose: an outage of the counter must not take chat down.
    settings.WHIZI_CHAT_MODELS = ["whizi/offline"]
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.WHIZI_RATE_LIMITS = {**settings.WHIZI_RATE_LIMITS, "chat_message": (1, 1)}
    client = signed_in(user)
    private_redis.stop()
    settings.REDIS_CACHE_URL = redis_db(private_redis.url, 1)

    with redis_down(private_redis.url):
        conversation = post_json(client, "/api/conversations/", {})
        url = f"/api/conversations/{conversation.json()['id']}/messages/"
        replies = [post_json(client, url, {"content": f"Hello number {n}"}) for n in range(3)]
        form = client.post("/send/", {"content": "And from the page",
                                      "csrfmiddlewaretoken": client.cookies["csrftoken"].value})

    assert [r.status_code for r in replies] == [200, 200, 200]
    assert OFFLINE_NOTICE in replies[0].json()["reply"]
    assert form.status_code == 302
    assert Message.objects.filter(conversation__user=user).count() == 8
