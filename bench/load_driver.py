"""The load benchmark's driver: one mode on the real stack (started by bench/stack.py),
its guests sent at once as asyncio httpx clients, every request recorded; then the
server CPU, the peak of PostgreSQL connections, the drained passes and the facts each
guest finds in its memory. bench/load.py runs it once per mode and round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import redis

from bench.load_report import RunReport, Samples, print_report
from bench.load_workload import CHAT, CLEAR_AFTER_ITERATION, GuestPlan
from bench.stack import (
    LOCAL_REDIS,
    ROOT,
    Process,
    Stack,
    admin_connection,
    cpu_seconds_by_session,
    database_backends_cpu,
    database_migrate,
    database_recreate,
    database_url,
    memory_read_skips_scraped,
    metrics_env,
    redis_flush,
    stack_ready,
    uvicorn_start,
    worker_start,
)

# ---------------------------------------------------------------- the guests


class Recorder:
    """Every answer of a run, per endpoint: latency, or the kind of failure."""

    def __init__(self) -> None:
        self.samples: dict[str, Samples] = defaultdict(Samples)

    def record(self, endpoint: str, ms: float, status: int | None, detail: str = "") -> None:
        s = self.samples[endpoint]
        if status is None:
            s.transport_errors += 1
        else:
            s.ms.append(ms)
            if 400 <= status < 500:
                s.client_errors += 1
            elif status >= 500:
                s.server_errors += 1
        if (status is None or status >= 400) and len(s.first_failures) < 3:
            s.first_failures.append(f"{status}: {detail[:200]}")


@dataclass
class GuestResult:
    plan: GuestPlan
    client: httpx.AsyncClient | None = None
    completed_iterations: int = 0
    cleared_after: int | None = None  # iterations completed when it cleared
    aborted: str = ""


class GuestFailed(Exception):
    pass


async def _call(recorder: Recorder, client: httpx.AsyncClient, endpoint: str, method: str,
                path: str, *, body: dict | None = None) -> httpx.Response:
    headers = {}
    if method in ("POST", "DELETE"):
        headers["X-CSRFToken"] = client.cookies.get("csrftoken", "")
    started = time.perf_counter()
    try:
        if body is not None:
            response = await client.request(method, path, json=body, headers=headers)
        else:
            response = await client.request(method, path, headers=headers)
    except httpx.HTTPError as exc:
        recorder.record(endpoint, 0.0, None, f"{type(exc).__name__}: {exc}")
        raise GuestFailed(f"{endpoint}: {type(exc).__name__}") from exc
    ms = (time.perf_counter() - started) * 1000
    recorder.record(endpoint, ms, response.status_code, response.text)
    if response.status_code >= 400:
        raise GuestFailed(f"{endpoint}: {response.status_code}")
    return response


async def run_guest(*, result: GuestResult, base_url: str, recorder: Recorder, think: float,
                    deadline: float, start_delay: float, seed: int) -> None:
    plan = result.plan
    rng = random.Random(seed * 7_919 + plan.index)
    client = httpx.AsyncClient(
        base_url=base_url, timeout=httpx.Timeout(60.0),
        headers={"Accept-Language": plan.language},
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )
    result.client = client

    async def pause() -> None:
        if think > 0:
            await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))

    await asyncio.sleep(start_delay)
    try:
        await _call(recorder, client, "GET /", "GET", "/")
        for iteration, conversation in enumerate(plan.conversations):
            if time.monotonic() > deadline:
                break
            await pause()
            started = await _call(recorder, client, "POST /api/conversations/", "POST",
                                  "/api/conversations/", body={})
            conversation_id = started.json()["id"]
            for text in conversation.messages:
                await pause()
                await _call(recorder, client, CHAT, "POST",
                            f"/api/conversations/{conversation_id}/messages/", body={"content": text})
            await pause()
            await _call(recorder, client, "GET /settings/", "GET", "/settings/")
            await pause()
            await _call(recorder, client, "GET /api/memory/", "GET", "/api/memory/")
            result.completed_iterations = iteration + 1
            if plan.clears and iteration + 1 == CLEAR_AFTER_ITERATION:
                await pause()
                await _call(recorder, client, "DELETE /api/memory/", "DELETE", "/api/memory/")
                result.cleared_after = iteration + 1
    except GuestFailed as exc:
        # The guest stops at its first failure; what it said so far still counts.
        result.aborted = str(exc)


async def warm_up(base_url: str, count: int) -> None:
    """Each server process imports litellm and opens its connections on its first
    chat request: done here, outside the measurement."""

    async def one() -> None:
        async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
            await client.get("/")
            headers = {"X-CSRFToken": client.cookies.get("csrftoken", "")}
            started = await client.post("/api/conversations/", json={}, headers=headers)
            conversation_id = started.json()["id"]
            await client.post(f"/api/conversations/{conversation_id}/messages/",
                              json={"content": "Hello!"}, headers=headers)
            await client.get("/settings/")
            await client.get("/api/memory/")

    await asyncio.gather(*(one() for _ in range(count)))


# ---------------------------------------------------------------- the stack


def load_env(args: argparse.Namespace, *, memory: bool) -> dict[str, str]:
    """The servers' environment: the offline model, the bench's database and Redis, and
    nothing of this shell's WHIZI_ or DJANGO_ settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("WHIZI_", "DJANGO_"))}
    env.update({
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "whizi.settings",
        "DATABASE_URL": database_url(args.database),
        "REDIS_URL": f"redis://{LOCAL_REDIS[0]}:{LOCAL_REDIS[1]}/{args.redis_db}",
        "SECRET_KEY": "bench-only-not-secret",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "WHIZI_CHAT_MODELS": "whizi/offline",
        "WHIZI_MEMORY_MODEL": "whizi/offline",
        "WHIZI_MEMORY_ENABLED": "true" if memory else "false",
        # Every guest comes from 127.0.0.1: the per-IP limit would refuse most of them.
        "WHIZI_RATE_LIMITS_ENABLED": "false",
        "WHIZI_LOG_LEVEL": "WARNING",
        "WHIZI_DB_POOL_MAX_SIZE": str(args.pool_size),
    })
    return env


@dataclass
class LoadStack:
    stack: Stack
    web: Process
    worker: Process
    base_url: str


def load_stack_start(args: argparse.Namespace, *, memory: bool, logs: Path, suffix: str) -> LoadStack:
    """A fresh migrated database, empty Redis databases, a worker and uvicorn, both ready."""
    env = metrics_env(load_env(args, memory=memory), logs / f"metrics-{suffix}")
    database_recreate(args.database)
    redis_flush(args.redis_db)
    database_migrate(env)
    stack = Stack()
    try:
        worker = stack.add(worker_start(
            env=dict(env, WHIZI_LOG_LEVEL="INFO"),  # "ready." is logged at INFO
            log=logs / f"worker-{suffix}.log", concurrency=args.worker_concurrency,
            hostname=f"bench-{os.getpid()}@%h"))
        web = stack.add(uvicorn_start(env=env, log=logs / f"web-{suffix}.log", port=args.port,
                                      workers=args.web_workers, options=[
            "--no-access-log", "--log-level", "warning", "--timeout-graceful-shutdown", "5",
            # Longer than any guest's pause, as behind a proxy (nginx keeps 75 s): with
            # uvicorn's 5 s default, a request sent as the server closes an idle
            # connection fails in transit, which is the client's race, not the server's.
            "--timeout-keep-alive", "75",
        ]))
        base_url = stack_ready(stack, web=web, worker=worker, port=args.port)
    except BaseException:
        stack.stop()
        raise
    return LoadStack(stack=stack, web=web, worker=worker, base_url=base_url)


# ---------------------------------------------------------------- what the stack did


def passes_by_state(database: str) -> dict[str, int]:
    with psycopg.connect(database_url(database)) as conn:
        rows = conn.execute(
            "SELECT status, coalesce(nullif(outcome, ''), status), count(*) "
            "FROM memory_memorypass GROUP BY 1, 2"
        ).fetchall()
    counts: dict[str, int] = {}
    for status, outcome, count in rows:
        key = outcome if status == "done" else status
        counts[key] = counts.get(key, 0) + count
    return counts


def drain(database: str, *, timeout: float) -> tuple[bool, float, dict[str, int]]:
    """Wait until no pass is queued or running (bounded)."""
    started = time.monotonic()
    while True:
        counts = passes_by_state(database)
        pending = counts.get("queued", 0) + counts.get("running", 0)
        if not pending:
            return True, time.monotonic() - started, counts
        if time.monotonic() - started > timeout:
            return False, time.monotonic() - started, counts
        time.sleep(1.0)


async def check_facts(results: list[GuestResult]) -> tuple[int, int, int, int]:
    """(expected, lost, lost among guests that never cleared, resurrected)."""
    expected = lost = lost_not_cleared = resurrected = 0
    semaphore = asyncio.Semaphore(20)

    async def one(result: GuestResult) -> tuple[int, int, int, int]:
        said = result.plan.all_facts()[: result.completed_iterations]
        if result.cleared_after is None:
            after, before = said, []
        else:
            after = [f for f in said if f.iteration >= result.cleared_after]
            again = {f.needle for f in after}
            before = [f for f in said if f.iteration < result.cleared_after and f.needle not in again]
        async with semaphore:
            response = await result.client.get("/api/memory/")
        if response.status_code != 200:
            raise SystemExit(f"fact check: GET /api/memory/ answered {response.status_code}")
        lines = response.json()["facts"]
        missing = [f for f in after if not any(f.needle in line for line in lines)]
        back = [f for f in before if any(f.needle in line for line in lines)]
        for fact in missing:
            print(f"  lost: guest {result.plan.index} ({result.plan.language}) {fact.kind} "
                  f"{fact.needle!r}; memory: {lines}")
        for fact in back:
            print(f"  resurrected: guest {result.plan.index} {fact.kind} {fact.needle!r}")
        not_cleared = len(missing) if result.cleared_after is None else 0
        return len(after), len(missing), not_cleared, len(back)

    for counts in await asyncio.gather(*(one(r) for r in results if r.client is not None)):
        expected += counts[0]
        lost += counts[1]
        lost_not_cleared += counts[2]
        resurrected += counts[3]
    return expected, lost, lost_not_cleared, resurrected


class ConnectionSampler:
    """The most PostgreSQL connections the stack held on its database at once (sampled)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.peak = 0
        self._stop = asyncio.Event()

    def _count(self, conn: psycopg.Connection) -> int:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> "
                           "pg_backend_pid()", [self.database]).fetchone()
        return int(row[0])

    async def run(self) -> None:
        conn = await asyncio.to_thread(admin_connection)
        try:
            while not self._stop.is_set():
                self.peak = max(self.peak, await asyncio.to_thread(self._count, conn))
                try:
                    await asyncio.wait_for(self._stop.wait(), timeout=0.5)
                except TimeoutError:
                    pass
        finally:
            conn.close()

    def stop(self) -> None:
        self._stop.set()


def memory_read_skips(base_url: str, redis_db: int) -> dict[str, int]:
    """From the web's /metrics, or the Redis counters of code from before them."""
    scraped = memory_read_skips_scraped(base_url)
    if scraped is not None:
        return scraped
    cache = redis.Redis(host=LOCAL_REDIS[0], port=LOCAL_REDIS[1], db=redis_db + 1)
    # Django's cache key: KEY_PREFIX "whizi", version 1 (see memory.reading.SKIP_COUNTER_KEY).
    return {reason: int(cache.get(f"whizi:1:chat:memory_read_skipped:{reason}") or 0)
            for reason in ("timeout", "error")}


def count_log_errors(path: Path) -> int:
    if not path.exists():
        return 0
    text = path.read_text(errors="replace")
    return text.count("Traceback (most recent call last)")


@dataclass
class CpuMeter:
    """Server CPU spent on the run: uvicorn's processes, the worker's, and the database
    backends (pooled connections live through the run, so their deltas are complete)."""

    servers: LoadStack
    database: str
    web: float = 0.0
    worker: float = 0.0
    db: float = 0.0

    def start(self) -> None:
        sessions = cpu_seconds_by_session()
        self._web0, self._worker0 = sessions[self.servers.web.pid], sessions[self.servers.worker.pid]
        self._db0 = database_backends_cpu(self.database)

    def web_done(self) -> None:
        self.web = cpu_seconds_by_session()[self.servers.web.pid] - self._web0

    def worker_done(self) -> None:
        self.worker = cpu_seconds_by_session()[self.servers.worker.pid] - self._worker0
        self.db = sum(cpu - self._db0.get(pid, 0.0)
                      for pid, cpu in database_backends_cpu(self.database).items())

    @property
    def total(self) -> float:
        return self.web + self.worker + self.db


# ---------------------------------------------------------------- one run


async def guests_run(args: argparse.Namespace, results: list[GuestResult], *, base_url: str,
                     recorder: Recorder) -> float:
    """Every guest at once, arriving over --ramp seconds; the wall time of the load."""
    started = time.monotonic()
    deadline = started + args.max_seconds
    spread = args.ramp / max(1, args.guests)
    await asyncio.gather(*(
        run_guest(result=result, base_url=base_url, recorder=recorder, think=args.think,
                  deadline=deadline, start_delay=i * spread, seed=args.seed)
        for i, result in enumerate(results)
    ))
    return time.monotonic() - started


async def measure(args: argparse.Namespace, servers: LoadStack, *, memory: bool, mode: str) -> RunReport:
    """The load, then (memory on) the drained passes and the facts' check."""
    recorder = Recorder()
    results = [GuestResult(plan=GuestPlan.for_guest(i, iterations=args.iterations,
                                                    clear_every=args.clear_every, seed=args.seed))
               for i in range(args.guests)]
    cpu = CpuMeter(servers=servers, database=args.database)
    sampler = ConnectionSampler(args.database)
    sampling = asyncio.create_task(sampler.run())
    load_before = os.getloadavg()[0]
    client_cpu = time.process_time()
    cpu.start()
    seconds = await guests_run(args, results, base_url=servers.base_url, recorder=recorder)
    cpu.web_done()
    client_cpu = time.process_time() - client_cpu
    load_after = os.getloadavg()[0]
    report = RunReport(
        mode=mode, guests=args.guests, seconds=seconds, samples=recorder.samples,
        aborted_guests=sum(1 for r in results if r.aborted),
        load_average=(load_before, load_after),
    )
    servers.stack.check_alive()
    if memory:
        print(f"  load done in {seconds:.1f} s; waiting for the worker to finish the passes", flush=True)
        drained, drain_seconds, counts = await asyncio.to_thread(
            drain, args.database, timeout=args.drain_timeout)
        cpu.worker_done()
        report.drained, report.drain_seconds, report.passes = drained, drain_seconds, counts
        expected, lost, lost_not_cleared, resurrected = await check_facts(results)
        report.facts_expected, report.lost_facts = expected, lost
        report.lost_facts_not_cleared, report.resurrected_facts = lost_not_cleared, resurrected
    else:
        cpu.worker_done()
        report.passes = passes_by_state(args.database)
    report.cpu = {"web": cpu.web, "worker": cpu.worker, "db": cpu.db, "client": client_cpu}
    sampler.stop()
    await sampling
    report.peak_db_connections = sampler.peak
    report.memory_read_skips = memory_read_skips(servers.base_url, args.redis_db)
    for result in results:
        if result.client is not None:
            await result.client.aclose()
    return report


def run_mode(args: argparse.Namespace, *, memory: bool, logs: Path, round_: int) -> RunReport:
    mode = "memory on" if memory else "memory off"
    print(f"\n=== {mode} (round {round_}): {args.guests} guests x {args.iterations} iterations "
          f"(think {args.think} s, web workers {args.web_workers}, "
          f"worker concurrency {args.worker_concurrency}, pool {args.pool_size})", flush=True)
    suffix = f"{'on' if memory else 'off'}-{round_}"
    servers = load_stack_start(args, memory=memory, logs=logs, suffix=suffix)
    try:
        asyncio.run(warm_up(servers.base_url, 2 * args.web_workers))
        report = asyncio.run(measure(args, servers, memory=memory, mode=mode))
    finally:
        servers.stack.stop()
    report.server_log_errors = sum(count_log_errors(p.log_path) for p in (servers.web, servers.worker))
    print_report(report)
    return report
