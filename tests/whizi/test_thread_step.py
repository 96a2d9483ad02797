"""Django's session, locale, CSRF, auth, language and message middleware run together in
one thread step before the view and one after (whizi.middleware.ThreadStepMiddleware),
with MIDDLEWARE's semantics: under a burst, each thread step waits its turn on the
event loop, so a page's latency grows with their number."""

from __future__ import annotations

import asyncio
import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref import sync
from django.core.checks import run_checks
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, RequestFactory

from tests.conftest import server_env
from whizi.middleware import ThreadStepMiddleware

ROOT = Path(__file__).resolve().parents[2]

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


STEPS_OF_A_PAGE = """
import asyncio, json
import httpx
from asgiref import sync
import whizi.asgi

steps = []
original = sync.SyncToAsync.__call__

def counted(self, *args, **kwargs):
    steps.append(getattr(self.func, "__qualname__", repr(self.func)))
    return original(self, *args, **kwargs)

async def main():
    transport = httpx.ASGITransport(app=whizi.asgi.application)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        await client.get("/settings/")
        sync.SyncToAsync.__call__ = counted
        status = (await client.get("/settings/")).status_code
    return status

print(json.dumps({"status": asyncio.run(main()), "steps": steps}))
"""


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_web_process_makes_no_thread_for_a_request_before_its_middleware_runs():
    """Django runs request_started's receivers in a thread step before anything else of a
    request; under ASGI they have nothing to do (the request's thread is new), and under a
    burst that step made 300 threads at once, before the chats' line could hold them
    back. The web process (whizi.asgi) leaves them out: a page's first step is its own."""
    result = subprocess.run([sys.executable, "-c", STEPS_OF_A_PAGE], cwd=ROOT, env=server_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["status"] == 200
    assert seen["steps"][0] == "SecurityMiddleware.process_request", seen["steps"]
    assert not [step for step in seen["steps"] if step.startswith("Signal")], seen["steps"]
    assert len(seen["steps"]) == 6, seen["steps"]
