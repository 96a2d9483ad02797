"""How long one memory pass spends outside the model call (median over N passes).

Runs the real pass_run() against PostgreSQL with the scripted memory model answering
at once, so what is measured is our own work: claiming the pass, reading the list and
the turns, building and counting the prompt, parsing and checking the answer, the
compare-and-swap save and the log row. The model call (litellm plus the scripted
provider's Redis round trip) is timed separately and subtracted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
    WHIZI_TEST_DATABASE_NAME=test_whizi_a REDIS_URL=redis://127.0.0.1:6379/2 \
    /work/main/.venv/bin/python bench/pass_overhead.py [--passes 100]

It creates and then drops its own database, <WHIZI_TEST_DATABASE_NAME>_bench.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")  # the scripted model
os.environ["WHIZI_MEMORY_MODEL"] = "scripted/bench"

from bench.stack import django_database  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passes", type=int, default=100)
    args = parser.parse_args()

    import django

    django.setup()
    with django_database("_bench"):
        overhead, model = run(args.passes)
    ms = [s * 1000 for s in overhead]
    print(f"passes: {len(ms)}")
    print(f"outside the model call: median {statistics.median(ms):.1f} ms, "
          f"p90 {statistics.quantiles(ms, n=10)[-1]:.1f} ms, max {max(ms):.1f} ms")
    print(f"inside the model call (scripted, instant): median {statistics.median(model) * 1000:.1f} ms")


def run(passes: int) -> tuple[list[float], list[float]]:
    from django.contrib.auth import get_user_model

    from chat.models import Conversation, Message
    from memory.models import Memory, MemoryPass
    from memory.run import pass_run
    from whizi.llm.scripted import Script

    script = Script("bench").reset()
    user = get_user_model().objects.create_user(username="bench", email="bench@example.com")
    lines = [f"Fact {i}: a durable detail about the user, about 55 characters" for i in range(30)]
    Memory.objects.create(user=user, lines=lines)
    conversation = Conversation.objects.create(user=user, model="whizi/offline")
    overhead: list[float] = []
    model: list[float] = []
    warm_up = 5
    for index in range(passes + warm_up):
        last = None
        for turn in range(6):
            last = Message.objects.create(
                conversation=conversation, role="user" if turn % 2 == 0 else "assistant",
                content=f"Message {index}.{turn}: I mentioned something about my week and my plans.",
            )
        memory_pass = MemoryPass.objects.create(user=user, trigger="cadence", through_message_id=last.pk)
        # A rewrite that changes one line, so every pass saves.
        answer = lines[:-1] + [f"Fact 29: updated in pass {index}"]
        script.reply("\n".join(f"- {line}" for line in answer))
        report = pass_run(pass_id=memory_pass.pk)
        assert report is not None and report.outcome == "updated", report
        if index >= warm_up:
            overhead.append(report.seconds - report.model_seconds)
            model.append(report.model_seconds)
    script.reset()
    return overhead, model


if __name__ == "__main__":
    main()
