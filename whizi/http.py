"""The JSON API's one answer shape for a refusal, and how a request body is read.

Every refusal on /api/ is `{"error": {"title", "message", ...}}` with its status: a wrong
method, a body that is not a JSON object, an id that is not yours, a rate limit, a
failed model call, a missing page, a server error. The API object is whizi.api.
"""

from __future__ import annotations

import json

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse, RawPostDataException
from django.utils.translation import gettext as _


class ApiError(Exception):
    """A refusal the client is told about as JSON; nothing was changed."""

    def __init__(self, status: int, title: object, message: object, *,
                 headers: dict[str, str] | None = None, logged: bool = False, **extra: object) -> None:
        super().__init__(str(message))
        self.status = status
        self.title = str(title)
        self.message = str(message)
        self.headers = headers or {}
        self.logged = logged
        self.extra = extra

    def response(self) -> JsonResponse:
        response = json_error(self.status, self.title, self.message, headers=self.headers, **self.extra)
        return already_logged(response) if self.logged else response


def already_logged(response: HttpResponse) -> HttpResponse:
    """Mark a 5xx the caller has logged itself (one line, with its cause), so Django's
    request logger does not log it a second time."""
    response._has_been_logged = True  # the flag django.utils.log.log_response reads
    return response


def json_error(status: int, title: object, message: object, *,
               headers: dict[str, str] | None = None, **extra: object) -> JsonResponse:
    response = JsonResponse({"error": {"title": str(title), "message": str(message), **extra}},
                            status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def method_not_allowed(methods: tuple[str, ...]) -> JsonResponse:
    allowed = ", ".join(methods)
    return json_error(405, _("Method not allowed"),
                      _("Use %(methods)s for this address.") % {"methods": allowed},
                      headers={"Allow": allowed})


def not_found() -> JsonResponse:
    return json_error(404, _("Not found"), _("Nothing with that id belongs to you."))


def _unsupported() -> ApiError:
    return ApiError(415, _("Unsupported content type"),
                    _("Send JSON with the header Content-Type: application/json."))


def _too_large() -> ApiError:
    return ApiError(413, _("Request too large"), _("The request body is too large."))


# How deep a request body may nest: the API's bodies are one flat object, and a body of
# a thousand "[" must be a 400 rather than a RecursionError deep in the JSON decoder.
MAX_JSON_DEPTH = 8
# The bytes one character can take in a JSON body: an emoji escaped as a surrogate pair,
# "\ud83d\ude00". Size limits are in characters; the byte cap only stops the absurd.
JSON_BYTES_PER_CHAR = 12


_TOO_DEEP = object()


def _too_deep(data: object) -> bool:
    level = [data]
    for _depth in range(MAX_JSON_DEPTH):
        level = [child for value in level if isinstance(value, dict | list)
                 for child in (value.values() if isinstance(value, dict) else value)]
        if not level:
            return False
    return True


def json_body(request: HttpRequest, *, required: bool, max_chars: int) -> dict[str, object]:
    """The request's JSON object; `{}` for an empty body where nothing is required.

    `max_chars` is the largest text the body may carry; each field's own limit is checked
    on the decoded characters by its caller, so escaped CJK text is not refused for its
    bytes. Raises ApiError (413, 415 or 400) for anything else."""
    max_bytes = max_chars * JSON_BYTES_PER_CHAR + 4_096
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > max_bytes:
        raise _too_large()
    if length and request.content_type != "application/json":
        raise _unsupported()
    try:
        body = request.body
    except RequestDataTooBig:
        raise _too_large() from None
    except RawPostDataException:
        raise _unsupported() from None  # a form body, already read as form data
    if len(body) > max_bytes:
        raise _too_large()
    if not body.strip():
        if required:
            raise ApiError(400, _("Invalid request"), _("Send a JSON object in the request body."))
        return {}
    if request.content_type != "application/json":
        raise _unsupported()
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, _("Invalid request"), _("The request body is not valid JSON.")) from None
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or _too_deep(data):
        raise ApiError(400, _("Invalid request"), _("The request body is nested too deeply."))
    if not isinstance(data, dict):
        raise ApiError(400, _("Invalid request"), _("Send a JSON object in the request body."))
    return data
