"""The memory owner of a request: the signed-in user, or else the visitor's guest identity.

Every app asks `owner_for_request()` rather than looking at `request.user` itself,
so guests and accounts go through the same code.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.http import HttpRequest
from django.utils import timezone

from accounts.models import Guest

GUEST_SESSION_KEY = "whizi_guest_id"


@dataclass(frozen=True)
class Owner:
    user_id: int | None = None
    guest_id: uuid.UUID | None = None

    def __post_init__(self) -> None:
        if (self.user_id is None) == (self.guest_id is None):
            raise ValueError("an owner is exactly one of a user or a guest")

    @property
    def is_guest(self) -> bool:
        return self.guest_id is not None

    @property
    def lookup(self) -> dict[str, object]:
        """Filter kwargs for any OwnedModel (and Memory)."""
        if self.user_id is not None:
            return {"user_id": self.user_id}
        return {"guest_id": self.guest_id}

    @property
    def key(self) -> str:
        """A stable string for cache keys and logs (no personal data)."""
        return f"user:{self.user_id}" if self.user_id is not None else f"guest:{self.guest_id}"

    @classmethod
    def of(cls, obj: object) -> Owner:
        """The owner of an OwnedModel row."""
        user_id = getattr(obj, "user_id", None)
        if user_id is not None:
            return cls(user_id=user_id)
        return cls(guest_id=obj.guest_id)


def guest_id_in_session(request: HttpRequest) -> uuid.UUID | None:
    raw = request.session.get(GUEST_SESSION_KEY)
    if not raw:
        return None
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        return None


def _guest_for_session(request: HttpRequest) -> Guest:
    guest_id = guest_id_in_session(request)
    if guest_id is not None:
        updated = Guest.objects.filter(pk=guest_id).update(last_seen_at=timezone.now())
        if updated:
            return Guest(pk=guest_id)
    # First use, or the guest was removed (abandoned-guest cleanup): start a new one.
    guest = Guest.objects.create()
    request.session[GUEST_SESSION_KEY] = str(guest.pk)
    return guest


def owner_for_request(request: HttpRequest) -> Owner:
    """The request's memory owner, creating the guest identity on first use."""
    cached = getattr(request, "_whizi_owner", None)
    if cached is not None:
        return cached
    if request.user.is_authenticated:
        owner = Owner(user_id=request.user.pk)
    else:
        owner = Owner(guest_id=_guest_for_session(request).pk)
    request._whizi_owner = owner
    return owner
