"""A streamed reply's text in batches by time, not by token (WHIZI_STREAM_FLUSH_MS).

A fast model sends tens of tokens a second, often one a chunk; an event each would cost
the web process and the browser per token. The first piece goes out at once (it is
what a person waits for); after each batch, what arrives in the next interval is
gathered and goes out together, and a piece that arrives after a quiet spell goes at
once again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable


async def reply_text_batched(pieces: AsyncIterator[str], *, interval: float,
                             started: Callable[[], None] | None = None) -> AsyncIterator[str]:
    """The text of `pieces`, joined per `interval`. A failure of `pieces` is raised after
    the text that came before it has been handed on. `started` is called once reading
    has begun and first waits (on the network, for a model's reply)."""
    arrived: list[str] = []
    waiting = asyncio.Event()

    async def read() -> None:
        try:
            async for piece in pieces:
                arrived.append(piece)
                waiting.set()
        finally:
            waiting.set()

    reader = asyncio.create_task(read())
    try:
        if started is not None:
            await asyncio.sleep(0)  # the reader runs until it first waits
            started()
        while True:
            await waiting.wait()
            waiting.clear()
            if arrived:
                text = "".join(arrived)
                arrived.clear()
                yield text
            if reader.done():
                if not arrived:
                    reader.result()  # the reader's failure, if any
                    return
                continue
            # Let the next pieces gather, unless the reply ends first.
            await asyncio.wait([reader], timeout=interval)
    finally:
        if not reader.done():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        elif not reader.cancelled():
            reader.exception()  # read: the caller stopped before it reached the failure
