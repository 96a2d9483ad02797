"""The JSON API for conversations, messages and voice sessions (DESIGN 4).

Session cookie and CSRF token (`X-CSRFToken`) as for the pages; guests are allowed
everywhere. Every refusal is JSON, `{"error": {"title", "message"}}`, and changes
nothing; a chat-model failure adds `"retryable"` and keeps the user's message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, RawPostDataException
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie

from accounts.owner import Owner, owner_for_request
from chat import services
from chat.errors import model_failure_text
from chat.models import VoiceSession
from whizi.ratelimit import rate_limited

# Largest JSON body taken: a message at its cap, in UTF-8, with room for the framing.
MAX_BODY_BYTES = services.MAX_MESSAGE_CHARS * 4 + 4_096


class ApiError(Exception):
    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message


def error_response(status: int, title: str, message: str, **extra: object) -> JsonResponse:
    return JsonResponse({"error": {"title": title, "message": message, **extra}}, status=status)


def api_view(*methods: str) -> Callable:
    """JSON errors for every refusal: wrong method, bad input, unknown ids, model failures."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if request.method not in methods:
                response = error_response(
                    405, _("Method not allowed"),
                    _("Use %(methods)s for this address.") % {"methods": ", ".join(methods)},
                )
                response["Allow"] = ", ".join(methods)
                return response
            try:
                return view(request, *args, **kwargs)
            except ApiError as exc:
                return error_response(exc.status, exc.title, exc.message)
            except Http404:
                return error_response(404, _("Not found"), _("Nothing with that id belongs to you."))
            except services.ChatInputError as exc:
                return error_response(400, _("Invalid request"), exc.message, field=exc.field)
            except services.ChatNotAllowed as exc:
                return error_response(409, _("Not allowed now"), exc.message)
            except services.ChatModelFailed as exc:
                failure = model_failure_text(kind=exc.kind, retryable=exc.retryable)
                response = error_response(failure.status, failure.title, failure.message,
                                          retryable=failure.retryable)
                if failure.retry_after:
                    response["Retry-After"] = str(failure.retry_after)
                return response

        return ensure_csrf_cookie(wrapper)

    return decorator


def _json_body(request: HttpRequest, *, required: bool) -> dict[str, object]:
    """The request's JSON object. An empty body is `{}` where nothing is required."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY_BYTES:
        raise ApiError(413, _("Request too large"), _("The request body is too large."))
    if length and request.content_type != "application/json":
        raise ApiError(415, _("Unsupported content type"),
                       _("Send JSON with the header Content-Type: application/json."))
    try:
        body = request.body
    except RequestDataTooBig:
        raise ApiError(413, _("Request too large"), _("The request body is too large.")) from None
    except RawPostDataException:
        # A form body, already read as form data: not JSON.
        raise ApiError(415, _("Unsupported content type"),
                       _("Send JSON with the header Content-Type: application/json.")) from None
    if len(body) > MAX_BODY_BYTES:
        raise ApiError(413, _("Request too large"), _("The request body is too large."))
    if not body.strip():
        if required:
            raise ApiError(400, _("Invalid request"), _("Send a JSON object in the request body."))
        return {}
    if request.content_type != "application/json":
        raise ApiError(415, _("Unsupported content type"),
                       _("Send JSON with the header Content-Type: application/json."))
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, _("Invalid request"), _("The request body is not valid JSON.")) from None
    if not isinstance(data, dict):
        raise ApiError(400, _("Invalid request"), _("Send a JSON object in the request body."))
    return data


def _optional_str(data: dict[str, object], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise services.ChatInputError(_("%(field)s must be a string.") % {"field": key}, field=key)
    return value


def _get_voice_session_for_owner(owner: Owner, session_id: int) -> VoiceSession:
    return get_object_or_404(VoiceSession.objects.for_owner(owner), pk=session_id)


@rate_limited("conversation_create", fail_open=True)
@api_view("POST")
def conversations(request: HttpRequest) -> HttpResponse:
    data = _json_body(request, required=False)
    owner = owner_for_request(request)
    chat = services.conversation_start(owner=owner, model=_optional_str(data, "model"))
    return JsonResponse({"id": chat.pk, "model": chat.model}, status=201)


# Chat fails open: Redis being down must not take chat down with it.
@rate_limited("chat_message", fail_open=True)
@api_view("POST")
def messages(request: HttpRequest, conversation_id: int) -> HttpResponse:
    data = _json_body(request, required=True)
    owner = owner_for_request(request)
    chat = services.conversation_for_owner(owner=owner, conversation_id=conversation_id)
    reply = services.chat_reply(conversation=chat, content=data.get("content"),
                                model=_optional_str(data, "model"))
    return JsonResponse({"reply": reply.assistant_message.content,
                         "model": reply.assistant_message.model, "turns": reply.turns})


@rate_limited("voice", fail_open=True)
@api_view("POST")
def voice_sessions(request: HttpRequest) -> HttpResponse:
    _json_body(request, required=False)
    session, instructions = services.voice_session_start(owner=owner_for_request(request))
    return JsonResponse({"id": session.pk, "instructions": instructions}, status=201)


@rate_limited("voice", fail_open=True)
@api_view("POST")
def voice_transcript(request: HttpRequest, session_id: int) -> HttpResponse:
    data = _json_body(request, required=True)
    session = _get_voice_session_for_owner(owner_for_request(request), session_id)
    services.voice_turn_add(session=session, role=data.get("role"), text=data.get("text"))
    return HttpResponse(status=204)


@rate_limited("voice", fail_open=True)
@api_view("POST")
def voice_end(request: HttpRequest, session_id: int) -> HttpResponse:
    _json_body(request, required=False)
    session = _get_voice_session_for_owner(owner_for_request(request), session_id)
    services.voice_session_end(session=session)
    return HttpResponse(status=202)
