"""The turns a memory pass reads, read from chat's tables for memory (memory.sources)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from chat.models import Conversation, Message, VoiceSession, VoiceTurn
from memory.services import Turn


def _after(*moments: datetime | None) -> datetime | None:
    return max((moment for moment in moments if moment is not None), default=None)


def turns_through_reply(reply_id: int, cleared_at: datetime | None,
                        first_reply_id: int | None = None) -> list[Turn]:
    """The last WHIZI_MEMORY_PASS_TURNS messages of the reply's conversation up to
    `first_reply_id` (default: the reply), and every message after it up to the reply
    (the turns that joined a waiting pass), never older than the owner's last clear or
    the conversation's own."""
    conversation = (Conversation.objects.filter(messages__id=reply_id)
                    .values("pk", "memory_read_after").first())
    if conversation is None:
        return []
    rows = Message.objects.filter(conversation_id=conversation["pk"], id__lte=reply_id)
    floor = _after(cleared_at, conversation["memory_read_after"])
    if floor is not None:
        rows = rows.filter(created_at__gt=floor)
    joined = rows.filter(id__gt=first_reply_id).count() if first_reply_id else 0
    latest = rows.order_by("-id").values_list("role", "content")[: settings.WHIZI_MEMORY_PASS_TURNS + joined]
    return [Turn(role=role, content=content) for role, content in reversed(latest)]


def turns_of_voice_session(session_id: int, cleared_at: datetime | None) -> list[Turn]:
    """A voice session's whole transcript, never older than the last clear that covers it."""
    rows = VoiceTurn.objects.filter(session_id=session_id)
    session = VoiceSession.objects.filter(pk=session_id).values_list("memory_read_after", flat=True)
    floor = _after(cleared_at, session.first())
    if floor is not None:
        rows = rows.filter(created_at__gt=floor)
    return [Turn(role=role, content=text) for role, text in rows.order_by("id").values_list("role", "text")]
