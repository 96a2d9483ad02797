"""Two checkouts' web CPU per chat message, side by side: message for message in turn, so
a shared machine's changing speed falls on both alike (runs of bench/stream_cost.py a
minute apart scatter by a third here; this ratio by a few hundredths).

Both web processes (uvicorn, fresh database each, memory on) answer from one fake
OpenAI-protocol provider streaming 100-token replies a token a chunk. Each round sends
one message of each kind to each process, in alternating order: the first message of a
new chat and a later message of one chat, through the page's stream and through the JSON
API. /proc counts CPU in 10 ms ticks, so the figures are means over many messages.

    git archive <commit> | tar -x -C /tmp/before
    python bench/message_cost_ab.py --before /tmp/before --after . --messages 100

PostgreSQL on 127.0.0.1:5432 as postgres, Redis on 127.0.0.1:6379 (--redis-db and the
one below are emptied). Figures: docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import (  # noqa: E402
    Process,
    cpu_seconds_of,
    database_drop,
    database_migrate,
    database_recreate,
    env_on_database,
    free_port,
    http_ok,
    process_start,
    redis_flush,
    uvicorn_start,
    uvicorn_wait_ready,
    wait_until,
)

MODEL = "openai/t100"
KINDS = ("streamed, first of a chat", "JSON, first of a chat",
         "streamed, later in a chat", "JSON, later in a chat")
WARM_ROUNDS = 3


class Web:
    """One checkout's web process and a client of it (a guest with one chat kept for later messages)."""

    def __init__(self, process: Process, base: str, database: str) -> None:
        self.process, self.base, self.database = process, base, database
        self.client = httpx.AsyncClient(base_url=base, timeout=120)
        self.token: dict[str, str] = {}
        self.chat = 0

    async def start(self) -> None:
        await self.client.get("/settings/")
        self.token = {"X-CSRFToken": self.client.cookies["csrftoken"]}
        self.chat = await self.chat_new()

    async def chat_new(self) -> int:
        answer = await self.client.post("/api/conversations/", json={"model": MODEL}, headers=self.token)
        return answer.json()["id"]

    async def message_cpu_ms(self, kind: str) -> float:
        chat = await self.chat_new() if "first" in kind else self.chat
        before = cpu_seconds_of([self.process.pid])[self.process.pid]
        if kind.startswith("streamed"):
            fields = {"content": "Tell me a story.", "conversation": str(chat), "model": MODEL,
                      "csrfmiddlewaretoken": self.client.cookies["csrftoken"]}
            async with self.client.stream("POST", "/send/stream/", data=fields, headers=self.token) as answer:
                names = [line async for line in answer.aiter_lines() if line.startswith("event: ")]
            if names[-1] != "event: done":
                raise RuntimeError(f"a streamed chat ended with {names[-1]}")
        else:
            answer = await self.client.post(f"/api/conversations/{chat}/messages/",
                                            json={"content": "Tell me a story."}, headers=self.token)
            answer.raise_for_status()
        await asyncio.sleep(0.05)  # the response's own tail, then read the CPU
        return (cpu_seconds_of([self.process.pid])[self.process.pid] - before) * 1000


async def rounds(webs: dict[str, Web], messages: int) -> dict[tuple[str, str], list[float]]:
    for web in webs.values():
        await web.start()
    spent: dict[tuple[str, str], list[float]] = {(name, kind): [] for name in webs for kind in KINDS}
    names = list(webs)
    for index in range(messages + WARM_ROUNDS):
        for kind in KINDS:
            for name in names if index % 2 == 0 else names[::-1]:
                ms = await webs[name].message_cpu_ms(kind)
                if index >= WARM_ROUNDS:
                    spent[(name, kind)].append(ms)
    return spent


def report(spent: dict[tuple[str, str], list[float]], args: argparse.Namespace) -> None:
    print(f"\nWeb CPU per message, mean of {args.messages} each (100-token replies, one token a chunk; "
          f"load average {os.getloadavg()[0]:.1f})\n")
    print(f"| {'message':<27} | {'before':>8} | {'after':>8} | after/before (odd, even rounds) |")
    print(f"|{'-' * 29}|{'-' * 9}:|{'-' * 9}:|{'-' * 32}:|")
    for kind in KINDS:
        before, after = spent[("before", kind)], spent[("after", kind)]
        halves = [statistics.mean(after[j::2]) / statistics.mean(before[j::2]) for j in (0, 1)]
        ratio = statistics.mean(after) / statistics.mean(before)
        print(f"| {kind:<27} | {statistics.mean(before):5.1f} ms | {statistics.mean(after):5.1f} ms | "
              f"{f'{ratio:.2f} ({halves[0]:.2f}, {halves[1]:.2f})':>31} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the checkout measured first")
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--messages", type=int, default=100, help="messages of each kind to each process")
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument("--logs", type=Path, default=Path("/tmp/whizi-bench-message-cost-ab"))
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    env = {**os.environ, "OPENAI_API_BASE": base, "OPENAI_API_KEY": "sk-bench"}
    provider = process_start("provider", [sys.executable, "-m", "tests.fake_provider", "--port", str(port),
                                          "--token-latency", "0"], env=env, log=args.logs / "provider.log")
    webs: dict[str, Web] = {}
    try:
        wait_until(lambda: http_ok(f"{base}/models"), timeout=30, what="the fake provider answers",
                   watch=[provider])
        from tests.fake_provider import FakeProviderClient

        FakeProviderClient(base).set_default("t100", " ".join(f"w{i % 10}" for i in range(100)), chunks=100)
        for offset, (name, root) in enumerate((("before", args.before), ("after", args.after))):
            database = f"bench_message_cost_{name}"
            database_recreate(database)
            redis_flush(args.redis_db - offset)
            web_env = env_on_database(database, REDIS_URL=f"redis://127.0.0.1:6379/{args.redis_db - offset}",
                                      WHIZI_CHAT_MODELS=MODEL, WHIZI_MEMORY_MODEL="whizi/offline",
                                      WHIZI_RATE_LIMITS_ENABLED="false", OPENAI_API_BASE=base,
                                      OPENAI_API_KEY="sk-bench", WHIZI_LOG_LEVEL="WARNING",
                                      WHIZI_MEMORY_ENABLED="true")
            database_migrate(web_env, cwd=root)
            web_port = free_port()
            process = uvicorn_start(env=web_env, log=args.logs / f"web-{name}.log", port=web_port, cwd=root,
                                    options=["--no-access-log", "--timeout-keep-alive", "75"])
            webs[name] = Web(process, f"http://127.0.0.1:{web_port}", database)
            uvicorn_wait_ready(process, webs[name].base, timeout=120)
        report(asyncio.run(rounds(webs, args.messages)), args)
    finally:
        for web in webs.values():
            web.process.stop()
            database_drop(web.database)
        provider.stop()


if __name__ == "__main__":
    main()
