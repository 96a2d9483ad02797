"""Reading and clearing an owner's memory. The pass pipeline lives in memory.pipeline.

The database row is the only copy of the list: there is no cache in front of it, so
a clear can never be undone by a stale copy elsewhere. A read is one primary-key
lookup.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.owner import Owner
from memory.models import Memory

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


def memory_clear(*, owner: Owner) -> None:
    """Delete every saved fact of the owner, at once. Raises MemoryClearFailed.

    Bumping `epoch` makes any pass that read the list before the clear discard its
    result; `cleared_at` makes later passes read only turns newer than the clear, so
    cleared facts are not re-extracted from old messages.
    """
    now = timezone.now()
    try:
        with transaction.atomic():
            updated = Memory.objects.filter(**owner.lookup).update(
                lines=[], tokens=0, version=F("version") + 1, epoch=F("epoch") + 1,
                cleared_at=now, updated_at=now,
            )
            if not updated:
                # No row yet: record the clear anyway, so a pass already queued reads
                # only what comes after it.
                try:
                    with transaction.atomic():
                        Memory.objects.create(**owner.lookup, epoch=1, version=1, cleared_at=now)
                except IntegrityError:
                    # A pass created the row meanwhile: clear that one.
                    Memory.objects.filter(**owner.lookup).update(
                        lines=[], tokens=0, version=F("version") + 1, epoch=F("epoch") + 1,
                        cleared_at=now, updated_at=now,
                    )
    except DatabaseError as exc:
        log.warning("memory clear failed for %s: %s", owner.key, type(exc).__name__)
        raise MemoryClearFailed from exc
    log.info("memory cleared for %s", owner.key)
