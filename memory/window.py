"""What a pass reads, within its caps (docs/DESIGN.md §2.5): the last chat turns or
a whole voice transcript, capped in tokens, and the whole prompt within the model cap."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from django.conf import settings

from memory.budget import tail_within, trim_to_budget
from memory.prompts import pass_messages
from memory.sources import Turn
from memory.tokens import count_tokens


def _turn_tokens(turn: Turn) -> int:
    return count_tokens(f"[{turn.role}] {turn.content}") + 1


def cap_turns(turns: Sequence[Turn], *, max_tokens: int) -> list[Turn]:
    """The most recent turns that fit in `max_tokens`; the oldest one that does not
    fit whole keeps its end (the most recent words)."""
    kept: list[Turn] = []
    left = max_tokens
    for turn in reversed(turns):
        cost = _turn_tokens(turn)
        if cost <= left:
            kept.append(turn)
            left -= cost
            continue
        room = left - count_tokens(f"[{turn.role}] ") - 1
        tail = tail_within(turn.content, room).strip() if room > 0 else ""
        if tail:
            kept.append(Turn(role=turn.role, content=tail))
        break
    kept.reverse()
    return kept


def pass_window(turns: Sequence[Turn], *, source: str, max_turns: int | None = None) -> list[Turn]:
    """What a pass reads: the last `max_turns` chat turns (WHIZI_MEMORY_PASS_TURNS unless
    later turns joined the pass), or a whole voice transcript, either capped to its most
    recent transcript-cap tokens."""
    turns = [turn for turn in turns if turn.content and turn.content.strip()]
    if source == "chat":
        turns = turns[-(max_turns or settings.WHIZI_MEMORY_PASS_TURNS):]
    return cap_turns(turns, max_tokens=settings.WHIZI_MEMORY_TRANSCRIPT_MAX_TOKENS)


def messages_tokens(messages: Iterable[dict[str, str]]) -> int:
    return sum(count_tokens(message["content"]) for message in messages)


def pass_input(existing: list[str], turns: list[Turn], source: str, *,
               today: date | None = None) -> list[dict[str, str]]:
    """The rewrite prompt, within WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS.

    With the list under 2,000 tokens and the transcript under 20,000 this is always
    well under the 50,000 cap; the cuts below only bite on a list stored by hand.
    """
    cap = settings.WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS
    shown = existing
    frame = messages_tokens(pass_messages(existing=shown, turns=[], source=source))
    if frame > cap // 2:
        shown = trim_to_budget(existing, max_tokens=cap // 4)
        frame = messages_tokens(pass_messages(existing=shown, turns=[], source=source))
    room = cap - frame
    while True:
        turns = cap_turns(turns, max_tokens=room)
        messages = pass_messages(existing=shown, turns=turns, source=source, today=today)
        over = messages_tokens(messages) - cap
        if over <= 0 or not turns:
            return messages
        room -= over + 16
