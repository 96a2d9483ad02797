"""An OpenAI-protocol stream read without litellm's per-chunk work (docs/PERFORMANCE.md,
"Streaming near the floor").

litellm turns each streamed chunk into pydantic models several times (the OpenAI
client's ChatCompletionChunk, then its own ModelResponseStream): about 17 times the CPU of
reading the chunk's JSON, and most of a chat's CPU when a provider sends one token a
chunk. Everything else stays litellm's: the Router picks the deployment and runs the
retries and fallbacks, litellm shapes and sends the request and opens the response, and
its exception mapping classes every failure. Only the body of an OpenAI-protocol stream
(`openai/` and `azure/`: OpenAI, Azure OpenAI, vLLM or Ollama's /v1 configured as
`openai/` with their api_base, the fake provider; litellm's `hosted_vllm/` reads its stream
with its own HTTP handler, not the OpenAI client, so litellm keeps reading that one) is
read here: each network read is split into its events, each event's JSON read once, and
the text of all the events of one read handed on together.

The Router runs each attempt through its host (`litellm.router_python_host.PythonHost`);
StreamHost is that host with one change: a chat stream it can read lean is opened here,
up to its first piece of text, inside the attempt, so a stream that fails before its
first token fails the attempt and the Router retries or falls back as it would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import httpx2
import openai
from litellm.litellm_core_utils.exception_mapping_utils import exception_type
from litellm.router_python_host import PythonHost

# litellm providers whose chat stream is the OpenAI protocol read by the OpenAI client.
LEAN_PROVIDERS = frozenset({"openai", "azure"})
_TIMEOUTS = (httpx2.TimeoutException, httpx.TimeoutException)
_TRANSPORT = (httpx2.TransportError, httpx.TransportError, httpx2.StreamError, httpx.StreamError)


class LeanStream:
    """The text of an OpenAI-protocol stream, one string per network read, with the
    provider's usage (its final chunk) and finish reason once it ends."""

    def __init__(self, response: Any, *, model: str, provider: str, hidden_params: dict[str, Any]) -> None:
        self._response = response
        self._bytes = response.aiter_bytes()
        self._model = model
        self._provider = provider
        self._buffer = b""
        self._first: str | None = None
        self._ended = False
        self._failure: Exception | None = None  # raised after the text read before it
        self.usage: dict[str, Any] | None = None
        self.finish_reason: str | None = None
        # The Router adds its own (model group, retries, fallbacks) to what litellm recorded.
        self._hidden_params = hidden_params

    async def open(self) -> LeanStream:
        """Read up to the first text (or the end): a failure before it is the attempt's."""
        while self._first is None and not self._ended:
            self._first = await self._read() or None
        return self

    async def texts(self, deadline: float | None = None) -> AsyncIterator[str]:
        """The text as it arrives; `deadline` (the loop's clock) bounds each network read."""
        if self._first:
            first, self._first = self._first, None
            yield first
        while not self._ended or self._failure is not None:
            if deadline is None:
                text = await self._read()
            else:
                async with asyncio.timeout_at(deadline):
                    text = await self._read()
            if text:
                yield text

    async def aclose(self) -> None:
        await self._response.aclose()

    async def _read(self) -> str:
        """One network read: the text of the whole events it completes. Raises litellm's
        exception for an error event, a broken connection or a stream cut short (after
        handing on the text that came before it)."""
        if self._failure is not None:
            raise self._failure
        try:
            data = await anext(self._bytes, None)
        except _TIMEOUTS as exc:
            raise self._mapped(openai.APITimeoutError(request=self._response.request)) from exc
        except _TRANSPORT as exc:
            raise self._mapped(openai.APIConnectionError(request=self._response.request)) from exc
        if data is None:
            return self._end()
        events = (self._buffer + data).replace(b"\r\n", b"\n").split(b"\n\n")
        self._buffer = events.pop()
        texts: list[str] = []
        try:
            for event in events:
                for line in event.split(b"\n"):
                    if line.startswith(b"data:"):  # not a comment (": keep-alive"), name or id
                        payload = line[5:].strip()
                        if payload == b"[DONE]":
                            self._end()
                            return "".join(texts)
                        texts.append(self._chunk_text(payload))
        except Exception as failure:
            if not any(texts):
                raise
            self._failure = failure
        return "".join(texts)

    def _chunk_text(self, payload: bytes) -> str:
        try:
            chunk = json.loads(payload)
        except ValueError:
            chunk = {"error": {"message": "The provider sent an event that is not JSON."}}
        error = chunk.get("error") if isinstance(chunk, dict) else {"message": "Not a chunk."}
        if error:
            message = error.get("message") if isinstance(error, dict) else None
            raise self._mapped(openai.APIError(message or "An error occurred during streaming",
                                               request=self._response.request, body=error))
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        text = ""
        for choice in chunk.get("choices") or ():
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
            content = (choice.get("delta") or {}).get("content")
            if content and choice.get("index", 0) == 0:
                text += content
        return text

    def _end(self) -> str:
        if not self._ended:
            self._ended = True
            if self.finish_reason is None:
                # As litellm: a stream that stops before saying why was cut short.
                raise self._mapped(openai.APIConnectionError(
                    message="Stream ended before a finish_reason was received",
                    request=self._response.request))
        return ""

    def _mapped(self, error: Exception) -> Exception:
        return lean_error_mapped(error, model=self._model, provider=self._provider)


def lean_error_mapped(error: Exception, *, model: str, provider: str) -> Exception:
    """The litellm exception litellm's own mapping makes of the OpenAI client's `error`."""
    try:
        return exception_type(model=model, custom_llm_provider=provider, original_exception=error)
    except Exception as mapped:  # noqa: BLE001 - exception_type raises what it maps to
        return mapped


async def lean_stream_open(response: Any) -> Any:
    """`response` (litellm's stream) as a LeanStream, opened, when its body is the OpenAI
    protocol through the OpenAI client; otherwise `response` itself, for litellm to read."""
    source = getattr(response, "completion_stream", None)
    provider = getattr(response, "custom_llm_provider", None)
    if provider not in LEAN_PROVIDERS or not isinstance(source, openai.AsyncStream):
        return response
    hidden = dict(getattr(response, "_hidden_params", None) or {})
    stream = LeanStream(source.response, model=response.model, provider=provider, hidden_params=hidden)
    try:
        return await stream.open()
    except BaseException:
        await stream.aclose()
        raise


class StreamHost(PythonHost):
    """litellm's own host for the Router, with chat streams asked for without litellm's
    set-up where that sends the same request (whizi.llm.lean_request), and read lean."""

    __slots__ = ()

    def invoke(self, op: str) -> Callable[..., Any]:
        endpoint = super().invoke(op)
        if op != "acompletion":
            return endpoint

        async def acompletion(**kwargs: Any) -> Any:
            if kwargs.get("stream"):
                from whizi.llm.lean_request import lean_request_open

                opened = await lean_request_open(kwargs)
                if opened is not None:
                    return opened
            response = await endpoint(**kwargs)
            return await lean_stream_open(response) if kwargs.get("stream") else response

        return acompletion
