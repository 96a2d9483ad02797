"""The turns a memory pass reads, read from chat's tables for memory (memory.sources)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import Subquery

from chat.models import Message, VoiceTurn
from memory.prompts import Turn


def turns_through_reply(reply_id: int, cleared_at: datetime | None,
                        first_reply_id: int | None = None) -> list[Turn]:
    """The last WHIZI_MEMORY_PASS_TURNS messages of the reply's conversation up to
    `first_reply_id` (default: the reply), and every message after it up to the reply:
    the turns that joined a waiting pass are read as well."""
    conversation = Message.objects.filter(pk=reply_id).values("conversation_id")
    rows = Message.objects.filter(conversation_id=Subquery(conversation), id__lte=reply_id)
    if cleared_at is not None:
        rows = rows.filter(created_at__gt=cleared_at)
    joined = rows.filter(id__gt=first_reply_id).count() if first_reply_id else 0
    latest = rows.order_by("-id").values_list("role", "content")[: settings.WHIZI_MEMORY_PASS_TURNS + joined]
    return [Turn(role=role, content=content) for role, content in reversed(latest)]


def turns_of_voice_session(session_id: int, cleared_at: datetime | None) -> list[Turn]:
    """A voice session's whole transcript."""
    rows = VoiceTurn.objects.filter(session_id=session_id)
    if cleared_at is not None:
        rows = rows.filter(created_at__gt=cleared_at)
    return [Turn(role=role, content=text) for role, text in rows.order_by("id").values_list("role", "text")]
