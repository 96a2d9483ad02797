"""Merging two memory lists into one (a guest's facts arriving in an account).

A merge never asks a model anything: it is a line-by-line union, so it is instant,
deterministic and safe inside the signup request. Keeping the result under the cap is
the positional trim's job (memory.budget), shrinking it the compaction pass's.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.lines import line_key, normalise_line


def merge_memory_lines(account_lines: Sequence[str], guest_lines: Sequence[str]) -> list[str]:
    """The account's lines, then each guest line the account does not already hold.

    1. Account lines keep their order and their wording (a fact written twice counts
       once: the first wording stays).
    2. Guest lines follow in their own order, normalised (no bullets, single spaces),
       skipping any line whose `line_key` is already in the list.
    3. Blank lines are dropped from both.
    """
    merged: list[str] = []
    seen: set[str] = set()
    for line in account_lines:
        key = line_key(line)
        if key and key not in seen:
            seen.add(key)
            merged.append(line)
    for line in guest_lines:
        key = line_key(line)
        if key and key not in seen:
            seen.add(key)
            merged.append(normalise_line(line))
    return merged
