"""A browser's guest data offered to the existing account it logs in to (docs/DESIGN.md §2.9).

Signing up merges the session's guest into the new account (lifecycle.signals). Logging
in to an account that already exists moves nothing: the guest's id moves, in the session,
from "who this browser is" to "what this session may offer", bound to the account. The
chat page and settings show exactly what the guest holds; "Add" runs the sign-up merge
(guest_merge_into_user) and "Discard" deletes the guest (lifecycle.cleanup.guest_delete).
Nothing a browser sends can name the guest: only the id kept server-side in the session.
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.locks import owner_hold
from accounts.models import Guest
from accounts.owner import Owner
from chat.models import Conversation, Project, VoiceSession
from lifecycle.guest_merge import guest_merge_into_user
from memory.services import MemoryUnavailable, memory_lock, memory_read

log = logging.getLogger(__name__)

GUEST_OFFER_SESSION_KEY = "whizi_guest_offer"


@dataclass(frozen=True)
class GuestOffer:
    """What "Add" would move into the account, as the person is shown it."""

    guest_id: uuid.UUID
    facts: tuple[str, ...]
    chat_titles: tuple[str, ...]  # conversations with at least one message ("" untitled)
    voice_chats: tuple[datetime, ...]  # when each voice session with a turn started
    projects: tuple[str, ...]
    # What the offer was read from: "Add" merges only while the guest is still exactly this.
    digest: str

    @property
    def chats(self) -> int:
        return len(self.chat_titles) + len(self.voice_chats)

    @property
    def is_empty(self) -> bool:
        """Nothing worth asking about: no fact, no chat, no project."""
        return not (self.facts or self.chats or self.projects)

    @property
    def question(self) -> str:
        """What the panel asks, in the active language: "Add this browser's 3 facts and 2
        chats to your account?", or the one kind there is."""
        facts = ngettext("%(counter)s fact", "%(counter)s facts", len(self.facts)) % {
            "counter": len(self.facts)}
        chats = ngettext("%(counter)s chat", "%(counter)s chats", self.chats) % {"counter": self.chats}
        if self.facts and self.chats:
            return gettext("Add this browser's %(facts)s and %(chats)s to your account?") % {
                "facts": facts, "chats": chats}
        if not (self.facts or self.chats):
            what = ngettext("%(counter)s project", "%(counter)s projects", len(self.projects)) % {
                "counter": len(self.projects)}
        else:
            what = facts if self.facts else chats
        return gettext("Add this browser's %(what)s to your account?") % {"what": what}


def guest_offer_contents(*, guest_id: uuid.UUID) -> GuestOffer | None:
    """Everything of the guest's that "Add" would move; None when the guest is gone.
    Raises MemoryUnavailable when its list cannot be read."""
    if not Guest.objects.filter(pk=guest_id).exists():
        return None
    owner = Owner(guest_id=guest_id)
    memory = memory_read(owner=owner)
    conversations = list(Conversation.objects.for_owner(owner).annotate(said=Count("messages"))
                         .order_by("-updated_at", "pk").values_list("pk", "title", "said"))
    voice = list(VoiceSession.objects.for_owner(owner).annotate(said=Count("turns"))
                 .order_by("-started_at", "pk").values_list("pk", "said", "started_at"))
    projects = list(Project.objects.for_owner(owner).order_by("name", "pk").values_list("pk", "name"))
    # Every row the merge would move, with its size: a pass adding a fact, or anything
    # else changing after the offer was shown, makes a different digest.
    seen = json.dumps([memory.version, memory.lines, conversations, voice, projects], default=str)
    return GuestOffer(
        guest_id=guest_id,
        facts=memory.lines,
        chat_titles=tuple(title for _pk, title, said in conversations if said),
        voice_chats=tuple(started for _pk, said, started in voice if said),
        projects=tuple(name for _pk, name in projects),
        digest=hashlib.sha256(seen.encode()).hexdigest()[:32],
    )


class OfferAnswer(enum.Enum):
    ADDED = "added"
    CHANGED = "changed"  # the guest changed since it was shown: nothing moved
    GONE = "gone"  # already added or discarded (another tab, a double submit)


def guest_offer_add(*, guest_id: uuid.UUID, user_id: int, digest: str) -> OfferAnswer:
    """Run the sign-up merge for the offered guest, if it is still exactly what was shown.

    1. Hold the account's row, then lock the guest row and its list (the merge's own
       lock order): a second "Add" or a "Discard" from another tab waits here and then
       finds the guest gone; a pass saving to the guest's list waits until after.
    2. Read the guest again; if its digest is not the one shown, nothing moves.
    3. guest_merge_into_user, in the same transaction (it queues any compaction pass).
    Raises OwnerGone when the account was deleted meanwhile.
    """
    with transaction.atomic():
        owner_hold(owner=Owner(user_id=user_id))
        if not Guest.objects.select_for_update().filter(pk=guest_id).exists():
            return OfferAnswer.GONE
        memory_lock(owner=Owner(guest_id=guest_id))
        current = guest_offer_contents(guest_id=guest_id)
        if current is None:
            return OfferAnswer.GONE
        if current.digest != digest:
            return OfferAnswer.CHANGED
        guest_merge_into_user(guest_id=guest_id, user_id=user_id)
    return OfferAnswer.ADDED


# ---------------------------------------------------------------- the offer in the session


def guest_offer_keep(request: HttpRequest, *, guest_id: uuid.UUID, user_id: int) -> None:
    """Keep the offer in this session, for this account only."""
    request.session[GUEST_OFFER_SESSION_KEY] = {"guest": str(guest_id), "user": user_id}


def guest_offered(request: HttpRequest) -> uuid.UUID | None:
    """The guest this session offers to its signed-in account, if any."""
    session = getattr(request, "session", None)
    user = getattr(request, "user", None)
    held = session.get(GUEST_OFFER_SESSION_KEY) if session is not None else None
    if not isinstance(held, dict) or user is None or not user.is_authenticated:
        return None
    if held.get("user") != user.pk:
        return None
    try:
        return uuid.UUID(str(held.get("guest")))
    except ValueError:
        return None


def guest_offer_forget(request: HttpRequest) -> None:
    request.session.pop(GUEST_OFFER_SESSION_KEY, None)


def guest_offer_for_request(request: HttpRequest) -> GuestOffer | None:
    """The offer to show on this page; an offer whose guest is gone is forgotten. Showing
    it counts as a visit of the guest, so the abandoned-guest sweep leaves it alone while
    its session lasts."""
    guest_id = guest_offered(request)
    if guest_id is None:
        return None
    if not Guest.objects.filter(pk=guest_id).update(last_seen_at=timezone.now()):
        guest_offer_forget(request)
        return None
    try:
        offer = guest_offer_contents(guest_id=guest_id)
    except MemoryUnavailable:
        return None  # shown again on a later page; nothing is lost meanwhile
    if offer is None:
        guest_offer_forget(request)
    return offer
