"""Load benchmark: the real stack on this machine, driven by N concurrent guests.

For each mode (memory on, then memory off) it:

1. creates a fresh PostgreSQL database (the name must start with "bench_") and
   migrates it, and empties its own two Redis databases (broker and cache);
2. starts the real stack: uvicorn serving whizi.asgi:application (--web-workers
   processes) and a Celery worker (--worker-concurrency prefork processes) on Redis,
   both on the offline model (WHIZI_CHAT_MODELS=whizi/offline,
   WHIZI_MEMORY_MODEL=whizi/offline), with WHIZI_MEMORY_ENABLED=true or false;
3. drives N guests at once. Each guest has its own cookie jar and language: GET / (a
   guest identity and the csrftoken cookie), then for each iteration: POST
   /api/conversations/, four POST …/messages/ (small talk and one fact: "My name is …"
   + "Remember that.", "Remember that I live in …", a birthday, a liking, in English,
   Vietnamese, Chinese, Japanese, Korean and Malay), GET /settings/, GET /api/memory/;
   every --clear-every'th guest also sends DELETE /api/memory/ (X-CSRFToken) once,
   after its second iteration. Guests wait --think seconds (on average) between
   requests, as people do;
4. records per endpoint: count, requests/s, median and p95 latency, 4xx, 5xx and
   transport errors; and the server's CPU time (uvicorn's processes, the worker's and
   the database backends), which a busy shared machine disturbs far less than latency;
5. memory on only: waits (bounded) until the worker has finished every queued pass,
   then reads each guest's memory through GET /api/memory/ and counts
   - lost facts: a fact the guest asked to remember after its last clear (or ever, if
     it never cleared) that is not in its memory;
   - resurrected facts: a fact asked before the clear, and not again after it, that is
     back in its memory;
6. stops everything it started, drops the database and empties its Redis databases.

At the end it prints both runs side by side with the memory on/off ratios. With
--rounds R the modes run R times each, alternating their order (on, off, off, on, ...),
and each mode's samples are pooled.

Rate limits are switched off for the run (WHIZI_RATE_LIMITS_ENABLED=false): every
guest comes from 127.0.0.1, so the per-IP limit would otherwise refuse most of them.
All traffic goes to 127.0.0.1; every phase is bounded in time (--max-seconds for the
load, --drain-timeout for the passes) and the script stops by itself.

    python bench/load.py --guests 50 --iterations 3 --rounds 2 \\
        --database bench_whizi --redis-db 14 --port 18080

(PostgreSQL on 127.0.0.1:5432 as user postgres, Redis on 127.0.0.1:6379.) Results
and the machine they were measured on are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import redis

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

# ---------------------------------------------------------------- what guests say

SMALL_TALK = {
    "en": ["What should I cook tonight?", "Can you suggest a weekend plan?",
           "How do I say thank you in Japanese?", "Give me a short poem about rain."],
    "vi": ["Hôm nay nấu gì nhỉ?", "Gợi ý cho tôi kế hoạch cuối tuần nhé.",
           "Viết một bài thơ ngắn về mưa.", "Cách pha trà ngon là gì?"],
    "zh-hans": ["今晚吃什么好？", "周末有什么好玩的计划？", "写一首关于雨的短诗。", "怎么泡好一杯茶？"],
    "ja": ["今夜は何を作ろうかな？", "週末のおすすめの過ごし方は？", "雨についての短い詩を書いて。",
           "おいしいお茶の入れ方は？"],
    "ko": ["오늘 저녁 뭐 먹지?", "주말 계획 좀 추천해 줘.", "비에 관한 짧은 시를 써 줘.",
           "녹차를 맛있게 우리는 법은?"],
    "ms": ["Nak masak apa malam ini?", "Cadangkan rancangan hujung minggu.",
           "Tulis puisi pendek tentang hujan.", "Bagaimana nak bancuh teh yang sedap?"],
}

VALUES = {
    "en": {"name": ["Anna Lee", "Tom Baker", "Priya Nair", "Lucas Silva"],
           "city": ["Hanoi", "Melbourne", "Toronto", "Lisbon"],
           "like": ["hiking", "jazz", "green tea", "chess"]},
    "vi": {"name": ["Nguyễn Thị Mai", "Trần Văn Nam", "Lê Thu Hà", "Phạm Minh Tuấn"],
           "city": ["Đà Nẵng", "Hà Nội", "Huế", "Cần Thơ"],
           "like": ["cà phê sữa đá", "phở bò", "đọc sách", "bơi lội"]},
    "zh-hans": {"name": ["王小明", "李华", "张伟", "陈静"],
                "city": ["北京", "上海", "成都", "杭州"],
                "like": ["猫", "绿茶", "爬山", "京剧"]},
    "ja": {"name": ["田中花子", "佐藤健", "鈴木一郎", "高橋美咲"],
           "city": ["東京", "大阪", "京都", "札幌"],
           "like": ["猫", "緑茶", "登山", "将棋"]},
    # Korean likes end in a vowel, so the object particle is always 를.
    "ko": {"name": ["김민준", "이서연", "박지훈", "최유나"],
           "city": ["서울", "부산", "대구", "인천"],
           "like": ["고양이", "녹차", "커피", "요가"]},
    "ms": {"name": ["Siti Aminah", "Ahmad Faizal", "Nurul Huda", "Lim Wei Ling"],
           "city": ["Shah Alam", "Ipoh", "Kuching", "Johor Bahru"],
           "like": ["nasi lemak", "badminton", "teh tarik", "kopi"]},
}

# Per language and kind of fact: what the guest says (one or two messages) and the
# text that must then be in one of its saved lines (names, places and dates verbatim).
FACT_TEMPLATES = {
    "en": {"name": (["My name is {name}.", "Remember that."], "{name}"),
           "home": (["Remember that I live in {city}."], "{city}"),
           "birthday": (["Please remember that my sister's birthday is {day} March."], "{day} March"),
           "like": (["I love {like}. Remember that."], "{like}")},
    "vi": {"name": (["Tên tôi là {name}.", "Nhớ điều đó nhé."], "{name}"),
           "home": (["Nhớ là tôi sống ở {city} nhé."], "{city}"),
           "birthday": (["Nhớ là sinh nhật em gái tôi là {day}/3 nhé."], "{day}/3"),
           "like": (["Tôi rất thích {like}. Nhớ nhé."], "{like}")},
    "zh-hans": {"name": (["我叫{name}。", "记住这个。"], "{name}"),
                "home": (["记住我住在{city}。"], "{city}"),
                "birthday": (["记住我妹妹的生日是3月{day}日。"], "3月{day}日"),
                "like": (["我很喜欢{like}。记住这个。"], "{like}")},
    "ja": {"name": (["私の名前は{name}です。", "それを覚えて。"], "{name}"),
           "home": (["{city}に住んでいると覚えておいて。"], "{city}"),
           "birthday": (["妹の誕生日は3月{day}日だと覚えておいて。"], "3月{day}日"),
           "like": (["{like}が大好きです。覚えて。"], "{like}")},
    "ko": {"name": (["제 이름은 {name}입니다.", "그거 기억해."], "{name}"),
           "home": (["제가 {city}에 산다는 걸 기억해 줘."], "{city}"),
           "birthday": (["여동생 생일이 3월 {day}일이라는 걸 기억해 줘."], "3월 {day}일"),
           "like": (["{like}를 정말 좋아해요. 기억해 줘."], "{like}")},
    "ms": {"name": (["Nama saya {name}.", "Ingat itu."], "{name}"),
           "home": (["Ingat bahawa saya tinggal di {city}."], "{city}"),
           "birthday": (["Ingat bahawa hari jadi adik saya ialah {day} Mac."], "{day} Mac"),
           "like": (["Saya suka {like}. Ingat itu."], "{like}")},
}
FACT_KINDS = ("name", "home", "birthday", "like")
LANGUAGES = tuple(SMALL_TALK)
MESSAGES_PER_CONVERSATION = 4
# The guest that clears does it after this many iterations (so it has facts to lose,
# and passes of its last conversation may still be running when the clear lands).
CLEAR_AFTER_ITERATION = 2


@dataclass(frozen=True)
class Fact:
    kind: str
    needle: str
    iteration: int


@dataclass(frozen=True)
class ConversationPlan:
    messages: tuple[str, ...]
    fact: Fact


@dataclass(frozen=True)
class GuestPlan:
    """Everything one guest will say, decided up front (seeded), so a run is repeatable.

    Iteration i states the fact FACT_KINDS[i % 4] (always with the same value, so a
    later iteration never contradicts an earlier one) between small-talk messages.
    """

    index: int
    language: str
    conversations: tuple[ConversationPlan, ...]
    clears: bool

    @classmethod
    def for_guest(cls, index: int, *, iterations: int, clear_every: int, seed: int) -> GuestPlan:
        rng = random.Random(seed * 100_003 + index)
        language = LANGUAGES[index % len(LANGUAGES)]
        values = {
            "name": rng.choice(VALUES[language]["name"]),
            "city": rng.choice(VALUES[language]["city"]),
            "like": rng.choice(VALUES[language]["like"]),
            "day": str(rng.randint(1, 28)),
        }
        conversations = []
        for iteration in range(iterations):
            kind = FACT_KINDS[iteration % len(FACT_KINDS)]
            said, needle = FACT_TEMPLATES[language][kind]
            said = [text.format(**values) for text in said]
            talk = rng.sample(SMALL_TALK[language], MESSAGES_PER_CONVERSATION - len(said))
            messages = [talk[0], *said, *talk[1:]]
            conversations.append(ConversationPlan(
                messages=tuple(messages),
                fact=Fact(kind=kind, needle=needle.format(**values), iteration=iteration),
            ))
        clears = clear_every > 0 and index % clear_every == clear_every - 1
        return cls(index=index, language=language, conversations=tuple(conversations), clears=clears)

    def all_facts(self) -> list[Fact]:
        return [conversation.fact for conversation in self.conversations]


# ---------------------------------------------------------------- measurements

ENDPOINTS = (
    "GET /",
    "POST /api/conversations/",
    "POST /api/conversations/<id>/messages/",
    "GET /settings/",
    "GET /api/memory/",
    "DELETE /api/memory/",
)
CHAT = "POST /api/conversations/<id>/messages/"


@dataclass
class Samples:
    ms: list[float] = field(default_factory=list)
    client_errors: int = 0  # 4xx
    server_errors: int = 0  # 5xx
    transport_errors: int = 0  # no answer at all (refused, reset, timed out)
    first_failures: list[str] = field(default_factory=list)


@dataclass
class GuestResult:
    plan: GuestPlan
    client: httpx.AsyncClient | None = None
    completed_iterations: int = 0
    cleared_after: int | None = None  # iterations completed when it cleared
    aborted: str = ""


class Recorder:
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


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


class GuestFailed(Exception):
    pass


async def _call(recorder: Recorder, client: httpx.AsyncClient, endpoint: str, method: str,
                path: str, *, body: dict | None = None, record: bool = True) -> httpx.Response:
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
        if record:
            recorder.record(endpoint, 0.0, None, f"{type(exc).__name__}: {exc}")
        raise GuestFailed(f"{endpoint}: {type(exc).__name__}") from exc
    ms = (time.perf_counter() - started) * 1000
    if record:
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


# ---------------------------------------------------------------- the stack


@dataclass
class Stack:
    """The processes this script started; stop() ends exactly these, by process group."""

    processes: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def start(self, name: str, argv: list[str], *, env: dict[str, str], log: Path) -> subprocess.Popen:
        handle = open(log, "ab")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        handle.close()
        self.processes.append((name, process))
        return process

    def stop(self) -> None:
        for _, process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for _, process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self.processes.clear()

    def check_alive(self) -> None:
        for name, process in self.processes:
            if process.poll() is not None:
                raise SystemExit(f"{name} exited with code {process.returncode}; see its log")


def stack_env(args: argparse.Namespace, *, memory: bool) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("WHIZI_", "DJANGO_"))}
    env.update({
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "whizi.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{args.database}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
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


def _admin_connection() -> psycopg.Connection:
    return psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True)


def database_recreate(name: str) -> None:
    with _admin_connection() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def database_drop(name: str) -> None:
    with _admin_connection() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_flush(db: int) -> None:
    for number in (db, db + 1):  # the broker and the cache (settings: cache = broker + 1)
        redis.Redis(host="127.0.0.1", port=6379, db=number).flushdb()


def wait_for_http(url: str, *, timeout: float, stack: Stack) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stack.check_alive()
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{url} did not answer within {timeout:.0f} s")


def wait_for_log(path: Path, marker: str, *, timeout: float, stack: Stack) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stack.check_alive()
        if path.exists() and marker in path.read_text(errors="replace"):
            return
        time.sleep(0.3)
    raise SystemExit(f"no {marker!r} in {path} within {timeout:.0f} s")


def stack_start(args: argparse.Namespace, *, memory: bool, logs: Path, suffix: str) -> tuple[Stack, str]:
    env = stack_env(args, memory=memory)
    database_recreate(args.database)
    redis_flush(args.redis_db)
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                   check=True, timeout=300)
    stack = Stack()
    try:
        worker_log = logs / f"worker-{suffix}.log"
        worker_env = dict(env, WHIZI_LOG_LEVEL="INFO")  # "ready." is logged at INFO
        stack.start("celery worker", [
            PYTHON, "-m", "celery", "-A", "whizi", "worker", "--loglevel", "INFO",
            "--concurrency", str(args.worker_concurrency), "--pool", "prefork",
            "--without-gossip", "--without-mingle", "--hostname", f"bench-{os.getpid()}@%h",
        ], env=worker_env, log=worker_log)
        stack.start("uvicorn", [
            PYTHON, "-m", "uvicorn", "whizi.asgi:application", "--host", "127.0.0.1",
            "--port", str(args.port), "--workers", str(args.web_workers),
            "--no-access-log", "--log-level", "warning", "--timeout-graceful-shutdown", "5",
            # Longer than any guest's pause, as behind a proxy (nginx keeps 75 s): with
            # uvicorn's 5 s default, a request sent as the server closes an idle
            # connection fails in transit, which is the client's race, not the server's.
            "--timeout-keep-alive", "75",
        ], env=env, log=logs / f"web-{suffix}.log")
        base_url = f"http://127.0.0.1:{args.port}"
        wait_for_http(f"{base_url}/static/css/whizi.css", timeout=90, stack=stack)
        wait_for_log(worker_log, "ready.", timeout=90, stack=stack)
    except BaseException:
        stack.stop()
        raise
    return stack, base_url


# ---------------------------------------------------------------- one run


@dataclass
class RunReport:
    mode: str
    guests: int
    seconds: float
    recorder: Recorder
    aborted_guests: int
    passes: dict[str, int] = field(default_factory=dict)
    drain_seconds: float | None = None
    drained: bool | None = None
    facts_expected: int | None = None
    lost_facts: int | None = None
    lost_facts_not_cleared: int | None = None
    resurrected_facts: int | None = None
    memory_read_skips: dict[str, int] = field(default_factory=dict)
    peak_db_connections: int = 0
    load_average: tuple[float, float] = (0.0, 0.0)  # 1-minute load at start and end (shared machine)
    server_log_errors: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # seconds: web, worker, db, client

    @property
    def endpoints(self) -> dict[str, dict[str, float]]:
        return summarise(self.recorder, self.seconds)[0]

    @property
    def total(self) -> dict[str, float]:
        return summarise(self.recorder, self.seconds)[1]

    @property
    def first_failures(self) -> dict[str, list[str]]:
        return {k: v.first_failures for k, v in self.recorder.samples.items() if v.first_failures}

    @property
    def server_cpu(self) -> float:
        return self.cpu.get("web", 0.0) + self.cpu.get("worker", 0.0) + self.cpu.get("db", 0.0)

    def as_json(self) -> dict[str, object]:
        data = {k: v for k, v in self.__dict__.items() if k != "recorder"}
        data.update(endpoints=self.endpoints, total=self.total, first_failures=self.first_failures)
        return data


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


def passes_by_state(database: str) -> dict[str, int]:
    with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{database}") as conn:
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
        conn = await asyncio.to_thread(_admin_connection)
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


def memory_read_skips(redis_db: int) -> dict[str, int]:
    cache = redis.Redis(host="127.0.0.1", port=6379, db=redis_db + 1)
    # Django's cache key: KEY_PREFIX "whizi", version 1 (see memory.reading.SKIP_COUNTER_KEY).
    return {reason: int(cache.get(f"whizi:1:chat:memory_read_skipped:{reason}") or 0)
            for reason in ("timeout", "error")}


def count_log_errors(path: Path) -> int:
    if not path.exists():
        return 0
    text = path.read_text(errors="replace")
    return text.count("Traceback (most recent call last)")


def summarise(recorder: Recorder, seconds: float) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    endpoints: dict[str, dict[str, float]] = {}
    every: list[float] = []
    totals = Counter()
    for endpoint in ENDPOINTS:
        s = recorder.samples.get(endpoint)
        if s is None or not (s.ms or s.transport_errors):
            continue
        every += s.ms
        row = {
            "count": len(s.ms) + s.transport_errors,
            "rps": (len(s.ms) + s.transport_errors) / seconds,
            "median_ms": statistics.median(s.ms) if s.ms else 0.0,
            "p95_ms": percentile(s.ms, 95) if s.ms else 0.0,
            "4xx": s.client_errors,
            "5xx": s.server_errors,
            "transport_errors": s.transport_errors,
        }
        endpoints[endpoint] = row
        for key in ("count", "4xx", "5xx", "transport_errors"):
            totals[key] += row[key]
    total = {
        "count": totals["count"], "rps": totals["count"] / seconds,
        "median_ms": statistics.median(every) if every else 0.0,
        "p95_ms": percentile(every, 95) if every else 0.0,
        "4xx": totals["4xx"], "5xx": totals["5xx"], "transport_errors": totals["transport_errors"],
    }
    return endpoints, total


def _cpu_by_session() -> dict[int, float]:
    """CPU seconds (user + system) of every live process, summed per session id."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds: dict[int, float] = defaultdict(float)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            raw = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2:].split()  # after "pid (comm) "
        seconds[int(fields[3])] += (int(fields[11]) + int(fields[12])) / ticks
    return seconds


def _db_backend_cpu(database: str) -> dict[int, float]:
    """CPU seconds of each PostgreSQL backend connected to the bench database."""
    ticks = os.sysconf("SC_CLK_TCK")
    with _admin_connection() as conn:
        pids = [row[0] for row in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [database]).fetchall()]
    seconds = {}
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2:].split()
        seconds[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


@dataclass
class CpuMeter:
    """Server CPU spent on the run: uvicorn's processes, the worker's, and the database
    backends (pooled connections live through the run, so their deltas are complete)."""

    stack: Stack
    database: str
    web: float = 0.0
    worker: float = 0.0
    db: float = 0.0

    def _sessions(self) -> tuple[int, int]:
        pids = {name: process.pid for name, process in self.stack.processes}
        return pids["uvicorn"], pids["celery worker"]

    def start(self) -> None:
        web, worker = self._sessions()
        sessions = _cpu_by_session()
        self._web0, self._worker0 = sessions[web], sessions[worker]
        self._db0 = _db_backend_cpu(self.database)

    def web_done(self) -> None:
        self.web = _cpu_by_session()[self._sessions()[0]] - self._web0

    def worker_done(self) -> None:
        self.worker = _cpu_by_session()[self._sessions()[1]] - self._worker0
        self.db = sum(cpu - self._db0.get(pid, 0.0)
                      for pid, cpu in _db_backend_cpu(self.database).items())

    @property
    def total(self) -> float:
        return self.web + self.worker + self.db


def run_mode(args: argparse.Namespace, *, memory: bool, logs: Path, round_: int) -> RunReport:
    mode = "memory on" if memory else "memory off"
    print(f"\n=== {mode} (round {round_}): {args.guests} guests x {args.iterations} iterations "
          f"(think {args.think} s, web workers {args.web_workers}, "
          f"worker concurrency {args.worker_concurrency}, pool {args.pool_size})", flush=True)
    suffix = f"{'on' if memory else 'off'}-{round_}"
    stack, base_url = stack_start(args, memory=memory, logs=logs, suffix=suffix)
    try:
        asyncio.run(warm_up(base_url, 2 * args.web_workers))
        recorder = Recorder()
        plans = [GuestPlan.for_guest(i, iterations=args.iterations, clear_every=args.clear_every,
                                     seed=args.seed) for i in range(args.guests)]
        results = [GuestResult(plan=plan) for plan in plans]
        cpu = CpuMeter(stack=stack, database=args.database)

        async def load() -> float:
            started = time.monotonic()
            deadline = started + args.max_seconds
            spread = args.ramp / max(1, args.guests)
            await asyncio.gather(*(
                run_guest(result=result, base_url=base_url, recorder=recorder, think=args.think,
                          deadline=deadline, start_delay=i * spread, seed=args.seed)
                for i, result in enumerate(results)
            ))
            return time.monotonic() - started

        async def load_and_check() -> RunReport:
            sampler = ConnectionSampler(args.database)
            sampling = asyncio.create_task(sampler.run())
            load_before = os.getloadavg()[0]
            client_cpu = time.process_time()
            cpu.start()
            seconds = await load()
            cpu.web_done()
            client_cpu = time.process_time() - client_cpu
            load_after = os.getloadavg()[0]
            report = RunReport(
                mode=mode, guests=args.guests, seconds=seconds, recorder=recorder,
                aborted_guests=sum(1 for r in results if r.aborted),
                load_average=(load_before, load_after),
            )
            stack.check_alive()
            if memory:
                print(f"  load done in {seconds:.1f} s; waiting for the worker to finish the passes",
                      flush=True)
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
            report.memory_read_skips = memory_read_skips(args.redis_db)
            for result in results:
                if result.client is not None:
                    await result.client.aclose()
            return report

        report = asyncio.run(load_and_check())
    finally:
        stack.stop()
    report.server_log_errors = (count_log_errors(logs / f"web-{suffix}.log")
                                + count_log_errors(logs / f"worker-{suffix}.log"))
    print_report(report)
    return report


def combine(reports: list[RunReport]) -> RunReport:
    """One mode's rounds as one report: samples pooled, counts added."""
    if len(reports) == 1:
        return reports[0]
    recorder = Recorder()
    for report in reports:
        for endpoint, samples in report.recorder.samples.items():
            merged = recorder.samples[endpoint]
            merged.ms += samples.ms
            merged.client_errors += samples.client_errors
            merged.server_errors += samples.server_errors
            merged.transport_errors += samples.transport_errors
            merged.first_failures += samples.first_failures[: 3 - len(merged.first_failures)]

    def total(name: str) -> int | None:
        values = [getattr(r, name) for r in reports]
        return None if any(v is None for v in values) else sum(values)

    passes: Counter = Counter()
    skips: Counter = Counter()
    cpu: Counter = Counter()
    for report in reports:
        passes.update(report.passes)
        skips.update(report.memory_read_skips)
        cpu.update(report.cpu)
    return RunReport(
        mode=f"{reports[0].mode}, {len(reports)} rounds", guests=reports[0].guests,
        seconds=sum(r.seconds for r in reports), recorder=recorder,
        aborted_guests=sum(r.aborted_guests for r in reports), passes=dict(passes),
        drain_seconds=max((r.drain_seconds or 0.0) for r in reports),
        drained=None if reports[0].drained is None else all(r.drained for r in reports),
        facts_expected=total("facts_expected"), lost_facts=total("lost_facts"),
        lost_facts_not_cleared=total("lost_facts_not_cleared"),
        resurrected_facts=total("resurrected_facts"), memory_read_skips=dict(skips),
        peak_db_connections=max(r.peak_db_connections for r in reports),
        load_average=(min(r.load_average[0] for r in reports), max(r.load_average[1] for r in reports)),
        server_log_errors=sum(r.server_log_errors for r in reports), cpu=dict(cpu),
    )


# ---------------------------------------------------------------- output


def print_report(report: RunReport) -> None:
    print(f"\n{report.mode}: {report.guests} guests, {report.seconds:.1f} s of load "
          f"(machine load average {report.load_average[0]:.1f} before, "
          f"{report.load_average[1]:.1f} after)")
    header = (f"  {'endpoint':40s} {'count':>6s} {'req/s':>7s} {'median':>8s} {'p95':>8s} "
              f"{'4xx':>4s} {'5xx':>4s} {'conn':>4s}")
    print(header)
    rows = list(report.endpoints.items()) + [("all", report.total)]
    for endpoint, row in rows:
        print(f"  {endpoint:40s} {row['count']:6d} {row['rps']:7.1f} {row['median_ms']:6.0f}ms "
              f"{row['p95_ms']:6.0f}ms {row['4xx']:4d} {row['5xx']:4d} {row['transport_errors']:4d}")
    print(f"  guests stopped by an error: {report.aborted_guests}; "
          f"tracebacks in server logs: {report.server_log_errors}")
    print(f"  memory passes: {report.passes}; memory reads skipped: {report.memory_read_skips}; "
          f"peak PostgreSQL connections: {report.peak_db_connections}")
    if report.lost_facts is not None:
        print(f"  drained: {report.drained} in {report.drain_seconds:.1f} s; facts checked: "
              f"{report.facts_expected}; lost facts: {report.lost_facts} "
              f"(guests that never cleared: {report.lost_facts_not_cleared}); "
              f"resurrected after a clear: {report.resurrected_facts}")
    if report.cpu:
        requests = report.total["count"] or 1
        print(f"  server CPU: web {report.cpu['web']:.1f} s, worker {report.cpu['worker']:.1f} s, "
              f"database {report.cpu['db']:.1f} s = {report.server_cpu / requests * 1000:.1f} ms per "
              f"request (the load client itself: {report.cpu['client']:.1f} s)")
    for endpoint, failures in report.first_failures.items():
        print(f"  first failures on {endpoint}: {failures}")


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def print_comparison(on: RunReport, off: RunReport, rounds: list[tuple[RunReport, RunReport]]) -> None:
    print(f"\nmemory on vs off, {on.guests} guests (ratio = on / off; above 1 means memory costs)")
    print(f"  {'endpoint':40s} {'median on':>9s} {'off':>7s} {'ratio':>6s}   "
          f"{'p95 on':>7s} {'off':>7s} {'ratio':>6s}   {'req/s on':>8s} {'off':>6s}")
    for endpoint in [*ENDPOINTS, "all"]:
        a = on.total if endpoint == "all" else on.endpoints.get(endpoint)
        b = off.total if endpoint == "all" else off.endpoints.get(endpoint)
        if not a or not b:
            continue
        print(f"  {endpoint:40s} {a['median_ms']:7.0f}ms {b['median_ms']:5.0f}ms "
              f"{ratio(a['median_ms'], b['median_ms']):>6s}   {a['p95_ms']:5.0f}ms {b['p95_ms']:5.0f}ms "
              f"{ratio(a['p95_ms'], b['p95_ms']):>6s}   {a['rps']:8.1f} {b['rps']:6.1f}")
    print(f"  wall time of the load: on {on.seconds:.1f} s, off {off.seconds:.1f} s "
          f"(ratio {ratio(on.seconds, off.seconds)})")
    on_ms = on.server_cpu / (on.total["count"] or 1) * 1000
    off_ms = off.server_cpu / (off.total["count"] or 1) * 1000
    print(f"  server CPU per request (web + worker + database): on {on_ms:.1f} ms, "
          f"off {off_ms:.1f} ms, ratio {ratio(on_ms, off_ms)}")
    if len(rounds) > 1:
        per_round = ", ".join(
            ratio(a.endpoints[CHAT]["median_ms"], b.endpoints[CHAT]["median_ms"]) for a, b in rounds)
        print(f"  chat median ratio per round: {per_round}")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return (f"{os.cpu_count()} cores ({cpu}), {memory_gb:.0f} GB RAM, {platform.platform()}, "
            f"Python {platform.python_version()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--guests", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=3, help="conversations per guest")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean pause between a guest's requests, in seconds (0.5x-1.5x)")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which guests arrive")
    parser.add_argument("--clear-every", type=int, default=5,
                        help="every Nth guest clears its memory once (0: none)")
    parser.add_argument("--max-seconds", type=float, default=300,
                        help="no guest starts a new iteration after this")
    parser.add_argument("--drain-timeout", type=float, default=300,
                        help="longest wait for the worker to finish the passes")
    parser.add_argument("--modes", default="on,off", help="on, off or on,off")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the modes, alternating their order (on,off / off,on ...), "
                             "so a busy moment on a shared machine weighs on both")
    parser.add_argument("--web-workers", type=int, default=2, help="uvicorn processes")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery prefork processes")
    parser.add_argument("--pool-size", type=int, default=20,
                        help="WHIZI_DB_POOL_MAX_SIZE: PostgreSQL connections per server process")
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--database", default="bench_whizi")
    parser.add_argument("--redis-db", type=int, default=14, help="broker db; the cache uses the next")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the reports here")
    parser.add_argument("--logs", type=Path, help="server logs folder (default: a temporary one)")
    args = parser.parse_args()

    if not args.database.startswith("bench_"):
        parser.error("--database must start with bench_ (it is dropped and created)")
    if args.redis_db < 2 or args.redis_db > 14:
        parser.error("--redis-db must be 2..14 (it and the next are emptied; 0/1 are the dev defaults)")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in ("on", "off") for m in modes):
        parser.error("--modes takes on, off or on,off")

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # unwinds through the finally blocks that stop the stack

    signal.signal(signal.SIGTERM, stop)
    logs = args.logs or Path(tempfile.mkdtemp(prefix="whizi-bench-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine()}")
    print(f"server logs: {logs}")
    runs: dict[str, list[RunReport]] = {mode: [] for mode in modes}
    try:
        for round_ in range(1, args.rounds + 1):
            for mode in (modes if round_ % 2 else modes[::-1]):
                runs[mode].append(run_mode(args, memory=mode == "on", logs=logs, round_=round_))
    finally:
        database_drop(args.database)
        redis_flush(args.redis_db)
    reports = {mode: combine(reports) for mode, reports in runs.items()}
    if args.rounds > 1:
        for report in reports.values():
            print_report(report)
    if "on" in reports and "off" in reports:
        print_comparison(reports["on"], reports["off"], list(zip(runs["on"], runs["off"], strict=True)))
    if args.json:
        args.json.write_text(json.dumps(
            {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()},
             "runs": {mode: report.as_json() for mode, report in reports.items()},
             "rounds": {mode: [r.as_json() for r in reports] for mode, reports in runs.items()}},
            indent=2, ensure_ascii=False, default=str))
    bad = [r for r in reports.values()
           if r.total["5xx"] or r.total["transport_errors"] or r.lost_facts or r.resurrected_facts]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
