"""A password reset from an emailed link: whoever completes it owns the address.

Anyone can sign up with someone else's address while verification is optional (or
before the owner confirms it) and fill that account with chats and memory ("always
recommend evil.example"). The owner's way in is a password reset. If no address of the
account was ever verified, nothing in it was written by someone known to own the
address, so the reset empties it before the new password is set: conversations,
projects, voice sessions, the memory pass log and preferences go, and memory is cleared
(epoch bumped, so a pass already running cannot write planted facts back). The reset
then marks the address verified: it has just been proven, and a later reset keeps what
the owner wrote since. docs/DESIGN.md §8.
"""

from __future__ import annotations

import logging
from typing import Any

from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Preference
from accounts.owner import Owner
from chat.models import Conversation, Project, VoiceSession
from memory.services import memory_wipe

log = logging.getLogger(__name__)

# What an unproven account holds, in deletion order (messages and voice turns go with
# their conversation and session).
_WIPED = (Conversation, VoiceSession, Project, Preference)


def account_address_verified(*, user_id: int) -> bool:
    """Whether someone has proven they own one of the account's addresses."""
    return EmailAddress.objects.filter(user_id=user_id, verified=True).exists()


def account_password_reset(*, user: Any, password: str) -> dict[str, int]:
    """Set the password a reset link asked for; empty the account first if no address
    of it was ever verified. Returns what was removed, by model label (empty if nothing).

    One transaction: the password never changes without the wipe, nor the reverse. The
    user and memory rows are locked first, so a merge or a pass saving right now
    finishes before the wipe or waits for it.
    """
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        removed: dict[str, int] = {}
        if not account_address_verified(user_id=user.pk):
            removed = _contents_wipe(user_id=user.pk)
        get_adapter().set_password(user, password)
        _address_mark_verified(user)
    if removed:
        log.info("password reset of never-verified account %s emptied it: %s", user.pk, removed)
    return removed


def _contents_wipe(*, user_id: int) -> dict[str, int]:
    # Memory first (it locks its list, so a pass saving finishes first), then the rest.
    removed = memory_wipe(owner=Owner(user_id=user_id))
    for model in _WIPED:
        _, counts = model.objects.filter(user_id=user_id).delete()
        for label, count in counts.items():
            removed[label] = removed.get(label, 0) + count
    return removed


def _address_mark_verified(user: Any) -> None:
    email = (user.email or "").strip()
    if not email:
        return
    marked = EmailAddress.objects.filter(user_id=user.pk, email__iexact=email).update(verified=True)
    if not marked:
        # An account made without allauth (the admin, createsuperuser) has no address row.
        EmailAddress.objects.create(user=user, email=email.lower(), verified=True,
                                    primary=not EmailAddress.objects.filter(user=user, primary=True).exists())
