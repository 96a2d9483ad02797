"""A chat moves the metrics an operator graphs (whizi.metrics, docs/DEPLOY.md → Metrics):
requests by route and status, replies by model and outcome, time to first token, tokens,
memory reads used; and no label ever carries who chatted or what they wrote.

Persona: a guest chatting through the JSON API or the page's stream; a signed-in user for
the labels. Counts only go up (every process of the run counts into one place), so each
test compares before and after.
"""

from __future__ import annotations

import re

import pytest

from tests.chat.conftest import CHAT_A, api_client, post_json
from tests.chat.test_page import _events, _stream
from whizi.metrics import metric_total, metrics_exposition

pytestmark = pytest.mark.django_db(transaction=True)

REPLY_OK = {"model": CHAT_A, "mode": "whole", "outcome": "ok"}
STREAM_OK = {"model": CHAT_A, "mode": "stream", "outcome": "ok"}
API_MESSAGE = {"route": "api:messages", "method": "POST", "status": "200"}
# Every label a series may have; none names a person, a conversation or their words.
LABELS = {"route", "method", "status", "model", "mode", "outcome", "use", "direction", "result", "reason",
          "trigger", "error", "check", "task", "state", "le"}


def _counts() -> dict[str, float]:
    return {
        "replies": metric_total("whizi_chat_replies_total", **REPLY_OK),
        "streamed": metric_total("whizi_chat_replies_total", **STREAM_OK),
        "requests": metric_total("whizi_http_request_duration_seconds_count", **API_MESSAGE),
        "input_tokens": metric_total("whizi_model_tokens_total", use="chat", direction="input"),
        "output_tokens": metric_total("whizi_model_tokens_total", use="chat", direction="output"),
        "reads_used": metric_total("whizi_memory_reads_total", result="used"),
        "first_tokens": metric_total("whizi_chat_time_to_first_token_seconds_count", model=CHAT_A),
    }


def _moved(before: dict[str, float]) -> dict[str, float]:
    after = _counts()
    return {name: after[name] - before[name] for name in before}


def test_a_reply_through_the_api_counts_the_request_the_reply_its_tokens_and_the_memory_read(guest, script_a):
    script_a.reply("Here is a plan for your week.")
    conversation = post_json(guest, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    before = _counts()

    response = post_json(guest, f"/api/conversations/{conversation}/messages/", {"content": "Plan my week"})

    assert response.status_code == 200
    moved = _moved(before)
    assert moved["replies"] == 1 and moved["requests"] == 1 and moved["reads_used"] == 1
    assert moved["input_tokens"] > 0 and moved["output_tokens"] > 0
    assert moved["streamed"] == 0 and moved["first_tokens"] == 0


def test_a_streamed_reply_counts_its_time_to_first_token(script_a):
    script_a.reply("Streaming replies arrive word by word.")
    before = _counts()

    response, chunks = _stream({"content": "Hi", "model": CHAT_A})

    assert [name for name, _ in _events(b"".join(chunks))][-1] == "done"
    moved = _moved(before)
    assert moved["streamed"] == 1 and moved["first_tokens"] == 1
    assert moved["replies"] == 0


def test_every_request_is_counted_by_its_route_never_its_path(guest):
    before = metric_total("whizi_http_request_duration_seconds_count", route="chat:conversation",
                          status="404")

    assert guest.get("/c/987654/").status_code == 404

    assert metric_total("whizi_http_request_duration_seconds_count", route="chat:conversation",
                        status="404") == before + 1
    assert "987654" not in metrics_exposition().decode()


def test_no_label_names_the_person_or_what_they_wrote(make_user, script_a):
    user = make_user("priya.sharma@example.com")
    client = api_client(user)
    script_a.reply("I'll remember that your sister is Anjali.")
    conversation = post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    post_json(client, f"/api/conversations/{conversation}/messages/",
              {"content": "Please remember that my sister is called Anjali."})

    text = metrics_exposition().decode()

    for words in ("priya", "Anjali", "sister", "remember"):
        assert words not in text
    series = [line for line in text.splitlines() if line.startswith("whizi_") and "{" in line]
    assert series
    for line in series:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line[line.index("{"):]))
        assert set(labels) <= LABELS, line
        assert "/" not in labels.get("route", ""), line  # a pattern's name, never a path

