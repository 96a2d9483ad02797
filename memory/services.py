"""memory's front door: the verbs other apps call (reads that change nothing are in
memory.selectors). Nothing else of memory is imported from outside memory/ (the
repository test tests/whizi/test_layers.py holds to it)."""

from __future__ import annotations

from accounts.owner import Owner
from memory.store import (
    EMPTY,
    MemoryClearFailed,
    MemorySnapshot,
    MemoryUnavailable,
    memory_clear,
    memory_read,
)

__all__ = ["MemoryClearFailed", "MemoryUnavailable", "memory_settings_clear", "memory_settings_read"]


def memory_settings_read(*, owner: Owner | None) -> MemorySnapshot:
    """What Settings shows, on the page and in the app: the owner's list; a visitor with
    no guest yet has nothing saved. Raises MemoryUnavailable."""
    return memory_read(owner=owner) if owner is not None else EMPTY


def memory_settings_clear(*, owner: Owner | None) -> None:
    """"Forget everything", from Settings or the app; a visitor with no guest yet has
    nothing to clear. Raises MemoryClearFailed (the list is untouched)."""
    if owner is not None:
        memory_clear(owner=owner)
