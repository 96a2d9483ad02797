"""memory's front door: the verbs other apps call, and the few types and rules they need
to call them. Reads that change nothing are in memory.selectors. Nothing else of memory,
models included, is imported from outside memory/: tests/whizi/test_layers.py fails on it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from accounts.owner import Owner
from memory import texts
from memory.chat_block import memory_absent_rules, memory_system_message
from memory.models import Memory, MemoryPass
from memory.passes import Trigger, pass_asked_for, pass_follow_removed, pass_request
from memory.reading import MemoryRead
from memory.sources import Turn, turn_reader_register
from memory.store import (
    EMPTY,
    MemoryClearFailed,
    MemoryMerge,
    MemorySnapshot,
    MemoryUnavailable,
    memory_clear,
    memory_merge_guest,
    memory_read,
)
from memory.tokens import count_tokens

__all__ = [
    "MemoryClearFailed", "MemoryRead", "MemorySnapshot", "MemoryUnavailable", "Trigger", "Turn",
    "count_tokens", "memory_absent_rules", "memory_block_context", "memory_clear", "memory_guest_merge",
    "memory_lock", "memory_read", "memory_read_failed_text", "memory_settings_clear", "memory_settings_read",
    "memory_system_message", "memory_wipe", "pass_asked_for", "pass_follow_removed", "pass_request",
    "turn_reader_register",
]


def memory_settings_read(*, owner: Owner | None) -> MemorySnapshot:
    """What Settings shows, on the page and in the app: the owner's list; a visitor with
    no guest yet has nothing saved. Raises MemoryUnavailable."""
    return memory_read(owner=owner) if owner is not None else EMPTY


def memory_settings_clear(*, owner: Owner | None) -> None:
    """"Forget everything", from Settings or the app; a visitor with no guest yet has
    nothing to clear. Raises MemoryClearFailed (the list is untouched)."""
    if owner is not None:
        memory_clear(owner=owner)


def memory_block_context(*, owner: Owner | None, expanded: bool) -> dict[str, object]:
    """The settings page's memory block: the saved list (open or closed), or that it
    can't be read."""
    try:
        snapshot = memory_settings_read(owner=owner)
    except MemoryUnavailable:
        return {"memory": None, "memory_unavailable": True, "memory_expanded": False}
    return {
        "memory": snapshot,
        "memory_unavailable": False,
        "memory_expanded": expanded and snapshot.count > 0,
    }


def memory_read_failed_text() -> str:
    """What a page says when the list could not be read (docs/STRINGS.md)."""
    return str(texts.READ_FAILED)


@dataclass(frozen=True)
class GuestMemoryMerge:
    """What a guest's memory did to an account's: the lists merged, the passes moved."""

    merge: MemoryMerge
    passes_moved: int
    compaction_pass_id: int | None


def memory_guest_merge(*, guest_id: uuid.UUID, user_id: int) -> GuestMemoryMerge:
    """Inside the caller's transaction, which holds the account and the guest: merge the
    guest's list into the account's, move every pass of the guest (queued ones then run
    for the account), and queue a compaction when the merged list went over the cap."""
    merge = memory_merge_guest(guest_id=guest_id, user_id=user_id)
    moved = MemoryPass.objects.filter(guest_id=guest_id).update(user_id=user_id, guest_id=None)
    compaction = pass_request(owner=Owner(user_id=user_id), trigger=Trigger.MERGE, merge=merge)
    return GuestMemoryMerge(merge=merge, passes_moved=moved,
                            compaction_pass_id=compaction.pk if compaction else None)


def memory_lock(*, owner: Owner) -> None:
    """Inside the caller's transaction, after it holds the owner's row, before a deletion,
    a wipe or a merge: lock the owner's list, so a pass saving or a merge under way
    finishes first (accounts.locks' order)."""
    list(Memory.objects.select_for_update().filter(**owner.lookup).values_list("pk"))


def memory_wipe(*, owner: Owner) -> dict[str, int]:
    """Inside the caller's transaction: delete the owner's passes and clear its list (a
    clear, so a pass already reading cannot write it back). Returns what went, by label
    ("memory.MemoryPass", "memory.facts")."""
    memory_lock(owner=owner)
    removed = dict(MemoryPass.objects.filter(**owner.lookup).delete()[1])
    facts = Memory.objects.filter(**owner.lookup).values_list("lines", flat=True).first()
    if facts:
        removed["memory.facts"] = len(facts)
    memory_clear(owner=owner)
    return removed
