"""Conversations, messages and voice sessions in the JSON API (docs/DESIGN.md §4): a
django-ninja Router the project's urls mount (whizi.api), with typed bodies and answers.

Session cookie and CSRF token (`X-CSRFToken`) as for the pages; guests are allowed
everywhere. Every refusal is JSON, `{"error": {"title", "message"}}` (whizi.http), and
changes nothing; a chat-model failure adds `"retryable"` and keeps the user's message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Literal

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema, Status
from ninja.decorators import decorate_view

from accounts.owner import Owner, owner_for_lookup, owner_for_write, owner_seen
from accounts.ratelimit import rate_limited
from chat.admission import chat_start_admission
from chat.conversations import (
    conversation_delete,
    conversation_for_owner,
    conversation_messages_page,
    conversation_rename,
    conversation_search,
    conversation_start,
)
from chat.errors import ChatInputError, ChatModelFailed, ChatNotAllowed, model_failure_text
from chat.exchange import Exchange, chat_exchange_open, chat_reply_async
from chat.limits import MAX_MESSAGE_CHARS, MAX_RENAMED_TITLE_CHARS, MAX_SEARCH_CHARS, VOICE_MAX_TURN_CHARS
from chat.model_choice import chat_model_choose
from chat.models import Conversation, Message, VoiceSession
from chat.voice import voice_instructions, voice_session_end, voice_session_open, voice_turn_add
from memory.selectors import MemoryMarkOut, pass_marks_json
from whizi.api import Timestamp, api_body, refusals
from whizi.db import db_step
from whizi.http import ApiError

router = Router()

# Conversations a page of the list holds (`?page=2` for the next).
API_PAGE_SIZE = 20
# Messages a page of a conversation holds (`?before=<cursor>` for the ones before).
API_MESSAGES_PAGE_SIZE = 50


def _refusal(exc: Exception) -> ApiError:
    """Chat's own refusals, told as JSON."""
    if isinstance(exc, ChatInputError):
        return ApiError(400, _("Invalid request"), exc.message, field=exc.field)
    if isinstance(exc, ChatNotAllowed):
        return ApiError(409, _("Not allowed now"), exc.message)
    failure = model_failure_text(kind=exc.kind, retryable=exc.retryable, retry_after=exc.retry_after)
    headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else {}
    return ApiError(failure.status, failure.title, failure.message, headers=headers, logged=True,
                    retryable=failure.retryable)


CHAT_REFUSALS = (ChatInputError, ChatNotAllowed, ChatModelFailed)


def _told_as_json(view: Callable) -> Callable:
    """Chat's refusals raised by an operation (sync or async), as whizi.api answers them."""
    if iscoroutinefunction(view):

        @functools.wraps(view)
        async def async_wrapper(request: HttpRequest, **kwargs: object) -> object:
            try:
                return await view(request, **kwargs)
            except CHAT_REFUSALS as exc:
                raise _refusal(exc) from exc

        return async_wrapper

    @functools.wraps(view)
    def wrapper(request: HttpRequest, **kwargs: object) -> object:
        try:
            return view(request, **kwargs)
        except CHAT_REFUSALS as exc:
            raise _refusal(exc) from exc

    return wrapper


router.add_decorator(_told_as_json, mode="operation")
# The largest text any chat body carries is a message at its cap.
router.add_decorator(api_body(max_chars=MAX_MESSAGE_CHARS), mode="view")


# ----------------------------------------------------------------------------- schemas


class ConversationOut(Schema):
    id: int
    title: str
    model: str
    project: int | None = Field(description="The project the chat belongs to, if any.")
    updated_at: Timestamp = Field(description="When the chat was last used (renaming is not using it).")


class ConversationPageOut(Schema):
    conversations: list[ConversationOut]
    next_page: int | None = Field(description="The `page` to ask for next; null on the last page.")


class ConversationStartIn(Schema):
    model: str | None = Field(None, description="A configured chat model; the owner's default when "
                                                "absent, null or empty.")


class ConversationStartedOut(Schema):
    id: int
    model: str


class ConversationRenameIn(Schema):
    title: str = Field(description=f"One line, at most {MAX_RENAMED_TITLE_CHARS} characters once "
                                   "its spaces are collapsed.",
                       json_schema_extra={"maxLength": MAX_RENAMED_TITLE_CHARS})


class MessageOut(Schema):
    id: int
    role: Literal["user", "assistant"]
    content: str
    model: str | None = Field(description="The chat model that wrote a reply; null for the user's messages.")
    created_at: Timestamp
    memory_mark: MemoryMarkOut | None = Field(
        description="What the memory pass after this reply did, as the chat page's mark shows it; "
                    "null for the user's messages. A pending mark changes: ask again for the newest page.")


class MessagePageOut(Schema):
    messages: list[MessageOut] = Field(description="Oldest first.")
    before: int | None = Field(description="The cursor for the messages before these (send it as "
                                           "`before`); null at the start of the conversation.")


class MessageSendIn(Schema):
    content: str = Field(description=f"At most {MAX_MESSAGE_CHARS:,} characters.",
                         json_schema_extra={"maxLength": MAX_MESSAGE_CHARS})
    model: str | None = Field(None, description="Switch the conversation to this configured chat model "
                                                "from this message on.")


class ReplyOut(Schema):
    reply: str
    message_id: int = Field(description="The reply's id: ask /messages/<message_id>/memory/ for what the "
                                        "memory pass after it did.")
    model: str
    turns: int = Field(description="Messages in the conversation, this reply included.")


class VoiceSessionOut(Schema):
    id: int
    instructions: str = Field(description="The voice model's prompt; it carries the saved list when it "
                                          "could be read in time.")


class VoiceTurnIn(Schema):
    role: Literal["user", "assistant"]
    text: str = Field(description=f"One utterance, at most {VOICE_MAX_TURN_CHARS:,} characters.",
                      json_schema_extra={"maxLength": VOICE_MAX_TURN_CHARS})


# ----------------------------------------------------------------------------- conversations


def _conversation_json(chat: Conversation) -> dict[str, object]:
    return {"id": chat.pk, "title": chat.title, "model": chat.model, "project": chat.project_id,
            "updated_at": chat.updated_at}


@router.get("/conversations/", response={200: ConversationPageOut, **refusals(400)},
            url_name="conversations", summary="List conversations", tags=["conversations"])
def conversation_list(request: HttpRequest,
                      q: str = Query("", description=f"Words a title or a message holds (the first "
                                                     f"{MAX_SEARCH_CHARS}); all chats when empty."),
                      page: int = Query(1, ge=1, le=10_000)) -> dict[str, object]:
    """The owner's conversations with at least one message, newest first, 20 a page."""
    found, more = conversation_search(owner=owner_seen(request), query=q,
                                      offset=(page - 1) * API_PAGE_SIZE, limit=API_PAGE_SIZE)
    return {"conversations": [_conversation_json(chat) for chat in found],
            "next_page": page + 1 if more else None}


@router.post("/conversations/", response={201: ConversationStartedOut, **refusals(400, 403, 413, 415, 429)},
             url_name="conversations", summary="Start a conversation", tags=["conversations"])
@decorate_view(rate_limited("conversation_create", fail_open=True))
def conversation_create(request: HttpRequest, payload: ConversationStartIn | None = None) -> Status:
    """Start an empty conversation (it is listed once it has a message)."""
    model = payload.model if payload is not None and payload.model else None
    chat_model_choose(requested=model)  # an unknown model is refused before a guest is made
    chat = conversation_start(owner=owner_for_write(request), model=model)
    return Status(201, {"id": chat.pk, "model": chat.model})


@router.get("/conversations/{int:conversation_id}/", response={200: ConversationOut, **refusals(404)},
            url_name="conversation", summary="Read a conversation", tags=["conversations"])
def conversation_read(request: HttpRequest, conversation_id: int) -> dict[str, object]:
    """One conversation. Another owner's id is a 404, as an unknown one."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    return _conversation_json(chat)


@router.patch("/conversations/{int:conversation_id}/",
              response={200: ConversationOut, **refusals(400, 403, 404, 413, 415)},
              url_name="conversation", summary="Rename a conversation", tags=["conversations"])
def conversation_update(request: HttpRequest, conversation_id: int,
                        payload: ConversationRenameIn) -> dict[str, object]:
    """Rename the conversation (its place in the list stays)."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    conversation_rename(conversation=chat, title=payload.title)
    return _conversation_json(chat)


@router.delete("/conversations/{int:conversation_id}/", response={204: None, **refusals(403, 404)},
               url_name="conversation", summary="Delete a conversation", tags=["conversations"])
def conversation_remove(request: HttpRequest, conversation_id: int) -> Status:
    """Delete the conversation and its messages. What Whizi remembers is untouched."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    conversation_delete(conversation=chat)
    return Status(204, None)


# ----------------------------------------------------------------------------- messages


@router.get("/conversations/{int:conversation_id}/messages/",
            response={200: MessagePageOut, **refusals(400, 404)},
            url_name="messages", summary="Read a conversation's messages", tags=["messages"])
def message_list(request: HttpRequest, conversation_id: int,
                 before: int | None = Query(None, ge=1, description="The `before` cursor of a page "
                                                                    "already shown.")) -> dict[str, object]:
    """The conversation's newest 50 messages, oldest first, each reply with its memory mark;
    scroll back with `before`."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    messages, older = conversation_messages_page(conversation=chat, before=before,
                                                 limit=API_MESSAGES_PAGE_SIZE)
    marks = pass_marks_json(reply_ids=[m.pk for m in messages if m.role == Message.Role.ASSISTANT])
    return {"messages": [{"id": m.pk, "role": m.role, "content": m.content, "model": m.model or None,
                          "created_at": m.created_at, "memory_mark": marks.get(m.pk)} for m in messages],
            "before": older}


@router.get("/conversations/{int:conversation_id}/messages/{int:message_id}/memory/",
            response={200: MemoryMarkOut, **refusals(404)},
            url_name="message_memory", summary="Read what memory did after a reply", tags=["messages"])
def message_memory(request: HttpRequest, conversation_id: int, message_id: int) -> dict[str, object]:
    """One reply's memory mark with the changes of its pass, as the chat page's mark opens to
    them; ask again while it is pending or retrying. 404 for a message that is not the
    owner's reply."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    message = get_object_or_404(chat.messages, pk=message_id, role=Message.Role.ASSISTANT)
    return pass_marks_json(reply_ids=[message.pk])[message.pk]


# Chat fails open: Redis being down must not take chat down with it.
@router.post("/conversations/{int:conversation_id}/messages/",
             response={200: ReplyOut, **refusals(400, 403, 404, 413, 415, 429, 502, 503, 504)},
             url_name="messages", summary="Send a message and get the reply", tags=["messages"])
@decorate_view(rate_limited("chat_message", fail_open=True))
async def message_send(request: HttpRequest, conversation_id: int,
                       payload: MessageSendIn) -> dict[str, object]:
    """Send a message and wait for the whole reply; a memory pass is queued after it. A reply
    that does not come is a 502, 503 or 504 with `retryable` (and `Retry-After`): the message
    is saved, and sending it again answers it once.

    Holds no database connection or thread while the model answers (chat_reply_async)."""

    def begin() -> Exchange:
        chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
        return chat_exchange_open(conversation=chat, content=payload.content, model=payload.model or None)

    reply = await chat_reply_async(begin=begin, admission=await chat_start_admission(request))
    return {"reply": reply.assistant_message.content, "message_id": reply.assistant_message.pk,
            "model": reply.assistant_message.model, "turns": reply.turns}


# ----------------------------------------------------------------------------- voice


def _voice_session_for_owner(owner: Owner, session_id: int) -> VoiceSession:
    return get_object_or_404(VoiceSession.objects.for_owner(owner), pk=session_id)


@router.post("/voice/sessions/", response={201: VoiceSessionOut, **refusals(400, 403, 413, 415, 429)},
             url_name="voice_sessions", summary="Start a voice session", tags=["voice"])
@decorate_view(rate_limited("voice", fail_open=True))
async def voice_session_start(request: HttpRequest) -> Status:
    """Start a voice session. The saved list is read while the session is written (awaited,
    so no thread waits on it)."""
    session, memory = await db_step(lambda: voice_session_open(owner=owner_for_write(request)))
    instructions = voice_instructions(snapshot=await memory.asnapshot())
    return Status(201, {"id": session.pk, "instructions": instructions})


@router.post("/voice/sessions/{int:session_id}/transcript/",
             response={204: None, **refusals(400, 403, 404, 409, 413, 415, 429)},
             url_name="voice_transcript", summary="Add a transcript turn", tags=["voice"])
@decorate_view(rate_limited("voice", fail_open=True))
def voice_turn_append(request: HttpRequest, session_id: int, payload: VoiceTurnIn) -> Status:
    """Add one turn to the transcript; 409 once the session has ended or is full."""
    session = _voice_session_for_owner(owner_for_lookup(request), session_id)
    voice_turn_add(session=session, role=payload.role, text=payload.text)
    return Status(204, None)


@router.post("/voice/sessions/{int:session_id}/end/",
             response={202: None, **refusals(400, 403, 404, 413, 415, 429)},
             url_name="voice_end", summary="End a voice session", tags=["voice"])
@decorate_view(rate_limited("voice", fail_open=True))
def voice_session_finish(request: HttpRequest, session_id: int) -> Status:
    """End the session: its one memory pass is queued (ending again queues nothing)."""
    session = _voice_session_for_owner(owner_for_lookup(request), session_id)
    voice_session_end(session=session)
    return Status(202, None)
