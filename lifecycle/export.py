"""python manage.py export_account: one JSON document with everything an account owns."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from accounts.models import Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.selectors import memory_changes_export, memory_export, pass_log_export

EXPORT_FORMAT = "whizi-account-export/1"
# Rows fetched per round trip from the server-side cursor: large enough that a
# 10,000-message account takes a handful of fetches, small enough to stay a few MB.
_EXPORT_CHUNK = 500


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


def _json(value: object) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def _write_array(write: Callable[[str], object], items: Iterable[object]) -> int:
    write("[")
    count = 0
    for item in items:
        if count:
            write(",")
        write("\n" + _json(item))
        count += 1
    write("]")
    return count


def _write_object_with_array(
    write: Callable[[str], object], head: dict[str, object], key: str, items: Iterable[object]
) -> int:
    """`head` as a JSON object with one more member, `key`, streamed from `items`."""
    opening = _json(head)[:-1]
    write(opening + ("," if head else "") + _json(key) + ":")
    count = _write_array(write, items)
    write("}")
    return count


def _rows(queryset: Any) -> Iterator[Any]:
    """Rows in id order from a server-side cursor, a chunk at a time."""
    return queryset.order_by("id").iterator(_EXPORT_CHUNK)


def _write_nested(write: Callable[[str], object], name: str, rows: Iterable[Any],
                  head: Callable[[Any], dict[str, object]], children_name: str,
                  children: Callable[[Any], Iterable[object]]) -> int:
    """`,"name":[…]`: one object per row, each with its children streamed under `children_name`."""
    write("," + _json(name) + ":[")
    count = 0
    for row in rows:
        write(("," if count else "") + "\n")
        _write_object_with_array(write, head(row), children_name, children(row))
        count += 1
    write("]")
    return count


@dataclass(frozen=True)
class AccountExport:
    conversations: int
    messages: int
    projects: int
    voice_sessions: int
    facts: int


def account_export(*, user: Any, out: Writable) -> AccountExport:
    """Write one JSON document with everything the account owns to `out`, as it reads it.

    Conversations, messages, voice sessions and turns come from server-side cursors
    (`.iterator()`) and are written one row at a time, so a large account is never
    held in memory whole. One transaction gives the cursors a stable view.
    """
    owner = Owner(user_id=user.pk)
    write = out.write
    with transaction.atomic():
        write("{" + _json("format") + ":" + _json(EXPORT_FORMAT))
        write(_member("exported_at", timezone.now()))
        write(_member("account", {"id": user.pk, "email": user.email, "date_joined": user.date_joined,
                                  "last_login": user.last_login, "is_active": user.is_active}))
        write(_member("preferences", _preferences(user.pk)))
        facts = _write_memory(write, user.pk)
        write("," + _json("projects") + ":")
        projects = _write_array(write, (
            {"id": p.id, "name": p.name, "instructions": p.instructions, "created_at": p.created_at}
            for p in _rows(Project.objects.for_owner(owner))
        ))
        conversations, messages = _write_conversations(write, owner)
        sessions = _write_nested(
            write, "voice_sessions", _rows(VoiceSession.objects.for_owner(owner)),
            lambda s: {"id": s.id, "started_at": s.started_at, "ended_at": s.ended_at},
            "turns", lambda s: ({"id": t.id, "role": t.role, "text": t.text, "created_at": t.created_at}
                                for t in _rows(VoiceTurn.objects.filter(session_id=s.id))),
        )
        # The pass log holds metrics only (never fact text), and it is the account's.
        write("," + _json("memory_passes") + ":")
        _write_array(write, pass_log_export(owner=owner, chunk=_EXPORT_CHUNK))
        # What each pass changed, with the words: the owner's memory, like the list itself.
        write("," + _json("memory_changes") + ":")
        _write_array(write, memory_changes_export(owner=owner, chunk=_EXPORT_CHUNK))
        write("}\n")
    return AccountExport(conversations=conversations, messages=messages, projects=projects,
                        voice_sessions=sessions, facts=facts)


def _member(key: str, value: object) -> str:
    return "," + _json(key) + ":" + _json(value)


def _preferences(user_id: int) -> dict[str, object] | None:
    preference = Preference.objects.filter(user_id=user_id).first()
    if preference is None:
        return None
    return {"language": preference.language, "chat_model": preference.chat_model,
            "updated_at": preference.updated_at}


def _write_memory(write: Callable[[str], object], user_id: int) -> int:
    """`memory` (the list) and `memory_meta`; returns how many facts."""
    lines, meta = memory_export(owner=Owner(user_id=user_id))
    write(_member("memory", lines))
    write(_member("memory_meta", meta))
    return len(lines)


def _write_conversations(write: Callable[[str], object], owner: Owner) -> tuple[int, int]:
    """`conversations`, each with its `messages`; returns how many of each."""
    messages = 0

    def messages_of(conversation_id: int) -> Iterator[dict[str, object]]:
        nonlocal messages
        for m in _rows(Message.objects.filter(conversation_id=conversation_id)):
            messages += 1
            yield {"id": m.id, "role": m.role, "content": m.content, "model": m.model,
                   "input_tokens": m.input_tokens, "output_tokens": m.output_tokens, "cost": m.cost,
                   "created_at": m.created_at}

    conversations = _write_nested(
        write, "conversations", _rows(Conversation.objects.for_owner(owner)),
        lambda c: {"id": c.id, "title": c.title, "model": c.model, "project_id": c.project_id,
                   "created_at": c.created_at, "updated_at": c.updated_at},
        "messages", lambda c: messages_of(c.id),
    )
    return conversations, messages
