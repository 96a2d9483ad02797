"""Reading memory for a chat request without ever blocking it (docs/DESIGN.md §2.4).

The read starts in a thread of its own as soon as the request knows its owner and runs
alongside the rest of the request's work. It gets WHIZI_MEMORY_READ_TIMEOUT from the
moment it starts; if it fails or is late, the request goes on without the block, and
the skip is logged and counted. With the operator switch off nothing is read at all.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections

from accounts.owner import Owner
from memory.store import MemorySnapshot, memory_read
from whizi.metrics import metric_memory_read, metric_total

log = logging.getLogger(__name__)

# How long the memory read may keep a database connection busy after the request has
# stopped waiting for it: long enough never to cut a read the request still wants,
# short enough that reads stuck on a locked table free their threads.
READ_STATEMENT_TIMEOUT_FACTOR = 10
# Memory reads in flight at once per process. When the database is stuck every slot can
# be busy; later reads then queue, time out and are skipped like any other late read.
READERS = 8
_memory_readers = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="whizi-memory-read")
# A reader keeps its connection between reads (opening one costs more than the read:
# bench/providers.py, 100 chats at once, all reads late with a connection per read) and
# opens a new one after this long.
READER_CONNECTION_AGE = 60

SKIP_REASONS = ("timeout", "error")


def _read_memory_in_thread(owner: Owner, statement_timeout_ms: int) -> MemorySnapshot:
    # This thread has a database connection of its own: bound how long it may wait on
    # the database, and drop it if it broke or is old.
    _connect_outside_the_pool()
    connection.close_if_unusable_or_obsolete()
    try:
        if connection.vendor == "postgresql":
            _statement_timeout_keep(statement_timeout_ms)
        return memory_read(owner=owner)
    except Exception:
        connections.close_all()  # whatever went wrong, the next read starts afresh
        raise


# The statement timeout each reader connection was given: set once per connection (it
# lasts as long as the connection), not a statement more per read.
_timeout_of: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()


def _statement_timeout_keep(statement_timeout_ms: int) -> None:
    connection.ensure_connection()
    if _timeout_of.get(connection.connection) != statement_timeout_ms:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [str(statement_timeout_ms)])
        _timeout_of[connection.connection] = statement_timeout_ms


def _connect_outside_the_pool() -> None:
    """Reader threads connect directly, never through the request pool
    (WHIZI_DB_POOL_MAX_SIZE): a read must not queue behind requests for a pooled
    connection exactly when the server is busiest. These connections stay bounded: one
    per reader thread, renewed every READER_CONNECTION_AGE seconds."""
    db = connections[DEFAULT_DB_ALIAS]
    options = db.settings_dict.get("OPTIONS", {})
    if "pool" in options and db.connection is None:
        # A copy: the dict is shared with settings.DATABASES and every other thread.
        db.settings_dict = {**db.settings_dict, "CONN_MAX_AGE": READER_CONNECTION_AGE,
                            "OPTIONS": {k: v for k, v in options.items() if k != "pool"}}


def memory_readers_close() -> None:
    """Close every reader thread's connection (before its database is dropped, in tests)."""
    meeting = threading.Barrier(READERS, timeout=10)

    def close() -> None:
        connections.close_all()
        meeting.wait()  # each close holds its thread until all have run: one per thread

    for future in [_memory_readers.submit(close) for _ in range(READERS)]:
        future.result()


@dataclass
class MemoryRead:
    """A memory read started in the background; `.snapshot()` waits at most until its
    deadline and returns None when the read failed or is late (or memory is switched
    off by the operator, WHIZI_MEMORY_ENABLED: then nothing is read at all)."""

    owner: Owner
    future: Future | None
    deadline: float

    @classmethod
    def start(cls, *, owner: Owner) -> MemoryRead:
        if not settings.WHIZI_MEMORY_ENABLED:  # operator switch: no read, no block
            return cls(owner=owner, future=None, deadline=0.0)
        timeout = settings.WHIZI_MEMORY_READ_TIMEOUT
        statement_timeout_ms = max(1000, int(timeout * 1000 * READ_STATEMENT_TIMEOUT_FACTOR))
        # In the request's context, so the reader's log lines carry the request's id.
        future = _memory_readers.submit(contextvars.copy_context().run, _read_memory_in_thread, owner,
                                        statement_timeout_ms)
        return cls(owner=owner, future=future, deadline=time.monotonic() + timeout)

    def snapshot(self) -> MemorySnapshot | None:
        """Wait in this thread (for callers that have one to spare)."""
        if self.future is None:  # memory switched off: not a skip, nothing to count
            return None
        try:
            return self._used(self.future.result(timeout=self._remaining()))
        except FutureTimeout:
            return self._skipped("timeout")
        except Exception as exc:  # MemoryUnavailable, or the connection itself failed
            return self._skipped("error", exc)

    async def asnapshot(self) -> MemorySnapshot | None:
        """Await the read: no thread waits on it (the reader thread does the read)."""
        if self.future is None:
            return None
        try:
            # Shielded: a late read is left to finish in its reader thread, not cancelled.
            return self._used(await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self.future)),
                                                     self._remaining()))
        except TimeoutError:
            return self._skipped("timeout")
        except Exception as exc:
            return self._skipped("error", exc)

    def _remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    @staticmethod
    def _used(snapshot: MemorySnapshot) -> MemorySnapshot:
        metric_memory_read(result="used")
        return snapshot

    def _skipped(self, reason: str, exc: BaseException | None = None) -> None:
        if exc is not None:
            log.debug("memory read error: %s", type(exc).__name__)
        memory_read_skip_count(reason=reason, owner=self.owner)
        return None


def memory_read_skip_count(*, reason: str, owner: Owner) -> None:
    """Log and count (whizi_memory_reads_total) a request that went on without memory."""
    log.warning("memory read %s for %s: replying without memory",
                "timed out" if reason == "timeout" else "failed", owner.key)
    metric_memory_read(result="skipped", reason=reason)


def memory_read_skips() -> dict[str, int]:
    """How many requests went on without memory, by reason, since the counts started (in
    every process counting with this one: whizi.metrics)."""
    return {reason: int(metric_total("whizi_memory_reads_total", result="skipped", reason=reason))
            for reason in SKIP_REASONS}
