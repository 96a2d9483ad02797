"""Chats admitted into their CPU-heavy start a few at a time, and other pages first.

A chat's start (the session, the user, the first database step, the memory read, the
model call's set-up) is most of its CPU. When hundreds start at once on one process,
every other page waits behind all of them for the interpreter and the event loop.
So a request that starts a chat first waits for its place in a line, before any of its
middleware runs (ChatAdmissionMiddleware), holding nothing (no thread, no connection):
- at most WHIZI_CHAT_STARTS_AT_ONCE chats are in their start at once;
- while another page is being served, only WHIZI_CHAT_STARTS_BESIDE_PAGES (at least
  one, so chats never stall under steady page traffic): the page gets the interpreter
  before the next chat does.
An admission ends once the model call is on its way (it first waits on the network), or
after WHIZI_CHAT_START_HOLD_MS whatever happens, so neither a slow first token nor a
provider that hangs holds a place. Chats start in the order they came; what the line
costs is first-token latency under a burst (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio
import collections
import weakref

from django.conf import settings
from django.http import HttpRequest


class ChatStartLine:
    """The line of one event loop: chats in their start, chats waiting, pages in flight."""

    def __init__(self) -> None:
        self.starting = 0
        self.pages = 0
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def _room(self) -> bool:
        size = settings.WHIZI_CHAT_STARTS_AT_ONCE
        if self.pages:
            size = min(size, max(1, settings.WHIZI_CHAT_STARTS_BESIDE_PAGES))
        return self.starting < size

    async def admit(self) -> None:
        if not self.waiting and self._room():
            self.starting += 1
            return
        place = asyncio.get_running_loop().create_future()
        self.waiting.append(place)
        try:
            await place
        except asyncio.CancelledError:
            if place.done() and not place.cancelled():
                self.release()  # admitted just as the request went away
            else:
                self.waiting.remove(place)
            raise

    def release(self) -> None:
        self.starting -= 1
        self._wake()

    def page_begin(self) -> None:
        self.pages += 1

    def page_end(self) -> None:
        self.pages -= 1
        self._wake()

    def _wake(self) -> None:
        while self.waiting and self._room():
            place = self.waiting.popleft()
            if not place.done():
                self.starting += 1
                place.set_result(None)


_lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ChatStartLine] = weakref.WeakKeyDictionary()


def chat_start_line() -> ChatStartLine:
    """This event loop's line (a test's loop has its own)."""
    loop = asyncio.get_running_loop()
    line = _lines.get(loop)
    if line is None:
        line = _lines[loop] = ChatStartLine()
    return line


class ChatAdmission:
    """A place in the line of chat starts; release() gives it back (once, however often
    it is called)."""

    def __init__(self, line: ChatStartLine | None, hold: float) -> None:
        self._line = line
        self._timer = None if line is None else asyncio.get_running_loop().call_later(hold, self.release)

    def release(self) -> None:
        if self._line is not None:
            self._line.release()
            self._line = None
            self._timer.cancel()


async def chat_start_admit() -> ChatAdmission:
    """Wait for a place among the chats starting on this process (none with the setting 0)."""
    if settings.WHIZI_CHAT_STARTS_AT_ONCE <= 0:
        return ChatAdmission(None, 0)
    line = chat_start_line()
    await line.admit()
    return ChatAdmission(line, settings.WHIZI_CHAT_START_HOLD_MS / 1000)


async def chat_start_admission(request: HttpRequest) -> ChatAdmission:
    """The place ChatAdmissionMiddleware took for this request, or one waited for now (a
    request that did not come through it: a test's direct call)."""
    admission = getattr(request, "chat_admission", None)
    return admission if admission is not None else await chat_start_admit()
