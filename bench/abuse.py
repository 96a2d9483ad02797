"""What an attacker (or a careless client) can do to the running stack, counted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    /work/main/.venv/bin/python bench/abuse.py [--requests 1000] [--signup-rounds 10] \\
        [--code <checkout>] [--json results.jsonl]

Starts uvicorn (2 workers) and a Celery worker from --code (default: this checkout) on a
database of their own (bench_abuse, dropped and created) and Redis database 12/13, with
the offline model, then measures:

1. Rows from anonymous traffic: --requests cookieless requests (the home page, settings,
   a 404, the memory API, the chat API without a CSRF token): rows added to every table,
   per 1,000 requests. Target 0. Rate limits are off for the run (every client shares
   127.0.0.1); that a 429 writes no row is tested in tests/accounts/test_owner.py.
2. Signup races: two browsers submit the signup form for one address at the same moment
   (same case on even rounds, different case on odd ones), then one browser submits its
   form twice at once. Target: one account per address, no HTTP 500.

Deletion under live chat has its own bench, bench/abuse_deletion.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import (  # noqa: E402
    LOCAL_REDIS,
    Stack,
    database_drop,
    database_migrate,
    database_recreate,
    database_url,
    free_port,
    redis_flush,
    stack_args_check,
    stack_ready,
    uvicorn_start,
    worker_start,
)

PASSWORD = "a-long-bench-pass-phrase"


@dataclass
class Result:
    label: str
    anonymous_requests: int = 0
    anonymous_statuses: dict[str, int] = field(default_factory=dict)
    rows_added: dict[str, int] = field(default_factory=dict)
    rows_per_1000: float = 0.0
    signup_rounds: int = 0
    signup_rounds_one_account: int = 0
    double_submit_rounds: int = 0
    double_submit_one_account: int = 0
    signup_statuses: dict[str, int] = field(default_factory=dict)

    @property
    def http_500s(self) -> int:
        every = (self.anonymous_statuses, self.signup_statuses)
        return sum(count for counts in every for status, count in counts.items() if status.startswith("5"))


# ---------------------------------------------------------------- the database, read directly


def table_rows(conn: psycopg.Connection) -> dict[str, int]:
    tables = [row[0] for row in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").fetchall()]
    return {table: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}


# ---------------------------------------------------------------- 1. anonymous traffic


def anonymous_requests(base_url: str, total: int) -> list[tuple[str, str, int]]:
    """A fixed mix of what a crawler or a flood sends, each from a fresh client."""
    mix = [("GET", "/"), ("GET", "/settings/"), ("GET", "/no-such-page/"), ("GET", "/api/memory/"),
           ("PUT", "/api/memory/"), ("POST", "/api/conversations/")]
    plan = [mix[i % len(mix)] for i in range(total)]
    random.Random(7).shuffle(plan)

    def one(item: tuple[str, str]) -> tuple[str, str, int]:
        method, path = item
        with httpx.Client(base_url=base_url, timeout=30) as client:  # a fresh client: no cookies
            answer = client.request(method, path, json={} if method != "GET" else None)
            return method, path, answer.status_code

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, plan))


# ---------------------------------------------------------------- 2. signup races


def _signup_form(client: httpx.Client) -> str:
    page = client.get("/accounts/signup/")
    page.raise_for_status()
    return client.cookies["csrftoken"]


def _signup(client: httpx.Client, token: str, email: str, start: threading.Barrier) -> int:
    start.wait()
    return client.post("/accounts/signup/", data={
        "csrfmiddlewaretoken": token, "email": email, "password1": PASSWORD, "password2": PASSWORD,
    }, headers={"Referer": f"{client.base_url}/accounts/signup/"}).status_code


def signup_race(base_url: str, conn: psycopg.Connection, email: str, variants: tuple[str, str]) -> list[int]:
    clients = [httpx.Client(base_url=base_url, timeout=60) for _ in variants]
    try:
        tokens = [_signup_form(client) for client in clients]
        start = threading.Barrier(len(clients))
        with ThreadPoolExecutor(len(clients)) as pool:
            return list(pool.map(lambda i: _signup(clients[i], tokens[i], variants[i], start),
                                 range(len(clients))))
    finally:
        for client in clients:
            client.close()


def double_submit(base_url: str, email: str) -> list[int]:
    with httpx.Client(base_url=base_url, timeout=60) as client:
        token = _signup_form(client)
        start = threading.Barrier(2)
        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(lambda _: _signup(client, token, email, start), range(2)))


def accounts_with(conn: psycopg.Connection, email: str) -> int:
    query = "SELECT count(*) FROM auth_user WHERE lower(email) = lower(%s)"
    return conn.execute(query, [email]).fetchone()[0]


# ---------------------------------------------------------------- the run


def server_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("WHIZI_TEST_DATABASE_NAME", None)
    env.update({
        "DATABASE_URL": database_url(args.database),
        "REDIS_URL": f"redis://{LOCAL_REDIS[0]}:{LOCAL_REDIS[1]}/{args.redis_db}",
        "SECRET_KEY": "bench-only-not-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "WHIZI_CHAT_MODELS": "whizi/offline",
        "WHIZI_MEMORY_MODEL": "whizi/offline",
        # Every client comes from 127.0.0.1: with limits on, the signup rounds would
        # measure allauth's per-address limit. A rate-limited request writing
        # no row is tests/accounts/test_owner.py's.
        "WHIZI_RATE_LIMITS_ENABLED": "false",
        "WHIZI_EMAIL_VERIFICATION": "optional",
        "WHIZI_LOG_LEVEL": "WARNING",
    })
    return env


def run(args: argparse.Namespace, logs: Path) -> Result:
    result = Result(label=args.label)
    env = server_env(args)
    database_recreate(args.database)
    redis_flush(args.redis_db)
    database_migrate(env, cwd=args.code)
    stack = Stack()
    try:
        stack.add(worker_start(env=env, log=logs / "worker.log", cwd=args.code))
        web = stack.add(uvicorn_start(env=env, log=logs / "web.log", port=args.port, workers=2,
                                      cwd=args.code, options=["--no-access-log"]))
        base_url = stack_ready(stack, web=web, port=args.port)
        with psycopg.connect(database_url(args.database), autocommit=True) as conn:
            before = table_rows(conn)
            answers = anonymous_requests(base_url, args.requests)
            after = table_rows(conn)
            result.anonymous_requests = len(answers)
            result.anonymous_statuses = dict(Counter(str(status) for _, _, status in answers))
            result.rows_added = {table: after[table] - before.get(table, 0) for table in after
                                 if after[table] != before.get(table, 0)}
            result.rows_per_1000 = round(sum(result.rows_added.values()) * 1000 / max(1, len(answers)), 1)
            print(f"anonymous: {len(answers)} requests {result.anonymous_statuses}; rows added "
                  f"{result.rows_added or 'none'}")

            redis_flush(args.redis_db)  # the anonymous flood's rate-limit counts
            statuses: Counter = Counter()
            for number in range(args.signup_rounds):
                email = f"race{number}@example.com"
                variants = (email, email) if number % 2 == 0 else (email, email.upper())
                statuses.update(str(s) for s in signup_race(base_url, conn, email, variants))
                result.signup_rounds += 1
                result.signup_rounds_one_account += accounts_with(conn, email) == 1
                twice = f"twice{number}@example.com"
                statuses.update(str(s) for s in double_submit(base_url, twice))
                result.double_submit_rounds += 1
                result.double_submit_one_account += accounts_with(conn, twice) == 1
            result.signup_statuses = dict(statuses)
            print(f"signup: {result.signup_rounds_one_account}/{result.signup_rounds} races and "
                  f"{result.double_submit_one_account}/{result.double_submit_rounds} double submits "
                  f"left one account; statuses {result.signup_statuses}")

    finally:
        stack.stop()
        database_drop(args.database)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout the servers run from")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--signup-rounds", type=int, default=10)
    parser.add_argument("--port", type=int, default=free_port())
    parser.add_argument("--database", default="bench_abuse")
    parser.add_argument("--redis-db", type=int, default=12, help="broker db; the cache uses the next")
    parser.add_argument("--json", type=Path, help="append the result here, one JSON object a line")
    args = parser.parse_args()
    stack_args_check(parser, args)
    logs = Path(tempfile.mkdtemp(prefix="whizi-abuse-"))
    print(f"server logs: {logs}; load average {os.getloadavg()[0]:.1f}")
    result = run(args, logs)
    print(f"HTTP 500s in all: {result.http_500s}")
    if args.json:
        with open(args.json, "a") as handle:
            handle.write(json.dumps({**asdict(result), "http_500s": result.http_500s}) + "\n")
    ok = (result.rows_per_1000 == 0 and result.http_500s == 0
          and result.signup_rounds_one_account == result.signup_rounds
          and result.double_submit_one_account == result.double_submit_rounds)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
