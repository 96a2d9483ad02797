"""Chats start a few at a time on one process, other pages first (chat.admission): a
place is given back once the model call is on its way, when the request is answered, or
by its timer whatever the chat waits on, and never twice."""

import asyncio

import pytest
from asgiref import sync
from django.test import AsyncClient

from chat.admission import chat_start_admit, chat_start_line
from tests.chat.conftest import CHAT_A, api_client, post_json


def test_a_chat_waits_for_a_place_and_gets_the_one_given_back(settings):
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 2
    settings.WHIZI_CHAT_START_HOLD_MS = 60_000  # only an explicit release frees a place here

    async def run():
        first, second = await chat_start_admit(), await chat_start_admit()
        third = asyncio.create_task(chat_start_admit())
        await asyncio.sleep(0.05)
        waited = not third.done()
        first.release()
        first.release()  # given back once, however often it is called
        admitted = await asyncio.wait_for(third, timeout=10)
        fourth = asyncio.create_task(chat_start_admit())
        await asyncio.sleep(0.05)
        still_full = not fourth.done()
        for admission in (second, admitted):
            admission.release()
        (await asyncio.wait_for(fourth, timeout=10)).release()
        return waited, still_full

    assert asyncio.run(run()) == (True, True)


def test_a_chat_that_hangs_gives_its_place_back_on_its_timer(settings):
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 1
    settings.WHIZI_CHAT_START_HOLD_MS = 50

    async def run():
        await chat_start_admit()  # never released by hand: a provider that never answers
        return await asyncio.wait_for(chat_start_admit(), timeout=10)

    asyncio.run(run()).release()


def test_no_limit_admits_at_once(settings):
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 0

    async def run():
        return [await chat_start_admit() for _ in range(100)]

    assert len(asyncio.run(run())) == 100


def test_while_a_page_is_served_chats_start_one_at_a_time(settings):
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 4
    settings.WHIZI_CHAT_STARTS_BESIDE_PAGES = 1
    settings.WHIZI_CHAT_START_HOLD_MS = 60_000

    async def run():
        line = chat_start_line()
        line.page_begin()
        first = await chat_start_admit()
        second = asyncio.create_task(chat_start_admit())
        await asyncio.sleep(0.05)
        waited_for_the_page = not second.done()
        line.page_end()  # the page is answered: up to four again
        admitted = await asyncio.wait_for(second, timeout=10)
        third = await asyncio.wait_for(chat_start_admit(), timeout=10)
        for admission in (first, admitted, third):
            admission.release()
        return waited_for_the_page, line.starting

    assert asyncio.run(run()) == (True, 0)


def test_a_chat_that_goes_away_while_waiting_leaves_the_line(settings):
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 1
    settings.WHIZI_CHAT_START_HOLD_MS = 60_000

    async def run():
        first = await chat_start_admit()
        gone = asyncio.create_task(chat_start_admit())
        await asyncio.sleep(0.01)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        first.release()
        (await asyncio.wait_for(chat_start_admit(), timeout=10)).release()
        return chat_start_line().starting, len(chat_start_line().waiting)

    assert asyncio.run(run()) == (0, 0)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_chat_waits_for_its_turn_before_its_session_is_read_and_a_page_does_not(settings, script_a):
    """The line comes before the middleware: a chat waiting holds no thread and no
    connection, and a settings page is served meanwhile."""
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 1
    settings.WHIZI_CHAT_START_HOLD_MS = 60_000
    script_a.reply("Hello.")
    client = api_client()
    conversation_id = post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    browser = AsyncClient()
    browser.cookies = client.cookies
    steps: list[str] = []
    original = sync.SyncToAsync.__call__

    def counted(self, *args, **kwargs):
        steps.append(getattr(self.func, "__qualname__", repr(self.func)))
        return original(self, *args, **kwargs)

    async def run():
        held = await chat_start_admit()  # the one place is taken
        steps.clear()
        chat = asyncio.create_task(browser.post(
            f"/api/conversations/{conversation_id}/messages/", {"content": "Hi"},
            content_type="application/json", headers={"X-CSRFToken": client.cookies["csrftoken"].value}))
        await asyncio.sleep(0.2)
        steps_while_waiting = [step for step in steps if "Signal" not in step]
        page = await browser.get("/settings/")
        waiting = not chat.done()
        held.release()
        reply = await asyncio.wait_for(chat, timeout=30)
        return steps_while_waiting, page.status_code, waiting, reply.status_code, chat_start_line().starting

    sync.SyncToAsync.__call__ = counted
    try:
        steps_while_waiting, page, waiting, reply, starting = asyncio.run(run())
    finally:
        sync.SyncToAsync.__call__ = original
    assert steps_while_waiting == []
    assert (page, waiting, reply, starting) == (200, True, 200, 0)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_chat_refused_before_its_view_gives_its_place_back_at_once(settings):
    """Refused by a middleware (here CSRF), the view never runs to give the place back:
    the answer does, not the timer."""
    settings.WHIZI_CHAT_STARTS_AT_ONCE = 1
    settings.WHIZI_CHAT_START_HOLD_MS = 60_000
    client = api_client()
    conversation_id = post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    browser = AsyncClient(enforce_csrf_checks=True)
    browser.cookies = client.cookies

    async def run():
        refused = await browser.post(f"/api/conversations/{conversation_id}/messages/", {"content": "Hi"},
                                     content_type="application/json")  # no CSRF token
        admission = await asyncio.wait_for(chat_start_admit(), timeout=5)
        admission.release()
        return refused.status_code

    assert asyncio.run(run()) == 403
