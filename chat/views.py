"""The chat page (`/`, `/c/<id>/`): HTMX, server-rendered, for guests and accounts; renaming
and deleting a chat (chat.conversations, the same services as the JSON API).

Sending a message has two doors onto the same services:
- `send` is a plain form POST that waits for the whole reply (works without JavaScript);
- `send_stream` streams the reply as server-sent events to static/js/chat.js.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import date

from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib import messages as flash
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from accounts.owner import Owner, owner_for_lookup, owner_for_write, owner_seen
from accounts.preferences import chat_models
from accounts.ratelimit import rate_limited
from chat.admission import chat_start_admission
from chat.conversations import (
    conversation_delete,
    conversation_for_owner,
    conversation_groups,
    conversation_list_head,
    conversation_rename,
    conversation_search,
    conversation_start,
    project_create,
    project_fields_check,
)
from chat.errors import ChatInputError, ChatModelFailed, model_failure_text
from chat.exchange import (
    Exchange,
    chat_exchange_finish,
    chat_exchange_open,
    chat_exchange_ready,
    chat_exchange_stream,
    chat_model_failed,
    chat_regenerate_open,
    chat_reply_async,
)
from chat.limits import MAX_MESSAGE_CHARS, message_content_check, message_too_long_text
from chat.model_choice import chat_model_choose
from chat.models import Conversation, Message, Project
from chat.streaming import reply_text_batched
from memory.selectors import pass_marks
from whizi.db import db_step_queued
from whizi.http import already_logged
from whizi.llm import Completion, ModelError, model_display_name
from whizi.metrics import metric_chat_first_token

log = logging.getLogger(__name__)

# Conversations listed beside the chat; older ones stay reachable by their address.
LIST_LIMIT = 50


def _get_project_for_owner(owner: Owner | None, project_id: object) -> Project | None:
    if project_id in (None, ""):
        return None
    if owner is None:
        raise Http404
    try:
        pk = int(str(project_id))
    except ValueError:
        raise Http404 from None
    return get_object_or_404(Project.objects.for_owner(owner), pk=pk)


def _list_context(owner: Owner | None, query: str = "") -> dict[str, object]:
    """The side column's list: the owner's chats by date, or those a search found."""
    found, _more = conversation_search(owner=owner, query=query, limit=LIST_LIMIT)
    return {"conversations": found, "conversation_groups": conversation_groups(found),
            "search": " ".join(query.split())}


def _mark_last(messages: list[Message]) -> None:
    """The actions only the end of a conversation has: edit its last user message,
    regenerate its last reply (when the reply is the last message)."""
    users = [message for message in messages if message.role == Message.Role.USER]
    if users:
        users[-1].can_edit = True
    roles = [message.role for message in messages[-2:]]
    if roles == [Message.Role.USER, Message.Role.ASSISTANT]:
        messages[-1].can_regenerate = True


def _messages_decorate(messages: list[Message], *, with_marks: bool = True) -> None:
    """What the page shows beside each message: its reply's memory mark (looked for
    `with_marks`), the model's name."""
    replies = [m.pk for m in messages if m.role == Message.Role.ASSISTANT] if with_marks else []
    marks = pass_marks(reply_ids=replies)
    for message in messages:
        message.memory_mark = marks.get(message.pk)
        message.model_label = model_display_name(message.model) if message.model else ""


def _page_context(request: HttpRequest, owner: Owner | None, *, conversation: Conversation | None = None,
                  project: Project | None = None, **extra: object) -> dict[str, object]:
    messages: list[Message] = []
    if conversation is not None:
        messages = list(conversation.messages.all())
        _messages_decorate(messages)
        _mark_last(messages)
        project = conversation.project
    current_model = conversation.model if conversation is not None else None
    # A conversation that ends on the user's message has a reply that never arrived (the
    # model failed, the stream was stopped or cut): the page offers "Try again" for it.
    failed_message = messages[-1] if messages and messages[-1].role == Message.Role.USER else None
    context: dict[str, object] = {
        "owner": owner,
        **_list_context(owner, request.GET.get("q", "")),
        "conversation": conversation,
        "chat_messages": messages,
        "failed_message": failed_message,
        "projects": Project.objects.for_owner(owner) if owner is not None else Project.objects.none(),
        "project": project,
        "models": [(name, model_display_name(name)) for name in chat_models()],
        "model": chat_model_choose(requested=None, current=current_model, owner=owner),
        "max_message_chars": MAX_MESSAGE_CHARS,
        "too_long_message": message_too_long_text(),
        "confirm_delete": request.GET.get("delete") == "confirm",
    }
    context.update(extra)
    return context


@never_cache
@ensure_csrf_cookie
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    owner = owner_seen(request)
    project = _get_project_for_owner(owner, request.GET.get("project"))
    return render(request, "chat/home.html", _page_context(request, owner, project=project))


@never_cache
@ensure_csrf_cookie
@require_GET
def conversation(request: HttpRequest, conversation_id: int) -> HttpResponse:
    owner = owner_for_lookup(request)
    chat = conversation_for_owner(owner=owner, conversation_id=conversation_id)
    return render(request, "chat/home.html", _page_context(request, owner, conversation=chat))


@never_cache
@require_POST
def conversation_rename_view(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Rename a chat (the form in the chat's heading); back to the chat."""
    owner = owner_for_lookup(request)
    chat = conversation_for_owner(owner=owner, conversation_id=conversation_id)
    try:
        conversation_rename(conversation=chat, title=request.POST.get("title", ""))
    except ChatInputError as exc:
        context = _page_context(request, owner, conversation=chat, rename_error=exc.message,
                                rename_draft=request.POST.get("title", ""))
        return render(request, "chat/home.html", context, status=400)
    return redirect("chat:conversation", conversation_id=chat.pk)


@never_cache
@require_POST
def conversation_delete_view(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Delete a chat and its messages (after the page's confirmation); memory is untouched."""
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    conversation_delete(conversation=chat)
    flash.success(request, _("Chat deleted. What Whizi remembers about you is unchanged."))
    return redirect("chat:home")


@never_cache
@require_POST
@rate_limited("conversation_create", fail_open=True)
def project_new(request: HttpRequest) -> HttpResponse:
    try:
        fields = project_fields_check(name=request.POST.get("name", ""),
                                      instructions=request.POST.get("instructions", ""))
        project = project_create(owner=owner_for_write(request), **fields)
    except ChatInputError as exc:
        context = _page_context(request, owner_seen(request), project_error=exc.message,
                                project_form=request.POST, show_project_form=True)
        return render(request, "chat/home.html", context, status=400)
    return redirect(f"{reverse('chat:home')}?project={project.pk}", permanent=False)


def _conversation_for_send(request: HttpRequest) -> Conversation:
    """The conversation a message goes to, started here when it is the first message.

    The input is checked first, so a refused message never leaves an empty conversation
    (nor, for a first visit, a guest).
    """
    if not request.POST.get("regenerate"):
        message_content_check(request.POST.get("content"))
    model = request.POST.get("model") or None
    if request.POST.get("conversation"):
        return conversation_for_owner(owner=owner_for_lookup(request),
                                      conversation_id=request.POST["conversation"])
    if request.POST.get("regenerate") or request.POST.get("edit"):
        raise Http404  # both name a message of a conversation
    chat_model_choose(requested=model, owner=owner_seen(request))
    project = _get_project_for_owner(owner_seen(request), request.POST.get("project"))
    owner = owner_for_write(request)
    return conversation_start(owner=owner, model=model, project=project)


def _exchange_open(request: HttpRequest) -> Exchange:
    """The first database step of a send, whichever door: a new message, the last one
    edited (`edit`: its id), or the last reply written again (`regenerate`: its id)."""
    chat = _conversation_for_send(request)
    model = request.POST.get("model") or None
    if request.POST.get("regenerate"):
        return chat_regenerate_open(conversation=chat, reply_id=request.POST["regenerate"], model=model)
    return chat_exchange_open(conversation=chat, content=request.POST.get("content"), model=model,
                              edit_of=request.POST.get("edit") or None)


@never_cache
@require_POST
# Chat fails open: Redis being down must not take chat down with it.
@rate_limited("chat_message", fail_open=True)
def send(request: HttpRequest) -> HttpResponse:
    """Send a message and wait for the whole reply: the page without JavaScript."""
    content = request.POST.get("content", "")
    try:
        reply = async_to_sync(chat_reply_async)(begin=lambda: _exchange_open(request),
                                                admission=getattr(request, "chat_admission", None))
    except ChatInputError as exc:
        owner = owner_seen(request)
        chat = None
        if request.POST.get("conversation"):
            chat = conversation_for_owner(owner=owner_for_lookup(request),
                                          conversation_id=request.POST["conversation"])
        project = None if chat else _get_project_for_owner(owner, request.POST.get("project"))
        context = _page_context(request, owner, conversation=chat, project=project,
                                send_error={"title": _("Message not sent"), "message": exc.message},
                                draft=content)
        return render(request, "chat/home.html", context, status=400)
    except ChatModelFailed as exc:
        failure = model_failure_text(kind=exc.kind, retryable=exc.retryable, retry_after=exc.retry_after)
        chat = exc.user_message.conversation
        said, retry = failure.__dict__, exc.user_message.content
        if request.POST.get("regenerate"):
            # The earlier reply stays: said above the composer, with no "Try again" item.
            said = {**said, "message": f"{failure.message} {_('The earlier reply is kept.')}"}
            retry = None
        context = _page_context(request, Owner.of(chat), conversation=chat, send_error=said,
                                retry_content=retry)
        response = already_logged(render(request, "chat/home.html", context, status=failure.status))
        if failure.retry_after:
            response["Retry-After"] = str(failure.retry_after)
        return response
    url = reverse("chat:conversation", args=[reply.conversation.pk])
    return redirect(f"{url}#m-{reply.assistant_message.pk}")


def _sse(event: str, data: object) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


ListHead = tuple[int, str, date] | None


def _begin_stream(request: HttpRequest) -> tuple[Exchange, ListHead] | JsonResponse:
    """The first database step of send_stream: who, where, check, save, assemble; and the
    side column's newest chat before the send moves this one to the top."""
    try:
        head = conversation_list_head(owner=owner_seen(request))
        return _exchange_open(request), head
    except ChatInputError as exc:
        return JsonResponse(
            {"error": {"title": _("Message not sent"), "message": exc.message, "field": exc.field}},
            status=400,
        )
    except Http404:
        return JsonResponse(
            {"error": {"title": _("Not found"), "message": _("That conversation was not found.")}},
            status=404,
        )


def _finish_stream(request: HttpRequest, exchange: Exchange, completion: Completion,
                   head: ListHead) -> dict[str, object]:
    """The reply saved, and the pieces of the page it changes. The side column only when
    the chat's place, title or day in it changed, and the chat's options only with its
    first reply: the page keeps what it has (a query and two templates less a message)."""
    reply = chat_exchange_finish(exchange=exchange, completion=completion, streamed=True)
    chat = exchange.conversation
    message = reply.assistant_message
    # No pass reads through a reply that made none due: no mark to look for.
    _messages_decorate([message], with_marks=reply.pass_through_reply)
    user_message = reply.user_message
    _mark_last([user_message, message])
    message_html = render_to_string("chat/home.html#message",
                                    {"conversation": chat, "message": message}, request=request)
    user_html = render_to_string("chat/home.html#message",
                                 {"conversation": chat, "message": user_message}, request=request)
    list_html = options_html = ""
    if head != (chat.pk, chat.title, timezone.localdate()):
        list_html = render_to_string("chat/home.html#conversation-list",
                                     {"conversation": chat, **_list_context(Owner.of(chat))}, request=request)
    if reply.turns <= 2:
        options_html = render_to_string("chat/home.html#chat-options",
                                        {"conversation": chat, "chat_messages": [message]}, request=request)
    return {"message_id": message.pk, "turns": reply.turns, "replaced": exchange.replaces,
            "html": message_html, "user_html": user_html, "list_html": list_html,
            "options_html": options_html}


def _stream_error(failure: ChatModelFailed) -> bytes:
    text = model_failure_text(kind=failure.kind, retryable=failure.retryable, retry_after=failure.retry_after)
    return _sse("error", {"title": text.title, "message": text.message, "retryable": text.retryable,
                          "status": text.status, "retry_after": text.retry_after})


@require_POST
@rate_limited("chat_message", fail_open=True)
async def send_stream(request: HttpRequest) -> HttpResponse:
    """Send a message and stream the reply as server-sent events.

    The form names a new message (`content`), the last one edited (`edit` and `content`)
    or the last reply to write again (`regenerate`).
    Events: `start` {conversation, url, model, title}; `token` "text" (many: the first
    piece at once, then what arrived in each WHIZI_STREAM_FLUSH_MS); then `done`
    {message_id, turns, replaced, html, user_html, list_html, options_html: the last two
    empty when the page's own are still right} or `error` {title, message, retryable,
    status}.
    The database is used in two short steps (whizi.db.db_step); nothing is held while
    the model writes.
    """
    arrived = time.perf_counter()
    admission = await chat_start_admission(request)
    try:
        begun = await db_step_queued(_begin_stream, request)
    except BaseException:
        admission.release()
        raise
    if isinstance(begun, JsonResponse):
        admission.release()
        return begun
    begun, head = begun

    async def events() -> AsyncIterator[bytes]:
        chat = begun.conversation
        yield _sse("start", {"conversation": chat.pk, "model": begun.model, "title": chat.title,
                             "url": reverse("chat:conversation", args=[chat.pk])})
        exchange = await chat_exchange_ready(begun)
        reply = chat_exchange_stream(exchange)
        first = True
        try:
            # The start is done once the model call is on its way: the next chat may begin.
            async for text in reply_text_batched(reply, interval=settings.WHIZI_STREAM_FLUSH_MS / 1000,
                                                 started=admission.release):
                if first:
                    metric_chat_first_token(model=exchange.model, seconds=time.perf_counter() - arrived)
                    first = False
                yield _sse("token", text)
        except ModelError as exc:
            yield _stream_error(chat_model_failed(exchange, exc, streamed=True))
            return
        finally:
            admission.release()
        try:
            done = await db_step_queued(_finish_stream, request, exchange, reply.completion, head)
        except ChatModelFailed as failure:  # an empty reply
            yield _stream_error(failure)
            return
        except ChatInputError as exc:  # the chat changed under a regenerate: nothing saved
            yield _sse("error", {"title": _("Message not sent"), "message": exc.message,
                                 "retryable": False, "status": 409, "retry_after": None})
            return
        except Http404:
            # Deleted with its owner (the account) while the model wrote: nothing saved.
            yield _sse("error", {"title": _("Not found"), "message": _("That conversation was not found."),
                                 "retryable": False, "status": 404, "retry_after": None})
            return
        yield _sse("done", done)

    response = StreamingHttpResponse(events(), content_type="text/event-stream; charset=utf-8")
    # The reply is conversation content (never kept by a browser or proxy), and proxies
    # must pass each event on as it comes rather than buffer it.
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"
    return response


@never_cache
@require_GET
def memory_mark(request: HttpRequest, conversation_id: int, message_id: int) -> HttpResponse:
    """The memory mark of one reply, polled by the page while its pass runs (or waits for
    its next try).

    Polling stops (HTTP 286) once the mark is final: what changed (a disclosure that opens
    in place), why an explicit request saved nothing, a failure, a clear since, or nothing.
    Another owner's reply is a 404.
    """
    chat = conversation_for_owner(owner=owner_for_lookup(request), conversation_id=conversation_id)
    message = get_object_or_404(chat.messages, pk=message_id, role=Message.Role.ASSISTANT)
    _messages_decorate([message])
    html = render_to_string("chat/home.html#memory-mark", {"conversation": chat, "message": message},
                            request=request)
    if message.memory_mark is not None and not message.memory_mark.final:
        return HttpResponse(html)  # pending, or waiting for its next try: keep asking
    return HttpResponseStopPolling(html)
