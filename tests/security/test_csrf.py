"""Every address in the URLconf refuses an unsafe request without the CSRF token,
including the htmx endpoints and the JSON API; with the token our own endpoints work.

Personas: a signed-in user and a guest (a visitor with a session but no account). A
forged cross-site request carries their cookies but never the token.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve
from django.utils.regex_helper import normalize

from chat.models import Conversation, Message, VoiceSession
from memory.models import Memory

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

UNSAFE = ("post", "put", "patch", "delete")


def _leaves(patterns, prefix: str = ""):
    for pattern in patterns:
        regex = pattern.pattern.regex.pattern.lstrip("^").replace(r"\Z", "").rstrip("$")
        if isinstance(pattern, URLResolver):
            yield from _leaves(pattern.url_patterns, prefix + regex)
        elif isinstance(pattern, URLPattern):
            yield prefix + regex, pattern.callback


def _candidates(regex: str, name: str, sample_id: int) -> list[str]:
    """Values to try for one URL argument: the id, then the literals the pattern allows
    (the admin's `(?P<app_label>auth|memory|…)`)."""
    group = re.search(rf"\(\?P<{name}>([^()]*)\)", regex)
    literals = [item for item in (group.group(1).split("|") if group else []) if item.isidentifier()]
    return [str(sample_id), *literals]


def every_address(sample_id: int) -> list[tuple[str, object]]:
    """One concrete path for every view in the URLconf (each argument filled with an id,
    or a value its pattern accepts)."""
    addresses = []
    for regex, callback in _leaves(get_resolver().url_patterns):
        template, params = normalize(regex)[0]
        choices = [_candidates(regex, name, sample_id) for name in params]
        for values in itertools.product(*choices):
            path = "/" + template % dict(zip(params, values, strict=True))
            try:
                if resolve(path).func == callback:
                    break
            except Resolver404:
                continue
        else:
            raise AssertionError(f"no sample path for {regex}")
        addresses.append((path, callback))
    return addresses


def own_view(callback) -> bool:
    return callback.__module__.split(".")[0] in {"chat", "memory", "accounts", "lifecycle", "whizi"}


@pytest.fixture
def user():
    return get_user_model().objects.create_user("ann", "ann@example.com", "a-long-pass-phrase")


@pytest.fixture
def owned_ids(user) -> int:
    """The user's own conversation (with a reply) and voice session: the sample id names
    real rows, though the CSRF check refuses before any view looks."""
    conversation = Conversation.objects.create(user=user, model="whizi/offline")
    Message.objects.create(conversation=conversation, role="assistant", content="hi")
    VoiceSession.objects.create(user=user)
    return conversation.pk


def signed_in(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/")
    return client


def guest() -> Client:
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    return client


def test_no_view_is_exempt_from_the_csrf_check():
    exempt = [path for path, callback in every_address(1) if getattr(callback, "csrf_exempt", False)]
    assert exempt == []


def test_the_urlconf_walk_reaches_every_unsafe_endpoint_of_ours():
    paths = {path for path, callback in every_address(7) if own_view(callback)}
    assert {
        "/send/", "/send/stream/", "/projects/", "/settings/", "/settings/memory/clear/", "/api/memory/",
        "/api/conversations/", "/api/conversations/7/messages/", "/api/voice/sessions/",
        "/api/voice/sessions/7/transcript/", "/api/voice/sessions/7/end/",
    } <= paths


@pytest.mark.parametrize("who", ["user", "guest"])
def test_every_address_refuses_unsafe_methods_without_the_token(who, user, owned_ids):
    client = signed_in(user) if who == "user" else guest()
    Memory.objects.create(user=user, lines=["Name is Ann"], version=1)
    refused = {}
    for path, _callback in every_address(owned_ids):
        for method in UNSAFE:
            for headers in ({}, {"HX-Request": "true"}):
                response = getattr(client, method)(path, data="{}", content_type="application/json",
                                                   headers=headers)
                refused[(path, method, bool(headers))] = response.status_code
    assert {key: code for key, code in refused.items() if code != 403} == {}
    assert Memory.objects.get(user=user).lines == ["Name is Ann"]
    assert Message.objects.count() == 1 and Conversation.objects.count() == 1


def test_the_api_refusal_is_json_and_the_page_refusal_says_what_to_do(user):
    client = signed_in(user)
    api = client.delete("/api/memory/")
    assert api.status_code == 403
    assert api.json()["error"]["title"] == "Security check failed"
    # htmx gets a fragment for the memory block's alert slot, with a way forward.
    fragment = client.post("/settings/memory/clear/", headers={"HX-Request": "true",
                                                              "HX-Current-URL": "http://testserver/settings/"})
    assert fragment.status_code == 403
    body = fragment.content.decode()
    assert "<html" not in body and "This page is out of date" in body
    assert '<a class="alert-action" href="/settings/">Reload the page</a>' in body
    # A plain form post gets the product's own page.
    page = client.post("/settings/memory/clear/", headers={"Referer": "http://testserver/settings/memory/clear/"})
    assert page.status_code == 403
    assert b'class="topbar"' in page.content and b"This page is out of date" in page.content
    assert b'href="/settings/memory/clear/"' in page.content
    # A page elsewhere is never offered as the way back.
    elsewhere = client.post("/settings/memory/clear/", headers={"Referer": "https://evil.example/x"})
    assert b'href="https://evil.example' not in elsewhere.content


def test_a_token_from_another_session_is_refused(user):
    victim = signed_in(user)
    attacker = guest()
    Memory.objects.create(user=user, lines=["Name is Ann"], version=1)
    response = victim.delete("/api/memory/", headers={"X-CSRFToken": attacker.cookies["csrftoken"].value})
    assert response.status_code == 403
    assert Memory.objects.get(user=user).lines == ["Name is Ann"]


def test_with_the_token_our_unsafe_endpoints_answer(user, settings):
    # The positive control: the same requests with the token are not refused.
    settings.WHIZI_CHAT_MODELS = ["whizi/offline"]
    client = signed_in(user)
    token = {"X-CSRFToken": client.cookies["csrftoken"].value}
    conversation = client.post("/api/conversations/", data="{}", content_type="application/json",
                               headers=token)
    assert conversation.status_code == 201
    chat_id = conversation.json()["id"]
    message = client.post(f"/api/conversations/{chat_id}/messages/", data=json.dumps({"content": "hi"}),
                          content_type="application/json", headers=token)
    assert message.status_code == 200
    empty = {"data": "", "content_type": "application/json", "headers": token}
    session = client.post("/api/voice/sessions/", **empty).json()["id"]
    assert client.post(f"/api/voice/sessions/{session}/transcript/",
                       data=json.dumps({"role": "user", "text": "hello"}),
                       content_type="application/json", headers=token).status_code == 204
    assert client.post(f"/api/voice/sessions/{session}/end/", **empty).status_code == 202
    assert client.delete("/api/memory/", headers=token).status_code == 200
    assert client.post("/settings/memory/clear/", headers={**token, "HX-Request": "true"}).status_code == 200
    assert client.post("/projects/", {"name": "Novel"}, headers=token).status_code == 302
    assert client.post("/send/", {"content": "hello"}, headers=token).status_code == 302
    assert client.post("/settings/", {"language": "en", "chat_model": "whizi/offline"},
                       headers=token).status_code == 302
