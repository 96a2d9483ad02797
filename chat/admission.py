"""Chats admitted into their CPU-heavy start a few at a time (WHIZI_CHAT_STARTS_AT_ONCE).

A chat's start (the first database step, the memory read, the model call's set-up) is
most of its CPU. When hundreds start at once on one process, every other page waits
behind all of them for the interpreter; admitted a few at a time, the others wait in
line holding nothing (no thread, no connection) and a settings page gets its turn
between them. An admission ends once the model call is on its way (it first waits on
the network), or after WHIZI_CHAT_START_HOLD_MS whatever happens, so neither a slow
first token nor a provider that hangs holds a place.
Chats still start in the order they came; what the line costs is first-token latency
under a burst (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio
import weakref

from django.conf import settings

_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[int, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary())


class ChatAdmission:
    """A place in the line of chat starts; release() gives it back (once, however often
    it is called)."""

    def __init__(self, gate: asyncio.Semaphore | None, hold: float) -> None:
        self._gate = gate
        self._timer = None if gate is None else asyncio.get_running_loop().call_later(hold, self.release)

    def release(self) -> None:
        if self._gate is not None:
            self._gate.release()
            self._gate = None
            self._timer.cancel()


def _gate(size: int) -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    known = _gates.get(loop)
    if known is None or known[0] != size:
        known = _gates[loop] = (size, asyncio.Semaphore(size))
    return known[1]


async def chat_start_admit() -> ChatAdmission:
    """Wait for a place among the chats starting on this process (none with the setting 0)."""
    size = settings.WHIZI_CHAT_STARTS_AT_ONCE
    if size <= 0:
        return ChatAdmission(None, 0)
    gate = _gate(size)
    await gate.acquire()
    return ChatAdmission(gate, settings.WHIZI_CHAT_START_HOLD_MS / 1000)
