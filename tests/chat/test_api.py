"""The JSON API for conversations and messages (docs/DESIGN.md §4): guests and users, CSRF
enforced, and every refusal a clear 4xx JSON error that changes nothing."""

import json

import pytest

from chat.limits import MAX_MESSAGE_CHARS
from chat.models import Conversation, Message
from tests.chat.conftest import CHAT_A, CHAT_B, api_client, post_json

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _start(client, **body) -> int:
    response = post_json(client, "/api/conversations/", body or None)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _messages_url(conversation_id) -> str:
    return f"/api/conversations/{conversation_id}/messages/"


def _assert_error(response, status):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["title"] and error["message"]
    return error


# --- conversations


def test_a_guest_starts_a_conversation_on_the_first_configured_model(guest):
    response = post_json(guest, "/api/conversations/")

    assert response.status_code == 201
    body = response.json()
    assert body == {"id": body["id"], "model": CHAT_A}
    assert Conversation.objects.get(pk=body["id"]).guest_id is not None


def test_a_conversation_can_start_on_any_configured_model(guest):
    response = post_json(guest, "/api/conversations/", {"model": CHAT_B})

    assert response.status_code == 201 and response.json()["model"] == CHAT_B


def test_an_unknown_model_is_refused_and_nothing_is_created(guest):
    error = _assert_error(post_json(guest, "/api/conversations/", {"model": "openai/gpt-9"}), 400)

    assert error["field"] == "model"
    assert Conversation.objects.count() == 0


def test_posts_without_the_csrf_token_are_refused(guest):
    response = guest.post("/api/conversations/", data="{}", content_type="application/json")

    assert response.status_code == 403
    assert Conversation.objects.count() == 0


def test_a_signed_in_user_chats_through_the_api(make_user, script_a):
    user = make_user()
    client = api_client(user)
    script_a.reply("Hello, account holder.")
    conversation_id = _start(client)

    response = post_json(client, _messages_url(conversation_id), {"content": "Hi"})

    reply_id = Message.objects.get(role="assistant").pk
    assert response.json() == {"reply": "Hello, account holder.", "message_id": reply_id, "model": CHAT_A,
                               "turns": 2}
    assert Conversation.objects.get(pk=conversation_id).user_id == user.pk


# --- messages: bad input changes nothing


@pytest.mark.parametrize(
    "body",
    [
        {"content": ""},
        {"content": "   \n "},
        {"content": "x" * (MAX_MESSAGE_CHARS + 1)},
        {"content": 42},
        {"content": ["hi"]},
        {},
        {"content": "Hi", "model": "openai/gpt-9"},
        {"content": "Hi", "model": 7},
    ],
    ids=["empty", "blank", "oversized", "number", "list", "missing", "unknown-model", "model-not-text"],
)
def test_bad_messages_get_a_400_and_nothing_is_saved(guest, script_a, body):
    conversation_id = _start(guest)

    _assert_error(post_json(guest, _messages_url(conversation_id), body), 400)

    assert Message.objects.count() == 0
    assert Conversation.objects.get(pk=conversation_id).model == CHAT_A
    assert script_a.calls() == []


def test_malformed_json_gets_a_400(guest):
    conversation_id = _start(guest)
    token = guest.cookies["csrftoken"].value

    response = guest.post(_messages_url(conversation_id), data='{"content": "Hi"',
                          content_type="application/json", headers={"X-CSRFToken": token})

    assert "not valid JSON" in _assert_error(response, 400)["message"]
    assert Message.objects.count() == 0


def test_a_json_value_that_is_not_an_object_gets_a_400(guest):
    conversation_id = _start(guest)

    _assert_error(post_json(guest, _messages_url(conversation_id), ["Hi"]), 400)
    assert Message.objects.count() == 0


def test_a_body_that_is_not_json_gets_a_415(guest):
    conversation_id = _start(guest)
    token = guest.cookies["csrftoken"].value

    response = guest.post(_messages_url(conversation_id), data={"content": "Hi"},
                          headers={"X-CSRFToken": token})

    _assert_error(response, 415)
    assert Message.objects.count() == 0


def test_an_oversized_body_gets_a_413(guest):
    conversation_id = _start(guest)
    token = guest.cookies["csrftoken"].value
    body = json.dumps({"content": "Hi", "padding": "x" * 300_000})

    response = guest.post(_messages_url(conversation_id), data=body, content_type="application/json",
                          headers={"X-CSRFToken": token})

    _assert_error(response, 413)
    assert Message.objects.count() == 0


def test_the_wrong_method_gets_a_json_405(guest):
    response = guest.put("/api/conversations/", headers={"X-CSRFToken": guest.cookies["csrftoken"].value})

    _assert_error(response, 405)
    assert response["Allow"] == "GET, POST"


# --- messages: other people's conversations


def test_someone_elses_conversation_is_a_404_and_stays_untouched(guest, make_user, script_a):
    # The guest's conversation; another account must not be able to post into it.
    conversation_id = _start(guest)
    intruder = api_client(make_user("mallory@example.com"))

    _assert_error(post_json(intruder, _messages_url(conversation_id), {"content": "Hi"}), 404)
    _assert_error(post_json(api_client(), _messages_url(conversation_id), {"content": "Hi"}), 404)

    assert Message.objects.count() == 0
    assert script_a.calls() == []


def test_an_unknown_conversation_is_a_404(guest):
    _assert_error(post_json(guest, _messages_url(999_999), {"content": "Hi"}), 404)


# --- chat-model failures


@pytest.mark.parametrize(
    ("kind", "status", "retryable"),
    [("timeout", 504, True), ("rate_limit", 503, True), ("error", 502, True), ("rejected", 502, False)],
)
def test_a_model_failure_is_a_clear_error_and_the_message_is_kept(guest, script_a, kind, status, retryable):
    script_a.error(kind)
    conversation_id = _start(guest)

    response = post_json(guest, _messages_url(conversation_id), {"content": "Plan my week"})

    error = _assert_error(response, status)
    assert error["retryable"] is retryable
    assert "saved" in error["message"]
    if kind in ("timeout", "rate_limit"):
        assert int(response["Retry-After"]) > 0
    assert list(Message.objects.values_list("role", "content")) == [("user", "Plan my week")]


def test_sending_again_after_a_failure_answers_the_saved_message_once(guest, script_a):
    script_a.error("timeout").reply("Here is your week.")
    conversation_id = _start(guest)
    post_json(guest, _messages_url(conversation_id), {"content": "Plan my week"})

    response = post_json(guest, _messages_url(conversation_id), {"content": "Plan my week"})

    reply_id = Message.objects.get(role="assistant").pk
    assert response.json() == {"reply": "Here is your week.", "message_id": reply_id, "model": CHAT_A,
                               "turns": 2}
    assert list(Message.objects.values_list("role", "content")) == [
        ("user", "Plan my week"), ("assistant", "Here is your week."),
    ]


@pytest.mark.parametrize(
    ("language", "title"),
    [("vi", "Yêu cầu không hợp lệ"), ("zh-hans", "无效的请求"), ("ja", "無効なリクエストです"),
     ("ko", "잘못된 요청"), ("ms", "Permintaan tidak sah"), ("en", "Invalid request")],
)
def test_errors_follow_the_requests_language(guest, language, title):
    response = post_json(guest, "/api/conversations/", {"model": "openai/gpt-9"},
                         HTTP_ACCEPT_LANGUAGE=language)

    assert _assert_error(response, 400)["title"] == title


def test_a_model_failure_is_explained_in_the_requests_language(guest, script_a):
    script_a.error("timeout")
    conversation_id = _start(guest)

    response = post_json(guest, _messages_url(conversation_id), {"content": "Xin chào"},
                         HTTP_ACCEPT_LANGUAGE="vi")

    error = _assert_error(response, 504)
    assert error["title"] == "Không nhận được câu trả lời"
    assert "đã được lưu" in error["message"]


# --- hostile bodies


@pytest.mark.parametrize("path", ["/api/conversations/", "messages", "/api/voice/sessions/",
                                  "transcript", "end"])
def test_a_deeply_nested_body_gets_a_json_400_on_every_endpoint(guest, path):
    conversation_id = _start(guest)
    voice = post_json(guest, "/api/voice/sessions/").json()["id"]
    url = {"messages": _messages_url(conversation_id),
           "transcript": f"/api/voice/sessions/{voice}/transcript/",
           "end": f"/api/voice/sessions/{voice}/end/"}.get(path, path)

    for body in ("[" * 1_000, '{"content": ' + "[" * 50 + "]" * 50 + "}", "[" * 100_000):
        response = guest.post(url, data=body, content_type="application/json",
                              headers={"X-CSRFToken": guest.cookies["csrftoken"].value})
        _assert_error(response, 400)

    assert Message.objects.count() == 0


def test_message_size_is_counted_in_characters_not_escaped_bytes(guest, script_a):
    """14,000 CJK characters sent the way Python's json.dumps sends them (\\uXXXX, 6 bytes
    each) are well inside the 20,000-character limit."""
    script_a.reply("Received.")
    conversation_id = _start(guest)
    text = "記" * 14_000
    body = json.dumps({"content": text})
    assert len(body.encode()) > MAX_MESSAGE_CHARS * 4

    response = guest.post(_messages_url(conversation_id), data=body, content_type="application/json",
                          headers={"X-CSRFToken": guest.cookies["csrftoken"].value})

    assert response.status_code == 200, response.content[:300]
    assert Message.objects.filter(role="user").get().content == text


def test_one_character_over_the_limit_is_refused_by_its_count(guest):
    conversation_id = _start(guest)
    body = json.dumps({"content": "🙂" * (MAX_MESSAGE_CHARS + 1)})  # 12 bytes each, escaped

    error = _assert_error(guest.post(_messages_url(conversation_id), data=body,
                                     content_type="application/json",
                                     headers={"X-CSRFToken": guest.cookies["csrftoken"].value}), 400)

    assert str(MAX_MESSAGE_CHARS) in error["message"].replace(",", "")
    assert Message.objects.count() == 0


def test_api_answers_are_never_stored_by_the_browser(guest, script_a):
    script_a.reply("Hello.")
    conversation_id = _start(guest)
    answers = [post_json(guest, _messages_url(conversation_id), {"content": "Hi"}),
               guest.get("/api/memory/"), post_json(guest, "/api/conversations/")]

    assert all("no-store" in response["Cache-Control"] for response in answers)
