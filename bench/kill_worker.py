"""Kill the memory worker with SIGKILL in the middle of a pass, again and again, and
count the facts that were lost, doubled or brought back after a clear (all must be 0).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    WHIZI_TEST_DATABASE_NAME=test_whizi_f REDIS_URL=redis://127.0.0.1:6379/12 \\
    /work/main/.venv/bin/python bench/kill_worker.py [--rounds 100] [--clear-every 10] \\
        [--kill worker|pool] [--verbose]

It creates and then drops its own database, <WHIZI_TEST_DATABASE_NAME>_kill, and uses
the Redis database of REDIS_URL as the broker (so use your own number). Everything is
real except the memory model, which is the scripted provider (its canned answers live
in Redis, shared with the worker process).

Each round:
 1. The user says "Remember that my locker number is <n>." and gets a reply; the pass
    that makes due is saved with the reply and published on commit (memory.passes).
 2. The worker takes the pass; its model call blocks at a scripted gate.
 3. Every --clear-every rounds, the user clears memory while the pass waits: those facts
    must never come back.
 4. --kill worker (the default): the whole worker (main process and pool) gets SIGKILL;
    the list must still be the one from before the pass. A new worker starts, and Redis
    hands it the message the dead worker never acknowledged once the visibility timeout
    has passed (1 s for this bench, WHIZI_BROKER_VISIBILITY_TIMEOUT; an hour in
    production, where the every-minute sweep brings a killed pass back first, after the
    5-minute task time limit).
    --kill pool: only the pool process running the pass gets SIGKILL (what the kernel's
    out-of-memory killer does); the worker's main process puts the message straight
    back on the queue (acks_late + reject_on_worker_lost) and a new pool process runs it.
 5. The pass runs again to the end.
 6. Checks: the round's fact is saved exactly once (unless the round cleared), no line is
    saved twice, no cleared fact is back, and the list read at any time was either the
    old or the new one, never a mix.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")
MODEL_QUEUE = "kill-bench"
os.environ["WHIZI_MEMORY_MODEL"] = f"scripted/{MODEL_QUEUE}"
VISIBILITY_SECONDS = 1
PASS_TIMEOUT = 90
RESTART_AFTER = 20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--clear-every", type=int, default=10)
    parser.add_argument("--kill", choices=["worker", "pool"], default="worker")
    parser.add_argument("--verbose", action="store_true", help="print each round's timings")
    parser.add_argument("--serve-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_worker:
        serve_worker()
        return

    import django

    django.setup()
    from django.db import connection

    if connection.vendor != "postgresql":
        raise SystemExit("set DATABASE_URL to the local PostgreSQL")
    test_name = os.environ.get("WHIZI_TEST_DATABASE_NAME", "test_whizi")
    connection.settings_dict["TEST"]["NAME"] = f"{test_name}_kill"
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    started = time.monotonic()
    bench = KillBench(database=connection.settings_dict["NAME"], kill=args.kill, verbose=args.verbose)
    try:
        bench.run(rounds=args.rounds, clear_every=args.clear_every)
    finally:
        bench.stop()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    elapsed = time.monotonic() - started
    print(f"rounds: {args.rounds}, killing the {args.kill} at the gate "
          f"(a clear during the pass every {args.clear_every} rounds)")
    print(f"lost facts: {bench.lost}")
    print(f"doubled facts: {bench.doubled}")
    print(f"resurrected facts: {bench.resurrected}")
    print(f"lists neither old nor new: {bench.torn}")
    print(f"passes not finished in {PASS_TIMEOUT} s: {bench.stuck} "
          f"(extra worker restarts needed: {bench.restarts})")
    print(f"pass outcomes: {dict(sorted(bench.outcomes.items()))}; claims per pass: "
          f"{dict(sorted(bench.claims.items()))}")
    print(f"run time: {elapsed:.0f} s ({elapsed / max(args.rounds, 1):.1f} s per round)")
    if bench.lost or bench.doubled or bench.resurrected or bench.torn or bench.stuck:
        raise SystemExit(1)


def serve_worker() -> None:
    """The bench's worker: the real Celery worker, with litellm imported before the pool
    forks, so a pool process that replaces a killed one can call the model at once (the
    import costs seconds, which would otherwise dominate every round)."""
    import django

    django.setup()
    from whizi import llm
    from whizi.celery import app

    llm.litellm_module()
    app.worker_main(["worker", "--pool=prefork", "--concurrency=1", "--without-gossip", "--without-mingle",
                     "--loglevel=WARNING"])


class KillBench:
    def __init__(self, *, database: str, kill: str, verbose: bool = False) -> None:
        from django.conf import settings

        db = settings.DATABASES["default"]
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        self.env = dict(os.environ)
        self.env.pop("WHIZI_TEST_DATABASE_NAME", None)
        self.env["DATABASE_URL"] = (f"postgres://{db.get('USER') or 'postgres'}{password}@"
                                    f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{database}")
        self.env["WHIZI_BROKER_VISIBILITY_TIMEOUT"] = str(VISIBILITY_SECONDS)
        self.kill = kill
        self.verbose = verbose
        self.worker: subprocess.Popen | None = None
        self.log = open(ROOT / "var" / "kill_worker.log", "wb")  # noqa: SIM115 - closed in stop()
        self.lost = self.doubled = self.resurrected = self.torn = self.stuck = self.restarts = 0
        self.outcomes: dict[str, int] = {}
        self.claims: dict[int, int] = {}

    # ------------------------------------------------------------------ the worker

    def start_worker(self) -> None:
        from django.core.cache import cache

        from whizi.celery import ping

        self.worker = subprocess.Popen(
            [sys.executable, __file__, "--serve-worker"], cwd=ROOT, env=self.env, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
        token = uuid.uuid4().hex
        ping.delay(token)
        deadline = time.monotonic() + 60
        while cache.get(f"ping:{token}") != "pong":
            if time.monotonic() > deadline or self.worker.poll() is not None:
                raise RuntimeError("the worker did not start; see var/kill_worker.log")
            time.sleep(0.05)

    def kill_worker(self) -> None:
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def kill_pool(self) -> None:
        """SIGKILL the worker's pool processes (the one running the pass among them)."""
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == self.worker.pid:
                os.kill(int(stat.parent.name), signal.SIGKILL)

    def stop(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            self.worker.wait(timeout=30)
        self._broker_reset()
        self.log.close()

    def _broker_reset(self) -> None:
        from whizi.celery import app

        with app.connection_for_write() as conn:
            channel = conn.default_channel
            channel.queue_purge("celery")
            channel.client.delete(channel.unacked_key, channel.unacked_index_key)

    # ------------------------------------------------------------------ the rounds

    def run(self, *, rounds: int, clear_every: int) -> None:
        from django.contrib.auth import get_user_model

        from accounts.owner import Owner
        from chat.models import Conversation
        from whizi.llm.scripted import Script

        self._broker_reset()
        self.script = Script(MODEL_QUEUE).reset()
        self.user = get_user_model().objects.create_user(username="kill", email="kill@example.com")
        self.owner = Owner(user_id=self.user.pk)
        self.conversation = Conversation.objects.create(user=self.user, model="whizi/offline")
        self.cleared: set[str] = set()
        self.start_worker()
        for number in range(1, rounds + 1):
            self.round(number, clear=clear_every > 0 and number % clear_every == 0)
            if number % 10 == 0:
                print(f"  round {number}: lost {self.lost}, doubled {self.doubled}, "
                      f"resurrected {self.resurrected}", flush=True)

    def round(self, number: int, *, clear: bool) -> None:
        from memory.lines import line_key
        from memory.models import MemoryPass
        from memory.store import memory_clear, memory_read

        old = list(memory_read(owner=self.owner).lines)
        fact = f"Locker number is {4000 + number}"
        new = [*old, fact]
        answer = "\n".join(f"- {line}" for line in new)
        self.script.reset().gate("g", answer).reply(answer)

        t0 = time.monotonic()
        memory_pass = self.say(f"Remember that my locker number is {4000 + number}.")
        if not self.script.wait_arrived("g", timeout=60):
            raise RuntimeError(f"round {number}: the pass never reached the model")
        arrived = time.monotonic()
        if clear:
            memory_clear(owner=self.owner)
            self.cleared.update(old)
        if self.kill == "worker":
            self.kill_worker()
        else:
            self.kill_pool()
        killed_list = list(memory_read(owner=self.owner).lines)
        if killed_list != ([] if clear else old):
            self.torn += 1  # the dead worker must have saved nothing

        t1 = time.monotonic()
        if self.kill == "worker":
            # The new worker takes back, as it starts, every unacknowledged message older
            # than the visibility timeout; its start (importing litellm) takes longer than that.
            self.start_worker()
        t2 = time.monotonic()
        expected_states = {tuple([] if clear else old), tuple([] if clear else new)}
        deadline = time.monotonic() + PASS_TIMEOUT
        restart_at = time.monotonic() + RESTART_AFTER
        while True:
            seen = tuple(memory_read(owner=self.owner).lines)
            if seen not in expected_states:
                self.torn += 1
            row = MemoryPass.objects.filter(pk=memory_pass.pk).values("status", "outcome", "attempts").get()
            if row["status"] == MemoryPass.Status.DONE:
                break
            if time.monotonic() > deadline:
                self.stuck += 1
                break
            if self.kill == "worker" and time.monotonic() > restart_at:
                # Started too soon to see the message as abandoned: the next start will.
                self.restarts += 1
                self.kill_worker()
                self.start_worker()
                restart_at = time.monotonic() + RESTART_AFTER
            time.sleep(0.05)
        if self.verbose:
            print(f"gate {arrived - t0:.1f}s, kill {t1 - arrived:.1f}s, start {t2 - t1:.1f}s, "
                  f"rerun {time.monotonic() - t2:.1f}s", flush=True)
        outcome = row["outcome"] or row["status"]
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        self.claims[row["attempts"]] = self.claims.get(row["attempts"], 0) + 1

        saved = list(memory_read(owner=self.owner).lines)
        keys = [line_key(line) for line in saved]
        self.doubled += len(keys) - len(set(keys))
        if not clear and fact not in saved:
            self.lost += 1
        self.resurrected += len(self.cleared & set(saved))

    def say(self, text: str):
        """One exchange, saved the way chat saves it: the pass row with the reply, published
        on commit."""
        from django.db import transaction

        from chat.models import Message
        from memory.passes import pass_queue_after_reply

        with transaction.atomic():
            Message.objects.create(conversation=self.conversation, role="user", content=text)
            reply = Message.objects.create(conversation=self.conversation, role="assistant", content="Noted!")
            memory_pass = pass_queue_after_reply(
                owner=self.owner, user_text=text, reply_id=reply.pk,
                turns_after=self.conversation.messages.count(),
            )
        assert memory_pass is not None, "a remember request always queues a pass"
        return memory_pass


if __name__ == "__main__":
    main()
