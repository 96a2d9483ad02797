"""What an attacker (or a careless client) can do to the running stack, counted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    /work/main/.venv/bin/python bench/abuse.py [--requests 1000] [--signup-rounds 10] \\
        [--deletion-rounds 10] [--code <checkout>] [--json results.jsonl]

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
3. Deletion under chat: an account sends messages from three threads (remember requests,
   so passes are queued and run too) while `delete_account` runs.
   Target: every deletion completes, no row of the account remains, no HTTP 500.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
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
    PYTHON,
    Stack,
    database_drop,
    database_migrate,
    database_recreate,
    database_url,
    free_port,
    redis_flush,
    stack_args_check,
    uvicorn_start,
    uvicorn_wait_ready,
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
    deletion_rounds: int = 0
    deletions_completed: int = 0
    deletion_rows_left: int = 0
    chat_statuses_during_deletion: dict[str, int] = field(default_factory=dict)

    @property
    def http_500s(self) -> int:
        every = (self.anonymous_statuses, self.signup_statuses, self.chat_statuses_during_deletion)
        return sum(count for counts in every for status, count in counts.items() if status.startswith("5"))


# ---------------------------------------------------------------- the database, read directly


def table_rows(conn: psycopg.Connection) -> dict[str, int]:
    tables = [row[0] for row in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").fetchall()]
    return {table: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}


def rows_of_user(conn: psycopg.Connection, user_id: int) -> int:
    """Rows anywhere that still name the user (every table with a user_id column, and the user)."""
    tables = [row[0] for row in conn.execute(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' "
        "AND column_name = 'user_id'").fetchall()]
    left = conn.execute("SELECT count(*) FROM auth_user WHERE id = %s", [user_id]).fetchone()[0]
    for table in tables:
        left += conn.execute(f'SELECT count(*) FROM "{table}" WHERE user_id = %s', [user_id]).fetchone()[0]
    left += conn.execute("SELECT count(*) FROM chat_message m JOIN chat_conversation c ON c.id = "
                         "m.conversation_id WHERE c.user_id = %s", [user_id]).fetchone()[0]
    return left


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


# ---------------------------------------------------------------- 3. deletion under chat


def _signed_in_chat(base_url: str, email: str) -> tuple[httpx.Client, int]:
    client = httpx.Client(base_url=base_url, timeout=60)
    token = _signup_form(client)
    client.post("/accounts/signup/", data={"csrfmiddlewaretoken": token, "email": email,
                                           "password1": PASSWORD, "password2": PASSWORD},
                headers={"Referer": f"{base_url}/accounts/signup/"})
    if client.get("/accounts/email/").status_code != 200:  # signup did not sign in: log in
        client.get("/accounts/login/")
        client.post("/accounts/login/", data={"csrfmiddlewaretoken": client.cookies["csrftoken"],
                                              "login": email, "password": PASSWORD},
                    headers={"Referer": f"{base_url}/accounts/login/"})
    client.get("/")
    headers = {"X-CSRFToken": client.cookies["csrftoken"]}
    started = client.post("/api/conversations/", json={}, headers=headers)
    started.raise_for_status()
    return client, started.json()["id"]


def deletion_round(base_url: str, conn: psycopg.Connection, env: dict[str, str], code: Path,
                   email: str) -> tuple[bool, int, Counter]:
    client, conversation_id = _signed_in_chat(base_url, email)
    user_id = conn.execute("SELECT id FROM auth_user WHERE lower(email) = lower(%s)", [email]).fetchone()[0]
    statuses: Counter = Counter()
    stop = threading.Event()

    def chat(number: int) -> None:
        headers = {"X-CSRFToken": client.cookies["csrftoken"]}
        path = f"/api/conversations/{conversation_id}/messages/"
        turn = 0
        while not stop.is_set():
            turn += 1
            body = {"content": f"Remember that my locker number is {number}-{turn}."}
            try:
                statuses[str(client.post(path, json=body, headers=headers).status_code)] += 1
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] += 1

    threads = [threading.Thread(target=chat, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    deleted = subprocess.run([PYTHON, "manage.py", "delete_account", email, "--noinput"], cwd=code, env=env,
                             capture_output=True, text=True, timeout=120)
    time.sleep(0.5)  # requests that started before the deletion finish after it
    stop.set()
    for thread in threads:
        thread.join()
    client.close()
    if deleted.returncode:
        print(f"  delete_account exited {deleted.returncode}: {deleted.stderr.strip()[-300:]}")
    return deleted.returncode == 0, rows_of_user(conn, user_id), statuses


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
        # Every client comes from 127.0.0.1: with limits on, the signup and deletion
        # rounds would measure allauth's per-address limit. A rate-limited request writing
        # no row is tests/accounts/test_owner.py's.
        "WHIZI_RATE_LIMITS_ENABLED": "false",
        # Signup must log the account in for the deletion rounds to chat as it.
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
        base_url = f"http://127.0.0.1:{args.port}"
        uvicorn_wait_ready(web, base_url, timeout=90, watch=stack.processes)
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

            chat_statuses: Counter = Counter()
            for number in range(args.deletion_rounds):
                email = f"gone{number}@example.com"
                done, left, statuses = deletion_round(base_url, conn, env, args.code, email)
                result.deletion_rounds += 1
                result.deletions_completed += done
                result.deletion_rows_left += left
                chat_statuses.update(statuses)
            result.chat_statuses_during_deletion = dict(chat_statuses)
            print(f"deletion: {result.deletions_completed}/{result.deletion_rounds} completed, "
                  f"{result.deletion_rows_left} rows left; "
                  f"chat statuses {result.chat_statuses_during_deletion}")
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
    parser.add_argument("--deletion-rounds", type=int, default=10)
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
          and result.double_submit_one_account == result.double_submit_rounds
          and result.deletions_completed == result.deletion_rounds and result.deletion_rows_left == 0)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
