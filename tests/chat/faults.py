"""Real database faults for the memory read, made from a second connection."""

import contextlib

import psycopg
from django.db import connection


def _second_connection() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        dbname=db["NAME"], user=db["USER"] or "postgres", host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432, password=db["PASSWORD"] or None,
    )


@contextlib.contextmanager
def memory_table_missing():
    with _second_connection() as other:
        other.autocommit = True
        other.execute("ALTER TABLE memory_memory RENAME TO memory_memory_away")
        try:
            yield
        finally:
            other.execute("ALTER TABLE memory_memory_away RENAME TO memory_memory")


@contextlib.contextmanager
def memory_table_locked():
    """Another transaction holds the memory table exclusively: reads wait on it."""
    with _second_connection() as other:
        other.execute("LOCK TABLE memory_memory IN ACCESS EXCLUSIVE MODE")
        try:
            yield other
        finally:
            other.rollback()
