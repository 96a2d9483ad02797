"""What other apps may ask memory, without reading its tables themselves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.utils import timezone

from memory.models import MemoryPass
from memory.prompts import MEMORY_SYSTEM_MESSAGE
from memory.tokens import count_tokens

# A pass still queued after this long (no worker running) is no longer shown as pending.
PENDING_WINDOW = timedelta(minutes=10)
_CHANGED = frozenset({MemoryPass.Outcome.UPDATED, MemoryPass.Outcome.COMPACTED, MemoryPass.Outcome.TRIMMED})


def pass_marks(*, reply_ids: Sequence[int]) -> dict[int, str]:
    """For each reply: "pending" while its pass is queued or running (for at most
    PENDING_WINDOW), "updated" when the pass changed the list. Replies with no pass, or
    whose pass changed nothing, are left out."""
    if not reply_ids:
        return {}
    stale = timezone.now() - PENDING_WINDOW
    marks: dict[int, str] = {}
    rows = MemoryPass.objects.filter(through_message_id__in=list(reply_ids)).values_list(
        "through_message_id", "status", "outcome", "created_at"
    )
    for reply_id, status, outcome, created_at in rows:
        if status != MemoryPass.Status.DONE:
            if created_at >= stale:
                marks[reply_id] = "pending"
        elif outcome in _CHANGED:
            marks[reply_id] = "updated"
    return marks


@lru_cache(maxsize=1)
def memory_block_max_tokens() -> int:
    """The memory block's largest size in a chat request: the cap on the list plus its
    framing. A chat budgets its history around it, so trimming never waits for the read."""
    return settings.WHIZI_MEMORY_MAX_TOKENS + count_tokens(MEMORY_SYSTEM_MESSAGE.format(lines=""))
