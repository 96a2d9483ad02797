"""Database work in short steps, so no connection is held while something slow is awaited.

A thread keeps its pooled connection until the connection is closed (Django returns it
to the pool only then), so an async view that awaits a model answer between two pieces
of database work would otherwise hold a connection for the whole answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.db import connections

T = TypeVar("T")


def db_release() -> None:
    """Give this thread's database connections back (to the pool, when there is one).

    A connection inside a transaction is left alone: closing it would end the transaction
    (a test case's own, or a caller's atomic block).
    """
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


async def db_step(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run `fn` in the request's thread, then give its connection back."""

    def step() -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            db_release()

    return await sync_to_async(step)()
