"""Keeping text within a token budget: the one positional trim, and the cuts that keep
a pass's model input under its caps.

Cutting at a token boundary can split a multi-byte character, and a cut string may
re-encode to a token or two more than the slice it came from, so every cut is
checked by counting again and shortened until it fits.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from memory.tokens import count_list_tokens, count_tokens, decode, encode

_BROKEN = "\ufffd"


def _within(text: str, max_tokens: int, *, from_end: bool) -> str:
    if max_tokens <= 0:
        return ""
    tokens = encode(text)
    if len(tokens) <= max_tokens:
        return text
    if from_end:
        cut = decode(tokens[-max_tokens:]).lstrip(_BROKEN)
    else:
        cut = decode(tokens[:max_tokens]).rstrip(_BROKEN)
    while cut and count_tokens(cut) > max_tokens:
        cut = cut[1:] if from_end else cut[:-1]
    return cut


def head_within(text: str, max_tokens: int) -> str:
    """The longest start of `text` that counts at most `max_tokens` tokens."""
    return _within(text, max_tokens, from_end=False)


def tail_within(text: str, max_tokens: int) -> str:
    """The longest end of `text` that counts at most `max_tokens` tokens."""
    return _within(text, max_tokens, from_end=True)


def trim_to_budget(lines: Sequence[str], *, max_tokens: int | None = None) -> list[str]:
    """The positional trim, the one rule for keeping a list under a budget: the last
    resort under compaction, and what keeps a merged list under the cap.

    1. Walk the list from the top and keep each line that still fits. The top is kept
       because a rewrite keeps the lasting identity facts first and adds new ones at
       the end (and a merge puts the account's own lines first); a line too long to
       fit is skipped so the short facts after it survive.
    2. If not even one line fits, keep the start of the first line: one giant line
       still yields a list within budget rather than an over-budget save.
    3. Count the rendered list once more and drop or shorten from the end until it
       fits (each line is estimated on its own; tokens can merge across line breaks).
    """
    budget = settings.WHIZI_MEMORY_MAX_TOKENS if max_tokens is None else max_tokens
    kept: list[str] = []
    used = 0
    for line in lines:
        if not line:
            continue
        cost = count_tokens(f"- {line}") + (1 if kept else 0)
        if used + cost <= budget:
            kept.append(line)
            used += cost
        elif cost <= budget and count_list_tokens([*kept, line]) <= budget:
            # The estimate runs high where tokens merge across the break: the exact count decides.
            kept.append(line)
            used = count_list_tokens(kept)
    if not kept:
        first = next((line for line in lines if line), "")
        head = head_within(first, budget - count_tokens("- ")).strip()
        kept = [head] if head else []
    while kept and count_list_tokens(kept) > budget:
        if len(kept) > 1:
            kept.pop()
            continue
        over = count_list_tokens(kept) - budget
        shorter = head_within(kept[0], max(count_tokens(kept[0]) - over, 0)).strip()
        if shorter == kept[0]:
            shorter = kept[0][:-1].strip()
        kept = [shorter] if shorter else []
    return kept
