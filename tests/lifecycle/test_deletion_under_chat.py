"""`delete_account` completes while the account is in use, and nobody sees a 500.

Round after round, an account is deleted while its browsers keep using it through the
real request stack (Django's ASGI handler): new conversations and "Remember that …"
messages on the JSON API, the page's streamed replies, voice sessions, memory passes
run as the worker runs them, and guests logging in to it and adding their guest data (a
guest merge). Everything is real; the chat and memory models are the offline model.

Personas: the user, signed in on several browsers, whose account support deletes; a
guest who logs in to that account and adds what they did as a guest while it is being
deleted.
"""

from __future__ import annotations

import collections
import json
import re
import threading
from collections.abc import Awaitable, Callable
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connections
from django.test import AsyncClient, Client

from accounts.models import Preference
from accounts.owner import Owner
from bench.stack import broker_purge
from memory.models import MemoryPass
from memory.run import pass_run
from tests.lifecycle.helpers import PASSWORD, give_history, make_user, owned_rows

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROUNDS = 10
# Requests each browser still sends once the deletion is done: they meet the deleted account.
AFTER_DELETION = 3
# What a chat request may answer while its account is deleted under it: its work, or
# "that is gone" — never a server error.
CHAT_ANSWERS = {200, 201, 202, 204, 401, 404}


@pytest.fixture(autouse=True)
def _offline_models(settings):
    settings.WHIZI_CHAT_MODELS = ["whizi/offline"]
    settings.WHIZI_MEMORY_MODEL = "whizi/offline"
    broker_purge()  # the passes are run here, as the worker would; their messages go
    yield
    broker_purge()


class Traffic:
    """What every browser got, across the threads."""

    def __init__(self, browsers: int) -> None:
        self.lock = threading.Lock()
        self.chat: collections.Counter[int] = collections.Counter()
        self.logins: collections.Counter[int] = collections.Counter()
        self.failures: list[str] = []
        self.answered = [0] * browsers
        self.deleted = threading.Event()

    def count(self, counter: collections.Counter[int], status: int) -> None:
        with self.lock:
            counter[status] += 1

    def failed(self, what: str) -> None:
        with self.lock:
            self.failures.append(what)


def _signed_in(user) -> AsyncClient:
    browser = Client()
    browser.force_login(user)
    client = AsyncClient(raise_request_exception=False)
    client.cookies = browser.cookies
    return client


def _stream_events(raw: bytes) -> list[str]:
    return [line[len("event: "):] for line in raw.decode().split("\n") if line.startswith("event: ")]


def _run_browser(traffic: Traffic, index: int, step: Callable[[int], Awaitable[None]]) -> None:
    """Send requests until the deletion is done, then AFTER_DELETION more."""

    async def browse() -> None:
        after = counter = 0
        while after < AFTER_DELETION:
            if traffic.deleted.is_set():
                after += 1
            counter += 1
            try:
                await step(counter)
            except Exception as exc:  # a stream that broke off, anything the client raised
                traffic.failed(f"{step.__name__}: {type(exc).__name__}: {exc}")
            traffic.answered[index] += 1

    try:
        async_to_sync(browse)()
    finally:
        connections.close_all()


def _browsers(traffic: Traffic, user, conversation_id: int) -> list[Callable[[int], Awaitable[None]]]:
    api, same, page, voice = (_signed_in(user) for _ in range(4))

    async def api_new_conversation(counter: int) -> None:
        started = await api.post("/api/conversations/", {}, content_type="application/json")
        traffic.count(traffic.chat, started.status_code)
        if started.status_code == 201:
            path = f"/api/conversations/{json.loads(started.content)['id']}/messages/"
            for text in (f"Remember that my locker number is {counter}.", "What do you remember?"):
                sent = await api.post(path, {"content": text}, content_type="application/json")
                traffic.count(traffic.chat, sent.status_code)

    async def api_same_conversation(counter: int) -> None:
        sent = await same.post(f"/api/conversations/{conversation_id}/messages/",
                               {"content": f"Remember that I like tea number {counter}."},
                               content_type="application/json")
        traffic.count(traffic.chat, sent.status_code)

    async def page_stream(counter: int) -> None:
        fields = {"content": f"Remember that my bike is blue {counter}."}
        if counter % 2:
            fields["conversation"] = str(conversation_id)
        response = await page.post("/send/stream/", fields)
        traffic.count(traffic.chat, response.status_code)
        if response.status_code == 200:
            events = _stream_events(b"".join([chunk async for chunk in response.streaming_content]))
            if events[-1:] not in (["done"], ["error"]):
                traffic.failed(f"a stream ended with {events[-1:]}")

    async def voice_session(counter: int) -> None:
        started = await voice.post("/api/voice/sessions/", {}, content_type="application/json")
        traffic.count(traffic.chat, started.status_code)
        if started.status_code == 201:
            path = f"/api/voice/sessions/{json.loads(started.content)['id']}"
            turn = {"role": "user", "text": f"My plant is called Fern {counter}."}
            for url, body in ((f"{path}/transcript/", turn), (f"{path}/end/", {})):
                sent = await voice.post(url, body, content_type="application/json")
                traffic.count(traffic.chat, sent.status_code)

    async def guest_logs_in(counter: int) -> None:
        guest = AsyncClient(raise_request_exception=False)
        started = await guest.post("/api/conversations/", {}, content_type="application/json")
        traffic.count(traffic.chat, started.status_code)
        path = f"/api/conversations/{json.loads(started.content)['id']}/messages/"
        sent = await guest.post(path, {"content": f"Remember that my cat is Miso {counter}."},
                                content_type="application/json")
        traffic.count(traffic.chat, sent.status_code)
        logged_in = await guest.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
        traffic.count(traffic.logins, logged_in.status_code)
        if logged_in.status_code != 302:
            return
        page = await guest.get("/")  # where the login lands: it offers the guest's data
        traffic.count(traffic.chat, page.status_code)
        offer = re.search(r'name="offer" value="([0-9a-f]+)"', page.content.decode())
        if offer:
            added = await guest.post("/guest-offer/add/", {"offer": offer.group(1), "next": "/"})
            traffic.count(traffic.logins, added.status_code)

    return [api_new_conversation, api_same_conversation, page_stream, voice_session, guest_logs_in]


def _run_passes(traffic: Traffic, index: int, user_id: int) -> None:
    """The memory passes the account's chats queue, run as the worker runs them."""
    after = 0
    try:
        while after < AFTER_DELETION:
            if traffic.deleted.is_set():
                after += 1
            queued = MemoryPass.objects.filter(user_id=user_id, status=MemoryPass.Status.QUEUED)
            for pass_id in queued.values_list("pk", flat=True)[:3]:
                try:
                    pass_run(pass_id=pass_id)
                except Exception as exc:
                    traffic.failed(f"memory pass: {type(exc).__name__}: {exc}")
            traffic.answered[index] += 1
    finally:
        connections.close_all()


def _delete_during_traffic(number: int) -> tuple[int, Traffic, str]:
    user = make_user(f"mai{number}@example.com")
    history = give_history(Owner(user_id=user.pk), facts=["Name is Mai"])
    Preference.objects.create(user=user, language="vi")
    steps = _browsers(traffic := Traffic(browsers=6), user, history.conversation.pk)
    threads = [threading.Thread(target=_run_browser, args=(traffic, i, step)) for i, step in enumerate(steps)]
    threads.append(threading.Thread(target=_run_passes, args=(traffic, len(steps), user.pk)))
    for thread in threads:
        thread.start()
    out = StringIO()
    try:
        # Every browser has had answers and the account holds their work: now delete it.
        while min(traffic.answered) < 2 and all(thread.is_alive() for thread in threads):
            traffic.deleted.wait(0.05)
        call_command("delete_account", str(user.pk), "--noinput", stdout=out)
    finally:
        traffic.deleted.set()
        for thread in threads:
            thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return user.pk, traffic, out.getvalue()


def test_an_account_deleted_while_it_chats_is_gone_entirely_and_no_request_fails():
    chat: collections.Counter[int] = collections.Counter()
    logins: collections.Counter[int] = collections.Counter()
    conversations_removed = 0
    for number in range(ROUNDS):
        user_id, traffic, printed = _delete_during_traffic(number)

        assert f"Deleted account {user_id}" in printed
        assert not get_user_model().objects.filter(pk=user_id).exists()
        assert set(owned_rows(user_id).values()) == {0}, owned_rows(user_id)
        assert traffic.failures == []
        chat.update(traffic.chat)
        logins.update(traffic.logins)
        conversations_removed += int(printed.split("conversations: ")[1].split()[0])

    assert set(chat) <= CHAT_ANSWERS, chat
    assert set(logins) <= {200, 302, 404}, logins  # signed in, "no such account", or gone meanwhile
    # The deletions met real traffic: they removed what the browsers had started, and
    # requests after them found the account gone.
    assert conversations_removed > ROUNDS and chat[404] > 0
