"""Server time of POST /api/conversations/<id>/messages/ with memory on and off.

"Memory on" is a guest with a saved list of 40 lines (about 55 characters each, the
shape the pass aims for); "memory off" is a guest with an empty list. Both chat with
the offline model, in conversations of up to 10 messages, requests interleaved so both
sides see the same machine load. Time is measured around the request in-process
(Django's test client: the full middleware stack, the memory read in its thread, the
model call, the saves), so the figures are server time without network.

It builds a throwaway database (WHIZI_TEST_DATABASE_NAME, else test_whizi; migrated,
dropped at the end):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    WHIZI_TEST_DATABASE_NAME=bench_whizi_chat REDIS_URL=redis://127.0.0.1:6379/6 \\
    python bench/chat_latency.py --requests 200
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from bench.stack import broker_purge, django_database  # noqa: E402

FORTY_LINES = [
    f"Fact {i:02d}: likes hiking near Đà Nẵng with her sister Linh on Sundays"[:55]
    for i in range(40)
]
MESSAGES = [
    "What should I cook tonight?",
    "Can you suggest a weekend plan?",
    "How do I say thank you in Japanese?",
    "Give me a short poem about rain.",
    "What is a good book to read next?",
]


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


class Side:
    def __init__(self, name: str, lines: list[str]) -> None:
        from accounts.owner import GUEST_SESSION_KEY, Owner
        from memory.models import Memory
        from memory.tokens import count_list_tokens

        self.name = name
        self.client = Client()
        self.client.get("/")
        # A guest is made by its first kept request; starting a conversation is one.
        token = self.client.cookies["csrftoken"].value
        self.client.post("/api/conversations/", data="{}", content_type="application/json",
                         headers={"X-CSRFToken": token})
        self.owner = Owner(guest_id=self.client.session[GUEST_SESSION_KEY])
        if lines:
            Memory.objects.create(**self.owner.lookup, lines=lines, tokens=count_list_tokens(lines),
                                  version=1)
        self.times: list[float] = []
        self.conversation: int | None = None
        self.sent = 0

    def _post(self, path: str, body: dict) -> dict:
        response = self.client.post(path, data=json.dumps(body), content_type="application/json")
        if response.status_code >= 300:
            raise SystemExit(f"{path} answered {response.status_code}: {response.content[:300]!r}")
        return response.json()

    def one(self, *, record: bool) -> None:
        if self.conversation is None or self.sent % 5 == 0:  # 10 messages: 5 exchanges
            started = self._post("/api/conversations/", {"model": settings.WHIZI_OFFLINE_MODEL})
            self.conversation = started["id"]
        path = f"/api/conversations/{self.conversation}/messages/"
        body = {"content": MESSAGES[self.sent % len(MESSAGES)]}
        started = time.perf_counter()
        self._post(path, body)
        elapsed = time.perf_counter() - started
        self.sent += 1
        if record:
            self.times.append(elapsed * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="timed requests per side")
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests per side first")
    args = parser.parse_args()

    settings.WHIZI_CHAT_MODELS = [settings.WHIZI_OFFLINE_MODEL]
    settings.WHIZI_RATE_LIMITS_ENABLED = False  # 2 x (warm-up + requests) from one IP in a minute
    setup_test_environment()  # the test client's host, "testserver", is allowed
    try:
        with django_database(""):
            run(requests=args.requests, warmup=args.warmup)
    finally:
        broker_purge()  # the passes this run published


def run(*, requests: int, warmup: int) -> None:
    from memory.reading import memory_read_skips

    before = memory_read_skips()
    on, off = Side("memory on (40 lines)", FORTY_LINES), Side("memory off (empty list)", [])
    for _ in range(warmup):
        on.one(record=False)
        off.one(record=False)
    for _ in range(requests):
        on.one(record=True)
        off.one(record=True)
    after = memory_read_skips()

    print(f"POST /api/conversations/<id>/messages/ on {settings.WHIZI_OFFLINE_MODEL}, "
          f"{requests} timed requests per side (after {warmup} warm-up)")
    for side in (on, off):
        print(f"  {side.name:26s} median {statistics.median(side.times):7.1f} ms   "
              f"p95 {_percentile(side.times, 95):7.1f} ms   max {max(side.times):7.1f} ms")
    skipped = {k: after[k] - before[k] for k in after}
    print(f"  memory reads skipped during the run: {skipped}")


if __name__ == "__main__":
    main()
