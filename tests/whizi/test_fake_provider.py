"""What a caller sees from an OpenAI-protocol provider, through litellm's real HTTP path.

Every call here goes over loopback to the fake provider (tests/fake_provider): first
through litellm itself, then through Whizi's own model module (whizi.llm).
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from tests.fake_provider import FakeProviderClient
from whizi.llm import ModelError, astream, complete, litellm_module, stream

MODEL = "memory-x"
LITELLM_MODEL = f"openai/{MODEL}"
MESSAGES = [{"role": "system", "content": "Known facts: none."}, {"role": "user", "content": "Hi there"}]


@pytest.fixture
def litellm():
    return litellm_module()


@pytest.fixture
def unused_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(litellm, **params):
    return litellm.completion(model=LITELLM_MODEL, messages=MESSAGES, num_retries=0, **params)


def pieces_of(response) -> list[str]:
    return [c.choices[0].delta.content for c in response if c.choices and c.choices[0].delta.content]


# ---------------------------------------------------------------- answers

def test_reply_comes_back_with_its_usage(fake_provider, litellm):
    fake_provider.reply(MODEL, "Nice to meet you, Mai.", usage={"prompt_tokens": 21, "completion_tokens": 7})

    response = call(litellm)

    assert response.choices[0].message.content == "Nice to meet you, Mai."
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (21, 7)


def test_streamed_reply_arrives_in_its_pieces_then_usage(fake_provider, litellm):
    fake_provider.reply(MODEL, "one two three four", chunks=2)

    chunks = list(call(litellm, stream=True, stream_options={"include_usage": True}))

    assert pieces_of(chunks) == ["one two ", "three four"]
    usage = [c.usage for c in chunks if getattr(c, "usage", None)]
    assert usage[-1].completion_tokens == 4


def test_async_stream_arrives_word_by_word(fake_provider, litellm):
    fake_provider.reply(MODEL, "Hello there, Mai")

    async def run():
        response = await litellm.acompletion(
            model=LITELLM_MODEL, messages=MESSAGES, num_retries=0, stream=True)
        return [c.choices[0].delta.content async for c in response
                if c.choices and c.choices[0].delta.content]

    assert asyncio.run(run()) == ["Hello ", "there, ", "Mai"]


def test_empty_whitespace_and_null_answers_come_back_as_sent(fake_provider, litellm):
    fake_provider.empty(MODEL).empty(MODEL, "  \n").null_content(MODEL).null_content(MODEL)

    assert call(litellm).choices[0].message.content == ""
    assert call(litellm).choices[0].message.content == "  \n"
    assert call(litellm).choices[0].message.content is None
    assert pieces_of(call(litellm, stream=True)) == []


def test_default_reply_applies_once_the_queue_is_empty(fake_provider, litellm):
    fake_provider.set_default(MODEL, "Default answer.").reply(MODEL, "Scripted answer.")

    assert call(litellm).choices[0].message.content == "Scripted answer."
    assert call(litellm).choices[0].message.content == "Default answer."
    assert call(litellm).choices[0].message.content == "Default answer."
    assert fake_provider.pending(MODEL) == 0


def test_models_lists_the_scripted_names(fake_provider):
    fake_provider.reply("memory-x", "a").set_default("chat-y", "b")

    listing = httpx.get(f"{fake_provider.base_url}/models").json()

    assert [m["id"] for m in listing["data"]] == ["chat-y", "memory-x"]


def test_request_bodies_are_recorded_as_sent(fake_provider, litellm):
    call(litellm, temperature=0.2, max_tokens=300)
    list(call(litellm, stream=True, stream_options={"include_usage": True}))

    first, second = fake_provider.requests(MODEL)
    assert first["model"] == MODEL
    assert first["messages"] == MESSAGES
    assert (first["temperature"], first["max_tokens"]) == (0.2, 300)
    assert not first.get("stream")
    assert second["stream"] is True
    assert second["stream_options"] == {"include_usage": True}
    assert fake_provider.requests("other-model") == []


def test_user_is_sent_only_for_models_litellm_knows_as_openai_ones(fake_provider, litellm):
    """litellm drops `user` for names outside OpenAI's catalogue (not every compatible server takes it)."""
    for model in ("gpt-4o-mini", MODEL):
        litellm.completion(model=f"openai/{model}", messages=MESSAGES, num_retries=0, user="owner-7")

    assert fake_provider.requests("gpt-4o-mini")[0]["user"] == "owner-7"
    assert "user" not in fake_provider.requests(MODEL)[0]


# ---------------------------------------------------------------- errors

def test_rate_limit_carries_retry_after(fake_provider, litellm):
    fake_provider.rate_limit(MODEL, retry_after=7)

    with pytest.raises(litellm.RateLimitError) as caught:
        call(litellm)

    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "7"
    assert len(fake_provider.requests(MODEL)) == 1  # no retry behind the caller's back


@pytest.mark.parametrize(
    ("script", "error_name", "status"),
    [
        (lambda p: p.bad_key(MODEL), "AuthenticationError", 401),
        (lambda p: p.model_not_found(MODEL), "NotFoundError", 404),
        (lambda p: p.context_exceeded(MODEL), "ContextWindowExceededError", 400),
        (lambda p: p.quota_exceeded(MODEL), "RateLimitError", 429),
        (lambda p: p.quota_exceeded(MODEL, status=400), "BadRequestError", 400),
        (lambda p: p.server_error(MODEL, 500), "InternalServerError", 500),
        (lambda p: p.server_error(MODEL, 502), "BadGatewayError", 502),
        (lambda p: p.server_error(MODEL, 503), "ServiceUnavailableError", 503),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
def test_provider_errors_map_to_litellm_exceptions(
    fake_provider, litellm, script, error_name, status, streamed
):
    script(fake_provider)

    with pytest.raises(getattr(litellm, error_name)) as caught:
        call(litellm, stream=streamed)

    assert caught.value.status_code == status


def test_hang_times_out_without_holding_up_other_requests(fake_provider, litellm):
    fake_provider.hang(MODEL).reply("chat-y", "Still here.")

    async def run():
        hung = asyncio.ensure_future(litellm.acompletion(
            model=LITELLM_MODEL, messages=MESSAGES, num_retries=0, timeout=1))
        while not fake_provider.requests(MODEL):
            await asyncio.sleep(0.01)
        answered = await litellm.acompletion(model="openai/chat-y", messages=MESSAGES, num_retries=0)
        still_hanging = not hung.done()
        with pytest.raises(litellm.Timeout):
            await hung
        return answered.choices[0].message.content, still_hanging

    assert asyncio.run(run()) == ("Still here.", True)


def test_late_answer_past_the_timeout_is_a_timeout(fake_provider, litellm):
    fake_provider.reply(MODEL, "Too late.", delay=1.0)

    with pytest.raises(litellm.Timeout):
        call(litellm, timeout=0.2)


def test_reset_ends_a_hung_request(fake_provider, litellm, wait_for):
    fake_provider.hang(MODEL)
    outcome = {}

    def caller():
        try:
            call(litellm, timeout=30)
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=caller)
    thread.start()
    wait_for(lambda: fake_provider.in_flight == 1, timeout=10, interval=0.01)
    fake_provider.reset()
    thread.join(timeout=10)

    assert isinstance(outcome["error"], litellm.ServiceUnavailableError)


def test_stream_dropped_midway_raises_after_the_first_pieces(fake_provider, litellm):
    from litellm.exceptions import MidStreamFallbackError

    fake_provider.drop_mid_stream(MODEL, "one two three four", after_chunks=2)
    received = []

    with pytest.raises(MidStreamFallbackError) as caught:
        for piece in pieces_of_live(call(litellm, stream=True)):
            received.append(piece)

    assert received == ["one ", "two "]
    assert caught.value.generated_content == "one two "
    assert isinstance(caught.value.original_exception, litellm.APIConnectionError)


def test_error_event_midway_raises_after_the_first_pieces(fake_provider, litellm):
    from litellm.exceptions import MidStreamFallbackError

    fake_provider.error_mid_stream(MODEL, "one two three four", after_chunks=1)
    received = []

    with pytest.raises(MidStreamFallbackError) as caught:
        for piece in pieces_of_live(call(litellm, stream=True)):
            received.append(piece)

    assert received == ["one "]
    assert "The server had an error" in str(caught.value.original_exception)


def test_answer_dropped_midway_is_a_server_error(fake_provider, litellm):
    fake_provider.drop_mid_stream(MODEL, "one two three four", after_chunks=2)

    with pytest.raises(litellm.InternalServerError):
        call(litellm)


def test_slow_drip_is_not_cut_by_the_read_timeout(fake_provider, litellm):
    """litellm's timeout bounds each read, not the whole answer: a total deadline is ours to keep."""
    fake_provider.drip(MODEL, "one two three four five", every=0.2)

    assert pieces_of(call(litellm, stream=True, timeout=0.6)) == ["one ", "two ", "three ", "four ", "five"]


def pieces_of_live(response):
    for chunk in response:
        if chunk.choices and chunk.choices[0].delta.content:
            yield chunk.choices[0].delta.content


# ---------------------------------------------------------------- through whizi.llm

def test_complete_returns_text_and_token_counts(fake_provider):
    fake_provider.reply(MODEL, "Noted.", usage={"prompt_tokens": 40, "completion_tokens": 2})

    result = complete(model=LITELLM_MODEL, messages=MESSAGES, timeout=5, temperature=0)

    assert (result.text, result.input_tokens, result.output_tokens) == ("Noted.", 40, 2)
    assert fake_provider.requests(MODEL)[0]["temperature"] == 0


def test_complete_turns_null_content_into_empty_text(fake_provider):
    fake_provider.null_content(MODEL)

    assert complete(model=LITELLM_MODEL, messages=MESSAGES, timeout=5).text == ""


@pytest.mark.parametrize(
    ("script", "kind", "retryable", "retry_after"),
    [
        (lambda p: p.rate_limit(MODEL, retry_after=3), "rate_limit", True, 3),
        (lambda p: p.quota_exceeded(MODEL), "quota", False, None),
        (lambda p: p.quota_exceeded(MODEL, status=400), "quota", False, None),
        (lambda p: p.bad_key(MODEL), "auth", False, None),
        (lambda p: p.model_not_found(MODEL), "not_found", False, None),
        (lambda p: p.context_exceeded(MODEL), "context", False, None),
        (lambda p: p.server_error(MODEL, 500), "server", True, None),
        (lambda p: p.server_error(MODEL, 502), "server", True, None),
        (lambda p: p.server_error(MODEL, 503), "server", True, None),
    ],
)
def test_complete_reports_each_failure_with_its_class(fake_provider, script, kind, retryable, retry_after):
    script(fake_provider)

    with pytest.raises(ModelError) as caught:
        complete(model=LITELLM_MODEL, messages=MESSAGES, timeout=5)

    error = caught.value
    assert (error.kind, error.retryable, error.retry_after) == (kind, retryable, retry_after)
    assert len(fake_provider.requests(MODEL)) == 1  # one attempt: the memory pass retries at its own level


def test_complete_reports_a_hang_as_a_timeout(fake_provider):
    fake_provider.hang(MODEL)

    with pytest.raises(ModelError) as caught:
        complete(model=LITELLM_MODEL, messages=MESSAGES, timeout=0.3)

    assert (caught.value.kind, caught.value.retryable) == ("timeout", True)


def test_stream_yields_pieces_then_a_model_error_when_dropped(fake_provider):
    fake_provider.reply(MODEL, "Hello there").drop_mid_stream(MODEL, "one two three", after_chunks=1)

    assert list(stream(model=LITELLM_MODEL, messages=MESSAGES, timeout=5)) == ["Hello ", "there"]
    received = []
    with pytest.raises(ModelError) as caught:
        for piece in stream(model=LITELLM_MODEL, messages=MESSAGES, timeout=5):
            received.append(piece)
    assert received == ["one "]
    assert caught.value.kind == "server"


def test_stream_rate_limited_before_any_piece(fake_provider):
    fake_provider.rate_limit(MODEL)

    with pytest.raises(ModelError) as caught:
        list(stream(model=LITELLM_MODEL, messages=MESSAGES, timeout=5))

    assert caught.value.kind == "rate_limit"


def test_astream_yields_pieces_and_times_out_on_a_hang(fake_provider, stream_path):
    fake_provider.reply(MODEL, "Hello there", chunks=1).hang(MODEL)

    async def collect(timeout: float):
        return [piece async for piece in astream(model=LITELLM_MODEL, messages=MESSAGES, timeout=timeout)]

    assert asyncio.run(collect(5)) == ["Hello there"]
    with pytest.raises(ModelError) as caught:
        asyncio.run(collect(0.3))
    assert caught.value.kind == "timeout"


# ---------------------------------------------------------------- serving

def test_hundreds_of_streams_are_open_at_once(fake_provider):
    fake_provider.set_default(MODEL, "one two three", first_token_latency=0.5)
    body = json.dumps({"model": MODEL, "messages": MESSAGES, "stream": True}).encode()
    port = int(fake_provider.base_url.split(":")[-1].split("/")[0])

    async def one() -> bytes:
        # A bare HTTP/1.1 client: the server is under test here, not a client library.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nhost: fake\r\ncontent-type: application/json\r\n"
                     b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        answer = await reader.read()
        writer.close()
        return answer

    async def run():
        return await asyncio.gather(*(one() for _ in range(300)))

    answers = asyncio.run(run())

    assert all(b"data: [DONE]" in answer for answer in answers)
    assert fake_provider.max_in_flight == 300


def test_another_process_reaches_the_scripts_through_the_environment(fake_provider):
    """What a Celery worker started by the test sees: the same server and the same queues."""
    fake_provider.reply(MODEL, "From the test's script.")
    program = (
        "import json, os, urllib.request\n"
        "url = os.environ['OPENAI_API_BASE'] + '/chat/completions'\n"
        "body = json.dumps({'model': 'memory-x', 'messages': [{'role': 'user', 'content': 'hi'}]})\n"
        "req = urllib.request.Request(url, body.encode(), {'content-type': 'application/json',\n"
        "    'authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})\n"
        "print(json.load(urllib.request.urlopen(req))['choices'][0]['message']['content'])\n"
    )

    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=30,
                            env=dict(os.environ), check=True)

    assert result.stdout.strip() == "From the test's script."
    assert fake_provider.requests(MODEL)[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_standalone_server_is_scripted_through_its_control_endpoints(litellm, unused_tcp_port):
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_provider", "--port", str(unused_tcp_port), "--tokens", "6",
         "--chunks", "3"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        remote = FakeProviderClient(f"http://127.0.0.1:{unused_tcp_port}/v1")
        wait_until_serving(remote)
        remote.rate_limit(MODEL, retry_after=2)
        api = {"model": LITELLM_MODEL, "messages": MESSAGES, "num_retries": 0, "api_base": remote.base_url,
               "api_key": "sk-bench"}

        with pytest.raises(litellm.RateLimitError):
            litellm.completion(**api)
        default = litellm.completion(**api, stream=True, stream_options={"include_usage": True})
        chunks = list(default)

        assert pieces_of(chunks) == ["the quick ", "brown fox ", "jumps over."]
        assert [c.usage.completion_tokens for c in chunks if getattr(c, "usage", None)][-1] == 6
        assert [bool(r.get("stream")) for r in remote.requests(MODEL)] == [False, True]
        assert remote.reset().requests(MODEL) == []
    finally:
        server.terminate()
        server.wait(timeout=10)


def wait_until_serving(remote: FakeProviderClient) -> None:
    for _ in range(200):
        try:
            remote.stats()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("standalone fake provider did not start")


def test_control_requests_answer_as_json(fake_provider):
    remote = FakeProviderClient(fake_provider.base_url)
    remote.reply(MODEL, "Via control.")

    answer = httpx.post(f"{fake_provider.base_url}/chat/completions",
                        json={"model": MODEL, "messages": MESSAGES}).json()

    assert answer["choices"][0]["message"]["content"] == "Via control."
    assert remote.requests(MODEL)[0]["messages"] == MESSAGES
    assert remote.stats()["requests"] == {MODEL: 1}
