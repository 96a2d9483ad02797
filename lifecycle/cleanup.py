"""Deleting guests: the abandoned ones (once a session has expired nobody can reach it, nor
the guest it named, again) and one whose data an account declined at login."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Guest

log = logging.getLogger(__name__)

# Guests deleted per transaction: each takes its conversations, messages and passes
# with it, so a batch stays short enough not to hold locks for long.
GUEST_SWEEP_BATCH = 200


@dataclass(frozen=True)
class GuestCleanup:
    guests: int
    removed: dict[str, int]
    sessions: int | None  # None: the session store expires its entries itself


def sessions_expired_purge() -> int | None:
    """Delete expired sessions from a database session store; Django never does it by itself."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store, "get_model_class"):
        store.clear_expired()  # cache and cookie stores expire on their own
        return None
    deleted, _ = store.get_model_class().objects.filter(expire_date__lt=timezone.now()).delete()
    return deleted


def guests_cleanup(*, batch_size: int = GUEST_SWEEP_BATCH) -> GuestCleanup:
    """Delete guests not seen for longer than a session lives, with all they own, and
    the expired sessions.

    A guest's id lives only in its session, so once SESSION_COOKIE_AGE has passed
    since the guest was last seen, nobody can reach it again. Rows are claimed with
    SKIP LOCKED, so a guest being merged into an account right now is left alone
    (and is gone after the merge anyway).
    """
    cutoff = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    total = 0
    removed: dict[str, int] = {}
    while True:
        with transaction.atomic():
            ids = list(
                Guest.objects.select_for_update(skip_locked=True)
                .filter(last_seen_at__lt=cutoff)
                .order_by("last_seen_at")
                .values_list("pk", flat=True)[:batch_size]
            )
            if not ids:
                break
            # Filter on the cutoff again: the rows are locked, so this is the final word.
            _, counts = Guest.objects.filter(pk__in=ids, last_seen_at__lt=cutoff).delete()
        total += counts.get("accounts.Guest", 0)
        for label, count in counts.items():
            removed[label] = removed.get(label, 0) + count
    sessions = sessions_expired_purge()
    if total or sessions:
        log.info("abandoned guests removed: %s; expired sessions removed: %s", total, sessions)
    return GuestCleanup(guests=total, removed=removed, sessions=sessions)


def guest_delete(*, guest_id: uuid.UUID) -> dict[str, int] | None:
    """Delete one guest with everything it owns (memory, chats, projects, voice sessions,
    passes, preferences); None when it is already gone (merged,
    deleted, swept). The guest row is locked first, as a merge and the sweep lock it, so
    a merge of the same guest under way finishes first and this then finds nothing."""
    with transaction.atomic():
        if not Guest.objects.select_for_update().filter(pk=guest_id).exists():
            return None
        _, removed = Guest.objects.filter(pk=guest_id).delete()
    log.info("guest %s deleted: %s", guest_id, removed)
    return removed
