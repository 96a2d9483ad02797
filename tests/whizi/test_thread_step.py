"""Django's session, locale, CSRF, auth, language and message middleware run together in
one thread step before the view and one after (whizi.middleware.ThreadStepMiddleware),
with MIDDLEWARE's semantics: under a burst, each thread step waits its turn on the
event loop, so a page's latency grows with their number."""

from __future__ import annotations

import asyncio
import collections

import pytest
from asgiref import sync
from django.core.checks import run_checks
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, RequestFactory

from whizi.middleware import ThreadStepMiddleware

calls: list[str] = []


class _Member:
    """A middleware in Django's process_* style that records what it was asked."""

    name = ""
    answers_request = False
    raises_in_request = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        calls.append(f"{self.name}.request")
        if self.raises_in_request:
            raise PermissionError("refused")  # Django answers 403 for PermissionDenied only
        return HttpResponse("early", status=418) if self.answers_request else None

    def process_view(self, request, view, args, kwargs) -> None:
        calls.append(f"{self.name}.view")

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        calls.append(f"{self.name}.response")
        response[f"X-{self.name}"] = "seen"
        return response


class Outer(_Member):
    name = "outer"


class Middle(_Member):
    name = "middle"


class Inner(_Member):
    name = "inner"


class MiddleAnswers(Middle):
    answers_request = True


class MiddleRaises(Middle):
    raises_in_request = True


def _members(settings, *classes: type) -> None:
    settings.WHIZI_THREAD_STEP_MIDDLEWARE = [f"{__name__}.{cls.__name__}" for cls in classes]
    calls.clear()


def _view(request: HttpRequest) -> HttpResponse:
    calls.append("view")
    return HttpResponse("page")


def test_members_run_in_order_with_the_view_they_resolve_to(settings):
    _members(settings, Outer, Middle, Inner)
    response = ThreadStepMiddleware(_view)(RequestFactory().get("/settings/"))

    assert response.content == b"page"
    assert calls == ["outer.request", "middle.request", "inner.request",
                     "outer.view", "middle.view", "inner.view", "view",
                     "inner.response", "middle.response", "outer.response"]


def test_an_early_answer_skips_the_view_and_goes_back_out_through_those_before_it(settings):
    _members(settings, Outer, MiddleAnswers, Inner)
    response = ThreadStepMiddleware(_view)(RequestFactory().get("/settings/"))

    assert response.status_code == 418
    assert calls == ["outer.request", "middle.request", "middle.response", "outer.response"]
    assert "X-inner" not in response


def test_a_member_that_raises_is_answered_for_where_it_raised(settings):
    _members(settings, Outer, MiddleRaises, Inner)
    response = ThreadStepMiddleware(_view)(RequestFactory().get("/settings/"))

    assert response.status_code == 500
    assert calls == ["outer.request", "middle.request", "outer.response"]
    assert response["X-outer"] == "seen"


def test_in_an_async_chain_a_request_takes_two_thread_steps_and_holds_no_connection(settings):
    _members(settings, Outer, Middle, Inner)
    steps: list[str] = []
    original = sync.SyncToAsync.__call__

    def counted(self, *args, **kwargs):
        steps.append(getattr(self.func, "__name__", repr(self.func)))
        return original(self, *args, **kwargs)

    async def view(request: HttpRequest) -> HttpResponse:
        calls.append("view")
        return HttpResponse("reply")

    async def run() -> HttpResponse:
        return await ThreadStepMiddleware(view)(RequestFactory().post("/send/stream/"))

    sync.SyncToAsync.__call__ = counted
    try:
        response = asyncio.run(run())
    finally:
        sync.SyncToAsync.__call__ = original

    assert response.content == b"reply"
    assert calls[:7] == ["outer.request", "middle.request", "inner.request",
                         "outer.view", "middle.view", "inner.view", "view"]
    assert steps == ["_request_step", "_response_step"]


@pytest.mark.django_db
def test_a_page_takes_a_few_thread_steps_not_one_per_middleware_method():
    """GET /settings/ took 20 thread steps before (two per Django middleware with both
    methods, one for CSRF's view check, one for the language, the signals); now 7."""
    steps: collections.Counter[str] = collections.Counter()
    original = sync.SyncToAsync.__call__

    def counted(self, *args, **kwargs):
        steps[getattr(self.func, "__qualname__", repr(self.func))] += 1
        return original(self, *args, **kwargs)

    client = AsyncClient()

    async def run() -> int:
        await client.get("/settings/")
        steps.clear()
        assert (await client.get("/settings/")).status_code == 200
        return sum(steps.values())

    sync.SyncToAsync.__call__ = counted
    try:
        page_steps = asyncio.run(run())
    finally:
        sync.SyncToAsync.__call__ = original
    assert page_steps <= 7, dict(steps)


def test_the_checks_find_a_needed_middleware_in_either_list(settings):
    assert not [m for m in run_checks() if m.id in ("whizi.E005", "whizi.E006")]
    settings.WHIZI_THREAD_STEP_MIDDLEWARE = [p for p in settings.WHIZI_THREAD_STEP_MIDDLEWARE
                                             if not p.endswith("CsrfViewMiddleware")]
    found = [m for m in run_checks() if m.id == "whizi.E006"]
    assert len(found) == 1 and "CsrfViewMiddleware" in found[0].msg
