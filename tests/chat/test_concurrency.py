"""Many chats at once on one web process with a small database pool: the model's seconds
are spent holding no database connection, so the provider and the configuration bound
how many chats run at once, not the pool; and a provider that hangs takes no page down.

A real uvicorn process serves Whizi on the test database with a pool of 2 connections
(1.5 s pool timeout) and the fake OpenAI-protocol provider as its chat model. Before the
chat endpoints gave their connection back, 2 chats ran at a time and the rest, and every
other page, failed after the pool timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from tests.conftest import ARTIFACTS, server_env
from tests.db_faults import other_session

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MODEL = "openai/slow-chat"
POOL = 2


@pytest.fixture
def server(fake_provider, django_db_blocker, stream_path) -> Iterator[str]:
    port = free_port()
    env = server_env(
        WHIZI_LEAN_STREAM="true" if stream_path == "lean" else "false",
        WHIZI_DB_POOL_MAX_SIZE=str(POOL), WHIZI_DB_POOL_TIMEOUT="1.5", WHIZI_CHAT_MODELS=MODEL,
        WHIZI_CHAT_TIMEOUT="3", WHIZI_CHAT_RETRIES="0", WHIZI_RATE_LIMITS_ENABLED="false",
        OPENAI_API_BASE=fake_provider.base_url, OPENAI_API_KEY="sk-fake",
    )
    web = uvicorn_start(env=env, log=ARTIFACTS / "uvicorn-concurrency.log", port=port,
                        options=["--timeout-keep-alive", "30"])
    base_url = f"http://127.0.0.1:{port}"
    uvicorn_wait_ready(web, base_url, timeout=60)
    yield base_url
    web.stop()


@contextlib.asynccontextmanager
async def _guest(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        assert (await client.get("/settings/")).status_code == 200  # the csrftoken cookie
        yield client


def _token(client: httpx.AsyncClient) -> dict[str, str]:
    return {"X-CSRFToken": client.cookies["csrftoken"]}


async def _json_chat(base: str) -> tuple[int, dict]:
    async with _guest(base) as client:
        started = await client.post("/api/conversations/", json={}, headers=_token(client))
        conversation_id = started.json()["id"]
        answer = await client.post(f"/api/conversations/{conversation_id}/messages/",
                                   json={"content": "Tell me a story"}, headers=_token(client))
        return answer.status_code, answer.json()


async def _streamed_chat(base: str) -> tuple[int, str]:
    async with _guest(base) as client:
        fields = {"content": "Tell me a story", "csrfmiddlewaretoken": client.cookies["csrftoken"]}
        async with client.stream("POST", "/send/stream/", data=fields, headers=_token(client)) as response:
            body = "".join([chunk async for chunk in response.aiter_text()])
        return response.status_code, body


async def _other_visitor(base: str) -> list[int]:
    async with _guest(base) as client:
        return [(await client.get(path)).status_code for path in ("/settings/", "/api/memory/")]


def _busy_connections() -> int:
    """Connections to the test database doing work right now (not idle), this one aside."""
    with other_session(autocommit=True) as other:
        return other.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND state <> 'idle'").fetchone()[0]


def test_ten_chats_at_once_on_a_pool_of_two(server, fake_provider, wait_for):
    # Each reply takes about 2 s at the provider, in 4 pieces.
    fake_provider.set_default("slow-chat", "Once upon a time there was a fox.", chunks=4,
                              first_token_latency=0.5, chunk_latency=0.5)

    async def run():
        chats = [asyncio.create_task(_json_chat(server)) for _ in range(5)]
        chats += [asyncio.create_task(_streamed_chat(server)) for _ in range(5)]
        while fake_provider.in_flight < 10 and not all(chat.done() for chat in chats):
            await asyncio.sleep(0.05)
        busy = await asyncio.to_thread(_busy_connections)
        visitors = await asyncio.gather(*(_other_visitor(server) for _ in range(4)))
        return await asyncio.gather(*chats), busy, visitors

    results, busy, visitors = asyncio.run(run())

    assert fake_provider.max_in_flight == 10  # all ten at the provider at once, on 2 connections
    assert busy == 0  # while the model answers, no connection is doing anything for them
    for status, body in results[:5]:
        assert status == 200 and body["reply"] == "Once upon a time there was a fox."
    for status, body in results[5:]:
        assert status == 200 and "event: done" in body
    assert visitors == [[200, 200]] * 4


def test_a_hanging_provider_takes_no_page_down(server, fake_provider):
    fake_provider.set_default_behaviour("slow-chat", {"kind": "hang"})

    async def run():
        chats = [asyncio.create_task(_json_chat(server)) for _ in range(3)]
        chats += [asyncio.create_task(_streamed_chat(server)) for _ in range(3)]
        while fake_provider.in_flight < 6 and not all(chat.done() for chat in chats):
            await asyncio.sleep(0.05)
        visitors = await asyncio.gather(*(_other_visitor(server) for _ in range(6)))
        return await asyncio.gather(*chats), visitors

    results, visitors = asyncio.run(run())

    assert visitors == [[200, 200]] * 6  # while six chats wait on a provider that never answers
    for status, body in results[:3]:
        assert status == 504 and body["error"]["retryable"] is True  # the chat timeout, as a JSON error
    for status, body in results[3:]:
        assert status == 200 and '"status": 504' in body.split("event: error")[1]
