"""What rendering a reply's Markdown costs the web process (chat/markdown.py: markdown-it-py,
then nh3), per reply and for a whole conversation opened cold.

Replies are made here, of the shapes a chat model writes: short prose, a list with
emphasis, a table, a code block, and a long mixed answer. Each is rendered --rounds times
with the cache cleared (a conversation opened for the first time in this process) and
once more warm (the same reply again). CPU medians in ms, `time.process_time()`.

    python bench/markdown_render.py --rounds 200

No database is used. Figures: docs/PERFORMANCE.md ("Rendering a reply's Markdown").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

import django  # noqa: E402

django.setup()

from chat.markdown import _render, markdown_html  # noqa: E402

PROSE = "Sure! Here is a short answer that takes two sentences. It has no markup at all."
LIST = "\n".join(f"- **Point {n}**: something *worth* saying about item {n}." for n in range(8))
TABLE = "| Day | Meal | Notes |\n|---|---|---|\n" + "\n".join(
    f"| Day {n} | Soup {n} | Light and warm, {n} bowls |" for n in range(12))
CODE = ("Here you go:\n\n```python\n" + "\n".join(f"def f{n}(x):\n    return x * {n}" for n in range(20))
        + "\n```\n")
LONG = "\n\n".join(["# A plan", PROSE * 3, LIST, TABLE, CODE, "## Next", PROSE * 4])
SHAPES = {"prose": PROSE, "list": LIST, "table": TABLE, "code": CODE, "long": LONG}


def cpu_ms(text: str, *, cold: bool) -> float:
    if cold:
        _render.cache_clear()
    start = time.process_time()
    markdown_html(text)
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print(f"{'reply':<8}{'chars':>7}{'cold ms':>10}{'warm ms':>10}")
    for name, text in SHAPES.items():
        cold = statistics.median(cpu_ms(text, cold=True) for _ in range(args.rounds))
        markdown_html(text)
        warm = statistics.median(cpu_ms(text, cold=False) for _ in range(args.rounds))
        print(f"{name:<8}{len(text):>7}{cold:>10.3f}{warm:>10.4f}")
    # A conversation of 50 replies of every shape, opened cold: what a page render adds.
    replies = [text + f"\n\n(reply {n})" for n in range(10) for text in SHAPES.values()]
    _render.cache_clear()
    start = time.process_time()
    for text in replies:
        markdown_html(text)
    print(f"50 replies, cold: {(time.process_time() - start) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
