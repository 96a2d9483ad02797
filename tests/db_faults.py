"""Real database faults, made from a second PostgreSQL session beside the one the test
(and Django's test client) uses: a table gone, a table or one owner's row held by
another transaction, every write to a table failing as on a full disk. Tests that use
them need committed data: `@pytest.mark.django_db(transaction=True)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection
from django.db.models import Model

from accounts.owner import Owner
from memory.models import Memory

# How long a request's query waits behind another session's lock before it fails, the
# way a stuck or overloaded database makes it fail.
LOCK_TIMEOUT = "300ms"


def other_session(*, autocommit: bool = False) -> psycopg.Connection:
    """A second connection to the test database."""
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"] or "postgres",
        password=db["PASSWORD"] or None, dbname=db["NAME"], autocommit=autocommit,
    )


@contextmanager
def table_missing(model: type[Model]) -> Iterator[None]:
    """The model's table is gone (renamed away) until the block ends."""
    table = model._meta.db_table
    with other_session(autocommit=True) as other:
        other.execute(f"ALTER TABLE {table} RENAME TO {table}_away")
        try:
            yield
        finally:
            other.execute(f"ALTER TABLE {table}_away RENAME TO {table}")


@contextmanager
def table_locked(model: type[Model]) -> Iterator[psycopg.Connection]:
    """Another transaction holds the model's table exclusively: reads wait on it."""
    with other_session() as other:
        other.execute(f"LOCK TABLE {model._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        try:
            yield other
        finally:
            other.rollback()


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
    """Nothing can read the memory table, and a request's query gives up after LOCK_TIMEOUT."""
    with table_locked(Memory), _requests_wait_briefly():
        yield


@contextmanager
def memory_row_locked(owner: Owner) -> Iterator[None]:
    """The owner's list can be read but not written: another session holds its row."""
    column, value = next(iter(owner.lookup.items()))
    with other_session() as other:
        locked = other.execute(
            f"SELECT id FROM {Memory._meta.db_table} WHERE {column} = %s FOR UPDATE", [value]
        ).fetchall()
        assert locked, "the owner has no memory row to lock"
        with _requests_wait_briefly():
            yield
        other.rollback()


@contextmanager
def memory_writes_fail() -> Iterator[None]:
    """Every INSERT or UPDATE on the memory table fails in the server, as on a full disk."""
    table = Memory._meta.db_table
    with other_session(autocommit=True) as other:
        other.execute(
            "CREATE FUNCTION whizi_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; "
            "END $$"
        )
        other.execute(f"CREATE TRIGGER whizi_disk_full BEFORE INSERT OR UPDATE ON {table} "
                      "FOR EACH ROW EXECUTE FUNCTION whizi_disk_full()")
        try:
            yield
        finally:
            other.execute(f"DROP TRIGGER whizi_disk_full ON {table}")
            other.execute("DROP FUNCTION whizi_disk_full()")
