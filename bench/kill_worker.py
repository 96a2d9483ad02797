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
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")  # the scripted model

from bench.stack import (  # noqa: E402
    Process,
    broker_purge,
    children_of,
    django_database,
    env_on_database,
    worker_start,
    worker_wait_ping,
)

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
    args = parser.parse_args()

    import django

    django.setup()
    started = time.monotonic()
    with django_database("_kill") as database:
        bench = KillBench(database=database, kill=args.kill, verbose=args.verbose)
        try:
            bench.run(rounds=args.rounds, clear_every=args.clear_every)
        finally:
            bench.stop()
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


class KillBench:
    def __init__(self, *, database: str, kill: str, verbose: bool = False) -> None:
        self.env = env_on_database(database, WHIZI_BROKER_VISIBILITY_TIMEOUT=str(VISIBILITY_SECONDS))
        self.kill = kill
        self.verbose = verbose
        self.worker: Process | None = None
        self.log = ROOT / "var" / "kill_worker.log"
        self.log.unlink(missing_ok=True)  # each run's log alone; every worker appends to it
        self.lost = self.doubled = self.resurrected = self.torn = self.stuck = self.restarts = 0
        self.outcomes: dict[str, int] = {}
        self.claims: dict[int, int] = {}

    # ------------------------------------------------------------------ the worker

    def start_worker(self) -> None:
        # One pool process; whizi.celery imports litellm before the pool forks, so the one
        # that replaces a killed one calls the model at once (the import costs seconds).
        self.worker = worker_start(env=self.env, log=self.log, concurrency=1, loglevel="WARNING")
        worker_wait_ping(self.worker)

    def kill_worker(self) -> None:
        self.worker.kill(signal.SIGKILL)

    def kill_pool(self) -> None:
        """SIGKILL the worker's pool processes (the one running the pass among them)."""
        for pid in children_of(self.worker.pid):
            os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop(timeout=30)
        broker_purge(unacknowledged=True)

    # ------------------------------------------------------------------ the rounds

    def run(self, *, rounds: int, clear_every: int) -> None:
        from django.contrib.auth import get_user_model

        from accounts.owner import Owner
        from chat.models import Conversation
        from whizi.llm.scripted import Script

        broker_purge(unacknowledged=True)
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
        from memory.passes import Trigger, pass_asked_for, pass_request

        with transaction.atomic():
            Message.objects.create(conversation=self.conversation, role="user", content=text)
            reply = Message.objects.create(conversation=self.conversation, role="assistant", content="Noted!")
            memory_pass = pass_request(
                owner=self.owner, trigger=Trigger.REQUEST if pass_asked_for(text) else Trigger.CADENCE,
                through_message_id=reply.pk, turns_after=self.conversation.messages.count(),
                conversation_id=self.conversation.pk,
            )
        assert memory_pass is not None, "a remember request always queues a pass"
        return memory_pass


if __name__ == "__main__":
    main()
