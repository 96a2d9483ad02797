"""Chats start a few at a time on one process (chat.admission): a place is given back at
the chat's first token, or by its timer whatever the chat waits on, and never twice."""

import asyncio

from chat.admission import chat_start_admit


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
