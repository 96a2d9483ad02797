"""Finding an account, and deleting it with everything it owns."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction

from accounts.models import Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.selectors import memory_contents_count
from memory.services import memory_lock

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
    "memory.MemoryChange": "memory changes",
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
        **memory_contents_count(owner=owner),
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


class AccountDeleteFailed(Exception):
    """The database refused the deletion every time; nothing was removed."""


# Whole-deletion attempts. Writers hold the owner row first (accounts.locks), so the
# deletion neither deadlocks with them nor finds rows written under it; a retry covers
# what does not follow that order (a support tool, a future writer), and the rollback
# of a failed attempt leaves the account whole for the next.
DELETE_ATTEMPTS = 5
_DEADLOCK, _SERIALIZATION, _FOREIGN_KEY = "40P01", "40001", "23503"


def _worth_retrying(exc: DatabaseError) -> bool:
    # A foreign-key violation at commit: a row was committed into something the
    # deletion had emptied; the next attempt sees and deletes it.
    return getattr(exc.__cause__, "sqlstate", None) in (_DEADLOCK, _SERIALIZATION, _FOREIGN_KEY)


def _delete_rows(user_id: int) -> dict[str, int]:
    User = get_user_model()
    with transaction.atomic():
        # The user row first, then the memory row: the order every writer follows
        # (accounts.locks holds the user with FOR KEY SHARE), so whoever is writing for
        # the account finishes first and whoever comes later finds it gone.
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            raise AccountNotFound(f"No account has the id {user_id} (it was deleted meanwhile).")
        memory_lock(owner=Owner(user_id=user_id))
        _, counts = user.delete()
    return counts


def account_delete(*, user_id: int) -> AccountDeletion:
    """Delete the account and everything it owns; return what was removed.

    A pass still queued has its MemoryPass row deleted with the account, so the
    worker finds nothing to run. A pass already waiting on the model can write nothing
    back: its compare-and-swap finds no Memory row, and a new row for a user that no
    longer exists fails its foreign key. A chat, voice or merge request under way holds
    the user row (accounts.locks) and finishes before the delete, or finds the account
    gone after it (a 404). Nothing is cached per owner, so the rows are all there is.
    Raises AccountNotFound (already gone) or AccountDeleteFailed.
    """
    for attempt in range(1, DELETE_ATTEMPTS + 1):
        try:
            counts = _delete_rows(user_id)
            break
        except DatabaseError as exc:
            cause = type(exc.__cause__ or exc).__name__
            if not _worth_retrying(exc) or attempt == DELETE_ATTEMPTS:
                raise AccountDeleteFailed(
                    f"The database refused to delete account {user_id} ({cause}, attempt {attempt}); "
                    "nothing was removed. Run the command again."
                ) from exc
            log.warning("deleting account %s: %s, attempt %s of %s; trying again", user_id, cause,
                        attempt, DELETE_ATTEMPTS)
    log.info("account %s deleted", user_id)
    return AccountDeletion(removed=_removed_report(counts))
