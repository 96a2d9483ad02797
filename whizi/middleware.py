"""The probes, each request's id and metrics, response headers every page gets, and static
files. All work in an async middleware chain as well as a sync one (see
StaticFilesMiddleware)."""

import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.module_loading import import_string
from whitenoise.middleware import WhiteNoiseMiddleware

from whizi.db import db_release
from whizi.logs import log_context_bind, log_context_reset, request_id_for
from whizi.metrics import metric_http_request
from whizi.probes import PROBE_PATHS, probe_answer

request_log = logging.getLogger("whizi.request")

# Only our own origin: a fact or reply that smuggles in markup cannot load a remote
# image or script, so it cannot carry data anywhere. No inline script or style.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "media-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


class SyncAndAsyncMiddleware:
    """A middleware that runs in whichever chain it is given: in an async one, Django
    then needs no thread for it, so an async view (chat, voice) holds none while it
    awaits. Subclasses write __call__ (sync) and __acall__ (async)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)


class ProbeMiddleware(SyncAndAsyncMiddleware):
    """/healthz, /readyz and /metrics (whizi.probes), answered before every other middleware:
    no session is read or made, no cookie set, no rate limit counted, and neither the host
    check nor the HTTPS redirect stands between a balancer probing a backend by its address
    and the answer. Outermost in MIDDLEWARE."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        answer = probe_answer(request) if request.path_info in PROBE_PATHS else None
        return answer if answer is not None else self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info in PROBE_PATHS:
            # The checks wait on the network: in a thread, never on the event loop.
            answer = await sync_to_async(probe_answer, thread_sensitive=False)(request)
            if answer is not None:
                return answer
        return await self.get_response(request)


class RequestMiddleware(SyncAndAsyncMiddleware):
    """Each request's id (the proxy's X-Request-ID when it sends one): on every line logged
    for it, in the tasks it publishes (whizi.celery) and in the response's X-Request-ID; and
    its count and latency by route for the metrics, with one log line."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        token = self._begin(request)
        try:
            return self._end(request, self.get_response(request))
        finally:
            log_context_reset(token)  # this thread serves other requests next

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        # Not reset: the request's task ends with it, and a streamed reply, written after
        # this returns, keeps the id on its lines.
        self._begin(request)
        return self._end(request, await self.get_response(request))

    @staticmethod
    def _begin(request: HttpRequest) -> Any:
        request.whizi_started = time.perf_counter()
        request.whizi_request_id = request_id_for(request.headers.get("X-Request-ID"))
        return log_context_bind(request_id=request.whizi_request_id)

    @staticmethod
    def _end(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        seconds = time.perf_counter() - request.whizi_started
        route = _route(request)
        metric_http_request(route=route, method=request.method or "", status=response.status_code,
                            seconds=seconds)
        request_log.info("%s %s %s %.0f ms", request.method, route, response.status_code, seconds * 1000)
        response["X-Request-ID"] = request.whizi_request_id
        return response


def _route(request: HttpRequest) -> str:
    """The URL pattern's name ("chat:send_stream"), never the path, which holds ids."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name
    static = "/" + settings.STATIC_URL.lstrip("/")
    return "static" if request.path_info.startswith(static) else "unmatched"


class ContentSecurityPolicyMiddleware(SyncAndAsyncMiddleware):
    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        return self._headed(self.get_response(request))

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return self._headed(await self.get_response(request))

    @staticmethod
    def _headed(response: HttpResponse) -> HttpResponse:
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class ThreadStepMiddleware(SyncAndAsyncMiddleware):
    """Django's middleware that read the session, the user and the database
    (settings.WHIZI_THREAD_STEP_MIDDLEWARE, in their usual order) run together: in an async
    chain, every request method of them in one thread step before the view and every
    response method in one after, instead of a step each (some twenty a request, each
    waiting its turn on the event loop and for a thread: under a burst of chats, that
    wait is most of what a settings page takes).

    Their semantics are those of MIDDLEWARE: process_request in order (a response from
    one skips the rest and the view, and goes back out through those before it),
    process_view with the view the path resolves to, process_response in reverse, an
    exception made a response where it is raised. After each step the thread's database
    connection is given back, so a chat waiting for its turn, or a streamed reply, holds
    none (the step before a sync view keeps it: the view runs next in the same thread).
    """

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        self.members = [import_string(path)(get_response) for path in settings.WHIZI_THREAD_STEP_MIDDLEWARE]
        for member in self.members:
            if hasattr(member, "process_exception") or hasattr(member, "process_template_response"):
                raise ImproperlyConfigured(f"{type(member).__name__} cannot run in a thread step; "
                                           "list it in MIDDLEWARE instead.")

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        done, response = self._request_step(request, release=False)
        if response is None:
            response = self.get_response(request)
        response = self._response_step(request, response, done, release=response.streaming)
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        done, response = await sync_to_async(self._request_step)(request, release=None)
        if response is None:
            response = await self.get_response(request)
        return await sync_to_async(self._response_step)(request, response, done, release=True)

    def _request_step(self, request: HttpRequest, *, release: bool | None) -> tuple[int, HttpResponse | None]:
        """How many members' process_response are owed, and the response that ends the
        request early (None: on to the view). `release` None: unless the view is sync."""
        done, response, view = 0, None, None
        for member in self.members:
            done += 1
            try:
                response = member.process_request(request) if hasattr(member, "process_request") else None
            except Exception as exc:  # as Django's chain: the member's error answers for it
                return done - 1, response_for_exception(request, exc)
            if response is not None:
                return done, response
        try:
            view = resolve(request.path_info, urlconf=getattr(request, "urlconf", None))
        except Resolver404:
            pass  # Django answers 404 after the middleware; no view to check
        if view is not None:
            request.resolver_match = view  # as Django's handler sets it, for what answers early
            for member in self.members:
                if hasattr(member, "process_view"):
                    try:
                        response = member.process_view(request, view.func, view.args, view.kwargs)
                    except Exception as exc:
                        response = response_for_exception(request, exc)
                    if response is not None:
                        break
        if release or (release is None and (response is not None or view is None
                                           or iscoroutinefunction(view.func))):
            db_release()
        return done, response

    def _response_step(self, request: HttpRequest, response: HttpResponse, done: int, *,
                       release: bool) -> HttpResponse:
        for member in reversed(self.members[:done]):
            if hasattr(member, "process_response"):
                try:
                    response = member.process_response(request, response)
                except Exception as exc:
                    response = response_for_exception(request, exc)
        if release:
            db_release()
        return response


def _read_in_threads(response: HttpResponse) -> HttpResponse:
    """A file response whose chunks are read in a thread each: an ASGI server then
    serves it as an asynchronous stream (Django warns about, and buffers through one
    thread, a synchronous iterator)."""
    if not response.streaming or response.is_async:
        return response
    chunks = iter(response.streaming_content)

    async def read() -> AsyncIterator[bytes]:
        while (chunk := await sync_to_async(next, thread_sensitive=False)(chunks, None)) is not None:
            yield chunk

    response.streaming_content = read()
    return response


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise, usable in an async middleware chain.

    WhiteNoise's own middleware is sync only, and one sync middleware makes Django run
    every view of the chain in a thread that waits for it: an async chat view would then
    hold a thread for as long as the model answers.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any], **kwargs: Any) -> None:
        super().__init__(get_response, **kwargs)
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        return super().__call__(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        if self.autorefresh or request.path_info in self.files:
            # Finding and opening a file touches the disk: in a thread, like any sync view.
            response = await sync_to_async(self._serve_or_none, thread_sensitive=False)(request)
            if response is not None:
                return _read_in_threads(response)
        return await self.get_response(request)

    def _serve_or_none(self, request: HttpRequest) -> HttpResponse | None:
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(
            request.path_info)
        return self.serve(static_file, request) if static_file is not None else None
