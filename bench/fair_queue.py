"""Fair queue benchmark: how long one visitor's memory pass waits while another client floods.

It starts the real stack (bench/stack.py: uvicorn, one Celery worker with the pool and
concurrency asked for, PostgreSQL, Redis) on a slow memory model: the fake
OpenAI-protocol provider (`python -m tests.fake_provider`, reached through litellm with
OPENAI_API_BASE, as a deployment reaches a hosted model) answering `NO CHANGE` after
--model-seconds. Chat replies come from the offline model, at once. Then:

1. the flood: --flood-guests guests of one client, each in one conversation, send
   --flood-messages "Remember that …" messages one after the other, as fast as the
   replies come back;
2. --visitors other guests arrive --visitor-delay seconds into the flood (spread over
   --visitor-spread seconds), each sending one "Remember that my name is …" message;
3. once every pass is done (bounded by --drain-timeout), it reads from the database,
   for each visitor, the time from its reply being saved to its pass finishing, and
   prints the visitors' median, p95 and worst, with how many passes the flood made.

--code runs the servers from another checkout (the code before a change, e.g.
`git archive contract-v2 | tar -x -C /tmp/whizi-before`); the client, the launcher and
the provider always come from this one. The database (its name must start with
bench_) is created, migrated and dropped; the Redis database and the next one are
emptied. All traffic goes to 127.0.0.1; every wait is bounded. Figures and the exact
commands: docs/PERFORMANCE.md.

    python bench/fair_queue.py --pool threads --concurrency 8 --visitors 40 \\
        --model-seconds 3 --database bench_queue --redis-db 14 --port 18600
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stack import (  # noqa: E402
    LOCAL_REDIS,
    PYTHON,
    ROOT,
    WORKER_POOLS,
    Stack,
    bench_logs,
    database_drop,
    database_migrate,
    database_recreate,
    database_url,
    http_ok,
    process_start,
    redis_flush,
    stack_args_check,
    stack_ready,
    uvicorn_start,
    wait_until,
    worker_start,
)
from tests.fake_provider.server import FakeProviderClient  # noqa: E402

MEMORY_MODEL = "slow-memory"


@dataclass
class Result:
    label: str
    pool: str
    concurrency: int
    model_seconds: float
    flood_messages: int
    flood_passes: int
    visitors: int
    visitor_median_s: float
    visitor_p95_s: float
    visitor_max_s: float
    flood_last_pass_s: float
    drained: bool
    drain_s: float
    failed_requests: int


# ---------------------------------------------------------------- the stack


def server_env(args: argparse.Namespace, provider_url: str) -> dict[str, str]:
    """The servers' environment: the bench's database and Redis, the offline chat model,
    the slow memory model, and nothing of this shell's WHIZI_ or DJANGO_ settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("WHIZI_", "DJANGO_"))}
    env.update({
        "PYTHONPATH": str(args.code),
        "DJANGO_SETTINGS_MODULE": "whizi.settings",
        "DATABASE_URL": database_url(args.database),
        "REDIS_URL": f"redis://{LOCAL_REDIS[0]}:{LOCAL_REDIS[1]}/{args.redis_db}",
        "SECRET_KEY": "bench-only-not-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "WHIZI_CHAT_MODELS": "whizi/offline",
        "WHIZI_MEMORY_MODEL": f"openai/{MEMORY_MODEL}",
        "OPENAI_API_BASE": provider_url,
        "OPENAI_API_KEY": "sk-bench-fake-provider",
        # Every guest comes from 127.0.0.1, and the flood is the point of the run.
        "WHIZI_RATE_LIMITS_ENABLED": "false",
        "WHIZI_LOG_LEVEL": "INFO",
    })
    return env


def provider_start(stack: Stack, args: argparse.Namespace, logs: Path) -> str:
    """The fake provider in its own process, answering the memory model slowly."""
    provider = stack.add(process_start(
        "fake provider", [PYTHON, "-m", "tests.fake_provider", "--port", str(args.provider_port)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), log=logs / "provider.log"))
    url = f"http://127.0.0.1:{args.provider_port}/v1"
    wait_until(lambda: http_ok(f"{url}/models"), timeout=60, what="the fake provider did not start",
               watch=[provider])
    FakeProviderClient(url).set_default(MEMORY_MODEL, "NO CHANGE", delay=args.model_seconds)
    return url


def stack_start(args: argparse.Namespace, logs: Path) -> tuple[Stack, str]:
    stack = Stack()
    try:
        env = server_env(args, provider_start(stack, args, logs))
        database_recreate(args.database)
        redis_flush(args.redis_db)
        database_migrate(env, cwd=args.code)
        worker = stack.add(worker_start(env=env, log=logs / "worker.log", pool=args.pool,
                                        concurrency=args.concurrency, cwd=args.code))
        web = stack.add(uvicorn_start(env=dict(env, WHIZI_LOG_LEVEL="WARNING"), log=logs / "web.log",
                                      port=args.port, workers=args.web_workers, cwd=args.code,
                                      options=["--no-access-log", "--log-level", "warning"]))
        base_url = stack_ready(stack, web=web, worker=worker, port=args.port)
    except BaseException:
        stack.stop()
        raise
    return stack, base_url


# ---------------------------------------------------------------- the clients


class Guest:
    """One browser: its own cookies (guest identity, CSRF token) and one conversation."""

    def __init__(self, base_url: str) -> None:
        self.client = httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(60.0))
        self.conversation_id: int | None = None
        self.failures = 0

    async def post(self, path: str, body: dict) -> httpx.Response | None:
        headers = {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}
        try:
            response = await self.client.post(path, json=body, headers=headers)
        except httpx.HTTPError:
            self.failures += 1
            return None
        if response.status_code >= 400:
            self.failures += 1
            return None
        return response

    async def start(self) -> None:
        await self.client.get("/")
        started = await self.post("/api/conversations/", {})
        if started is not None:
            self.conversation_id = started.json()["id"]

    async def say(self, text: str) -> None:
        if self.conversation_id is not None:
            await self.post(f"/api/conversations/{self.conversation_id}/messages/", {"content": text})

    async def close(self) -> None:
        await self.client.aclose()


async def flood_guest(guest: Guest, number: int, messages: int) -> None:
    await guest.start()
    for index in range(messages):
        await guest.say(f"Remember that my lucky number {index + 1} is {number * 1000 + index}.")


async def visitor(guest: Guest, number: int, delay: float) -> None:
    await asyncio.sleep(delay)
    await guest.start()
    await guest.say(f"Remember that my name is Visitor {number}.")


async def drive(args: argparse.Namespace, base_url: str) -> tuple[list[Guest], list[Guest]]:
    # Warm up: each uvicorn process imports litellm and connects on its first chat.
    warm = [Guest(base_url) for _ in range(2 * args.web_workers)]
    await asyncio.gather(*(w.start() for w in warm))
    await asyncio.gather(*(w.say("Hello!") for w in warm))
    await asyncio.gather(*(w.close() for w in warm))
    flood = [Guest(base_url) for _ in range(args.flood_guests)]
    visitors = [Guest(base_url) for _ in range(args.visitors)]
    spread = args.visitor_spread / max(args.visitors - 1, 1)
    await asyncio.gather(
        *(flood_guest(g, n, args.flood_messages) for n, g in enumerate(flood)),
        *(visitor(g, n, args.visitor_delay + n * spread) for n, g in enumerate(visitors)),
    )
    await asyncio.gather(*(g.close() for g in flood + visitors))
    return flood, visitors


# ---------------------------------------------------------------- what the database says


def passes_pending(database: str) -> int:
    with psycopg.connect(database_url(database)) as conn:
        return conn.execute("SELECT count(*) FROM memory_memorypass WHERE status <> 'done'").fetchone()[0]


def pass_waits(database: str, conversation_ids: list[int]) -> list[float]:
    """Per conversation: seconds from its last reply being saved to the pass through that
    reply finishing (the pass runs through the newest reply, joined or not)."""
    query = """
        SELECT extract(epoch FROM p.finished_at - m.created_at)
        FROM chat_message m JOIN memory_memorypass p ON p.through_message_id = m.id
        WHERE p.status = 'done' AND m.id IN (
            SELECT max(id) FROM chat_message WHERE conversation_id = ANY(%s) GROUP BY conversation_id)"""
    with psycopg.connect(database_url(database)) as conn:
        return [float(row[0]) for row in conn.execute(query, [conversation_ids]).fetchall()]


def passes_of(database: str, conversation_ids: list[int]) -> int:
    query = """SELECT count(DISTINCT p.id) FROM memory_memorypass p
               JOIN chat_message m ON m.id = p.through_message_id WHERE m.conversation_id = ANY(%s)"""
    with psycopg.connect(database_url(database)) as conn:
        return conn.execute(query, [conversation_ids]).fetchone()[0]


def p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def measure(args: argparse.Namespace, flood: list[Guest], visitors: list[Guest],
            drained: bool, drain_s: float) -> Result:
    flood_ids = [g.conversation_id for g in flood if g.conversation_id]
    visitor_ids = [g.conversation_id for g in visitors if g.conversation_id]
    waits = pass_waits(args.database, visitor_ids)
    flood_waits = pass_waits(args.database, flood_ids)
    return Result(
        label=args.label, pool=args.pool, concurrency=args.concurrency, model_seconds=args.model_seconds,
        flood_messages=args.flood_guests * args.flood_messages,
        flood_passes=passes_of(args.database, flood_ids),
        visitors=len(waits), visitor_median_s=statistics.median(waits) if waits else float("nan"),
        visitor_p95_s=p95(waits), visitor_max_s=max(waits, default=float("nan")),
        flood_last_pass_s=max(flood_waits, default=float("nan")), drained=drained, drain_s=drain_s,
        failed_requests=sum(g.failures for g in flood + visitors),
    )


def print_result(result: Result) -> None:
    print(f"{result.label}: {result.pool} × {result.concurrency}, model {result.model_seconds:g} s")
    print(f"  flood: {result.flood_messages} messages → {result.flood_passes} passes; "
          f"its last pass done {result.flood_last_pass_s:.1f} s after its last reply")
    print(f"  visitors ({result.visitors}): reply → pass done median {result.visitor_median_s:.1f} s, "
          f"p95 {result.visitor_p95_s:.1f} s, max {result.visitor_max_s:.1f} s")
    print(f"  drained: {result.drained} ({result.drain_s:.0f} s after the last request); "
          f"failed requests: {result.failed_requests}")


# ---------------------------------------------------------------- the run


def run(args: argparse.Namespace, logs: Path) -> Result:
    stack, base_url = stack_start(args, logs)
    try:
        flood, visitors = asyncio.run(drive(args, base_url))
        started = time.monotonic()
        try:
            wait_until(lambda: passes_pending(args.database) == 0, timeout=args.drain_timeout,
                       what="the passes did not drain", watch=stack.processes, interval=0.5)
            drained = True
        except Exception as exc:  # reported in the result, the figures still printed
            print(f"  {exc}")
            drained = False
        return measure(args, flood, visitors, drained, time.monotonic() - started)
    finally:
        stack.stop()
        database_drop(args.database)
        redis_flush(args.redis_db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout the servers run from")
    parser.add_argument("--pool", choices=WORKER_POOLS, default="prefork")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--model-seconds", type=float, default=1.0, help="the memory model's answer time")
    parser.add_argument("--flood-guests", type=int, default=6)
    parser.add_argument("--flood-messages", type=int, default=20, help="remember messages per flood guest")
    parser.add_argument("--visitors", type=int, default=1)
    parser.add_argument("--visitor-delay", type=float, default=2.0, help="seconds into the flood")
    parser.add_argument("--visitor-spread", type=float, default=10.0,
                        help="seconds over which the visitors arrive")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--drain-timeout", type=float, default=600)
    parser.add_argument("--port", type=int, default=18600)
    parser.add_argument("--provider-port", type=int, default=18601)
    parser.add_argument("--database", default="bench_queue")
    parser.add_argument("--redis-db", type=int, default=14, help="broker db; the cache uses the next")
    parser.add_argument("--json", type=Path, help="append the result here, one JSON object a line")
    parser.add_argument("--logs", type=Path, help="server logs folder (default: a temporary one)")
    args = parser.parse_args()
    stack_args_check(parser, args)

    logs = bench_logs(args.logs, prefix="whizi-fair-queue-")
    print(f"server logs: {logs}; load average {os.getloadavg()[0]:.1f}")
    result = run(args, logs)
    print_result(result)
    if args.json:
        with open(args.json, "a") as handle:
            handle.write(json.dumps(asdict(result)) + "\n")
    sys.exit(0 if result.drained and not result.failed_requests else 1)


if __name__ == "__main__":
    main()
