"""Merging two memory lists into one (a guest's facts arriving in an account).

A merge never asks a model anything: it is a line-by-line union, so it is instant,
deterministic and safe inside the signup request. Shrinking an over-budget result is
left to the compaction pass; `trim_lines_to_budget` only guarantees the cap meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.lines import line_key, normalise_line
from memory.tokens import count_list_tokens, count_tokens


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


def trim_lines_to_budget(lines: Sequence[str], *, max_tokens: int) -> list[str]:
    """The longest leading run of lines whose rendered list fits in `max_tokens`.

    Positional on purpose: this is the last-resort guarantee under the cap, not a
    judgement of which facts matter (that is the compaction pass's job). Lines are
    kept from the top, so after a merge the account's own lines survive first.
    """
    kept: list[str] = []
    # Each rendered line costs about its own tokens plus the bullet and newline; the
    # exact count of the joined list is checked below, so the estimate only has to
    # be close.
    budget = max_tokens
    for line in lines:
        cost = count_tokens(f"- {line}") + 1
        if cost > budget:
            break
        kept.append(line)
        budget -= cost
    while kept and count_list_tokens(kept) > max_tokens:
        kept.pop()
    # The estimate can also run high (tokens merge across the line breaks): take on the
    # next lines while the exact count still fits, so no line that fits is dropped.
    while len(kept) < len(lines) and count_list_tokens([*kept, lines[len(kept)]]) <= max_tokens:
        kept.append(lines[len(kept)])
    return kept
