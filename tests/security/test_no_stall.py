"""No input stalls the web process (docs/DESIGN.md §3): a message built to make a pattern
backtrack ("ok ok ok …", thirty times) is answered like any other, another visitor's
memory read is answered meanwhile, and the process stops on SIGTERM.

Once, that one 89-character message froze a whole web process: it answered nobody, held
its rows locked for minutes and ignored SIGTERM. A real uvicorn process serves Whizi on
the test database with the offline model; the bounds below are generous and only tell a
freeze from an answer (speed is measured in bench/, never here).
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from tests.conftest import ARTIFACTS, server_env

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# A freeze is minutes; an answer on the slowest machine CI runs on, well under this.
FREEZE_SECONDS = 30
HOSTILE = [" ".join([word] * 30) for word in ("ok", "okay", "oh", "whizi", "và", "ừ", "dan", "好的", "네")]


async def _guest(base: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=base, timeout=FREEZE_SECONDS)
    assert (await client.get("/settings/")).status_code == 200  # the csrftoken cookie
    return client


async def _send(client: httpx.AsyncClient, text: str) -> int:
    token = {"X-CSRFToken": client.cookies["csrftoken"]}
    conversation = (await client.post("/api/conversations/", json={}, headers=token)).json()["id"]
    answer = await client.post(f"/api/conversations/{conversation}/messages/", json={"content": text},
                               headers=token)
    return answer.status_code


async def _reads(client: httpx.AsyncClient, until: asyncio.Event) -> list[int]:
    statuses = []
    while not until.is_set():
        statuses.append((await client.get("/api/memory/")).status_code)
        await asyncio.sleep(0.05)
    return statuses


async def _visit(base: str) -> tuple[list[int], list[int]]:
    attacker, reader = await _guest(base), await _guest(base)
    done = asyncio.Event()
    reads = asyncio.create_task(_reads(reader, done))
    try:
        sent = [await _send(attacker, text) for text in HOSTILE]
    finally:
        done.set()
    statuses = await reads
    await attacker.aclose()
    await reader.aclose()
    return sent, statuses


def test_a_run_of_lead_words_is_answered_while_others_are_served_and_sigterm_stops_it():
    port = free_port()
    env = server_env(WHIZI_RATE_LIMITS_ENABLED="false")
    web = uvicorn_start(env=env, log=ARTIFACTS / "uvicorn-no-stall.log", port=port)
    base = f"http://127.0.0.1:{port}"
    try:
        uvicorn_wait_ready(web, base, timeout=90)
        sent, reads = asyncio.run(_visit(base))
        assert sent == [200] * len(HOSTILE)
        assert reads and set(reads) == {200}
    finally:
        web.send(web.stop_signal)
        stopped_by = time.monotonic() + FREEZE_SECONDS
        while web.running() and time.monotonic() < stopped_by:
            time.sleep(0.1)
        stopped = not web.running()
        web.stop(timeout=1)
    assert stopped, "the web process ignored SIGTERM"
