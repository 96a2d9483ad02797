"""Measuring how the work of a text function grows with its input (tests/security/test_linear_text.py).

The cost of one call is its CPU time, the least of a few runs. A function runs in linear
time when four times the input costs about four times as much; a quadratic one costs 16
times as much, an exponential one far more. Two sizes are compared, so the figures are
ratios on this machine, never a limit in seconds:

1. 8 and 16 repetitions of a unit (a lead word and a space): catastrophic backtracking
   doubles its cost with each unit, so it shows long before a big input is tried;
2. about 1,500 and 6,000 characters: a quadratic cost shows as a ratio near 16.

Every measurement runs in a forked child with a deadline, so a function that never
returns fails its test instead of hanging the suite.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

try:
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # Python before 3.11 kept them as modules of their own
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

SMALL_UNITS, LARGE_UNITS = 8, 16
# Cost of 16 units over cost of 8: linear is about 2, one more unit doubling it is 256.
UNITS_RATIO_MAX = 12
SMALL_CHARS, LARGE_CHARS = 1_500, 6_000
# Cost of 6,000 characters over cost of 1,500: linear is about 4, quadratic about 16.
CHARS_RATIO_MAX = 9
# Below this, a call is too quick to compare (and could not be quadratic at 6,000 characters).
MEASURABLE_SECONDS = 0.003
DEADLINE_SECONDS = 120

# Characters whose long runs trip patterns: separators, quotes, brackets, marks, digits,
# letters of each script.
RUN_CHARACTERS = tuple(" \n\t,.:;!?-*#>|`'\"“”«»「」『』()[]{}/\\@=+_~0aA1éàừ中の가…—、，。") + (
    ". ", ", ", "\n\n", "a ", "1.", "ab", "http", "www.", "[+] ", "- ",
)


@dataclass(frozen=True)
class Growth:
    family: str
    small: float
    large: float

    @property
    def ratio(self) -> float:
        return self.large / max(self.small, 1e-6)


def literals(patterns: Iterable[re.Pattern[str] | str]) -> list[str]:
    """The literal words of some regular expressions: the words their alternatives spell."""
    found: set[str] = set()

    def walk(items) -> None:
        run: list[str] = []
        for op, av in items:
            if op is sre_constants.LITERAL:
                run.append(chr(av))
                continue
            if run:
                found.add("".join(run))
                run = []
            if op is sre_constants.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op is sre_constants.SUBPATTERN:
                walk(av[-1])
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
                        getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
                walk(av[2])
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(av[1])
            elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
                walk(av)
        if run:
            found.add("".join(run))

    for pattern in patterns:
        source, flags = (pattern.pattern, pattern.flags) if isinstance(pattern, re.Pattern) else (pattern, 0)
        try:
            walk(sre_parse.parse(source, flags))
        except (re.error, TypeError):
            continue
    return sorted({word.strip() for word in found if word.strip()}, key=lambda w: (len(w), w))


def families(words: list[str], *, limit: int) -> list[tuple[str, str]]:
    """(name, unit) pairs: each word repeated with a space, a comma, or nothing; then runs
    of single characters. `limit` words at most, spread over the sorted list."""
    if len(words) > limit:
        step = len(words) / limit
        words = [words[int(i * step)] for i in range(limit)]
    units = [(f"{word!r} {sep!r}", word + sep) for word in words for sep in (" ", ", ", "")]
    return units + [(f"run of {char!r}", char) for char in RUN_CHARACTERS]


def cost(function: Callable[[str], object], text: str, *, runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        function(text)
        best = min(best, time.process_time() - started)
    return best


def _repeated(unit: str, *, units: int | None = None, chars: int | None = None) -> str:
    count = units if units is not None else max(1, (chars or 0) // len(unit))
    return unit * count + " x?"


def worst_growth(function: Callable[[str], object], units: list[tuple[str, str]],
                 started: Callable[[str], None] = lambda name: None) -> tuple[Growth, Growth]:
    """The worst ratio seen over every family, by repetitions and by characters."""
    by_units = Growth("-", 1, 1)
    by_chars = Growth("-", 1, 1)
    for name, unit in units:
        started(name)
        small = cost(function, _repeated(unit, units=SMALL_UNITS), runs=1)
        large = cost(function, _repeated(unit, units=LARGE_UNITS), runs=1)
        if large >= MEASURABLE_SECONDS:
            small, large = cost(function, _repeated(unit, units=SMALL_UNITS)), cost(
                function, _repeated(unit, units=LARGE_UNITS))
            if large / max(small, 1e-6) > by_units.ratio:
                by_units = Growth(name, small, large)
            if large / max(small, 1e-6) > UNITS_RATIO_MAX:
                return by_units, by_chars  # exponential: a bigger input would never finish
        large = cost(function, _repeated(unit, chars=LARGE_CHARS), runs=1)
        if large < MEASURABLE_SECONDS:
            continue
        small = cost(function, _repeated(unit, chars=SMALL_CHARS), runs=3)
        large = min(large, cost(function, _repeated(unit, chars=LARGE_CHARS), runs=2))
        if large / max(small, 1e-6) > by_chars.ratio:
            by_chars = Growth(name, small, large)
    return by_units, by_chars


def _child(function, units, queue) -> None:
    try:
        queue.put(("done", worst_growth(function, units, lambda name: queue.put(("started", name)))))
    except BaseException as error:  # noqa: BLE001 - handed to the parent, which raises it
        queue.put(("raised", f"{type(error).__name__}: {error}"))


def worst_growth_bounded(function: Callable[[str], object],
                         units: list[tuple[str, str]]) -> tuple[Growth, Growth] | str:
    """worst_growth() in a forked child; the family it was reading when the deadline passed,
    if it did not finish."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(function, units, queue), daemon=True)
    child.start()
    deadline = time.monotonic() + DEADLINE_SECONDS
    current = "?"
    try:
        while True:
            try:
                kind, value = queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except Exception:  # queue.Empty: the deadline passed
                return current
            if kind == "done":
                return value
            if kind == "raised":
                # A broken entry point is a failing test of its own, not a slow pattern.
                raise AssertionError(f"the entry point raised while reading {current}: {value}")
            current = value
    finally:
        child.kill()
        child.join()
