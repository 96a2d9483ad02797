"""Personas and their data for the account lifecycle tests.

- guest: a visitor with no account, known only by the guest id in their session.
- user: an account; after signup it holds what its guest had; after logging in to it, it
  holds what it had, and is offered the browser's guest data to add or discard.
- planter: someone who plants their own session cookie in another person's browser;
  may never read or write the account that browser signs in to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Guest, Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.models import Memory, MemoryPass
from memory.tokens import count_list_tokens
from tests.conftest import guest_start

PASSWORD = "a-long-pass-phrase"


@dataclass
class GuestHistory:
    guest: Guest | None
    owner: Owner
    conversation: Conversation
    project: Project
    voice_session: VoiceSession
    queued_pass: MemoryPass


def give_memory(owner: Owner, lines: list[str], **extra) -> Memory:
    return Memory.objects.create(
        **owner.lookup, lines=lines, tokens=count_list_tokens(lines), version=3, **extra
    )


def give_history(owner: Owner, *, facts: list[str] | None = None) -> GuestHistory:
    """A project, a conversation with messages, a voice session and a queued pass."""
    project = Project.objects.create(**owner.lookup, name="Thesis")
    conversation = Conversation.objects.create(
        **owner.lookup, project=project, title="Hello", model="whizi/offline"
    )
    said = "My name is Mai; I have a cat called Miso."
    Message.objects.create(conversation=conversation, role="user", content=said)
    reply = Message.objects.create(conversation=conversation, role="assistant", content="Hi Mai!")
    session = VoiceSession.objects.create(**owner.lookup)
    VoiceTurn.objects.create(session=session, role="user", text="I live in Hanoi.")
    queued = MemoryPass.objects.create(
        **owner.lookup, trigger=MemoryPass.Trigger.REQUEST, through_message_id=reply.pk
    )
    if facts is not None:
        give_memory(owner, facts)
    guest = Guest.objects.get(pk=owner.guest_id) if owner.is_guest else None
    return GuestHistory(guest, owner, conversation, project, session, queued)


def guest_of(client: Client) -> Owner:
    """Start a guest session in this browser."""
    client.get("/")
    return guest_start(client)


def sign_up(client: Client, email: str):
    response = client.post(
        "/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302, response.content[:500]
    return get_user_model().objects.get(email=email)


def log_in(client: Client, email: str):
    response = client.post("/accounts/login/", {"login": email, "password": PASSWORD})
    assert response.status_code == 302, response.content[:500]


def make_user(email: str):
    return get_user_model().objects.create_user(email.split("@")[0], email, PASSWORD)


def owned_rows(user_id: int) -> dict[str, int]:
    """How many rows of each kind the account owns (messages and voice turns through
    their conversation and session)."""
    owner = Owner(user_id=user_id)
    return {
        "memory": Memory.objects.filter(user_id=user_id).count(),
        "passes": MemoryPass.objects.for_owner(owner).count(),
        "conversations": Conversation.objects.for_owner(owner).count(),
        "messages": Message.objects.filter(conversation__user_id=user_id).count(),
        "projects": Project.objects.for_owner(owner).count(),
        "voice sessions": VoiceSession.objects.for_owner(owner).count(),
        "voice turns": VoiceTurn.objects.filter(session__user_id=user_id).count(),
        "preferences": Preference.objects.filter(user_id=user_id).count(),
        "emails": EmailAddress.objects.filter(user_id=user_id).count(),
    }


def offer_digest(client: Client, page: str = "/") -> str | None:
    """The digest of the guest offer the page shows (None: it shows none)."""
    found = re.search(r'name="offer" value="([0-9a-f]+)"', client.get(page).content.decode())
    return found.group(1) if found else None


def offer_answer(client: Client, answer: str, *, digest: str | None = None, page: str = "/"):
    """Press "Add" ("add") or "Discard" ("discard") on the offer the page shows."""
    if answer == "add" and digest is None:
        digest = offer_digest(client, page)
    fields = {"next": page, **({"offer": digest} if digest else {})}
    response = client.post(f"/guest-offer/{answer}/", fields)
    assert response.status_code == 302, response.content[:500]
    return response
