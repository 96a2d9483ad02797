"""A chat's database steps (whizi.db.db_step_queued): a burst runs only a few at once on
one process, each in its own request's thread, the rest waiting without a thread."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from asgiref.sync import ThreadSensitiveContext

from whizi.db import db_step_queued


def _most_at_once(steps: int) -> int:
    running = most = 0
    lock = threading.Lock()

    def step() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    async def request() -> None:
        async with ThreadSensitiveContext():  # each its own request's thread, as under ASGI
            await db_step_queued(step)

    async def burst() -> None:
        await asyncio.gather(*(request() for _ in range(steps)))

    asyncio.run(burst())
    return most


@pytest.mark.parametrize(("at_once", "pool", "expected"), [(2, 20, 2), (3, 20, 3), (3, 1, 1), (3, 0, 3)])
def test_a_burst_of_chat_steps_runs_a_few_at_once(settings, at_once, pool, expected):
    settings.WHIZI_CHAT_SAVES_AT_ONCE = at_once
    settings.WHIZI_DB_POOL_MAX_SIZE = pool  # never more than the pool holds (0: no pool)

    assert _most_at_once(8) == expected
