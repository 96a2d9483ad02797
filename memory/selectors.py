"""What other apps may ask memory, without reading its tables themselves."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.db.models import Count, Min, Q, Sum
from django.utils import timezone

from accounts.owner import Owner
from memory.api import MemoryMarkOut  # noqa: F401  re-exported: chat's API describes a reply's mark with it
from memory.models import Memory, MemoryPass
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


def pass_marks_json(*, reply_ids: Sequence[int]) -> dict[int, dict[str, object]]:
    """Each reply's memory mark as the JSON API tells it (memory.api.MemoryMarkOut), one
    query for them all: the page's mark, with "none" where the page shows nothing."""
    marks = pass_marks(reply_ids=reply_ids)
    return {reply_id: {"state": marks.get(reply_id, "none")} for reply_id in reply_ids}


@lru_cache(maxsize=1)
def memory_block_max_tokens() -> int:
    """The memory block's largest size in a chat request: the cap on the list plus its
    framing. A chat budgets its history around it, so trimming never waits for the read."""
    return settings.WHIZI_MEMORY_MAX_TOKENS + count_tokens(MEMORY_SYSTEM_MESSAGE.format(lines=""))


def memory_contents_count(*, owner: Owner) -> dict[str, int]:
    """How many memory rows and passes the owner has, by model label (what deleting the
    account would remove)."""
    return {"memory.Memory": Memory.objects.filter(**owner.lookup).count(),
            "memory.MemoryPass": MemoryPass.objects.for_owner(owner).count()}


def memory_export(*, owner: Owner) -> tuple[list[str], dict[str, object]]:
    """The account export's `memory` (the list) and `memory_meta`."""
    memory = Memory.objects.filter(**owner.lookup).first()
    lines = list(memory.lines) if memory else []
    return lines, {
        "count": len(lines), "tokens": memory.tokens if memory else 0,
        "version": memory.version if memory else 0,
        "updated_at": memory.updated_at if memory else None,
        "cleared_at": memory.cleared_at if memory else None,
    }


def pass_log_export(*, owner: Owner, chunk: int) -> Iterator[dict[str, object]]:
    """The owner's pass log for the account export, in id order from a server-side
    cursor: metrics only, never fact text."""
    for p in MemoryPass.objects.for_owner(owner).order_by("id").iterator(chunk):
        yield {"id": p.id, "trigger": p.trigger, "status": p.status, "outcome": p.outcome,
               "model": p.model, "lines_before": p.lines_before, "lines_after": p.lines_after,
               "changes": p.changes, "input_tokens": p.input_tokens, "output_tokens": p.output_tokens,
               "cost": p.cost, "created_at": p.created_at, "finished_at": p.finished_at}


def pass_usage_by_owner(*, search: str = "") -> list[dict[str, object]]:
    """What memory passes cost each owner (admin's usage page): user, user__email, guest,
    passes, input_tokens, output_tokens, cost_sum. `search` matches an account's email or
    a guest's exact id."""
    passes = MemoryPass.objects.all()
    if search:
        passes = passes.filter(Q(user__email__icontains=search) | Q(guest__id__iexact=search))
    return list(passes.values("user", "user__email", "guest").annotate(
        passes=Count("id"), input_tokens=Sum("input_tokens"), output_tokens=Sum("output_tokens"),
        cost_sum=Sum("cost")))


def pass_queue_gauges() -> list[tuple[str, str, float]]:
    """The pass queue as an operator graphs it (read when the metrics are scraped,
    whizi.metrics): passes waiting, the age of the oldest, passes running."""
    rows = (MemoryPass.objects.filter(status__in=[MemoryPass.Status.QUEUED, MemoryPass.Status.RUNNING])
            .values("status").annotate(count=Count("id"), oldest=Min("created_at")))
    by_status = {row["status"]: row for row in rows}
    queued = by_status.get(MemoryPass.Status.QUEUED)
    running = by_status.get(MemoryPass.Status.RUNNING)
    oldest = (timezone.now() - queued["oldest"]).total_seconds() if queued else 0.0
    return [
        ("whizi_memory_passes_waiting", "Memory passes recorded and not yet run: waiting for a worker, "
         "or for their next try.", float(queued["count"]) if queued else 0.0),
        ("whizi_memory_pass_oldest_waiting_seconds", "Age of the oldest memory pass still waiting "
         "(0 when none is).", max(0.0, oldest)),
        ("whizi_memory_passes_running", "Memory passes a worker is running now.",
         float(running["count"]) if running else 0.0),
    ]
