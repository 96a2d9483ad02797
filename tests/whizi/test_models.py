"""The model layer as a deployment uses it: litellm's Router over Whizi's catalogue, through
litellm's real HTTP path to the fake OpenAI-protocol provider (tests/fake_provider).

Retries, fallbacks, per-model endpoints and keys, total deadlines, usage and cost.
"""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.fake_provider import ProviderServer
from whizi.llm import ModelError, acomplete, astream, complete, model_display_name
from whizi.llm.catalog import models_file_load

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("stream_path")]

MESSAGES = [{"role": "user", "content": "Hi there"}]


@pytest.fixture
def models(settings):
    """Configure models the way WHIZI_MODELS_FILE does."""

    def configure(**entries: dict) -> None:
        settings.WHIZI_MODELS = entries

    settings.WHIZI_MODEL_ROUTER = {}
    return configure


def ask(model: str, timeout: float = 10, **params):
    return asyncio.run(acomplete(model=model, messages=MESSAGES, timeout=timeout, **params))


def streamed(model: str, timeout: float = 10):
    reply = astream(model=model, messages=MESSAGES, timeout=timeout)

    async def collect() -> list[str]:
        return [piece async for piece in reply]

    return asyncio.run(collect()), reply


# ---------------------------------------------------------------- retries and fallbacks

def test_a_rate_limited_model_hands_over_to_its_fallback_at_once(fake_provider, models):
    models(fast={"model": "openai/fast", "fallbacks": ["careful"]}, careful={"model": "openai/careful"})
    fake_provider.rate_limit("fast", retry_after=20).reply("careful", "From the fallback.")

    answer = ask("fast")

    assert (answer.text, answer.model) == ("From the fallback.", "careful")
    assert len(fake_provider.requests("fast")) == 1  # not waited for, not retried


def test_server_errors_are_retried_on_the_same_model(fake_provider, models, settings):
    settings.WHIZI_CHAT_RETRIES = 2
    models(fast={"model": "openai/fast", "fallbacks": ["careful"]}, careful={"model": "openai/careful"})
    fake_provider.server_error("fast", 500).server_error("fast", 503).reply("fast", "Third time.")

    answer = ask("fast")

    assert (answer.text, answer.model) == ("Third time.", "fast")
    assert len(fake_provider.requests("fast")) == 3
    assert fake_provider.requests("careful") == []


def test_a_model_that_keeps_failing_falls_back_after_its_retries(fake_provider, models):
    models(fast={"model": "openai/fast", "retries": 1, "fallbacks": ["careful"]},
           careful={"model": "openai/careful"})
    fake_provider.server_error("fast").server_error("fast").reply("careful", "Fallback.")

    assert ask("fast").model == "careful"
    assert len(fake_provider.requests("fast")) == 2


def test_a_rate_limit_with_no_fallback_comes_back_with_the_providers_retry_after(fake_provider, models):
    fake_provider.rate_limit("solo", retry_after=7)

    with pytest.raises(ModelError) as caught:
        ask("openai/solo")

    assert (caught.value.kind, caught.value.retryable, caught.value.retry_after) == ("rate_limit", True, 7)
    assert len(fake_provider.requests("solo")) == 1


@pytest.mark.parametrize(("script", "kind"), [
    (lambda p: p.bad_key("solo"), "auth"), (lambda p: p.model_not_found("solo"), "not_found"),
    (lambda p: p.quota_exceeded("solo"), "quota"), (lambda p: p.context_exceeded("solo"), "context"),
])
def test_failures_that_retrying_cannot_fix_are_not_retried(fake_provider, settings, script, kind):
    settings.WHIZI_CHAT_RETRIES = 3
    script(fake_provider)

    with pytest.raises(ModelError) as caught:
        ask("openai/solo")

    assert (caught.value.kind, caught.value.retryable) == (kind, False)
    assert len(fake_provider.requests("solo")) == 1


def test_one_failing_request_does_not_lock_the_model_for_everyone_else(fake_provider):
    fake_provider.model_not_found("solo")

    with pytest.raises(ModelError):
        ask("openai/solo")
    # No cooldown: the next request reaches the provider.
    assert ask("openai/solo").text == "Hello from the fake provider."


# ---------------------------------------------------------------- endpoints and keys

def test_each_model_reaches_its_own_endpoint_with_its_own_key(fake_provider, models, monkeypatch):
    other = ProviderServer().start()
    try:
        monkeypatch.setenv("CHAT_PROVIDER_KEY", "sk-chat")
        monkeypatch.setenv("MEMORY_PROVIDER_KEY", "sk-memory")
        models(chat={"model": "openai/chat-x", "api_base": fake_provider.base_url,
                     "api_key_env": "CHAT_PROVIDER_KEY"},
               memory={"model": "openai/memory-x", "api_base": other.base_url,
                       "api_key_env": "MEMORY_PROVIDER_KEY"})

        ask("chat")
        complete(model="memory", messages=MESSAGES, timeout=10)

        assert fake_provider.keys("chat-x") == ["sk-chat"] and fake_provider.requests("memory-x") == []
        assert other.provider.keys("memory-x") == ["sk-memory"] and other.provider.requests("chat-x") == []
    finally:
        other.stop()


def test_configured_limits_travel_with_each_request(fake_provider, models):
    models(fast={"model": "openai/fast", "max_tokens": 321})

    ask("fast")
    ask("fast", max_tokens=99)  # the caller's own value wins

    first, second = fake_provider.requests("fast")
    assert (first["max_tokens"], second["max_tokens"]) == (321, 99)


# ---------------------------------------------------------------- deadlines

def test_a_stream_that_drips_is_cut_at_the_total_deadline(fake_provider):
    # One word every 0.3 s never trips litellm's per-read timeout; ours covers the whole reply.
    fake_provider.drip("slow", "one two three four five six seven eight nine ten", every=0.3)

    with pytest.raises(ModelError) as caught:
        streamed("openai/slow", timeout=1.0)

    assert caught.value.kind == "timeout"


def test_retries_of_a_hanging_model_stay_within_the_total_deadline(fake_provider, settings):
    settings.WHIZI_CHAT_RETRIES = 5
    for _ in range(6):
        fake_provider.hang("stuck")

    with pytest.raises(ModelError) as caught:
        ask("openai/stuck", timeout=1.0)

    assert caught.value.kind == "timeout"
    assert len(fake_provider.requests("stuck")) < 6  # the deadline ended it, not the retries


def test_a_stream_that_fails_before_its_first_token_falls_back(fake_provider, models):
    models(fast={"model": "openai/fast", "retries": 0, "fallbacks": ["careful"]},
           careful={"model": "openai/careful"})
    fake_provider.error_mid_stream("fast", "never seen", after_chunks=0)
    fake_provider.reply("careful", "From the fallback, streamed.", chunks=3,
                        usage={"prompt_tokens": 30, "completion_tokens": 5})

    pieces, reply = streamed("fast")

    assert "".join(pieces) == "From the fallback, streamed."
    assert (reply.completion.model, reply.completion.output_tokens) == ("careful", 5)


def test_a_stream_cut_after_its_first_tokens_is_a_server_failure(fake_provider):
    fake_provider.drop_mid_stream("cut", "one two three four", after_chunks=2, chunks=4)
    reply = astream(model="openai/cut", messages=MESSAGES, timeout=10)
    received: list[str] = []

    async def collect() -> None:
        async for piece in reply:
            received.append(piece)

    with pytest.raises(ModelError) as caught:
        asyncio.run(collect())

    assert "".join(received) == "one two "  # what came before the cut was handed on
    assert (caught.value.kind, caught.value.retryable) == ("server", True)
    assert len(fake_provider.requests("cut")) == 1  # after the first token: no retry


def test_openai_protocol_streams_are_read_lean_and_others_by_litellm(fake_provider, stream_path):
    fake_provider.reply("lean", "Hello there.", chunks=2)

    _, openai_protocol = streamed("openai/lean")
    _, offline = streamed("whizi/offline")

    assert openai_protocol.lean is (stream_path == "lean")
    assert offline.lean is False  # a provider of another protocol keeps litellm's stream


def test_a_whole_answer_from_an_openai_protocol_model_is_read_as_a_lean_stream(fake_provider, stream_path):
    # The JSON API's answer: asked as a stream and joined on the lean path (a third of the
    # CPU of litellm's whole response), with the same usage, cost and finish reason.
    fake_provider.reply("gpt-4o-mini", "Cut short", chunks=2, finish_reason="length",
                        usage={"prompt_tokens": 1000, "completion_tokens": 200})

    answer = ask("openai/gpt-4o-mini")

    assert (answer.text, answer.finish_reason) == ("Cut short", "length")
    assert (answer.input_tokens, answer.output_tokens, answer.cost) == (1000, 200, Decimal("0.00027000"))
    assert bool(fake_provider.requests("gpt-4o-mini")[0].get("stream")) is (stream_path == "lean")


@pytest.mark.parametrize("provider", ["openai", "hosted_vllm", "azure"])
def test_each_openai_protocol_provider_streams_its_whole_answer(fake_provider, models, stream_path,
                                                                     monkeypatch, provider):
    # Each is reached on its own path, with its own key, as a deployment configures it, and
    # read to its last word; OpenAI's and Azure's streams lean (whizi.llm.lean.LEAN_PROVIDERS),
    # litellm's vLLM provider by litellm.
    monkeypatch.setenv("DEPLOYMENT_KEY", "sk-deployment")
    entry = {"model": f"{provider}/dep", "api_base": fake_provider.base_url, "api_key_env": "DEPLOYMENT_KEY"}
    if provider == "azure":
        entry.update(api_base=fake_provider.base_url.removesuffix("/v1"), api_version="2024-10-21")
    models(chat=entry)
    fake_provider.reply("dep", "Xin chào, mình là Whizi.", chunks=5,
                        usage={"prompt_tokens": 9, "completion_tokens": 7})

    pieces, reply = streamed("chat")

    assert "".join(pieces) == "Xin chào, mình là Whizi."
    assert reply.lean is (stream_path == "lean" and provider != "hosted_vllm")
    assert fake_provider.keys("dep") == ["sk-deployment"]
    assert (reply.completion.input_tokens, reply.completion.output_tokens) == (9, 7)


# ---------------------------------------------------------------- the request, made lean

def _asked(fake_provider, model: str, settings, *, lean: bool, **params) -> tuple[dict, str, str]:
    """The body, key and client of one streamed call of `model`, on one path."""
    settings.WHIZI_LEAN_STREAM = lean
    before = len(fake_provider.requests(model.removeprefix("openai/")))
    reply = astream(model=model, messages=[{"role": "system", "content": "Be brief."}, *MESSAGES],
                    timeout=10, **params)

    async def collect() -> str:
        return "".join([piece async for piece in reply])

    assert asyncio.run(collect()) == "Hi."
    name = model.removeprefix("openai/")
    return (fake_provider.requests(name)[before], fake_provider.keys(name)[before],
            fake_provider.agents(name)[before])


@pytest.mark.parametrize("name", ["gpt-4o-mini", "gpt-5-mini", "o1-mini", "local-llama"])
def test_a_chat_stream_is_asked_for_with_the_request_litellm_would_send(fake_provider, settings, name):
    # The lean request (whizi.llm.lean_request) sends what litellm's own would, for models
    # litellm treats differently: `max_tokens` renamed for reasoning models, `user` left
    # out where litellm leaves it out.
    fake_provider.set_default(name, "Hi.", chunks=2)

    lean = _asked(fake_provider, f"openai/{name}", settings, lean=True, max_tokens=55, user="u-1")
    litellms = _asked(fake_provider, f"openai/{name}", settings, lean=False, max_tokens=55, user="u-1")

    assert lean[:2] == litellms[:2]
    assert "OpenAI/Python" in litellms[2] and "OpenAI/Python" not in lean[2]  # made by each


def test_a_request_the_process_changes_is_left_to_litellm(fake_provider, settings, monkeypatch):
    # An organisation header (or litellm's own headers, callbacks, a proxy) is litellm's to
    # send: the request goes through it, and its stream is still read lean.
    fake_provider.set_default("gpt-4o-mini", "Hi.", chunks=2)
    monkeypatch.setenv("OPENAI_ORGANIZATION", "org-whizi")

    _body, _key, agent = _asked(fake_provider, "openai/gpt-4o-mini", settings, lean=True, max_tokens=55)

    assert "OpenAI/Python" in agent


@pytest.mark.parametrize(("status", "body"), [
    (422, {"error": {"message": "Extra inputs are not permitted: user", "type": "invalid_request_error"}}),
    (400, {"error": {"message": "Could not finish the message because max_tokens or model output limit "
                                "was reached. Please try again with higher max_tokens.",
                     "type": "invalid_request_error"}}),
])
def test_an_answer_litellm_turns_into_another_is_asked_again_through_it(fake_provider, settings, status,
                                                                       body):
    # litellm asks again without the parameters a 422 names, and answers an output budget
    # too small for one token with an empty reply: the lean request leaves both to it.
    fake_provider.error("gpt-4o-mini", status, body).set_default("gpt-4o-mini", "Hi.", chunks=2)

    _asked(fake_provider, "openai/gpt-4o-mini", settings, lean=True, max_tokens=55)

    lean, litellms = fake_provider.agents("gpt-4o-mini")  # asked lean, then again by litellm
    assert "OpenAI/Python" not in lean and "OpenAI/Python" in litellms


# ---------------------------------------------------------------- usage and cost

def test_a_streamed_answer_reports_the_providers_usage_and_its_cost(fake_provider):
    fake_provider.reply("gpt-4o-mini", "one two three", chunks=3,
                        usage={"prompt_tokens": 1000, "completion_tokens": 200})

    pieces, reply = streamed("openai/gpt-4o-mini")

    assert "".join(pieces) == "one two three"
    completion = reply.completion
    assert (completion.input_tokens, completion.output_tokens) == (1000, 200)
    assert completion.cost == Decimal("0.00027000")  # litellm's price list: $0.15/M in, $0.60/M out
    assert fake_provider.requests("gpt-4o-mini")[0]["stream_options"] == {"include_usage": True}


def test_a_model_nobody_can_price_has_no_cost_and_a_configured_price_is_used(fake_provider, models):
    models(priced={"model": "openai/house-model", "input_cost_per_million": 2.0,
                   "output_cost_per_million": 8.0})
    fake_provider.set_default("house-model", "Hi.", usage={"prompt_tokens": 500, "completion_tokens": 50})

    assert ask("openai/house-model").cost is None
    assert ask("priced").cost == Decimal("0.00140000")


# ---------------------------------------------------------------- the models file

def test_a_models_file_in_toml_or_json(tmp_path):
    toml = tmp_path / "models.toml"
    toml.write_text('chat_models = ["fast"]\nmemory_model = "fast"\n[router]\nallowed_fails = 3\n'
                    '[models.fast]\nmodel = "openai/gpt-4.1-mini"\ndisplay_name = "GPT-4.1 mini"\n'
                    'history_max_tokens = 12000\ntimeout = 20\nfallbacks = ["openai/gpt-4o-mini"]\n')
    data = {"chat_models": ["fast"], "models": {"fast": {"model": "openai/gpt-4.1-mini", "timeout": 20}}}
    (tmp_path / "models.json").write_text(json.dumps(data))

    from_toml = models_file_load(str(toml))
    from_json = models_file_load(str(tmp_path / "models.json"))

    assert from_toml.chat_models == ["fast"] and from_toml.memory_model == "fast"
    assert from_toml.models["fast"]["fallbacks"] == ["openai/gpt-4o-mini"]
    assert from_toml.router == {"allowed_fails": 3}
    assert from_json.models["fast"] == {"model": "openai/gpt-4.1-mini", "timeout": 20}


@pytest.mark.parametrize("text", [
    '[models.fast]\nmodel = "openai/x"\napi_key = "sk-live-secret"\n',  # keys never go in the file
    '[models.fast]\ntimeout = "soon"\n',
    'chat_model = ["fast"]\n',
    "[models.fast\n",
])
def test_a_models_file_with_a_mistake_stops_the_start(tmp_path, text):
    path = tmp_path / "models.toml"
    path.write_text(text)

    with pytest.raises(ImproperlyConfigured):
        models_file_load(str(path))


def test_the_picker_shows_display_names(models):
    models(fast={"model": "openai/gpt-4.1-mini", "display_name": "GPT-4.1 mini"})

    assert model_display_name("fast") == "GPT-4.1 mini"
    assert model_display_name("anthropic/claude-3-5-sonnet-latest") == "claude-3-5-sonnet-latest"
    assert model_display_name("whizi/offline") == "Whizi offline"
