"""The memory owner of a request: the signed-in user, or else the visitor's guest identity.

Every app asks here rather than looking at `request.user` itself, so guests and accounts
go through the same code. Reading asks `owner_seen()`, which creates no row (it notes a
known guest's visit): a visitor who has done nothing worth keeping has no guest and sees
empty lists. Only a
request that must be kept (a message, a new conversation or project, a saved preference,
a voice session) asks `owner_for_write()`, which creates the guest and its session on
first use. So page views, refused requests and 404s from cookieless clients write nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import connection
from django.db.models import Model
from django.http import Http404, HttpRequest

from accounts.models import Guest, Preference
from whizi.db import sql_now, sql_row, sql_table

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

    def sql_match(self, model: type[Model], alias: str) -> tuple[str, object]:
        """`lookup` for a raw statement on `model` (as `alias`): the condition, and the
        owner's key as that column stores it."""
        field = model._meta.get_field("user" if self.user_id is not None else "guest")
        key = self.user_id if self.user_id is not None else self.guest_id
        return (f"{alias}.{connection.ops.quote_name(field.column)} = %s",
                field.get_db_prep_value(key, connection))

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


def _guest_seen(request: HttpRequest) -> uuid.UUID | None:
    """The session's guest, if it still exists; its last visit is noted, so a guest who
    only reads is not swept as abandoned, and its saved language is read with it
    (guest_saved_language)."""
    guest_id = guest_id_in_session(request)
    if guest_id is None:
        return None
    language = _guest_visit(guest_id)
    if language is not None:
        request._whizi_guest_language = language
        return guest_id
    # The guest was removed (abandoned-guest cleanup): forget it, so a first write starts anew.
    request.session.pop(GUEST_SESSION_KEY, None)
    return None


def _guest_visit(guest_id: uuid.UUID) -> str | None:
    """Note the guest's visit and read its saved language ("" when none), in one statement
    (every request of a guest asks both); None when the guest no longer exists."""
    key = Guest._meta.pk.get_db_prep_value(guest_id, connection)
    language = f"SELECT language FROM {sql_table(Preference)} WHERE guest_id = %s"
    row = sql_row(f"UPDATE {sql_table(Guest)} SET last_seen_at = %s WHERE id = %s "
                  f"RETURNING COALESCE(({language}), '')", [sql_now(Guest, "last_seen_at"), key, key])
    return None if row is None else row[0]


def guest_saved_language(request: HttpRequest) -> str:
    """The language the request's guest saved in Preferences, as read when its visit was
    noted (owner_seen); "" for none, or for a visitor with no guest."""
    if request.user.is_authenticated or owner_seen(request) is None:
        return ""
    return getattr(request, "_whizi_guest_language", "")


def owner_seen(request: HttpRequest) -> Owner | None:
    """The request's owner, or None for a visitor with no guest yet. Creates no row, but
    notes a guest's visit (its last_seen_at), so a guest who only reads is not swept."""
    cached = getattr(request, "_whizi_owner", None)
    if cached is not None:
        return cached
    if request.user.is_authenticated:
        owner = Owner(user_id=request.user.pk)
    else:
        guest_id = _guest_seen(request)
        if guest_id is None:
            return None
        owner = Owner(guest_id=guest_id)
    request._whizi_owner = owner
    return owner


def owner_for_lookup(request: HttpRequest) -> Owner:
    """The owner of a request that names something of theirs (a conversation, a voice
    session): a visitor with no guest yet owns nothing, so it is a 404 and no guest is made."""
    owner = owner_seen(request)
    if owner is None:
        raise Http404
    return owner


def owner_for_write(request: HttpRequest) -> Owner:
    """The request's owner, creating the visitor's guest (and so its session) on first use.
    Call it only once the request is known to be kept: checked, allowed, not a 404."""
    owner = owner_seen(request)
    if owner is None:
        guest = Guest.objects.create()
        request.session[GUEST_SESSION_KEY] = str(guest.pk)
        owner = Owner(guest_id=guest.pk)
        request._whizi_owner = owner
    return owner
