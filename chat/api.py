"""The JSON API for conversations, messages and voice sessions (docs/DESIGN.md §4).

Session cookie and CSRF token (`X-CSRFToken`) as for the pages; guests are allowed
everywhere. Every refusal is JSON, `{"error": {"title", "message"}}` (whizi.http), and
changes nothing; a chat-model failure adds `"retryable"` and keeps the user's message.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.owner import Owner, owner_for_lookup, owner_for_read, owner_for_write
from accounts.ratelimit import rate_limited
from chat.conversations import (
    conversation_delete,
    conversation_for_owner,
    conversation_rename,
    conversation_search,
    conversation_start,
)
from chat.errors import ChatInputError, ChatModelFailed, ChatNotAllowed, model_failure_text
from chat.exchange import Exchange, chat_exchange_open, chat_reply_async
from chat.limits import MAX_MESSAGE_CHARS
from chat.model_choice import chat_model_choose
from chat.models import Conversation, VoiceSession
from chat.voice import voice_instructions, voice_session_end, voice_session_open, voice_turn_add
from whizi.db import db_step
from whizi.http import ApiError, api_view, json_body


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


def chat_api(*methods: str) -> Callable:
    """api_view (sync or async), with chat's own refusals told as JSON too."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        if asyncio.iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
                try:
                    return await view(request, *args, **kwargs)
                except CHAT_REFUSALS as exc:
                    raise _refusal(exc) from exc

            return api_view(*methods)(async_wrapper)

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except CHAT_REFUSALS as exc:
                raise _refusal(exc) from exc

        return api_view(*methods)(wrapper)

    return decorator


def _body(request: HttpRequest, *, required: bool) -> dict[str, object]:
    # The largest text any chat body carries is a message at its cap.
    return json_body(request, required=required, max_chars=MAX_MESSAGE_CHARS)


def _optional_str(data: dict[str, object], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ChatInputError(_("%(field)s must be a string.") % {"field": key}, field=key)
    return value


def _get_voice_session_for_owner(owner: Owner, session_id: int) -> VoiceSession:
    return get_object_or_404(VoiceSession.objects.for_owner(owner), pk=session_id)


# Conversations a page of the list holds (`?page=2` for the next).
API_PAGE_SIZE = 20


def _conversation_json(chat: Conversation) -> dict[str, object]:
    return {"id": chat.pk, "title": chat.title, "model": chat.model,
            "project": chat.project_id, "updated_at": chat.updated_at.isoformat()}


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise ChatInputError(_("page must be a whole number from 1."), field="page")
    return int(raw)


@rate_limited({"POST": "conversation_create"}, fail_open=True)
@chat_api("GET", "POST")
def conversations(request: HttpRequest) -> HttpResponse:
    """GET: the owner's conversations with at least one message, newest first, whose
    title or text holds `?q=` (all when empty), a page at a time; POST: start one."""
    if request.method == "GET":
        page = _page_number(request)
        query = request.GET.get("q", "")
        found, more = conversation_search(owner=owner_for_read(request), query=query,
                                          offset=(page - 1) * API_PAGE_SIZE, limit=API_PAGE_SIZE)
        return JsonResponse({"conversations": [_conversation_json(chat) for chat in found],
                             "next_page": page + 1 if more else None})
    data = _body(request, required=False)
    model = _optional_str(data, "model")
    chat_model_choose(requested=model)  # an unknown model is refused before a guest is made
    chat = conversation_start(owner=owner_for_write(request), model=model)
    return JsonResponse({"id": chat.pk, "model": chat.model}, status=201)


@chat_api("GET", "PATCH", "DELETE")
def conversation(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """GET one conversation; PATCH `{"title": "…"}` renames it; DELETE deletes it and its
    messages (memory is untouched). Another owner's id is a 404, as everywhere."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    if request.method == "DELETE":
        conversation_delete(conversation=chat)
        return HttpResponse(status=204)
    if request.method == "PATCH":
        data = _body(request, required=True)
        conversation_rename(conversation=chat, title=data.get("title"))
    return JsonResponse(_conversation_json(chat))


# Chat fails open: Redis being down must not take chat down with it.
@rate_limited("chat_message", fail_open=True)
@chat_api("POST")
async def messages(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Send a message and wait for the whole reply, holding no database connection or
    thread while the model answers (chat.exchange.chat_reply_async)."""
    data = _body(request, required=True)

    def begin() -> Exchange:
        chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
        return chat_exchange_open(conversation=chat, content=data.get("content"),
                                  model=_optional_str(data, "model"))

    reply = await chat_reply_async(begin=begin)
    return JsonResponse({"reply": reply.assistant_message.content,
                         "model": reply.assistant_message.model, "turns": reply.turns})


@rate_limited("voice", fail_open=True)
@chat_api("POST")
async def voice_sessions(request: HttpRequest) -> HttpResponse:
    """Start a voice session; its instructions carry the saved list when the read is in time
    (awaited, so no thread waits on it)."""
    _body(request, required=False)
    session, memory = await db_step(lambda: voice_session_open(owner=owner_for_write(request)))
    instructions = voice_instructions(snapshot=await memory.asnapshot())
    return JsonResponse({"id": session.pk, "instructions": instructions}, status=201)


@rate_limited("voice", fail_open=True)
@chat_api("POST")
def voice_transcript(request: HttpRequest, session_id: int) -> HttpResponse:
    data = _body(request, required=True)
    session = _get_voice_session_for_owner(owner_for_lookup(request), session_id)
    voice_turn_add(session=session, role=data.get("role"), text=data.get("text"))
    return HttpResponse(status=204)


@rate_limited("voice", fail_open=True)
@chat_api("POST")
def voice_end(request: HttpRequest, session_id: int) -> HttpResponse:
    _body(request, required=False)
    session = _get_voice_session_for_owner(owner_for_lookup(request), session_id)
    voice_session_end(session=session)
    return HttpResponse(status=202)
