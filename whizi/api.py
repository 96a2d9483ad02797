"""The JSON API as one django-ninja object: each app defines a Router with typed request
and response schemas, the project's urls mount them here, and ninja validates bodies and
writes the OpenAPI document (`/api/openapi.json`, read at `/api/docs/`).

Around ninja, the API keeps its own rules (docs/DESIGN.md §4): every refusal is
`{"error": {"title", "message"}}` in the request's language, ninja's 422 included (a 400
naming the field); the CSRF token is required on unsafe methods for guests and accounts
alike (ninja exempts its views, Django's middleware checks ours); answers are never
stored by the browser; a wrong method is a JSON 405.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Annotated, Any

from asgiref.sync import iscoroutinefunction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from ninja import NinjaAPI, Schema
from ninja.errors import HttpError, ValidationError
from ninja.openapi.docs import Swagger
from ninja.parser import Parser
from pydantic import PlainSerializer, WithJsonSchema

from whizi.http import ApiError, json_body, json_error, method_not_allowed, not_found

# The order an Allow header lists methods in (ninja keeps them in a set).
_METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# Methods whose body is read, checked and handed to ninja (json_body's rules).
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


# A moment as the API has always sent it: ISO 8601 with microseconds and the UTC offset.
Timestamp = Annotated[datetime, PlainSerializer(datetime.isoformat, return_type=str),
                      WithJsonSchema({"type": "string", "format": "date-time"})]


class ErrorDetail(Schema):
    title: str
    message: str
    field: str | None = None  # the request field refused, when one was
    retryable: bool | None = None  # chat-model failures: whether sending again may work


class ErrorOut(Schema):
    """Every refusal on /api/: nothing was changed (a chat-model failure keeps the message)."""

    error: ErrorDetail


def refusals(*statuses: int) -> dict[int, type[Schema]]:
    """The error answers an operation documents, each in the one error shape."""
    return {status: ErrorOut for status in statuses}


class _BodyParser(Parser):
    """Ninja's body parser, given the object `api_body` already read and checked."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        parsed = getattr(request, "api_body", None)
        return parsed if parsed is not None else json.loads(request.body)


def api_body(*, max_chars: int) -> Callable:
    """A router's body rule (a ninja "view" decorator, so before validation): POST, PUT
    and PATCH bodies must be one JSON object, nest at most whizi.http.MAX_JSON_DEPTH deep
    and carry at most `max_chars` characters of text (whizi.http.json_body: 400, 413, 415)."""

    def decorator(run: Callable) -> Callable:
        def refusal(request: HttpRequest) -> HttpResponse | None:
            if request.method not in _BODY_METHODS:
                return None
            try:
                request.api_body = json_body(request, required=False, max_chars=max_chars)
            except ApiError as exc:
                return exc.response()
            return None

        if iscoroutinefunction(run):

            @functools.wraps(run)
            async def async_read(request: HttpRequest, **kwargs: Any) -> HttpResponse:
                return refusal(request) or await run(request, **kwargs)

            return async_read

        @functools.wraps(run)
        def read(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            return refusal(request) or run(request, **kwargs)

        return read

    return decorator


# --------------------------------------------------------------------- validation errors


def _field_of(loc: tuple[object, ...]) -> str:
    """("body", "payload", "content") -> "content"; ("query", "page") -> "page"; "" when
    the whole body is missing (("body", "payload"))."""
    if loc[:1] == ("body",) and len(loc) <= 2:
        return ""
    names = [part for part in loc[1:] if isinstance(part, str)]
    return names[-1] if names else ""


def _choices(expected: str) -> str:
    # pydantic words a Literal's choices in English ("'user' or 'assistant'"): keep the values.
    return ", ".join(re.findall(r"'([^']*)'", expected)) or expected


def validation_message(error: dict[str, Any]) -> str:
    """One pydantic error, said in the request's language and naming the field."""
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    field = _field_of(tuple(error.get("loc", ())))
    if not field:
        return _("Send a JSON object in the request body.")
    if kind == "missing":
        return _("%(field)s is required.") % {"field": field}
    if kind == "string_type":
        return _("%(field)s must be a string.") % {"field": field}
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _("%(field)s must be a whole number.") % {"field": field}
    if kind in ("greater_than_equal", "greater_than"):
        return _("%(field)s must be at least %(limit)s.") % {"field": field,
                                                             "limit": ctx.get("ge", ctx.get("gt"))}
    if kind in ("less_than_equal", "less_than"):
        return _("%(field)s must be at most %(limit)s.") % {"field": field,
                                                            "limit": ctx.get("le", ctx.get("lt"))}
    if kind in ("literal_error", "enum"):
        return _("%(field)s must be one of: %(choices)s.") % {
            "field": field, "choices": _choices(str(ctx.get("expected", "")))}
    return _("%(field)s is not valid.") % {"field": field}


def _validation_refusal(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Ninja's 422 as our 400: the first error, in words, with the field it names."""
    first = exc.errors[0] if exc.errors else {}
    field = _field_of(tuple(first.get("loc", ())))
    extra = {"field": field} if field else {}
    return json_error(400, _("Invalid request"), validation_message(first), **extra)


def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # Ninja's own refusal: a body it could not parse (a router without api_body).
    return json_error(exc.status_code, _("Invalid request"), _("The request body is not valid JSON."))


def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    # Django's handler500 answers (whizi.views.server_error), in DEBUG as in production.
    raise exc


# --------------------------------------------------------------------- the object and its urls


class _Docs(Swagger):
    """The vendored Swagger UI (ninja's static files, no CDN), which runs under the strict
    CSP: its only inline script is JSON data. "Try it out" sends the CSRF token."""

    template = "api/docs.html"


class _Api(NinjaAPI):
    _document: Any = None

    def get_openapi_schema(self, *, path_prefix: str | None = None,
                           path_params: dict[str, Any] | None = None) -> Any:
        # Built once per process: it changes only with the code, and building it costs
        # 45 ms of CPU, too much to give any visitor for the asking.
        if path_params:
            return super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        if self._document is None:
            self._document = super().get_openapi_schema(path_prefix=path_prefix)
        return self._document

    def get_content_type(self) -> str:
        return "application/json"  # as every answer has always said (JSON is UTF-8, RFC 8259)

    def get_openapi_operation_id(self, operation: Any) -> str:
        return operation.view_func.__name__  # "message_send": what an app's generated client calls


def api_build(*, routers: Iterable[str], version: str) -> NinjaAPI:
    """The API with every app's router (dotted paths: whizi imports no app)."""
    api = _Api(
        title="Whizi", version=version, urls_namespace="api", parser=_BodyParser(), docs=_Docs(),
        openapi_url="/openapi.json", docs_url="/docs/",
        description=("The JSON API the Whizi app uses. Sign in through /accounts/login/ and send the "
                     "session cookie; unsafe methods also send the csrftoken cookie's value in "
                     "X-CSRFToken. Guests (no account) may use every endpoint. Every refusal is "
                     '{"error": {"title", "message"}} in the request\'s language.'),
    )
    api.add_exception_handler(ApiError, lambda request, exc: exc.response())
    api.add_exception_handler(Http404, lambda request, exc: not_found())
    api.add_exception_handler(ValidationError, _validation_refusal)
    api.add_exception_handler(HttpError, _http_error)
    api.add_exception_handler(Exception, _unexpected)
    for router in routers:
        api.add_router("", router)
    return api


def _json_405(response: HttpResponse) -> HttpResponse:
    if response.status_code != 405 or response.get("Content-Type", "").startswith("application/json"):
        return response
    allowed = {method.strip() for method in response.get("Allow", "").split(",") if method.strip()}
    return method_not_allowed(tuple(method for method in _METHOD_ORDER if method in allowed))


def api_view(view: Callable) -> Callable:
    """One of ninja's URL views, with the API's rules: the CSRF check (ninja marks its
    views exempt), a JSON 405, `Cache-Control: no-store` (answers carry conversations and
    memory), and the csrftoken cookie the app reads before its first unsafe request."""
    if iscoroutinefunction(view):

        async def async_wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            return _json_405(await view(request, *args, **kwargs))

        wrapped: Callable = async_wrapper
    else:

        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            return _json_405(view(request, *args, **kwargs))

        wrapped = wrapper
    wrapped = never_cache(ensure_csrf_cookie(wrapped))
    wrapped.csrf_exempt = False
    return wrapped


def api_urls(api: NinjaAPI) -> tuple[list[URLPattern], str, str]:
    """The API's urls for `path("api/", api_urls(api))`, each view under api_view."""
    patterns, app_name, namespace = api.urls
    # Ninja adds one pattern per operation; the first of a route serves all its methods.
    first: dict[str, URLPattern] = {}
    for pattern in patterns:
        first.setdefault(str(pattern.pattern), pattern)
    return ([path(route, api_view(pattern.callback), name=pattern.name) for route, pattern in first.items()],
            app_name, namespace)
