"""Finding an account, and deleting it with everything it owns."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.cache import OwnerCacheUnavailable, owner_cache_delete
from accounts.models import Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.models import Memory, MemoryPass

log = logging.getLogger(__name__)


class AccountNotFound(Exception):
    pass


def account_find(*, identifier: str) -> Any:
    """The user named by an id (all digits) or an email address (any case)."""
    User = get_user_model()
    identifier = identifier.strip()
    if not identifier:
        raise AccountNotFound("No account given: pass an email address or an account id.")
    if identifier.isdigit():
        user = User.objects.filter(pk=int(identifier)).first()
        if user is None:
            raise AccountNotFound(f"No account has the id {identifier}.")
        return user
    matches = list(User.objects.filter(email__iexact=identifier)[:2])
    if not matches:
        raise AccountNotFound(f"No account has the email address {identifier}.")
    if len(matches) > 1:
        raise AccountNotFound(
            f"More than one account has the email address {identifier}; pass the account id."
        )
    return matches[0]


# How the deletion report names what went, in the order it prints them.
_REMOVED_NAMES = {
    "auth.User": "account",
    "memory.Memory": "memory rows",
    "memory.MemoryPass": "memory passes",
    "chat.Conversation": "conversations",
    "chat.Message": "messages",
    "chat.Project": "projects",
    "chat.VoiceSession": "voice sessions",
    "chat.VoiceTurn": "voice turns",
    "accounts.Preference": "preferences",
    "account.EmailAddress": "email addresses",
}


def _removed_report(counts: dict[str, int]) -> dict[str, int]:
    report = {name: counts.get(label, 0) for label, name in _REMOVED_NAMES.items()}
    for label, count in counts.items():
        if label not in _REMOVED_NAMES and count:
            report[label] = count
    return report


def account_contents(*, user_id: int) -> dict[str, int]:
    """What deleting the account would remove, by the names the deletion report uses."""
    owner = Owner(user_id=user_id)
    counts = {
        "auth.User": 1,
        "memory.Memory": Memory.objects.filter(user_id=user_id).count(),
        "memory.MemoryPass": MemoryPass.objects.for_owner(owner).count(),
        "chat.Conversation": Conversation.objects.for_owner(owner).count(),
        "chat.Message": Message.objects.filter(conversation__user_id=user_id).count(),
        "chat.Project": Project.objects.for_owner(owner).count(),
        "chat.VoiceSession": VoiceSession.objects.for_owner(owner).count(),
        "chat.VoiceTurn": VoiceTurn.objects.filter(session__user_id=user_id).count(),
        "accounts.Preference": Preference.objects.filter(user_id=user_id).count(),
    }
    return _removed_report(counts)


@dataclass(frozen=True)
class AccountDeletion:
    removed: dict[str, int]
    cache_entries: int | None  # None: the cache could not be reached


def account_delete(*, user_id: int) -> AccountDeletion:
    """Delete the account and everything it owns; return what was removed.

    A pass still queued has its MemoryPass row deleted with the account, so the
    worker finds nothing to run. A pass already waiting on the model can write nothing
    back: its compare-and-swap finds no Memory row, and a new row for a user that no
    longer exists fails its foreign key. Locking the user and memory rows first makes
    a merge or a pass that is saving right now finish before the delete, or fail after.
    Cache entries named by accounts.cache.owner_cache_key go after the rows.
    """
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        list(Memory.objects.select_for_update().filter(user_id=user_id).values_list("pk"))
        _, counts = user.delete()
    try:
        cache_entries: int | None = owner_cache_delete(owners=[Owner(user_id=user_id)])
    except OwnerCacheUnavailable:
        cache_entries = None
    log.info("account %s deleted", user_id)
    return AccountDeletion(removed=_removed_report(counts), cache_entries=cache_entries)
