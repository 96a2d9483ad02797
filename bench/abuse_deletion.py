"""Delete an account while its owner is chatting, round after round, and count what
went wrong: deletions that did not complete, rows left behind, HTTP 500s.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    WHIZI_TEST_DATABASE_NAME=test_whizi_d REDIS_URL=redis://127.0.0.1:6379/14 \\
    /work/main/.venv/bin/python bench/abuse_deletion.py [--rounds 10] [--checkout DIR]

It creates and then drops its own database, <WHIZI_TEST_DATABASE_NAME>_abuse, and uses
the Redis database of REDIS_URL as the broker (so use your own number). The real stack:
uvicorn (one process), a Celery worker running the memory passes, PostgreSQL, Redis and
the offline model for chat and memory. `--checkout` runs the servers and the command
from another checkout (the code before a change); this script's own checkout only
creates the users and counts the rows.

Each round:
 1. An account with an email address, preferences, memory, a conversation with
    messages, a project and a voice session; three browsers signed in to it.
 2. Four threads use it at once through HTTP: the JSON API (new conversations and
    "Remember that …" messages, which queue memory passes the worker runs), the page's
    streaming endpoint, the same conversation again and again, and voice sessions.
 3. Once every thread has had answers, `manage.py delete_account <id> --noinput` runs
    as a subprocess; the threads keep going until it exits and a few requests after.
 4. Counts: the command's exit code and whether it printed a traceback, every HTTP
    status, and the rows still holding the account's id in every table it owns.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")
# The servers (maybe another checkout, with its own var/secret_key) must accept the
# sessions this process signs.
os.environ.setdefault("SECRET_KEY", "bench-abuse-deletion-not-secret")

from bench.stack import (  # noqa: E402
    PYTHON,
    Stack,
    StackError,
    broker_purge,
    django_database,
    env_on_database,
    free_port,
    uvicorn_start,
    uvicorn_wait_ready,
    wait_until,
    worker_start,
    worker_wait_ping,
)

# Requests each thread still sends after the command exited: the "after deletion" half.
AFTER_DELETION = 3
# Bounds a hung deletion; on a loaded 2-core machine the command's start-up alone takes tens of seconds.
COMMAND_TIMEOUT = 300
# Tables holding the account's id, and how to count its rows (messages and voice turns
# through their conversation and session, which must be gone too).
OWNED_ROWS = {
    "users": "SELECT count(*) FROM auth_user WHERE id = %(id)s",
    "memory": "SELECT count(*) FROM memory_memory WHERE user_id = %(id)s",
    "passes": "SELECT count(*) FROM memory_memorypass WHERE user_id = %(id)s",
    "conversations": "SELECT count(*) FROM chat_conversation WHERE user_id = %(id)s",
    "messages": "SELECT count(*) FROM chat_message WHERE conversation_id IN ({conversations})",
    "projects": "SELECT count(*) FROM chat_project WHERE user_id = %(id)s",
    "voice sessions": "SELECT count(*) FROM chat_voicesession WHERE user_id = %(id)s",
    "voice turns": "SELECT count(*) FROM chat_voiceturn WHERE session_id IN ({sessions})",
    "preferences": "SELECT count(*) FROM accounts_preference WHERE user_id = %(id)s",
    "email addresses": "SELECT count(*) FROM account_emailaddress WHERE user_id = %(id)s",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="run the servers and the command from this checkout")
    parser.add_argument("--verbose", action="store_true", help="print each round")
    args = parser.parse_args()

    import django

    django.setup()
    started = time.monotonic()
    with django_database("_abuse") as database:
        bench = DeletionBench(database=database, checkout=args.checkout.resolve(), verbose=args.verbose)
        try:
            bench.start()
            for number in range(args.rounds):
                bench.round(number)
        finally:
            bench.stop()
    elapsed = time.monotonic() - started
    report = bench.report(rounds=args.rounds)
    for line in report:
        print(line)
    print(f"run time: {elapsed:.0f} s")
    if (bench.failed_deletions or bench.server_errors or bench.leftovers or bench.tracebacks
            or bench.crashed_streams or bench.client_errors):
        raise SystemExit(1)


class DeletionBench:
    def __init__(self, *, database: str, checkout: Path, verbose: bool) -> None:
        self.checkout = checkout
        self.verbose = verbose
        self.env = env_on_database(
            database, WHIZI_CHAT_MODELS="whizi/offline", WHIZI_MEMORY_MODEL="whizi/offline",
            WHIZI_RATE_LIMITS_ENABLED="false", WHIZI_LOG_LEVEL="WARNING",
        )
        self.stack = Stack()
        self.base_url = ""
        self.deletions = self.failed_deletions = self.tracebacks = 0
        self.command_seconds = 0.0
        self.statuses: collections.Counter[int] = collections.Counter()
        self.server_errors = 0
        self.crashed_streams = 0
        self.client_errors: collections.Counter[str] = collections.Counter()
        self.leftovers: collections.Counter[str] = collections.Counter()
        self.command_errors: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self.log_dir = ROOT / "var"

    # ------------------------------------------------------------------ the stack

    def start(self) -> None:
        broker_purge()
        port = free_port()
        self.base_url = f"http://127.0.0.1:{port}"
        web = self.stack.add(uvicorn_start(env=self.env, log=self.log_dir / "abuse_deletion_web.log",
                                           port=port, cwd=self.checkout))
        uvicorn_wait_ready(web, self.base_url, timeout=90)
        worker = self.stack.add(worker_start(env=self.env, log=self.log_dir / "abuse_deletion_worker.log",
                                             concurrency=1, loglevel="WARNING", cwd=self.checkout))
        worker_wait_ping(worker)

    def stop(self) -> None:
        self.stack.stop()
        broker_purge()

    # ------------------------------------------------------------------ one round

    def _account(self, number: int):
        from allauth.account.models import EmailAddress
        from django.contrib.auth import get_user_model

        from accounts.models import Preference
        from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
        from memory.models import Memory

        email = f"round{number}-{os.getpid()}@example.com"
        user = get_user_model().objects.create_user(f"round{number}-{os.getpid()}", email, "pw-123456")
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        Preference.objects.create(user=user, language="en")
        Memory.objects.create(user=user, lines=["Name is Mai"], tokens=4, version=1)
        project = Project.objects.create(user=user, name="Thesis")
        conversation = Conversation.objects.create(user=user, project=project, model="whizi/offline",
                                                   title="Hello")
        Message.objects.create(conversation=conversation, role="user", content="Hi, I'm Mai.")
        Message.objects.create(conversation=conversation, role="assistant", content="Hi Mai!")
        session = VoiceSession.objects.create(user=user)
        VoiceTurn.objects.create(session=session, role="user", text="I live in Hanoi.")
        return user, conversation.pk

    def _browser(self, user):
        import httpx
        from django.test import Client

        signed_in = Client()
        signed_in.force_login(user)
        browser = httpx.Client(base_url=self.base_url, timeout=60)
        browser.cookies.set("sessionid", signed_in.cookies["sessionid"].value)
        browser.get("/settings/")  # the csrftoken cookie
        return browser

    def round(self, number: int) -> None:
        from django.db import connection

        user, conversation_id = self._account(number)
        user_id = user.pk
        browsers = [self._browser(user) for _ in range(4)]
        connection.close()  # the account is committed; nothing held while threads run
        deleted = threading.Event()
        answered = [0] * len(browsers)
        round_statuses: collections.Counter[int] = collections.Counter()

        def record(index: int, status: int) -> None:
            with self.lock:
                round_statuses[status] += 1
            answered[index] += 1

        def drive(index: int, step) -> None:
            after = 0
            counter = 0
            while after < AFTER_DELETION:
                if deleted.is_set():
                    after += 1
                counter += 1
                try:
                    for status in step(browsers[index], counter):
                        record(index, status)
                except Exception as exc:  # a stream cut mid-way, a refused connection
                    with self.lock:
                        self.client_errors[type(exc).__name__] += 1
                    answered[index] += 1

        def token(browser) -> dict[str, str]:
            return {"X-CSRFToken": browser.cookies.get("csrftoken", "")}

        def api_new_conversations(browser, counter):
            started = browser.post("/api/conversations/", json={}, headers=token(browser))
            yield started.status_code
            if started.status_code == 201:
                new_id = started.json()["id"]
                for text in (f"Remember that my locker number is {counter}.", "What do you remember?"):
                    yield browser.post(f"/api/conversations/{new_id}/messages/", json={"content": text},
                                       headers=token(browser)).status_code

        def api_same_conversation(browser, counter):
            yield browser.post(f"/api/conversations/{conversation_id}/messages/",
                               json={"content": f"Remember that I like tea number {counter}."},
                               headers=token(browser)).status_code

        def page_stream(browser, counter):
            fields = {"content": f"Remember that my bike is blue {counter}.",
                      "csrfmiddlewaretoken": browser.cookies.get("csrftoken", "")}
            if counter % 2:
                fields["conversation"] = str(conversation_id)
            with browser.stream("POST", "/send/stream/", data=fields, headers=token(browser)) as response:
                body = "".join(response.iter_text())
            if response.status_code == 200 and "event: done" not in body and "event: error" not in body:
                with self.lock:
                    self.crashed_streams += 1  # the stream ended without its last event
            yield response.status_code

        def voice(browser, counter):
            started = browser.post("/api/voice/sessions/", json={}, headers=token(browser))
            yield started.status_code
            if started.status_code == 201:
                session = started.json()["id"]
                yield browser.post(f"/api/voice/sessions/{session}/transcript/",
                                   json={"role": "user", "text": f"My plant is called {counter}."},
                                   headers=token(browser)).status_code
                yield browser.post(f"/api/voice/sessions/{session}/end/", json={},
                                   headers=token(browser)).status_code

        steps = [api_new_conversations, api_same_conversation, page_stream, voice]
        threads = [threading.Thread(target=drive, args=(i, step), daemon=True)
                   for i, step in enumerate(steps)]
        for thread in threads:
            thread.start()
        try:
            wait_until(lambda: min(answered) >= 2, timeout=120, what="the chat threads got no answers")
        except StackError:
            deleted.set()
            raise
        began = time.monotonic()
        try:
            command = subprocess.run(
                [PYTHON, "manage.py", "delete_account", str(user_id), "--noinput"], cwd=self.checkout,
                env=self.env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
            )
        except subprocess.TimeoutExpired as timed_out:
            command = subprocess.CompletedProcess(timed_out.cmd, returncode=-1, stdout="",
                                                  stderr=f"timed out after {COMMAND_TIMEOUT} s")
        self.command_seconds = max(self.command_seconds, time.monotonic() - began)
        deleted.set()
        for thread in threads:
            thread.join(timeout=180)
        for browser in browsers:
            browser.close()

        completed = command.returncode == 0 and self._rows(user_id)["users"] == 0
        if "Traceback" in command.stderr:
            self.tracebacks += 1
        if completed:
            self.deletions += 1
        else:
            self.failed_deletions += 1
            last = (command.stderr.strip().splitlines() or ["(no output)"])[-1]
            self.command_errors[f"exit {command.returncode}: {last[:120]}"] += 1
        # The worker may still be finishing a pass it took before the deletion: wait
        # until nothing of the account's is left, then count what is (none, or the leak).
        try:
            wait_until(lambda: not any(self._rows(user_id).values()), timeout=10, what="rows left",
                       interval=0.5)
        except StackError:
            pass
        rows = self._rows(user_id)
        for table, count in rows.items():
            if count:
                self.leftovers[table] += count
        self.statuses.update(round_statuses)
        self.server_errors += sum(n for status, n in round_statuses.items() if status >= 500)
        if self.verbose:
            print(f"round {number}: command exit {command.returncode}, statuses {dict(round_statuses)}, "
                  f"left {dict((t, n) for t, n in rows.items() if n)}", flush=True)

    def _rows(self, user_id: int) -> dict[str, int]:
        from django.db import connection

        params = {"id": user_id}
        conversations = "SELECT id FROM chat_conversation WHERE user_id = %(id)s"
        sessions = "SELECT id FROM chat_voicesession WHERE user_id = %(id)s"
        counts = {}
        with connection.cursor() as cursor:
            for table, sql in OWNED_ROWS.items():
                cursor.execute(sql.format(conversations=conversations, sessions=sessions), params)
                counts[table] = cursor.fetchone()[0]
        connection.close()
        return counts

    def report(self, *, rounds: int) -> list[str]:
        statuses = dict(sorted(self.statuses.items()))
        return [
            f"checkout: {self.checkout}",
            f"rounds: {rounds}",
            f"deletions completed: {self.deletions} of {rounds}",
            f"deletions failed: {self.failed_deletions} {dict(self.command_errors) or ''}".rstrip(),
            f"commands that printed a traceback: {self.tracebacks}",
            f"longest command (start-up included): {self.command_seconds:.0f} s",
            f"chat requests: {sum(self.statuses.values())}, HTTP 500s: {self.server_errors}, "
            f"statuses: {statuses}",
            f"streams cut without a last event: {self.crashed_streams}",
            f"requests that got no answer: {sum(self.client_errors.values())} "
            f"{dict(self.client_errors) or ''}".rstrip(),
            f"rows left behind: {sum(self.leftovers.values())} {dict(self.leftovers) or ''}".rstrip(),
        ]


if __name__ == "__main__":
    main()
