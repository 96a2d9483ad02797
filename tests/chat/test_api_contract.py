"""The JSON API's OpenAPI document (/api/openapi.json) is the app's contract: it names every
/api/ address and method the API answers, and every answer matches it. Each status the
document lists for each operation is produced here, success and refusal alike, and
checked against its schema by openapi-core (the request too, for a success).

Personas:
- guest: the app without an account; chats, talks, reads and clears memory.
- other user: another account; the guest's ids are 404s to them.
- visitor: no guest and no CSRF token; unsafe requests are refused before anything runs.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from openapi_core import OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse

from chat.models import VoiceSession
from memory.models import Memory, MemoryChange, MemoryPass
from tests.chat.conftest import CHAT_A, api_client, owner_of
from tests.db_faults import memory_row_locked, memory_unreadable

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# The document's own addresses and ninja's root (a 404) are not operations of the API.
NOT_OPERATIONS = {"api:openapi-json", "api:openapi-view", "api:api-root"}


def _document(client: Client) -> dict:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


class Contract:
    """Checks each answer against the document and remembers which (path, method, status)
    it has seen."""

    def __init__(self, document: dict) -> None:
        self.openapi = OpenAPI.from_dict(document)
        self.documented = {(path, method.upper(), int(status))
                           for path, operations in document["paths"].items()
                           for method, operation in operations.items() for status in operation["responses"]}
        self.seen: set[tuple[str, str, int]] = set()

    def check(self, response, status: int):
        assert response.status_code == status, response.content[:300]
        request = DjangoOpenAPIRequest(response.wsgi_request)
        self.openapi.validate_response(request, DjangoOpenAPIResponse(response))
        if status < 300:
            self.openapi.validate_request(request)
        self.seen.add((request.path_pattern, request.method.upper(), status))
        return response


def _send(client: Client, method: str, path: str, body: object = None, *, token: bool = True,
          content_type: str = "application/json", **headers: str):
    data = body if isinstance(body, str | bytes) else "" if body is None else json.dumps(body)
    if token:
        headers["X-CSRFToken"] = client.cookies["csrftoken"].value
    return client.generic(method, path, data=data, content_type=content_type, headers=headers)


def _api_routes() -> list[URLPattern]:
    def leaves(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from leaves(pattern.url_patterns, prefix + str(pattern.pattern))
            elif (prefix + str(pattern.pattern)).startswith("api/"):
                yield prefix + str(pattern.pattern), pattern

    return [(route, pattern) for route, pattern in leaves(get_resolver().url_patterns)
            if f"api:{pattern.name}" not in NOT_OPERATIONS]


def test_the_document_names_every_api_address_and_every_method_it_answers(client):
    document = _document(client)
    visitor = Client()
    visitor.get("/api/memory/")  # the csrftoken cookie, as the app gets it

    answered = set()
    for route, _pattern in _api_routes():
        path = "/" + (route.replace("<int:conversation_id>", "1").replace("<int:session_id>", "1")
                      .replace("<int:message_id>", "1"))
        for method in METHODS:
            if _send(visitor, method, path).status_code != 405:
                answered.add(("/" + route.replace("<int:", "{").replace(">", "}"), method))

    named = {(path, method.upper()) for path, operations in document["paths"].items()
             for method in operations}
    assert answered == named
    assert {path for path, _method in named} >= {"/api/conversations/", "/api/memory/",
                                                  "/api/conversations/{conversation_id}/messages/"}


def test_the_document_is_valid_openapi_3_with_the_one_error_shape(client):
    document = _document(client)

    OpenAPI.from_dict(document)  # raises on a document that is not valid OpenAPI
    assert document["openapi"].startswith("3.")
    refusals = [operation["responses"][status]["content"]["application/json"]["schema"]
                for operations in document["paths"].values() for operation in operations.values()
                for status in operation["responses"] if int(status) >= 400]
    assert refusals and all(schema == {"$ref": "#/components/schemas/ErrorOut"} for schema in refusals)


def _pass_changed_the_list(reply_id: int) -> None:
    """What the memory worker records when the reply's pass replaced a line (memory.run)."""
    memory_pass = MemoryPass.objects.get(through_message_id=reply_id)
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status="done", outcome="updated",
                                                        finished_at=timezone.now())
    MemoryChange.objects.create(user_id=memory_pass.user_id, guest_id=memory_pass.guest_id,
                                memory_pass=memory_pass, reply_id=reply_id, kind="replaced",
                                old_text="Eats fish", new_text="Is vegetarian")


def test_every_documented_answer_is_given_and_matches_the_document(
        client, guest, make_user, script_a, settings, private_redis):
    contract = Contract(_document(client))
    check = contract.check
    intruder = api_client(make_user("mallory@example.com"))

    # --- what the app does when all goes well
    chat = check(_send(guest, "POST", "/api/conversations/", {"model": CHAT_A}), 201).json()["id"]
    chat_url, messages_url = f"/api/conversations/{chat}/", f"/api/conversations/{chat}/messages/"
    script_a.reply("Noted.")
    reply = check(_send(guest, "POST", messages_url, {"content": "Remember that I am vegetarian"}), 200)
    memory_url = f"{messages_url}{reply.json()['message_id']}/memory/"
    check(_send(guest, "GET", memory_url), 200)  # pending
    _pass_changed_the_list(reply.json()["message_id"])
    check(_send(guest, "GET", messages_url), 200)
    check(_send(guest, "GET", memory_url), 200)  # updated, with its changes
    check(_send(guest, "GET", "/api/conversations/"), 200)
    check(_send(guest, "GET", chat_url), 200)
    check(_send(guest, "PATCH", chat_url, {"title": "Dinner ideas"}), 200)
    voice = check(_send(guest, "POST", "/api/voice/sessions/"), 201).json()["id"]
    turn_url, end_url = f"/api/voice/sessions/{voice}/transcript/", f"/api/voice/sessions/{voice}/end/"
    check(_send(guest, "POST", turn_url, {"role": "user", "text": "My sister Linh lives in Hue"}), 204)
    Memory.objects.create(**owner_of(guest).lookup, lines=["Is vegetarian"], tokens=3, version=1)
    check(_send(guest, "GET", "/api/memory/"), 200)

    # --- refusals: the request's own faults
    check(_send(guest, "GET", "/api/conversations/?page=0"), 400)
    check(_send(guest, "POST", "/api/conversations/", {"model": "openai/gpt-9"}), 400)
    check(_send(guest, "PATCH", chat_url, {"title": "  "}), 400)
    check(_send(guest, "GET", messages_url + "?before=soon"), 400)
    check(_send(guest, "POST", messages_url, {}), 400)
    check(_send(guest, "POST", "/api/voice/sessions/", "[" * 100), 400)
    check(_send(guest, "POST", turn_url, {"role": "system", "text": "hi"}), 400)
    check(_send(guest, "POST", end_url, ["not", "an", "object"]), 400)
    unsafe = [("POST", "/api/conversations/"), ("PATCH", chat_url), ("POST", messages_url),
              ("POST", "/api/voice/sessions/"), ("POST", turn_url), ("POST", end_url)]
    for method, path in unsafe:
        check(_send(guest, method, path, json.dumps({"content": "x" * 300_000})), 413)
        check(_send(guest, method, path, "content=hi", content_type="application/x-www-form-urlencoded"), 415)
    for method, path in [*unsafe, ("DELETE", chat_url), ("DELETE", "/api/memory/")]:
        check(_send(guest, method, path, token=False), 403)

    # --- another owner's ids, and a session that has ended
    elsewhere = [("GET", chat_url, None), ("PATCH", chat_url, {"title": "Mine"}), ("DELETE", chat_url, None),
                 ("GET", messages_url, None), ("POST", messages_url, {"content": "Hi"}),
                 ("GET", memory_url, None),
                 ("POST", turn_url, {"role": "user", "text": "Hi"}), ("POST", end_url, None)]
    for method, path, body in elsewhere:
        check(_send(intruder, method, path, body), 404)
    check(_send(guest, "POST", end_url), 202)
    check(_send(guest, "POST", turn_url, {"role": "user", "text": "One more thing"}), 409)
    assert VoiceSession.objects.get(pk=voice).ended_at is not None

    # --- a chat model that does not answer: the message is kept, the answer says so
    for kind, status in [("error", 502), ("rate_limit", 503), ("timeout", 504)]:
        script_a.error(kind)
        check(_send(guest, "POST", messages_url, {"content": f"Plan my week ({kind})"}), status)

    # --- memory that cannot be read or cleared
    with memory_unreadable():
        check(_send(guest, "GET", "/api/memory/"), 503)
    with memory_row_locked(owner_of(guest)):
        check(_send(guest, "DELETE", "/api/memory/"), 503)
    check(_send(guest, "DELETE", "/api/memory/"), 200)

    # --- past every rate limit (counted in a Redis of this test's own)
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.REDIS_CACHE_URL = private_redis.url
    settings.WHIZI_RATE_LIMITS = {scope: (0, 0) for scope in settings.WHIZI_RATE_LIMITS}
    limited = [("POST", "/api/conversations/"), ("POST", messages_url), ("POST", "/api/voice/sessions/"),
               ("POST", turn_url), ("POST", end_url), ("GET", "/api/memory/"), ("DELETE", "/api/memory/")]
    for method, path in limited:
        check(_send(guest, method, path), 429)
    settings.WHIZI_RATE_LIMITS_ENABLED = False

    check(_send(guest, "DELETE", chat_url), 204)
    assert contract.seen == contract.documented
