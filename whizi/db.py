"""Database work in short steps, so no connection is held while something slow is awaited.

A thread keeps its pooled connection until the connection is closed (Django returns it
to the pool only then), so an async view that awaits a model answer between two pieces
of database work would otherwise hold a connection for the whole answer.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection, connections
from django.db.models import Model
from django.utils import timezone

T = TypeVar("T")


def sql_table(model: type[Model]) -> str:
    """A model's table, quoted for this connection's SQL."""
    return connection.ops.quote_name(model._meta.db_table)


def sql_now(model: type[Model], field: str) -> object:
    """Now, as `model.field` (a DateTimeField) is stored on this connection."""
    return model._meta.get_field(field).get_db_prep_save(timezone.now(), connection)


def sql_row(sql: str, params: Sequence[object]) -> tuple | None:
    """The first row of one raw statement: for the `UPDATE … RETURNING` that saves a
    message a round trip and that the ORM cannot write."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def db_release() -> None:
    """Give this thread's database connections back (to the pool, when there is one).

    A connection inside a transaction is left alone: closing it would end the transaction
    (a test case's own, or a caller's atomic block).
    """
    for each in connections.all(initialized_only=True):
        if not each.in_atomic_block:
            each.close()


_steps_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


def _gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _steps_by_loop.get(loop)
    if gate is None:
        at_once = max(1, settings.WHIZI_CHAT_SAVES_AT_ONCE)
        pool = settings.WHIZI_DB_POOL_MAX_SIZE  # never more than the pool holds (0: no pool)
        gate = _steps_by_loop[loop] = asyncio.Semaphore(min(at_once, pool) if pool > 0 else at_once)
    return gate


def _released(fn: Callable[..., T], args: tuple, kwargs: dict) -> Callable[[], T]:
    def step() -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            db_release()

    return step


async def db_step(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run `fn` in the request's thread, then give its connection back."""
    return await sync_to_async(_released(fn, args, kwargs))()


async def db_step_queued(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """db_step() for the heavy steps of a burst (chat): at most WHIZI_CHAT_SAVES_AT_ONCE
    run at once in this process. They are CPU work under one interpreter lock, so more at
    once would not finish sooner, only give every other page more threads to queue behind
    for the interpreter and the pool. The rest wait here, holding no thread."""
    async with _gate():
        return await sync_to_async(_released(fn, args, kwargs))()
