"""Chat at scale on a real provider protocol: N chats at once on ONE web process.

It starts, each on its own:
1. a fresh PostgreSQL database (the name must start with "bench_"), migrated, and two
   emptied Redis databases;
2. the fake OpenAI-protocol provider (tests/fake_provider) answering every chat with
   --tokens words in --chunks pieces at --token-latency seconds a word (4 s a reply by
   default: 100 tokens at 40 ms), or, with --hang, never answering;
3. one uvicorn process serving Whizi from --root (this checkout, or another one: measure
   "before" on an export of main) with the fake provider as its chat model.

Then N guests, each with its own session, send one message at once: half through the
JSON API (`POST /api/conversations/<id>/messages/`), half through the page's streaming
endpoint (`POST /send/stream/`), while --visitors other guests keep reading `/settings/`
and `/api/memory/`. It reports completed chats and errors, p50/p95 of the whole reply and
of the first streamed token, the visitors' p95, the most database connections open and
busy at once, the web process's threads and its CPU time per chat and per streamed chunk.

    python bench/providers.py --chats 300 --database bench_providers --redis-db 14
    python bench/providers.py --chats 300 --hang --chat-timeout 20 ...

PostgreSQL on 127.0.0.1:5432 as postgres, Redis on 127.0.0.1:6379; everything it starts
is stopped at the end (also on Ctrl-C). Figures: docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import multiprocessing.synchronize
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import redis

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from bench.stack import memory_read_skips_scraped, metrics_env  # noqa: E402

PYTHON = sys.executable
MODEL = "bench-chat"


# ---------------------------------------------------------------- processes

@dataclass
class Processes:
    started: list[subprocess.Popen] = field(default_factory=list)

    def start(self, argv: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
        with open(log, "wb") as handle:
            process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.started.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.started):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)


def wait_for_http(url: str, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer")


def database_recreate(name: str) -> None:
    if not name.startswith("bench_"):
        raise SystemExit("--database must start with bench_")
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that have been waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(v) for v in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def proc_threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------- measuring

@dataclass
class Sampler:
    """Database connections (open, busy) and the web process's threads, every 100 ms."""

    database: str
    pid: int
    max_open: int = 0
    max_busy: int = 0
    max_threads: int = 0
    running: bool = True

    async def run(self) -> None:
        query = ("SELECT count(*), count(*) FILTER (WHERE state <> 'idle') FROM pg_stat_activity "
                 "WHERE datname = %s AND pid <> pg_backend_pid()")
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
            while self.running:
                opened, busy = conn.execute(query, (self.database,)).fetchone()
                self.max_open, self.max_busy = max(self.max_open, opened), max(self.max_busy, busy)
                self.max_threads = max(self.max_threads, proc_threads(self.pid))
                await asyncio.sleep(0.1)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


@dataclass
class Chat:
    kind: str  # "json" or "stream"
    status: int | str = ""
    seconds: float = 0.0
    first_token: float | None = None
    chunks: int = 0
    outcome: str = ""  # "done", or what went wrong


async def guest(base: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(300, connect=60))
    await client.get("/settings/")
    return client


async def json_chat(client: httpx.AsyncClient, conversation_id: int, chat: Chat, delay: float) -> None:
    await asyncio.sleep(delay)
    started = time.monotonic()
    try:
        response = await client.post(f"/api/conversations/{conversation_id}/messages/",
                                     json={"content": "Tell me a story."},
                                     headers={"X-CSRFToken": client.cookies["csrftoken"]})
        chat.status = response.status_code
        chat.outcome = "done" if response.status_code == 200 else response.text[:120]
    except httpx.HTTPError as exc:
        chat.status, chat.outcome = "transport", type(exc).__name__
    chat.seconds = time.monotonic() - started


async def stream_chat(client: httpx.AsyncClient, chat: Chat, delay: float) -> None:
    await asyncio.sleep(delay)
    started = time.monotonic()
    fields = {"content": "Tell me a story.", "csrfmiddlewaretoken": client.cookies["csrftoken"]}
    try:
        async with client.stream("POST", "/send/stream/", data=fields) as response:
            chat.status = response.status_code
            async for line in response.aiter_lines():
                if line == "event: token":
                    chat.chunks += 1
                    if chat.first_token is None:
                        chat.first_token = time.monotonic() - started
                elif line.startswith("event: "):
                    chat.outcome = line[len("event: "):]
        if chat.outcome != "done":
            chat.outcome = chat.outcome or f"status {chat.status}"
    except httpx.HTTPError as exc:
        chat.status, chat.outcome = "transport", type(exc).__name__
    chat.seconds = time.monotonic() - started


async def _visitor(client: httpx.AsyncClient, timeline: list[tuple[float, str, float]], errors: list[str],
                   stop: multiprocessing.synchronize.Event, clock: float) -> None:
    while not stop.is_set():
        for path in ("/settings/", "/api/memory/"):
            started = time.monotonic()
            try:
                response = await client.get(path)
                if response.status_code != 200:
                    errors.append(f"{path} {response.status_code}")
            except httpx.HTTPError as exc:
                errors.append(f"{path} {type(exc).__name__}")
            timeline.append((started - clock, path, time.monotonic() - started))
        await asyncio.sleep(0.2)


def visitors_process(base: str, count: int, ready: multiprocessing.synchronize.Event,
                     go: multiprocessing.synchronize.Event, stop: multiprocessing.synchronize.Event,
                     results: multiprocessing.Queue) -> None:
    """The other guests, timed from a process of their own: the 300 chat clients' work in
    the driver's event loop must not count against the pages they read."""

    async def run() -> tuple[list[tuple[float, str, float]], list[str]]:
        clients = await asyncio.gather(*(guest(base) for _ in range(count)))
        ready.set()
        while not go.is_set():
            await asyncio.sleep(0.005)
        timeline: list[tuple[float, str, float]] = []
        errors: list[str] = []
        clock = time.monotonic()
        await asyncio.gather(*(_visitor(client, timeline, errors, stop, clock) for client in clients))
        for client in clients:
            await client.aclose()
        return timeline, errors

    results.put(asyncio.run(run()))


async def load(args: argparse.Namespace, base: str, database: str, web_pid: int) -> dict[str, object]:
    semaphore = asyncio.Semaphore(20)  # set-up only: sessions and conversations before the clock starts

    async def prepared(index: int) -> tuple[httpx.AsyncClient, int | None]:
        async with semaphore:
            client = await guest(base)
            if index >= round(args.chats * args.stream_share):
                started = await client.post("/api/conversations/", json={},
                                            headers={"X-CSRFToken": client.cookies["csrftoken"]})
                return client, started.json()["id"]
            return client, None

    guests = await asyncio.gather(*(prepared(i) for i in range(args.chats)))
    chats = [Chat("json" if conversation_id else "stream") for _, conversation_id in guests]
    spawn = multiprocessing.get_context("spawn")
    ready, go, stop, results = spawn.Event(), spawn.Event(), spawn.Event(), spawn.Queue()
    visitors = spawn.Process(target=visitors_process, args=(base, args.visitors, ready, go, stop, results))
    visitors.start()
    await asyncio.to_thread(ready.wait, 120)
    sampler = Sampler(database, web_pid)
    sampling = asyncio.create_task(sampler.run())
    go.set()
    cpu_before, started = proc_cpu_seconds(web_pid), time.monotonic()
    streams = round(args.chats * args.stream_share)
    # Over the ramp, stream and JSON chats take turns starting.
    slots = [2 * i if i < streams else 2 * (i - streams) + 1 for i in range(args.chats)]
    await asyncio.gather(*(
        json_chat(client, conversation_id, chat, args.ramp * slots[i] / (2 * args.chats)) if conversation_id
        else stream_chat(client, chat, args.ramp * slots[i] / (2 * args.chats))
        for i, ((client, conversation_id), chat) in enumerate(zip(guests, chats, strict=True))))
    wall, cpu = time.monotonic() - started, proc_cpu_seconds(web_pid) - cpu_before
    stop.set()
    timeline, visitor_errors = await asyncio.to_thread(results.get, True, 120)
    await asyncio.to_thread(visitors.join, 30)
    sampler.running = False
    await sampling
    for client, _ in guests:
        await client.aclose()
    return report(args, chats, timeline, visitor_errors, sampler, wall, cpu)


def report(args: argparse.Namespace, chats: list[Chat], timeline: list[tuple[float, str, float]],
           visitor_errors: list[str], sampler: Sampler, wall: float, cpu: float) -> dict[str, object]:
    latencies: dict[str, list[float]] = {"/settings/": [], "/api/memory/": []}
    for _at, path, seconds in timeline:
        latencies[path].append(seconds)
    # The visitors' pages by when they were asked, in 5-second windows of the burst.
    windows: dict[int, list[float]] = {}
    for at, _path, seconds in timeline:
        windows.setdefault(int(at // 5) * 5, []).append(seconds)
    done = [c for c in chats if c.outcome == "done"]
    streamed = [c for c in chats if c.kind == "stream"]
    chunks = sum(c.chunks for c in streamed)
    failures: dict[str, int] = {}
    for chat in chats:
        if chat.outcome != "done":
            key = f"{chat.kind} {chat.status} {chat.outcome[:60]}"
            failures[key] = failures.get(key, 0) + 1
    def ms(values: list[float], q: float) -> int | None:
        return round(pct(values, q) * 1000) if values else None

    return {
        "chats": len(chats), "completed": len(done), "errors": len(chats) - len(done), "failures": failures,
        "reply_ms": {"json_p50": ms([c.seconds for c in chats if c.kind == "json"], 50),
                     "json_p95": ms([c.seconds for c in chats if c.kind == "json"], 95),
                     "stream_p50": ms([c.seconds for c in streamed], 50),
                     "stream_p95": ms([c.seconds for c in streamed], 95)},
        "first_token_ms": {"p50": ms([c.first_token for c in streamed if c.first_token], 50),
                           "p95": ms([c.first_token for c in streamed if c.first_token], 95),
                           "provider": round(args.token_latency * args.tokens / args.chunks * 1000)},
        "visitors": {path: {"count": len(v), "p50_ms": ms(v, 50), "p95_ms": ms(v, 95)}
                     for path, v in latencies.items()},
        "visitors_by_window": {
            f"{start}-{start + 5}s": {"count": len(v), "p50_ms": ms(v, 50), "p95_ms": ms(v, 95)}
            for start, v in sorted(windows.items())},
        "visitor_errors": len(visitor_errors),
        "db_connections": {"max_open": sampler.max_open, "max_busy": sampler.max_busy},
        "web_threads_max": sampler.max_threads,
        "web_cpu": {"seconds": round(cpu, 2), "per_chat_ms": round(cpu / len(chats) * 1000, 2),
                    "streamed_chunks": chunks,
                    "per_streamed_chunk_ms": round(cpu / chunks * 1000, 3) if chunks else None},
        "wall_seconds": round(wall, 1),
    }


def memory_read_skips(base_url: str, cache_db: int) -> dict[str, int]:
    """The web process's count of chats that went on without the memory read (memory.reading):
    from its /metrics, or the Redis counters of code from before them."""
    scraped = memory_read_skips_scraped(base_url)
    if scraped is not None:
        return scraped
    client = redis.Redis(db=cache_db)
    return {reason: int(client.get(f"whizi:1:chat:memory_read_skipped:{reason}") or 0)
            for reason in ("timeout", "error")}


# ---------------------------------------------------------------- the run

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chats", type=int, default=300)
    parser.add_argument("--visitors", type=int, default=10)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--token-latency", type=float, default=0.04)
    parser.add_argument("--hang", action="store_true", help="the provider never answers")
    parser.add_argument("--stream-share", type=float, default=0.5, help="share of chats that stream")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="seconds over which the chats start (0: all at once)")
    parser.add_argument("--memory", choices=["on", "off"], default="on", help="WHIZI_MEMORY_ENABLED")
    parser.add_argument("--chat-timeout", type=float, default=60)
    parser.add_argument("--pool", type=int, default=20, help="WHIZI_DB_POOL_MAX_SIZE")
    parser.add_argument("--database", default="bench_providers")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--port", type=int, default=18090)
    parser.add_argument("--provider-port", type=int, default=18190)
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout to serve")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/whizi-bench-providers"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="WHIZI_X=VALUE",
                        help="a setting for the web process (repeatable)")
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)

    processes = Processes()
    signal.signal(signal.SIGTERM, lambda *_: (processes.stop(), sys.exit(1)))
    try:
        result = run(args, processes)
    finally:
        processes.stop()
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


def run(args: argparse.Namespace, processes: Processes) -> dict[str, object]:
    database_recreate(args.database)
    for db in (args.redis_db, args.redis_db + 1):
        redis.Redis(db=db).flushdb()
    provider_url = f"http://127.0.0.1:{args.provider_port}/v1"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHIZI_", "OPENAI_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{args.database}",
        REDIS_URL=f"redis://127.0.0.1:6379/{args.redis_db}", WHIZI_CHAT_MODELS=f"openai/{MODEL}",
        WHIZI_MEMORY_MODEL="whizi/offline", WHIZI_RATE_LIMITS_ENABLED="false",
        WHIZI_DB_POOL_MAX_SIZE=str(args.pool), WHIZI_CHAT_TIMEOUT=str(args.chat_timeout),
        OPENAI_API_BASE=provider_url, OPENAI_API_KEY="sk-bench", WHIZI_LOG_LEVEL="WARNING",
        WHIZI_MEMORY_ENABLED="true" if args.memory == "on" else "false",
    )
    env.update(item.split("=", 1) for item in args.set)
    env = metrics_env(env, args.logs / "metrics")
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=args.root, env=env,
                   check=True)
    provider = processes.start(
        [PYTHON, "-m", "tests.fake_provider", "--port", str(args.provider_port), "--tokens", str(args.tokens),
         "--chunks", str(args.chunks), "--token-latency", str(args.token_latency)],
        cwd=HERE, env=env, log=args.logs / "provider.log")
    wait_for_http(f"{provider_url}/models", provider)
    if args.hang:
        httpx.post(f"{provider_url.removesuffix('/v1')}/_control/script",
                   json={"model": MODEL, "default": {"kind": "hang"}}).raise_for_status()
    web = processes.start(
        [PYTHON, "-m", "uvicorn", "whizi.asgi:application", "--host", "127.0.0.1", "--port", str(args.port),
         "--timeout-keep-alive", "75", "--backlog", "4096", "--no-access-log"],
        cwd=args.root, env=env, log=args.logs / "web.log")
    base = f"http://127.0.0.1:{args.port}"
    wait_for_http(f"{base}/settings/", web)
    result = asyncio.run(load(args, base, args.database, web.pid))
    result["memory_reads_skipped"] = memory_read_skips(base, args.redis_db + 1)
    result["root"] = str(args.root)
    result["load_average"] = os.getloadavg()[0]
    result["mode"] = "hang" if args.hang else "reply"
    return result


if __name__ == "__main__":
    main()
