"""Chat on a real provider protocol: the fake OpenAI-protocol server (tests/fake_provider),
reached through litellm's real HTTP path exactly as a deployment reaches OpenAI or vLLM.

What each reply records (the provider's tokens, its cost), what the user is told for
each class of failure (and that it is logged once), the total deadline of a stream, and
the history budget of models litellm does or does not know.
"""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest

from chat.models import Conversation, Message
from chat.prompt import BASE_SYSTEM_PROMPT
from memory.selectors import memory_block_max_tokens
from memory.tokens import count_tokens
from tests.chat.conftest import owner_of, post_json
from tests.chat.test_page import _events, _stream
from whizi.metrics import metric_total

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow,
              pytest.mark.usefixtures("stream_path")]  # every test on both stream paths

PRICED = "openai/gpt-4o-mini"  # litellm prices it; the fake provider answers for it
HUGE = "openai/gpt-4.1-mini"  # a window of about a million tokens
LOCAL = "openai/local-llm"  # a self-hosted model nobody has figures for


@pytest.fixture(autouse=True)
def models(settings, fake_provider):
    settings.WHIZI_CHAT_MODELS = [PRICED, HUGE, LOCAL]
    settings.WHIZI_MODELS = {}
    settings.WHIZI_MODEL_ROUTER = {}
    return settings


def _start(client, model: str) -> int:
    response = post_json(client, "/api/conversations/", {"model": model})
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _say(client, conversation_id: int, content: str):
    return post_json(client, f"/api/conversations/{conversation_id}/messages/", {"content": content})


def _long_history(conversation_id: int, *, turns: int, text: str) -> None:
    conversation = Conversation.objects.get(pk=conversation_id)
    for index in range(turns):
        content = f"turn {index} {text}"
        Message.objects.create(conversation=conversation, role="user" if index % 2 == 0 else "assistant",
                               content=content, content_tokens=count_tokens(content))


def _history_tokens(body: dict) -> int:
    return sum(count_tokens(m["content"]) for m in body["messages"][:-1] if m["role"] != "system")


# ---------------------------------------------------------------- usage and cost

def test_a_reply_records_the_providers_tokens_and_its_cost(guest, fake_provider):
    fake_provider.reply("gpt-4o-mini", "Hello Ann.", usage={"prompt_tokens": 1000, "completion_tokens": 200})
    conversation_id = _start(guest, PRICED)

    assert _say(guest, conversation_id, "Hi").status_code == 200

    reply = Message.objects.get(role="assistant")
    assert (reply.input_tokens, reply.output_tokens, reply.cost) == (1000, 200, Decimal("0.00027000"))
    [sent] = fake_provider.requests("gpt-4o-mini")
    assert sent["max_tokens"] == 2048  # WHIZI_CHAT_MAX_TOKENS
    # A pseudonym for the provider's abuse checks: stable per owner, never the owner's id.
    assert len(sent["user"]) == 32 and str(owner_of(guest).guest_id) not in sent["user"]


def test_a_streamed_reply_records_the_providers_tokens_and_its_cost(fake_provider):
    fake_provider.reply("gpt-4o-mini", "Streaming with usage.", chunks=3,
                        usage={"prompt_tokens": 2000, "completion_tokens": 100})

    response, chunks = _stream({"content": "Hello", "model": PRICED})

    assert [name for name, _ in _events(b"".join(chunks))][-1] == "done"
    reply = Message.objects.get(role="assistant")
    assert (reply.input_tokens, reply.output_tokens, reply.cost) == (2000, 100, Decimal("0.00036000"))
    assert fake_provider.requests("gpt-4o-mini")[0]["stream_options"] == {"include_usage": True}


def test_a_reply_from_a_fallback_is_recorded_as_the_fallbacks(guest, fake_provider, settings):
    settings.WHIZI_MODELS = {PRICED: {"fallbacks": [LOCAL]}}
    fake_provider.rate_limit("gpt-4o-mini", retry_after=30).reply("local-llm", "From the fallback.")
    conversation_id = _start(guest, PRICED)

    body = _say(guest, conversation_id, "Hi").json()

    assert (body["reply"], body["model"]) == ("From the fallback.", LOCAL)
    reply = Message.objects.get(role="assistant")
    assert (reply.model, reply.cost) == (LOCAL, None)  # nobody can price the local model


# ---------------------------------------------------------------- failures

@pytest.mark.parametrize(("script", "kind", "status", "retryable", "words"), [
    (lambda p: p.bad_key("gpt-4o-mini"), "auth", 503, False, "not available right now"),
    (lambda p: p.model_not_found("gpt-4o-mini"), "not_found", 503, False, "not available right now"),
    (lambda p: p.quota_exceeded("gpt-4o-mini"), "quota", 503, False, "not available right now"),
    (lambda p: p.context_exceeded("gpt-4o-mini"), "context", 502, False, "too long for this model"),
    (lambda p: p.rate_limit("gpt-4o-mini", retry_after=7), "rate_limit", 503, True, "busy right now"),
    (lambda p: p.server_error("gpt-4o-mini", 500), "server", 502, True, "could not answer"),
], ids=["auth", "not_found", "quota", "context", "rate_limit", "server"])
def test_each_class_of_failure_is_told_and_logged_once(guest, fake_provider, settings, caplog, script, kind,
                                                       status, retryable, words):
    settings.WHIZI_CHAT_RETRIES = 0
    script(fake_provider)
    conversation_id = _start(guest, PRICED)

    with caplog.at_level(logging.INFO):
        caplog.clear()
        response = _say(guest, conversation_id, "Plan my week")

    assert response.status_code == status
    error = response.json()["error"]
    assert error["retryable"] is retryable and words in error["message"]
    if kind == "rate_limit":
        assert response["Retry-After"] == "7"  # the provider's own, passed on
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 1, [r.getMessage() for r in problems]
    assert f"failed: {kind} (" in problems[0].getMessage()
    assert list(Message.objects.values_list("role", "content")) == [("user", "Plan my week")]


def test_a_short_rate_limit_is_waited_out_and_the_reply_arrives(guest, fake_provider):
    fake_provider.rate_limit("gpt-4o-mini", retry_after=1).reply("gpt-4o-mini", "Here is your week.")
    conversation_id = _start(guest, PRICED)

    response = _say(guest, conversation_id, "Plan my week")

    assert response.status_code == 200, response.content
    assert response.json()["reply"] == "Here is your week."
    assert len(fake_provider.requests("gpt-4o-mini")) == 2


def test_a_short_rate_limit_is_waited_out_before_a_stream_starts(fake_provider):
    fake_provider.rate_limit("gpt-4o-mini", retry_after=1).reply("gpt-4o-mini", "Streamed after the wait.",
                                                                 chunks=2)

    response, chunks = _stream({"content": "Hello", "model": PRICED})

    events = _events(b"".join(chunks))
    assert [name for name, _ in events][-1] == "done"
    assert "".join(data for name, data in events if name == "token") == "Streamed after the wait."
    assert len(fake_provider.requests("gpt-4o-mini")) == 2


@pytest.mark.parametrize(("retry_after", "chat_timeout"), [(7, 60), (2, 1.5)],
                         ids=["longer-than-worth-waiting", "longer-than-the-deadline-left"])
def test_a_long_rate_limit_is_told_at_once_with_the_providers_retry_after(guest, fake_provider, settings,
                                                                         retry_after, chat_timeout):
    settings.WHIZI_CHAT_TIMEOUT = chat_timeout
    fake_provider.rate_limit("gpt-4o-mini", retry_after=retry_after).reply("gpt-4o-mini", "Too late.")
    conversation_id = _start(guest, PRICED)

    response = _say(guest, conversation_id, "Plan my week")

    assert response.status_code == 503
    assert response["Retry-After"] == str(retry_after)
    assert len(fake_provider.requests("gpt-4o-mini")) == 1


def test_a_rate_limit_is_waited_out_once_only(guest, fake_provider):
    fake_provider.rate_limit("gpt-4o-mini", retry_after=1).rate_limit("gpt-4o-mini", retry_after=1)
    conversation_id = _start(guest, PRICED)

    response = _say(guest, conversation_id, "Plan my week")

    assert response.status_code == 503 and response["Retry-After"] == "1"
    assert len(fake_provider.requests("gpt-4o-mini")) == 2
    assert list(Message.objects.values_list("role", flat=True)) == ["user"]


STREAM_FAILED = {"model": PRICED, "mode": "stream", "outcome": "server"}


def test_a_stream_that_breaks_is_an_error_event_counted_for_monitoring(fake_provider, caplog):
    before = metric_total("whizi_chat_replies_total", **STREAM_FAILED)
    fake_provider.error_mid_stream("gpt-4o-mini", "one two three four", after_chunks=2, chunks=4)

    with caplog.at_level(logging.INFO):
        response, chunks = _stream({"content": "Hello", "model": PRICED})

    events = _events(b"".join(chunks))
    names = [name for name, _ in events]
    assert names[0] == "start" and set(names[1:-1]) == {"token"} and names[-1] == "error"
    assert "".join(data for name, data in events if name == "token") == "one two "  # what came, kept
    assert events[-1][1]["retryable"] is True
    assert metric_total("whizi_chat_replies_total", **STREAM_FAILED) == before + 1
    problems = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 1 and "failed: server" in problems[0] and "mid-stream" in problems[0]
    assert list(Message.objects.values_list("role", flat=True)) == ["user"]


def test_a_fast_500_token_reply_reaches_the_page_in_far_fewer_events(fake_provider):
    # One token a chunk, 4 ms apart (250 tokens a second): the page gets an event per
    # 40 ms of text (WHIZI_STREAM_FLUSH_MS), not one per token.
    words = [f"w{i} " for i in range(500)]
    fake_provider.reply("gpt-4o-mini", "".join(words), chunks=500, chunk_latency=0.004)

    response, chunks = _stream({"content": "Hello", "model": PRICED})

    events = _events(b"".join(chunks))
    tokens = [data for name, data in events if name == "token"]
    assert "".join(tokens) == "".join(words)
    assert 2 <= len(tokens) <= 100
    assert events[-1][0] == "done"
    assert Message.objects.get(role="assistant").content.strip() == "".join(words).strip()


def test_the_chat_timeout_is_a_total_deadline_for_a_stream(fake_provider, settings):
    # One word every 0.3 s never trips a per-read timeout: before, this ran for as long as
    # the words kept coming.
    settings.WHIZI_CHAT_TIMEOUT = 1.0
    fake_provider.drip("gpt-4o-mini", " ".join(f"word{i}" for i in range(20)), every=0.3)

    response, chunks = _stream({"content": "Hello", "model": PRICED})

    events = _events(b"".join(chunks))
    assert events[-1][0] == "error" and events[-1][1]["status"] == 504
    assert 0 < sum(name == "token" for name, _ in events) < 20
    assert list(Message.objects.values_list("role", flat=True)) == ["user"]


# ---------------------------------------------------------------- the history budget

def test_a_huge_window_does_not_mean_a_huge_history(guest, fake_provider, settings):
    settings.WHIZI_HISTORY_MAX_TOKENS = 1500
    conversation_id = _start(guest, HUGE)
    _long_history(conversation_id, turns=40, text="lorem ipsum " * 200)

    assert _say(guest, conversation_id, "And now?").status_code == 200

    sent = fake_provider.requests("gpt-4.1-mini")[0]
    assert 0 < _history_tokens(sent) <= 1500
    assert sent["messages"][-2]["content"].startswith("turn 39 ")  # the newest turns are kept


def test_a_configured_window_is_used_for_a_model_litellm_does_not_know(guest, fake_provider, settings):
    settings.WHIZI_HISTORY_MAX_TOKENS = 100_000
    settings.WHIZI_MODELS = {LOCAL: {"context_window": 32_768, "token_factor": 1.0}}
    conversation_id = _start(guest, LOCAL)
    _long_history(conversation_id, turns=60, text="lorem ipsum " * 200)

    _say(guest, conversation_id, "And now?")

    tokens = _history_tokens(fake_provider.requests("local-llm")[0])
    assert 8_192 < tokens <= 32_768 - 2_048  # more than the unknown-model default allows


def test_an_unknown_tokenizer_gets_a_safety_margin(guest, fake_provider):
    # Vietnamese costs up to 2x the o200k_base count on other tokenizers: a model of 8,192
    # tokens with an unknown tokenizer must not be sent 6,000 o200k tokens of it.
    conversation_id = _start(guest, LOCAL)
    _long_history(conversation_id, turns=200, text="Hôm nay trời đẹp, chúng ta đi dạo bờ sông nhé.")

    _say(guest, conversation_id, "Còn bây giờ thì sao?")

    sent = fake_provider.requests("local-llm")[0]
    assert _history_tokens(sent) > 0
    # Room is kept for the largest memory block, whether or not one is sent: the system
    # messages are budgeted at the longer of what was sent (no list: the base prompt with
    # the memory rules) and the base prompt beside the largest block.
    turns = sum(count_tokens(m["content"]) + 4 for m in sent["messages"] if m["role"] != "system")
    system = sum(count_tokens(m["content"]) + 4 for m in sent["messages"] if m["role"] == "system")
    budgeted = turns + max(system, count_tokens(BASE_SYSTEM_PROMPT) + 4 + memory_block_max_tokens() + 4)
    assert budgeted * 2.5 <= 8_192 - 2_048  # the window, less the longest reply asked for


def test_the_picker_shows_display_names(guest, settings):
    settings.WHIZI_MODELS = {PRICED: {"display_name": "GPT-4o mini"}}

    html = guest.get("/").content.decode()

    assert f'<option value="{PRICED}" selected>GPT-4o mini</option>' in html
    assert f'<option value="{HUGE}">gpt-4.1-mini</option>' in html
