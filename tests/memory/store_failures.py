"""Making the memory store fail for real, from outside the code under test.

Another PostgreSQL session takes a lock on the memory table (or one owner's row), and
the test's own connection (the one Django's test client serves requests on) waits at
most a short lock_timeout, so the request's query fails the way a stuck or overloaded
database makes it fail. Tests using these need committed data:
`@pytest.mark.django_db(transaction=True)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection

from accounts.owner import Owner
from memory.models import Memory

LOCK_TIMEOUT = "300ms"


def _other_session() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"] or "postgres",
        password=db["PASSWORD"] or None, dbname=db["NAME"],
    )


@contextmanager
def _requests_wait_briefly() -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


@contextmanager
def memory_unreadable() -> Iterator[None]:
    """Nothing can read the memory table: another session holds it exclusively."""
    with _other_session() as other:
        other.execute(f"LOCK TABLE {Memory._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        with _requests_wait_briefly():
            yield
        other.rollback()


@contextmanager
def memory_row_locked(owner: Owner) -> Iterator[None]:
    """The owner's list can be read but not written: another session holds its row."""
    column, value = next(iter(owner.lookup.items()))
    with _other_session() as other:
        locked = other.execute(
            f"SELECT id FROM {Memory._meta.db_table} WHERE {column} = %s FOR UPDATE", [value]
        ).fetchall()
        assert locked, "the owner has no memory row to lock"
        with _requests_wait_briefly():
            yield
        other.rollback()
