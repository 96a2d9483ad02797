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
M = TypeVar("M", bound=Model)


def sql_table(model: type[Model]) -> str:
    """A model's table, quoted for this connection's SQL."""
    return connection.ops.quote_name(model._meta.db_table)


def sql_now(model: type[Model], field: str) -> object:
    """Now, as `model.field` (a DateTimeField) is stored on this connection."""
    return model._meta.get_field(field).get_db_prep_save(timezone.now(), connection)


def sql_row(sql: str, params: Sequence[object]) -> tuple | None:
    """The first row of one raw statement: for the `UPDATE … RETURNING` that saves a
    message a round trip and that the ORM cannot write, and for the few reads every
    message makes whose build in the ORM costs more CPU than running them."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def sql_rows(sql: str, params: Sequence[object]) -> list[tuple]:
    """Every row of one raw statement (see sql_row)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]


def sql_value(model: type[Model], field: str, value: object) -> object:
    """A value of `model.field` as a raw statement read it, as the ORM would hand it
    over (SQLite returns a date and time as text, a UUID as hex)."""
    column = model._meta.get_field(field).get_col(model._meta.db_table)
    for convert in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
        value = convert(value, column, connection)
    return value


def sql_row_locked(model: type[M], pk: object) -> M | None:
    """Row `pk` of `model` locked FOR UPDATE until the transaction ends (None when it
    is gone): `select_for_update().filter(pk=pk).first()` without the ORM's build of the
    query, which cost twice the statement's own run, twice a message."""
    key = model._meta.pk.get_db_prep_value(pk, connection)
    return sql_model_row(model, f"t.{connection.ops.quote_name(model._meta.pk.column)} = %s", [key],
                         lock=True)


def sql_model_row(model: type[M], where: str, params: Sequence[object], *, related: str = "",
                  lock: bool = False) -> M | None:
    """The first row of `model` (as `t`) that `where` finds, as the ORM hands one over;
    with `related` (a foreign key's name, its table as `r`) read in the same statement, as
    select_related does; locked FOR UPDATE with `lock`. For the reads every message makes,
    whose build in the ORM costs more CPU than running them."""
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    columns = [f"t.{quote(each.column)}" for each in fields]
    tables = f"{sql_table(model)} t"
    if related:
        link = model._meta.get_field(related)
        columns += [f"r.{quote(each.column)}" for each in link.related_model._meta.concrete_fields]
        tables += (f" LEFT JOIN {sql_table(link.related_model)} r"
                   f" ON r.{quote(link.target_field.column)} = t.{quote(link.column)}")
    locked = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    row = sql_row(f"SELECT {', '.join(columns)} FROM {tables} WHERE {where}{locked}", params)
    if row is None:
        return None
    found = _model_from_row(model, row[: len(fields)])
    if related:
        values = row[len(fields):]
        link.set_cached_value(found, None if getattr(found, link.attname) is None
                              else _model_from_row(link.related_model, values))
    return found


def _model_from_row(model: type[M], row: Sequence[object]) -> M:
    fields = model._meta.concrete_fields
    values = [sql_value(model, each.name, value) for each, value in zip(fields, row, strict=True)]
    return model.from_db(connection.alias, [each.attname for each in fields], values)


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
