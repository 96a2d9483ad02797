"""The lock order every write to an owner's data follows: the owner's row first.

Deleting an account locks the user row FOR UPDATE and then deletes what it owns; a
guest merge and the abandoned-guest sweep lock the guest row the same way. A writer
that locked one of the owner's rows (a conversation, a voice session) before its
foreign-key check reached the owner row at commit would wait for the deletion while
the deletion waited for it: a deadlock, or a row committed into a conversation the
deletion had just emptied. So every writer holds the owner row first, with FOR KEY
SHARE — the lock a foreign-key check takes anyway: writers never wait for each other,
nor for an update of the user's other columns (last login, a guest's last visit),
only for a deletion or a merge of that owner, and then find it gone.
"""

from __future__ import annotations

from typing import TypeVar

from django.contrib.auth import get_user_model
from django.db import connection, models
from django.db.transaction import TransactionManagementError
from django.http import Http404

from accounts.models import Guest
from accounts.owner import Owner
from whizi.db import sql_row_locked

M = TypeVar("M", bound=models.Model)


class OwnerGone(Http404):
    """The owner was deleted (or, for a guest, merged into an account) while the request
    was on its way. Nothing of theirs is written; to the client, what it asked about no
    longer exists (a 404, like any id that is not theirs)."""


class RowGone(Http404):
    """The row was deleted with its owner while the request was on its way."""


def owner_hold(*, owner: Owner) -> None:
    """Hold the owner's row until the caller's transaction ends (FOR KEY SHARE on
    PostgreSQL; SQLite locks the whole database for a write anyway). Call it before
    locking or writing anything the owner owns. Raises OwnerGone."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("owner_hold() outside a transaction holds nothing")
    model: type[models.Model] = get_user_model() if owner.user_id is not None else Guest
    key = owner.user_id if owner.user_id is not None else owner.guest_id
    # Raw SQL, as the ORM has no FOR KEY SHARE; the key as the backend stores it (SQLite
    # keeps a UUID as 32 hex characters).
    key = model._meta.pk.get_db_prep_value(key, connection)
    lock = " FOR KEY SHARE" if connection.vendor == "postgresql" else ""
    table = connection.ops.quote_name(model._meta.db_table)
    pk = connection.ops.quote_name(model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {table} WHERE {pk} = %s{lock}", [key])
        if cursor.fetchone() is None:
            raise OwnerGone(f"{owner.key} no longer exists")


# A row changes owner only in a guest merge, which holds the guest row while it moves
# it, so a second read always settles; a third is belt and braces.
_OWNER_READS = 3


def owned_row_lock(model: type[M], *, pk: object, owner: Owner | None = None) -> M:
    """The owned row (Conversation, VoiceSession, …) locked FOR UPDATE, after holding
    its current owner (owner_hold): the one lock order deletion and merges rely on.
    `owner`: who the caller read as its owner, held first without reading it again (a
    query less; a row that changed owner meanwhile is read again as usual).
    Raises RowGone when the row or its owner is gone."""
    for _ in range(_OWNER_READS):
        if owner is None:
            current = model.objects.filter(pk=pk).values_list("user_id", "guest_id").first()
            if current is None:
                raise RowGone(f"{model._meta.label} {pk} no longer exists")
            owner = Owner(user_id=current[0], guest_id=current[1])
        try:
            owner_hold(owner=owner)
        except OwnerGone:
            owner = None
            continue  # deleted (the row goes with it) or merged (the row moved): read again
        row = sql_row_locked(model, pk)
        if row is None:
            raise RowGone(f"{model._meta.label} {pk} no longer exists")
        if Owner.of(row) == owner:
            return row
        owner = None
    raise RowGone(f"{model._meta.label} {pk} kept changing owner")
