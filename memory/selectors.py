"""What other apps may ask memory, without reading its tables themselves."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from django.db.models import Count, Min, Q, Sum
from django.utils import timezone
from django.utils.translation import ngettext

from accounts.owner import Owner
from memory import texts
from memory.api import MemoryMarkOut  # noqa: F401  re-exported: chat's API describes a reply's mark with it
from memory.chat_block import MEMORY_SYSTEM_MESSAGE
from memory.models import Memory, MemoryChange, MemoryPass
from memory.safety import refusal_category
from memory.tokens import count_tokens

# A pass still queued after this long (no worker running) is no longer shown as pending.
PENDING_WINDOW = timedelta(minutes=10)
_CHANGED = frozenset({MemoryPass.Outcome.UPDATED, MemoryPass.Outcome.COMPACTED, MemoryPass.Outcome.TRIMMED})


@dataclass(frozen=True)
class MarkChange:
    """One line the pass changed, as the mark lists it."""

    kind: str  # added | replaced | removed | compacted
    old: str = ""
    new: str = ""
    reason: str = ""  # a removal's: forgotten | superseded | rule
    count: int = 0  # a compaction's merged lines

    @property
    def words(self) -> str:
        """The change in plain words, in the active language."""
        if self.kind == MemoryChange.Kind.ADDED:
            return texts.CHANGE_ADDED % {"new": self.new}
        if self.kind == MemoryChange.Kind.REPLACED:
            return texts.CHANGE_REPLACED % {"old": self.old, "new": self.new}
        if self.kind == MemoryChange.Kind.REMOVED:
            return texts.CHANGE_REMOVED.get(self.reason, texts.CHANGE_REMOVED["rule"]) % {"old": self.old}
        return ngettext(*texts.CHANGE_COMPACTED, self.count) % {"count": self.count}

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "old": self.old or None, "new": self.new or None,
                "reason": self.reason or None, "count": self.count if self.kind == "compacted" else None,
                "text": self.words}


@dataclass(frozen=True)
class PassMark:
    """What the memory pass after a reply did, as its mark shows it.

    state: "pending" (queued or running), "retrying" (failed for now, waiting for its next
    try), "updated" (the list changed: `changes`), "not_saved" (an explicit remember or
    forget request changed nothing: `reason`), "failed", "cleared" (the list was cleared
    since: nothing it saved is shown). `reason` on an updated mark: something the same
    request asked for that was not saved.
    """

    state: str
    reason: str = ""
    changes: tuple[MarkChange, ...] = ()

    @property
    def final(self) -> bool:
        return self.state not in ("pending", "retrying")

    @property
    def label(self) -> str:
        """The mark's own words, in the active language."""
        if self.state == "updated":
            return str(texts.MARK_UPDATED)
        if self.state == "not_saved":
            return str(texts.NOT_SAVED.get(self.reason, texts.NOT_SAVED["rules"]))
        if self.state == "retrying":
            return str(texts.MARK_RETRYING)
        if self.state == "failed":
            return str(texts.MARK_FAILED)
        if self.state == "cleared":
            return str(texts.MARK_CLEARED)
        return ""

    @property
    def reason_words(self) -> str:
        """An updated mark's "Not saved: …" for what the same request asked and was refused."""
        return str(texts.NOT_SAVED[self.reason]) if self.state == "updated" and self.reason else ""

    def as_json(self) -> dict[str, object]:
        return {"state": self.state, "reason": self.reason or None, "label": self.label or None,
                "changes": [change.as_json() for change in self.changes]}


NO_MARK = PassMark(state="none")
_CHANGED = frozenset({MemoryPass.Outcome.UPDATED, MemoryPass.Outcome.COMPACTED, MemoryPass.Outcome.TRIMMED})


def _request_reason(changes: dict[str, object]) -> str:
    """Why an explicit request's pass saved nothing (or not all it was asked), by category."""
    if changes.get("asked") == "forget":
        return "nothing_to_forget"
    refused = refusal_category(changes.get("refused_by") or {})
    if refused is None and changes.get("blocked"):
        refused = refusal_category([str(changes["blocked"])])
    if refused is not None:
        return refused
    return "already" if changes.get("already") else "rules"


def _cleared_at(rows: list[dict[str, object]]) -> dict[tuple[object, object], datetime]:
    """When each owner of these passes last cleared their memory."""
    users = {row["user_id"] for row in rows if row["user_id"]}
    guests = {row["guest_id"] for row in rows if row["guest_id"]}
    found = Memory.objects.filter(cleared_at__isnull=False).filter(
        Q(user_id__in=users) | Q(guest_id__in=guests)).values_list("user_id", "guest_id", "cleared_at")
    return {(user_id, guest_id): cleared_at for user_id, guest_id, cleared_at in found}


def _mark_of(row: dict[str, object], stale: datetime, cleared_at: datetime | None) -> PassMark | None:
    status, outcome, changes = row["status"], row["outcome"], row["changes"] or {}
    if status != MemoryPass.Status.DONE:
        if row["created_at"] < stale:
            return None
        waiting_retry = status == MemoryPass.Status.QUEUED and row["attempts"] and row["error"]
        return PassMark(state="retrying" if waiting_retry else "pending")
    if cleared_at is not None and row["finished_at"] is not None and row["finished_at"] <= cleared_at:
        # Whatever it saved is gone: the mark says so, and shows none of it.
        return PassMark(state="cleared") if outcome in _CHANGED else None
    asked = row["trigger"] == MemoryPass.Trigger.REQUEST
    if outcome in _CHANGED:
        partial = _request_reason(changes) if asked and changes.get("refused") else ""
        return PassMark(state="updated", reason="" if partial in ("already", "rules", "nothing_to_forget")
                        else partial)
    if not asked and outcome in (MemoryPass.Outcome.FAILED, MemoryPass.Outcome.DISCARDED):
        return None  # a background pass nobody asked for promised nothing: no mark to take back
    if outcome == MemoryPass.Outcome.FAILED:
        return PassMark(state="failed")
    if outcome == MemoryPass.Outcome.DISCARDED:
        if row["error"] == "conflict:cleared":
            return PassMark(state="cleared")
        return PassMark(state="failed") if row["error"] != "owner_gone" else None
    if asked:
        return PassMark(state="not_saved", reason=_request_reason(changes))
    return None


def pass_marks(*, reply_ids: Sequence[int]) -> dict[int, PassMark]:
    """Each reply's memory mark (PassMark), in two or three queries for them all: the passes,
    their owners' last clear, and the changed lines of the passes that changed the list.
    Replies with no pass, or whose pass did nothing worth saying, are left out; a pass
    queued or running longer than PENDING_WINDOW (no worker) too.

    The caller has checked that the replies are the owner's: a change is read only
    through its pass, and a pass through the reply it ran for."""
    if not reply_ids:
        return {}
    stale = timezone.now() - PENDING_WINDOW
    rows = list(MemoryPass.objects.filter(through_message_id__in=list(reply_ids)).order_by("id").values(
        "id", "through_message_id", "trigger", "status", "outcome", "attempts", "error", "changes",
        "created_at", "finished_at", "user_id", "guest_id"))
    cleared = _cleared_at(rows) if rows else {}
    marks: dict[int, PassMark] = {}
    pass_of: dict[int, int] = {}
    for row in rows:
        mark = _mark_of(row, stale, cleared.get((row["user_id"], row["guest_id"])))
        if mark is not None:
            marks[row["through_message_id"]] = mark
            pass_of[row["through_message_id"]] = row["id"]
    updated = {pass_of[reply]: reply for reply, mark in marks.items() if mark.state == "updated"}
    if updated:
        lines: dict[int, list[MarkChange]] = {}
        for pass_id, kind, old, new, reason, count in MemoryChange.objects.filter(
                memory_pass_id__in=list(updated)).order_by("id").values_list(
                "memory_pass_id", "kind", "old_text", "new_text", "reason", "count"):
            lines.setdefault(pass_id, []).append(MarkChange(kind, old, new, reason, count))
        for pass_id, reply in updated.items():
            mark = marks[reply]
            marks[reply] = PassMark(state=mark.state, reason=mark.reason,
                                    changes=tuple(lines.get(pass_id, ())))
    return marks


def pass_marks_json(*, reply_ids: Sequence[int]) -> dict[int, dict[str, object]]:
    """Each reply's memory mark as the JSON API tells it (memory.api.MemoryMarkOut): the
    page's mark, with "none" where the page shows nothing."""
    marks = pass_marks(reply_ids=reply_ids)
    return {reply_id: marks.get(reply_id, NO_MARK).as_json() for reply_id in reply_ids}


@lru_cache(maxsize=1)
def memory_block_max_tokens() -> int:
    """The memory block's largest size in a chat request: the cap on the list plus its
    framing. A chat budgets its history around it, so trimming never waits for the read."""
    return settings.WHIZI_MEMORY_MAX_TOKENS + count_tokens(MEMORY_SYSTEM_MESSAGE.format(lines=""))


def memory_contents_count(*, owner: Owner) -> dict[str, int]:
    """How many memory rows and passes the owner has, by model label (what deleting the
    account would remove)."""
    return {"memory.Memory": Memory.objects.filter(**owner.lookup).count(),
            "memory.MemoryPass": MemoryPass.objects.for_owner(owner).count(),
            "memory.MemoryChange": MemoryChange.objects.for_owner(owner).count()}


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


def memory_changes_export(*, owner: Owner, chunk: int) -> Iterator[dict[str, object]]:
    """What each of the owner's passes changed, with the words (the owner's memory, like the
    list itself), for the account export, in id order from a server-side cursor."""
    for c in MemoryChange.objects.for_owner(owner).order_by("id").iterator(chunk):
        yield {"id": c.id, "memory_pass": c.memory_pass_id, "reply": c.reply_id, "kind": c.kind,
               "old": c.old_text, "new": c.new_text, "reason": c.reason, "count": c.count,
               "created_at": c.created_at}


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
