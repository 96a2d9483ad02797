"""A request that starts a chat waits for its place in line before anything else of it
runs; every other request counts as a page being served meanwhile (chat.admission)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from chat.admission import chat_start_admit, chat_start_line
from whizi.middleware import SyncAndAsyncMiddleware

# The views that start a chat, by method and URL name: the page's two doors and the API's.
CHAT_START_VIEWS = {("POST", "chat:send_stream"), ("POST", "chat:send"), ("POST", "api:messages")}


def _starts_chat(request: HttpRequest) -> bool:
    try:
        match = resolve(request.path_info, urlconf=getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return (request.method, match.view_name) in CHAT_START_VIEWS


class ChatAdmissionMiddleware(SyncAndAsyncMiddleware):
    """Before the session, the user and the view: in an async chain only (a sync one
    serves one request at a time per thread, and chat_reply_async waits in line itself)."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        if _starts_chat(request):
            request.chat_admission = admission = await chat_start_admit()
            try:
                response = await self.get_response(request)
            except BaseException:
                admission.release()
                raise
            if not response.streaming:
                admission.release()  # answered (or refused): a streamed reply gives it back itself
            return response
        line = chat_start_line()
        line.page_begin()
        try:
            return await self.get_response(request)
        finally:
            line.page_end()
