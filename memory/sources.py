"""Where a pass's turns come from. Memory owns the pass; the conversations are chat's, so
chat registers how to read them (chat.apps) and memory never imports chat.

A reader returns the turns a pass may read, oldest first, never older than the owner's
last clear (so cleared facts are not read back out of old messages).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the readers' plumbing needs no model loaded (memory.prompts uses Turn)
    from memory.models import MemoryPass


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation or voice session, as a pass reads it."""

    role: str  # "user" or "assistant"
    content: str


# "chat": reader(through, cleared_at, first) -> the last WHIZI_MEMORY_PASS_TURNS turns up
# to reply `first` and every turn after it up to reply `through` (the turns that joined
# the pass while it waited, memory.passes). "voice": reader(session, cleared_at).
ChatTurnReader = Callable[[int, datetime | None, int], list[Turn]]
VoiceTurnReader = Callable[[int, datetime | None], list[Turn]]
_readers: dict[str, ChatTurnReader | VoiceTurnReader] = {}


def turn_reader_register(source: str, reader: ChatTurnReader | VoiceTurnReader) -> None:
    _readers[source] = reader


def pass_source(memory_pass: MemoryPass) -> str:
    return "voice" if memory_pass.voice_session_id is not None else "chat"


def pass_turns(memory_pass: MemoryPass, *, cleared_at: datetime | None) -> list[Turn]:
    """The pass's input; none for a pass with nothing to read (a merge's compaction)."""
    if memory_pass.voice_session_id is not None:
        return _readers["voice"](memory_pass.voice_session_id, cleared_at)
    if memory_pass.through_message_id is not None:
        first = memory_pass.first_through_message_id or memory_pass.through_message_id
        return _readers["chat"](memory_pass.through_message_id, cleared_at, first)
    return []
