"""A fake OpenAI-protocol model provider on loopback, reached through litellm's real HTTP path.

Tests: the `fake_provider` fixture (tests/fake_provider/fixtures.py) starts one server per
session in a background thread, points `OPENAI_API_BASE`/`OPENAI_API_KEY` at it (a worker
subprocess started later inherits them) and hands back the `FakeProvider`. A test scripts
what a model answers, calls `openai/<name>`, and reads back what the model was sent:

    fake_provider.rate_limit("memory-x", retry_after=2).reply("memory-x", "Hello")
    ...  # litellm model "openai/memory-x": first call gets a 429, the second "Hello"
    fake_provider.requests("memory-x")[0]["messages"]

Benchmarks: `python -m tests.fake_provider --port 8100 --token-latency 0.04` serves a
plain reply with per-token latency in its own process; `FakeProviderClient(base_url)`
scripts it through the control endpoints (`/_control/script`, `/_control/reset`,
`/_control/requests`) with the same methods.

Each request pops the next scripted behaviour for its `model`; an empty queue answers
with that model's default reply. Token counts in `usage` are one per word unless scripted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import socket
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections import defaultdict, deque
from typing import Any, Self

import uvicorn

Behaviour = dict[str, Any]
DEFAULT_TEXT = "Hello from the fake provider."
_DROP_LOG = "ASGI callable returned without completing response."


def _openai_error(message: str, type_: str, code: str | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def reply_behaviour(
    text: str | None = DEFAULT_TEXT,
    *,
    chunks: int | None = None,
    chunk_latency: float = 0.0,
    first_token_latency: float = 0.0,
    delay: float = 0.0,
    usage: dict[str, int] | None = None,
    finish_reason: str = "stop",
    drop_after: int | None = None,
    error_after: int | None = None,
) -> Behaviour:
    """An answer: `text` (None for content null) in `chunks` pieces when streamed.

    `delay` holds back the response headers; `first_token_latency` the first piece after
    them; `chunk_latency` each later piece. `drop_after=k` cuts the connection after k
    pieces; `error_after=k` sends an OpenAI error event after k pieces instead.
    """
    return {
        "kind": "reply", "text": text, "chunks": chunks, "chunk_latency": chunk_latency,
        "first_token_latency": first_token_latency, "delay": delay, "usage": usage,
        "finish_reason": finish_reason, "drop_after": drop_after, "error_after": error_after,
    }


class ProviderScripts:
    """The scripting methods shared by the in-process handle and the remote client."""

    def push(self, model: str, behaviour: Behaviour) -> Self:
        """Queue one behaviour for `model`'s next request."""
        raise NotImplementedError

    def set_default_behaviour(self, model: str, behaviour: Behaviour) -> Self:
        raise NotImplementedError

    def set_default(self, model: str, text: str | None = DEFAULT_TEXT, **options: Any) -> Self:
        """The answer `model` gives once its queue is empty (same options as reply())."""
        return self.set_default_behaviour(model, reply_behaviour(text, **options))

    def reply(self, model: str, text: str | None = DEFAULT_TEXT, **options: Any) -> Self:
        return self.push(model, reply_behaviour(text, **options))

    def empty(self, model: str, text: str = "") -> Self:
        """An answer with no words: "" or whitespace."""
        return self.push(model, reply_behaviour(text))

    def null_content(self, model: str) -> Self:
        return self.push(model, reply_behaviour(None))

    def drip(self, model: str, text: str, *, every: float, chunks: int | None = None) -> Self:
        """One piece every `every` seconds, the first one included."""
        return self.push(model, reply_behaviour(text, chunks=chunks, chunk_latency=every,
                                                first_token_latency=every))

    def drop_mid_stream(self, model: str, text: str, *, after_chunks: int,
                        chunks: int | None = None) -> Self:
        """Send `after_chunks` pieces, then close the connection (a non-streamed call gets half a body)."""
        return self.push(model, reply_behaviour(text, chunks=chunks, drop_after=after_chunks))

    def error_mid_stream(self, model: str, text: str, *, after_chunks: int,
                         chunks: int | None = None) -> Self:
        """Send `after_chunks` pieces, then an OpenAI `{"error": ...}` event (a 500 when not streamed)."""
        return self.push(model, reply_behaviour(text, chunks=chunks, error_after=after_chunks))

    def hang(self, model: str) -> Self:
        """Accept the request and never answer, until the caller gives up or reset()."""
        return self.push(model, {"kind": "hang"})

    def error(self, model: str, status: int, body: Any, headers: dict[str, str] | None = None,
              *, delay: float = 0.0) -> Self:
        """Any HTTP error: `body` is sent as JSON, or as is when it is a str."""
        return self.push(model, {"kind": "error", "status": status, "body": body,
                                 "headers": headers or {}, "delay": delay})

    def rate_limit(self, model: str, *, retry_after: float = 1) -> Self:
        message = (f"Rate limit reached for {model} in organization org-fake on requests per min (RPM): "
                   "Limit 3, Used 3, Requested 1. Please try again in "
                   f"{retry_after}s. Visit https://platform.openai.com/account/rate-limits to learn more.")
        headers = {"retry-after": str(math.ceil(retry_after)), "x-ratelimit-limit-requests": "3",
                   "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": f"{retry_after}s"}
        return self.error(model, 429, _openai_error(message, "requests", "rate_limit_exceeded"), headers)

    def quota_exceeded(self, model: str, *, status: int = 429) -> Self:
        message = ("You exceeded your current quota, please check your plan and billing details. For more "
                   "information on this error, read the docs: "
                   "https://platform.openai.com/docs/guides/error-codes/api-errors.")
        return self.error(model, status, _openai_error(message, "insufficient_quota", "insufficient_quota"))

    def bad_key(self, model: str) -> Self:
        message = ("Incorrect API key provided: sk-fake***. You can find your API key at "
                   "https://platform.openai.com/account/api-keys.")
        return self.error(model, 401, _openai_error(message, "invalid_request_error", "invalid_api_key"))

    def model_not_found(self, model: str) -> Self:
        message = f"The model `{model}` does not exist or you do not have access to it."
        return self.error(model, 404, _openai_error(message, "invalid_request_error", "model_not_found"))

    def context_exceeded(self, model: str, *, limit: int = 128000, requested: int = 130000) -> Self:
        message = (f"This model's maximum context length is {limit} tokens. However, your messages "
                   f"resulted in {requested} tokens. Please reduce the length of the messages.")
        return self.error(model, 400, _openai_error(message, "invalid_request_error",
                                                    "context_length_exceeded", "messages"))

    def server_error(self, model: str, status: int = 500) -> Self:
        """500 and 503 with OpenAI's JSON bodies; 502 with the HTML page its edge sends."""
        if status == 502:
            page = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                    "<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n")
            return self.error(model, 502, page, {"content-type": "text/html"})
        if status == 503:
            message = "The engine is currently overloaded, please try again later."
        else:
            message = "The server had an error while processing your request. Sorry about that!"
        return self.error(model, status, _openai_error(message, "server_error", None))


class FakeProvider(ProviderScripts):
    """The in-process state: scripted queues, defaults and what each model was sent (thread-safe)."""

    def __init__(self, default: Behaviour | None = None) -> None:
        self._base_default = default or reply_behaviour()
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Behaviour]] = defaultdict(deque)
        self._defaults: dict[str, Behaviour] = {}
        self._requests: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._keys: dict[str, list[str]] = defaultdict(list)
        self._agents: dict[str, list[str]] = defaultdict(list)
        self._in_flight = 0
        self._max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._hang_release: asyncio.Event | None = None
        self.base_url = ""

    # -- scripting (any thread) --
    def push(self, model: str, behaviour: Behaviour) -> Self:
        with self._lock:
            self._queues[model].append(behaviour)
        return self

    def set_default_behaviour(self, model: str, behaviour: Behaviour) -> Self:
        with self._lock:
            self._defaults[model] = behaviour
        return self

    def reset(self) -> Self:
        """Forget scripts, defaults, records and the in-flight peak; end hung requests."""
        with self._lock:
            self._queues.clear()
            self._defaults.clear()
            self._requests.clear()
            self._keys.clear()
            self._agents.clear()
            self._max_in_flight = self._in_flight
        self._release_hangs()
        return self

    def requests(self, model: str) -> list[dict[str, Any]]:
        """The JSON bodies `model` received, oldest first."""
        with self._lock:
            return [dict(body) for body in self._requests.get(model, [])]

    def keys(self, model: str) -> list[str]:
        """The API key (Bearer token) of each request `model` received, oldest first."""
        with self._lock:
            return list(self._keys.get(model, []))

    def agents(self, model: str) -> list[str]:
        """The User-Agent of each request `model` received, oldest first: which client asked."""
        with self._lock:
            return list(self._agents.get(model, []))

    def pending(self, model: str) -> int:
        """Scripted behaviours not yet used."""
        with self._lock:
            return len(self._queues.get(model, ()))

    def models(self) -> list[str]:
        with self._lock:
            return sorted(set(self._queues) | set(self._defaults) | set(self._requests))

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most chat requests open at once since the last reset()."""
        return self._max_in_flight

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"in_flight": self._in_flight, "max_in_flight": self._max_in_flight,
                    "requests": {model: len(bodies) for model, bodies in self._requests.items()}}

    # -- used by the server (its event loop) --
    def request_take(self, model: str, body: dict[str, Any], key: str = "", agent: str = "") -> Behaviour:
        """Record the request and pop its behaviour; counts it as open until request_done()."""
        with self._lock:
            self._requests[model].append(body)
            self._keys[model].append(key)
            self._agents[model].append(agent)
            queue = self._queues.get(model)
            behaviour = queue.popleft() if queue else self._defaults.get(model, self._base_default)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        return behaviour

    def request_done(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called from the serving loop, so that reset() from another thread can end hung requests."""
        if self._loop is not loop:
            self._loop = loop
            self._hang_release = asyncio.Event()

    def hang_release_event(self) -> asyncio.Event:
        assert self._hang_release is not None
        return self._hang_release

    def _release_hangs(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._release_hangs_in_loop()
        else:
            loop.call_soon_threadsafe(self._release_hangs_in_loop)

    def _release_hangs_in_loop(self) -> None:
        if self._hang_release is not None:
            self._hang_release.set()
        self._hang_release = asyncio.Event()


class FakeProviderClient(ProviderScripts):
    """Scripts a fake provider in another process through its control endpoints."""

    def __init__(self, base_url: str, timeout: float = 10) -> None:
        self.base_url = base_url.rstrip("/")
        self._root = self.base_url.removesuffix("/v1")
        self._timeout = timeout

    def _call(self, method: str, path: str, payload: Any = None) -> Any:
        data = None if payload is None else json.dumps(payload, separators=(",", ":")).encode()
        request = urllib.request.Request(self._root + path, data=data, method=method,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:
            return json.loads(response.read() or b"null")

    def push(self, model: str, behaviour: Behaviour) -> Self:
        self._call("POST", "/_control/script", {"model": model, "push": [behaviour]})
        return self

    def set_default_behaviour(self, model: str, behaviour: Behaviour) -> Self:
        self._call("POST", "/_control/script", {"model": model, "default": behaviour})
        return self

    def reset(self) -> Self:
        self._call("POST", "/_control/reset", {})
        return self

    def requests(self, model: str) -> list[dict[str, Any]]:
        query = urllib.parse.urlencode({"model": model})
        return self._call("GET", f"/_control/requests?{query}")["requests"]

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/_control/requests")

    @property
    def max_in_flight(self) -> int:
        return self.stats()["max_in_flight"]


# ---------------------------------------------------------------- the ASGI app

def _split(text: str, chunks: int | None) -> list[str]:
    """Pieces that join back to `text`: one per word, or grouped into `chunks`."""
    words = re.findall(r"\S+\s*|\s+", text)
    if not words:
        return []
    count = len(words) if not chunks else max(1, min(chunks, len(words)))
    return ["".join(words[i * len(words) // count:(i + 1) * len(words) // count]) for i in range(count)]


def _word_count(value: Any) -> int:
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, list):
        return sum(_word_count(part.get("text", "")) for part in value if isinstance(part, dict))
    return 0


def _usage(body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
    scripted = behaviour.get("usage") or {}
    messages = body.get("messages") or []
    prompt = scripted.get("prompt_tokens",
                          sum(_word_count(m.get("content")) + 4 for m in messages if isinstance(m, dict)))
    completion = scripted.get("completion_tokens", _word_count(behaviour.get("text")))
    return {
        "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }


async def _pause(seconds: float, gone: asyncio.Event) -> bool:
    """Wait, ending early when the caller disconnects; True if it did."""
    if seconds > 0 and not gone.is_set():
        try:
            await asyncio.wait_for(gone.wait(), seconds)
        except TimeoutError:
            pass
    return gone.is_set()


async def _watch_disconnect(receive: Any, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


class ProviderApp:
    """The ASGI application: /v1/chat/completions, /v1/models and /_control/*."""

    def __init__(self, provider: FakeProvider) -> None:
        self.provider = provider

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.provider.attach_loop(asyncio.get_running_loop())
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        method, path = scope["method"], scope["path"].rstrip("/")
        if method == "POST" and path == "/v1/chat/completions":
            await self._chat(body, receive, send, _bearer(scope), _header(scope, b"user-agent"))
        elif method == "POST" and _AZURE_CHAT.fullmatch(path):
            # Azure OpenAI names the deployment in the path and sends its key as api-key.
            await self._chat(body, receive, send, _header(scope, b"api-key"), _header(scope, b"user-agent"))
        elif method == "GET" and path == "/v1/models":
            data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "fake-provider"}
                    for m in self.provider.models()]
            await _send_json(send, 200, {"object": "list", "data": data})
        elif path.startswith("/_control/"):
            await self._control(method, path, scope.get("query_string", b""), body, send)
        else:
            await _send_json(send, 404, _openai_error(f"Unknown path {path}", "invalid_request_error",
                                                      "unknown_url"))

    async def _chat(self, raw: bytes, receive: Any, send: Any, key: str = "", agent: str = "") -> None:
        try:
            body = json.loads(raw)
        except ValueError:
            await _send_json(send, 400, _openai_error("We could not parse the JSON body of your request.",
                                                      "invalid_request_error", None))
            return
        behaviour = self.provider.request_take(str(body.get("model", "")), body, key, agent)
        gone = asyncio.Event()
        watcher = asyncio.create_task(_watch_disconnect(receive, gone))
        try:
            await self._answer(behaviour, body, send, gone)
        finally:
            watcher.cancel()
            self.provider.request_done()

    async def _answer(self, behaviour: Behaviour, body: dict[str, Any], send: Any,
                      gone: asyncio.Event) -> None:
        kind = behaviour["kind"]
        if kind == "hang":
            released = asyncio.create_task(self.provider.hang_release_event().wait())
            gone_wait = asyncio.create_task(gone.wait())
            await asyncio.wait([released, gone_wait], return_when=asyncio.FIRST_COMPLETED)
            released.cancel()
            gone_wait.cancel()
            if not gone.is_set():
                await _send_json(send, 503, _openai_error("Released by reset.", "server_error", None))
            return
        if await _pause(behaviour.get("delay", 0), gone):
            return
        if kind == "error":
            await _send_error(send, behaviour)
        elif body.get("stream"):
            await _stream(send, behaviour, body, gone)
        else:
            await _answer_whole(send, behaviour, body, gone)

    async def _control(self, method: str, path: str, query: bytes, raw: bytes, send: Any) -> None:
        provider = self.provider
        payload = json.loads(raw) if raw else {}
        if method == "POST" and path == "/_control/script":
            for behaviour in payload.get("push", []):
                provider.push(payload["model"], behaviour)
            if "default" in payload:
                provider.set_default_behaviour(payload["model"], payload["default"])
            await _send_json(send, 200, {"pending": provider.pending(payload["model"])})
        elif method == "POST" and path == "/_control/reset":
            provider.reset()
            await _send_json(send, 200, {"reset": True})
        elif method == "GET" and path == "/_control/requests":
            answer = provider.stats()
            model = urllib.parse.parse_qs(query.decode()).get("model")
            if model:
                answer["requests"] = provider.requests(model[0])
            await _send_json(send, 200, answer)
        else:
            await _send_json(send, 404, {"error": "unknown control path"})


_AZURE_CHAT = re.compile(r"/openai/deployments/[^/]+/chat/completions")


def _header(scope: dict[str, Any], wanted: bytes) -> str:
    for name, value in scope.get("headers", []):
        if name.lower() == wanted:
            return value.decode()
    return ""


def _bearer(scope: dict[str, Any]) -> str:
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization" and value.lower().startswith(b"bearer "):
            return value[7:].decode()
    return ""


def _headers(content_type: str, extra: dict[str, str] | None = None) -> list[tuple[bytes, bytes]]:
    headers = {"content-type": content_type, "x-request-id": f"req_{uuid.uuid4().hex}",
               "openai-processing-ms": "1", **(extra or {})}
    return [(k.encode(), v.encode()) for k, v in headers.items()]


async def _send_json(send: Any, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
    data = json.dumps(payload, separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": _headers("application/json", extra)})
    await send({"type": "http.response.body", "body": data})


async def _send_error(send: Any, behaviour: Behaviour) -> None:
    headers = dict(behaviour.get("headers") or {})
    body = behaviour["body"]
    if isinstance(body, str):
        content_type = headers.pop("content-type", "text/plain")
        await send({"type": "http.response.start", "status": behaviour["status"],
                    "headers": _headers(content_type, headers)})
        await send({"type": "http.response.body", "body": body.encode()})
    else:
        await _send_json(send, behaviour["status"], body, headers)


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


async def _answer_whole(send: Any, behaviour: Behaviour, body: dict[str, Any], gone: asyncio.Event) -> None:
    text = behaviour.get("text")
    pieces = _split(text or "", behaviour.get("chunks"))
    generation = behaviour.get("first_token_latency", 0) + behaviour.get("chunk_latency", 0) * max(
        len(pieces) - 1, 0)
    if await _pause(generation, gone):
        return
    if behaviour.get("error_after") is not None:
        await _send_json(send, 500, _openai_error("The server had an error while processing your request.",
                                                  "server_error", None))
        return
    message = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    payload = json.dumps({
        "id": _completion_id(), "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": behaviour.get("finish_reason", "stop")}],
        "usage": _usage(body, behaviour), "service_tier": "default", "system_fingerprint": "fp_fake",
    }).encode()
    headers = _headers("application/json", {"content-length": str(len(payload))})
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    if behaviour.get("drop_after") is not None:
        # Half the body, then the connection closes: uvicorn cuts a response left unfinished.
        await send({"type": "http.response.body", "body": payload[: len(payload) // 2], "more_body": True})
        return
    await send({"type": "http.response.body", "body": payload})


async def _stream(send: Any, behaviour: Behaviour, body: dict[str, Any], gone: asyncio.Event) -> None:
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    text = behaviour.get("text")
    pieces = _split(text or "", behaviour.get("chunks"))
    drop_after, error_after = behaviour.get("drop_after"), behaviour.get("error_after")
    base = {"id": _completion_id(), "object": "chat.completion.chunk", "created": int(time.time()),
            "model": body.get("model"), "system_fingerprint": "fp_fake"}

    async def event(payload: Any, more: bool = True) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
        await send({"type": "http.response.body", "body": f"data: {data}\n\n".encode(), "more_body": more})

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**base, "choices": [choice], **({"usage": None} if include_usage else {})}

    await send({"type": "http.response.start", "status": 200,
                "headers": _headers("text/event-stream; charset=utf-8", {"cache-control": "no-cache"})})
    if await _pause(behaviour.get("first_token_latency", 0), gone):
        return
    await event(chunk({"role": "assistant", "content": "" if text is not None else None, "refusal": None}))
    for index in range(len(pieces) + 1):
        if index == drop_after:
            return  # unfinished chunked body: uvicorn closes the connection
        if index == error_after:
            await event(_openai_error("The server had an error while processing your request.",
                                      "server_error", None))
            await event("[DONE]", more=False)
            return
        if index == len(pieces):
            break
        if index > 0 and await _pause(behaviour.get("chunk_latency", 0), gone):
            return
        await event(chunk({"content": pieces[index]}))
    await event(chunk({}, behaviour.get("finish_reason", "stop")))
    if include_usage:
        await event({**base, "choices": [], "usage": _usage(body, behaviour)})
    await event("[DONE]", more=False)


# ---------------------------------------------------------------- serving

class _HideDeliberateDrops(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_DROP_LOG)


class ProviderServer:
    """Serves a FakeProvider with uvicorn on loopback: in a background thread, or in the foreground."""

    def __init__(self, provider: FakeProvider | None = None, *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.provider = provider or FakeProvider()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        self.base_url = f"http://{self.host}:{self.port}/v1"
        self.provider.base_url = self.base_url
        config = uvicorn.Config(
            ProviderApp(self.provider), log_config=None, log_level="warning", access_log=False,
            lifespan="off", loop="asyncio", timeout_keep_alive=60, timeout_graceful_shutdown=2, backlog=4096,
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        logging.getLogger("uvicorn.error").addFilter(_HideDeliberateDrops())

    def start(self, timeout: float = 10) -> Self:
        """Serve from a daemon thread; returns once the server accepts connections."""
        self._thread = threading.Thread(target=self.run, name="fake-provider", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("fake provider did not start")
            time.sleep(0.01)
        return self

    def run(self) -> None:
        """Serve until stopped (Ctrl-C in the foreground, stop() from another thread)."""
        self._server.run(sockets=[self._socket])

    def stop(self) -> None:
        self.provider.reset()
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()
