"""Chat is rate limited per owner and per IP with a clear 429, and fails open: Redis
being down must not take chat down with it."""

import pytest

from tests.chat.conftest import OFFLINE, api_client, post_json

# The offline model: the scripted one keeps its queue in the Redis these tests stop.

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def limits(settings, private_redis):
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.REDIS_CACHE_URL = private_redis.url
    settings.WHIZI_RATE_LIMITS = {**settings.WHIZI_RATE_LIMITS, "chat_message": (2, 100)}
    return private_redis


def _send(client, conversation_id, text="hello"):
    return post_json(client, f"/api/conversations/{conversation_id}/messages/", {"content": text})


def test_a_guest_past_the_limit_gets_a_clear_429_and_nothing_is_saved(limits):
    from chat.models import Message

    client = api_client()
    conversation_id = post_json(client, "/api/conversations/", {"model": OFFLINE}).json()["id"]
    assert [_send(client, conversation_id).status_code for _ in range(2)] == [200, 200]

    refused = _send(client, conversation_id, "one too many")

    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert refused.json()["error"]["title"] == "Too many requests"
    assert not Message.objects.filter(content="one too many").exists()


def test_another_guest_is_not_slowed_by_the_first(limits):
    first, second = api_client(), api_client()
    first_id = post_json(first, "/api/conversations/", {"model": OFFLINE}).json()["id"]
    for _ in range(2):
        _send(first, first_id)
    second_id = post_json(second, "/api/conversations/", {"model": OFFLINE}).json()["id"]
    assert _send(second, second_id).status_code == 200


def test_chat_keeps_replying_when_the_rate_limiter_is_down(limits):
    limits.stop()
    client = api_client()
    conversation_id = post_json(client, "/api/conversations/", {"model": OFFLINE}).json()["id"]
    assert [_send(client, conversation_id).status_code for _ in range(3)] == [200, 200, 200]


def test_a_plain_form_post_past_the_limit_gets_the_error_page_not_json(limits, settings):
    from django.test import Client

    settings.WHIZI_CHAT_MODELS = [OFFLINE]
    browser = Client()
    answers = [browser.post("/send/", {"content": "hello"}, HTTP_ACCEPT_LANGUAGE="vi") for _ in range(4)]

    refused = answers[-1]
    assert {answer.status_code for answer in answers[:2]} == {302}
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("text/html")
    assert refused["Retry-After"] == "60"
    assert "Bạn đang thao tác hơi nhanh" in refused.content.decode()
