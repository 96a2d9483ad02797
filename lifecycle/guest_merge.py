"""A guest becoming an account: everything the guest owns moves in, once.

Only the guest id kept server-side in the session is ever merged (lifecycle.signals).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.db import models, transaction

from accounts.locks import OwnerGone, owner_hold
from accounts.models import Guest, Preference
from accounts.owner import Owner
from chat.models import Conversation, Project, VoiceSession
from memory.services import memory_guest_merge

log = logging.getLogger(__name__)

# Everything of chat's a guest owns, moved to the account as it is (Preference is one
# per owner and merged here; memory merges its list and moves its passes itself).
_MOVED_WITH_GUEST: tuple[type[models.Model], ...] = (
    Project, Conversation, VoiceSession,
)
# What memory passes read: a guest's clear moves with these and covers only them.
_READ_BY_MEMORY = (Conversation, VoiceSession)


@dataclass(frozen=True)
class GuestMerge:
    """What a guest brought into an account."""

    facts_added: int
    facts_total: int
    tokens: int
    facts_trimmed: int
    compaction_pass_id: int | None
    moved: dict[str, int]


def guest_merge_into_user(*, guest_id: uuid.UUID, user_id: int) -> GuestMerge | None:
    """Move everything the guest owns into the account, then delete the guest.

    Returns None when the guest no longer exists (already merged, or swept away as
    abandoned), which is what makes the merge happen exactly once, or when the account
    was deleted meanwhile (the guest keeps everything).

    1. Hold the account's row (accounts.locks), then lock the guest row: a second merge
       of the same guest (double submit, signup then login) waits here and then finds
       nothing to do.
    2. Memory merges the guest's list into the account's, moves every pass of the
       guest (a queued one then runs for the account) and queues a compaction when the
       merged list went over the cap (memory.services.memory_guest_merge).
    3. Move conversations, projects and voice sessions.
    4. Merge preferences (the account's own choices win); delete the guest. Its Memory
       row goes with it, so a guest pass still running finds no guest row to write.
    All in one transaction: either everything moved or nothing did.
    """
    with transaction.atomic():
        try:
            # The account first, then the guest: the lock order of every writer and of a
            # deletion (accounts.locks), so a merge into an account being deleted waits
            # and then finds it gone, rather than deadlocking with the deletion.
            owner_hold(owner=Owner(user_id=user_id))
        except OwnerGone:
            log.info("guest not merged: account %s no longer exists", user_id)
            return None
        guest = Guest.objects.select_for_update().filter(pk=guest_id).first()
        if guest is None:
            return None
        merged = memory_guest_merge(guest_id=guest_id, user_id=user_id)
        memory = merged.merge
        moved: dict[str, int] = {"memory passes": merged.passes_moved}
        for model in _MOVED_WITH_GUEST:
            changes: dict[str, object] = {"user_id": user_id, "guest_id": None}
            if memory.guest_cleared_at and model in _READ_BY_MEMORY:
                changes["memory_read_after"] = memory.guest_cleared_at  # the clear covers these
            rows = model.objects.filter(guest_id=guest_id)
            moved[str(model._meta.verbose_name_plural)] = rows.update(**changes)
        _merge_preference(guest_id=guest_id, user_id=user_id)
        # Memory (and anything else still hanging off the guest) cascades.
        guest.delete()

    log.info("guest merged into user %s: %s facts added, %s trimmed, moved %s",
             user_id, memory.added, memory.trimmed, moved)
    return GuestMerge(
        facts_added=memory.added, facts_total=len(memory.lines), tokens=memory.tokens,
        facts_trimmed=memory.trimmed, compaction_pass_id=merged.compaction_pass_id,
        moved=moved,
    )


def _merge_preference(*, guest_id: uuid.UUID, user_id: int) -> None:
    guest_pref = Preference.objects.filter(guest_id=guest_id).first()
    if guest_pref is None:
        return
    account_pref = Preference.objects.select_for_update().filter(user_id=user_id).first()
    if account_pref is None:
        Preference.objects.filter(pk=guest_pref.pk).update(user_id=user_id, guest_id=None)
        return
    # Choices the account already made win; the guest's fill only what is unset.
    changed = []
    for name in ("language", "chat_model"):
        if not getattr(account_pref, name) and getattr(guest_pref, name):
            setattr(account_pref, name, getattr(guest_pref, name))
            changed.append(name)
    if changed:
        account_pref.save(update_fields=[*changed, "updated_at"])
    guest_pref.delete()
