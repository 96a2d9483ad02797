"""Every read and write of the `Memory` row: this module is its one writer.

The database row is the only copy of the list: there is no cache in front of it, so a
clear can never be undone by a stale copy elsewhere. Every write bumps `version`, so a
pass saves only over the exact list it read (compare-and-swap); a clear also bumps
`epoch` and sets `cleared_at`, so a pass that read the list before the clear is
discarded and later passes read only turns newer than it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.locks import OwnerGone, owner_hold
from accounts.owner import Owner
from memory.apply import LineChange
from memory.budget import trim_to_budget
from memory.merge import merge_memory_lines
from memory.models import Memory, MemoryChange
from memory.tokens import count_list_tokens

log = logging.getLogger(__name__)


class MemoryUnavailable(Exception):
    """The list could not be read; nothing was changed."""


class MemoryClearFailed(Exception):
    """The clear did not happen; the list is exactly as it was."""


@dataclass(frozen=True)
class MemorySnapshot:
    lines: tuple[str, ...]
    tokens: int
    version: int

    @property
    def count(self) -> int:
        return len(self.lines)


EMPTY = MemorySnapshot(lines=(), tokens=0, version=0)


def memory_read(*, owner: Owner) -> MemorySnapshot:
    """The owner's saved list (empty when nothing is saved). Raises MemoryUnavailable."""
    try:
        row = (
            Memory.objects.filter(**owner.lookup)
            .values_list("lines", "tokens", "version")
            .first()
        )
    except DatabaseError as exc:
        log.warning("memory read failed for %s: %s", owner.key, type(exc).__name__)
        raise MemoryUnavailable from exc
    if row is None:
        return EMPTY
    lines, tokens, version = row
    return MemorySnapshot(lines=tuple(lines), tokens=tokens, version=version)


def _clear_row(owner: Owner, now: datetime) -> int:
    return Memory.objects.filter(**owner.lookup).update(
        lines=[], tokens=0, version=F("version") + 1, epoch=F("epoch") + 1,
        cleared_at=now, updated_at=now,
    )


def memory_clear(*, owner: Owner) -> None:
    """Delete every saved fact of the owner, at once. Raises MemoryClearFailed, or
    OwnerGone (a 404) when the owner was deleted meanwhile."""
    now = timezone.now()
    try:
        with transaction.atomic():
            # The owner before its row (accounts.locks): a clear racing the account's
            # deletion finds it gone rather than failing its foreign key at commit.
            owner_hold(owner=owner)
            # What each pass changed goes with the list: no mark shows a cleared line.
            MemoryChange.objects.filter(**owner.lookup).delete()
            if not _clear_row(owner, now):
                # No row yet: record the clear anyway, so a pass already queued reads
                # only what comes after it.
                try:
                    with transaction.atomic():
                        Memory.objects.create(**owner.lookup, epoch=1, version=1, cleared_at=now)
                except IntegrityError:
                    _clear_row(owner, now)  # a pass created the row meanwhile: clear that one
    except DatabaseError as exc:
        log.warning("memory clear failed for %s: %s", owner.key, type(exc).__name__)
        raise MemoryClearFailed from exc
    log.info("memory cleared for %s", owner.key)


# ---------------------------------------------------------------- what a pass reads and saves


@dataclass(frozen=True)
class MemoryState:
    """The row as a pass read it: what it may save over, and since when it may read."""

    pk: int
    lines: list[str]
    version: int
    epoch: int
    cleared_at: datetime | None


_STATE_FIELDS = ("pk", "lines", "version", "epoch", "cleared_at")


def memory_state_get_or_create(*, owner: Owner) -> MemoryState | None:
    """The owner's row, created empty when it has none; None when the owner is gone."""
    try:
        memory, _ = Memory.objects.get_or_create(**owner.lookup)
    except IntegrityError:
        return None  # the user or guest was deleted after the pass was queued
    return MemoryState(pk=memory.pk, lines=memory.lines, version=memory.version,
                       epoch=memory.epoch, cleared_at=memory.cleared_at)


def memory_state_reload(*, state: MemoryState) -> MemoryState | None:
    """The same row as it is now; None when it is gone (its owner deleted or merged)."""
    values = Memory.objects.filter(pk=state.pk).values(*_STATE_FIELDS).first()
    return MemoryState(**values) if values else None


def memory_save(*, state: MemoryState, lines: Sequence[str]) -> bool:
    """Save `lines` over the list `state` read: UPDATE … WHERE version = <read>.

    False when another write got there first (a pass, a clear, a merge); the caller
    reloads and decides. No lock is held while the model thinks: this one filtered
    UPDATE is the whole write.
    """
    lines = list(lines)
    return bool(Memory.objects.filter(pk=state.pk, version=state.version).update(
        lines=lines, tokens=count_list_tokens(lines), version=F("version") + 1,
        updated_at=timezone.now(),
    ))


def memory_save_changes(*, state: MemoryState, lines: Sequence[str], owner: Owner, pass_id: int,
                        reply_id: int | None, changes: Sequence[LineChange]) -> bool:
    """memory_save(), and each changed line recorded with its words (MemoryChange) in the
    same transaction: a change is on record exactly when it was saved, never after a clear
    that beat it. False (nothing written) when another write got there first, or the
    owner is gone (deleted, or a guest merged into an account)."""
    with transaction.atomic():
        try:
            # The owner's row first, as every writer does (accounts.locks): the change rows'
            # key check would otherwise reach it after the list's row, against a deletion
            # that holds it and waits for the list.
            owner_hold(owner=owner)
        except OwnerGone:
            return False
        if not memory_save(state=state, lines=lines):
            return False
        MemoryChange.objects.bulk_create(
            MemoryChange(**owner.lookup, memory_pass_id=pass_id, reply_id=reply_id, kind=change.kind,
                         old_text=change.old, new_text=change.new, reason=change.reason, count=change.count)
            for change in changes)
    return True


# ---------------------------------------------------------------- a guest arriving in an account


@dataclass(frozen=True)
class MemoryMerge:
    """What a guest's list did to an account's."""

    lines: list[str]
    tokens: int
    added: int = 0
    trimmed: int = 0
    over_budget: bool = False  # the merged list went over the cap (and was trimmed to it)
    # When the guest last cleared: it covers the guest's conversations, not the account's.
    guest_cleared_at: datetime | None = None


def memory_merge_guest(*, guest_id: uuid.UUID, user_id: int) -> MemoryMerge:
    """Merge the guest's lines into the account's list, inside the caller's transaction.

    1. Lock both rows; the account's row is created if it has none.
    2. The account's lines, then each guest line it does not hold (memory.merge).
    3. Over WHIZI_MEMORY_MAX_TOKENS, the positional trim (memory.budget) keeps it under
       the cap at once: memory is never stored over it, not even until a compaction.
    4. Save with a version bump, so a pass in flight for the account fails its
       compare-and-swap and re-runs over the merged list instead of overwriting it.
    The guest's last clear stays with the guest's conversations (the caller moves them
    with it, lifecycle.guest_merge), so its cleared facts do not come back from its old
    messages, and nothing the account said elsewhere is hidden by it.
    """
    guest = Memory.objects.select_for_update().filter(guest_id=guest_id).first()
    if guest is None or (not guest.lines and guest.cleared_at is None):
        row = Memory.objects.filter(user_id=user_id).values_list("lines", "tokens").first()
        lines, tokens = row if row else ([], 0)
        return MemoryMerge(lines=list(lines), tokens=tokens)

    # get_or_create survives a pass creating the row at the same moment; the lock then
    # keeps every other writer out until commit.
    Memory.objects.get_or_create(user_id=user_id)
    account = Memory.objects.select_for_update().get(user_id=user_id)
    merged = merge_memory_lines(account.lines, guest.lines)
    added = len(merged) - len(merge_memory_lines(account.lines, []))
    kept = trim_to_budget(merged, max_tokens=settings.WHIZI_MEMORY_MAX_TOKENS)
    if kept == account.lines:
        return MemoryMerge(lines=kept, tokens=account.tokens, guest_cleared_at=guest.cleared_at)
    tokens = count_list_tokens(kept)
    # The row is locked, so this cannot miss; the count check says so out loud.
    updated = Memory.objects.filter(pk=account.pk, version=account.version).update(
        lines=kept, tokens=tokens, version=F("version") + 1, updated_at=timezone.now(),
    )
    if updated != 1:
        raise RuntimeError("the account's memory changed under its row lock")
    return MemoryMerge(lines=kept, tokens=tokens, added=added, trimmed=len(merged) - len(kept),
                       over_budget=count_list_tokens(merged) > settings.WHIZI_MEMORY_MAX_TOKENS,
                       guest_cleared_at=guest.cleared_at)
