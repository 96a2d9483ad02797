"""The one module every model call goes through: litellm's Router over Whizi's catalogue.

- Which models exist and how each is reached: whizi.llm.catalog (settings.WHIZI_MODELS,
  from WHIZI_MODELS_FILE) — endpoint, key variable, context window, limits, retries,
  fallbacks. The Router does the retries (honouring Retry-After) and the fallbacks.
- Every failure comes back as ModelError with its class (whizi.llm.errors).
- `timeout` is a total deadline here, for a stream too: litellm's own timeout bounds
  each read of an answer, not the whole of it.
- Every answer carries the provider's token counts and, where it can be priced, its cost.

litellm is imported on first use, not at start-up (importing it costs ~2.5 s), and our
own providers are registered with it then (settings.WHIZI_LLM_PROVIDERS): `whizi/…`
(the embedded offline model, app `offline`) and `scripted/…` (the test provider).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from whizi.llm.catalog import ModelSpec, model_spec
from whizi.llm.errors import ModelError, model_error_from

__all__ = ["Completion", "ModelError", "ModelSpec", "ReplyStream", "acomplete", "astream", "complete",
           "litellm_module", "llm_warm", "model_display_name", "model_lookup", "rate_limit_wait", "stream"]

log = logging.getLogger(__name__)
_lock = threading.Lock()
_litellm_module: Any = None


@dataclass(frozen=True)
class Completion:
    """A whole answer. `model` is the name that answered (a fallback's, if one did);
    `cost` is in US dollars, None when the model cannot be priced."""

    text: str
    model: str
    input_tokens: int
    output_tokens: int
    cost: Decimal | None = None
    finish_reason: str = ""  # "length": the answer stopped at max_tokens and may be cut


def litellm_module() -> Any:
    """Import litellm once and register Whizi's own providers with it."""
    global _litellm_module
    if _litellm_module is None:
        with _lock:
            if _litellm_module is None:
                _litellm_module = _import_litellm()
    return _litellm_module


def _import_litellm() -> Any:
    """The import, undone if it is cut short.

    An import interrupted halfway (a task's soft time limit lands during a worker's first
    model call, a signal) leaves half-initialised modules in sys.modules, and every later
    import in the process fails ("partially initialized module 'litellm'"): that worker
    process could never call a model again. So everything the failed attempt added is
    forgotten, and the next call imports afresh.
    """
    before = set(sys.modules)
    try:
        return _register_providers()
    except BaseException:
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)
        raise


def _register_providers() -> Any:
    """litellm, with the providers named in settings.WHIZI_LLM_PROVIDERS registered (by
    dotted path, so this layer imports no app: the offline model is an app of its own)."""
    import litellm
    from django.conf import settings
    from django.utils.module_loading import import_string

    providers = settings.WHIZI_LLM_PROVIDERS
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    # A parameter a provider does not take (stream_options, user) is left out, not an error.
    litellm.drop_params = True
    litellm.custom_provider_map = [
        item for item in litellm.custom_provider_map if item["provider"] not in providers
    ] + [
        {"provider": name, "custom_handler": import_string(path)()} for name, path in providers.items()
    ]
    return litellm


def llm_warm() -> None:
    """Load everything a model call needs before the first request, in the web process.

    Importing litellm, building the Router and loading the tokenizers takes seconds, and
    litellm loads more on its first real call (its cost tables' tokenizer, the OpenAI
    client's types): about 0.3 s of CPU that would otherwise land on the first chats, on
    the event loop every other request shares. A mocked answer, streamed and whole,
    through the Router goes down the same paths with no network. Never fatal: a
    failure here only means the first chat pays.
    """
    import tiktoken

    from whizi.llm.router import model_router

    router = model_router()
    tiktoken.get_encoding("o200k_base")  # kept by tiktoken: every later count uses it
    messages = [{"role": "user", "content": "warm-up"}]

    async def mocked() -> None:
        reply = await router.acompletion(model="openai/warm-up", messages=messages,
                                         mock_response="ok", stream=True)
        async for _ in reply:
            pass
        await router.acompletion(model="openai/warm-up", messages=messages, mock_response="ok")

    def run() -> None:
        try:
            asyncio.run(mocked())
        except Exception:  # noqa: BLE001 - a warm-up must never stop the server starting
            log.warning("model warm-up failed; the first chat loads what it needs", exc_info=True)

    # Its own thread and event loop: a server may import the application inside its loop.
    # Bounded, so a warm-up that somehow hangs never keeps the server from starting.
    thread = threading.Thread(target=run, name="llm-warm-up", daemon=True)
    thread.start()
    thread.join(timeout=30)


# ---------------------------------------------------------------- the catalogue


def model_lookup(name: str) -> ModelSpec:
    """The configured spec of a model name (litellm's defaults for a name not configured)."""
    from django.conf import settings

    return model_spec(name, settings.WHIZI_MODELS)


def model_display_name(name: str) -> str:
    return model_lookup(name).display_name


def _call_params(spec: ModelSpec, params: dict[str, Any]) -> dict[str, Any]:
    if spec.max_tokens and "max_tokens" not in params:
        params = {**params, "max_tokens": spec.max_tokens}
    return params


def _attempt_timeout(spec: ModelSpec, timeout: float) -> float:
    return min(spec.timeout, timeout) if spec.timeout else timeout


# ---------------------------------------------------------------- answers


def _answered_by(response: Any, requested: ModelSpec) -> str:
    """Our name for the model that answered: the requested one unless a fallback did."""
    from whizi.llm.router import name_for_litellm_model

    hidden = getattr(response, "_hidden_params", None) or {}
    answered = hidden.get("litellm_model_name") or hidden.get("model") or ""
    if not answered or answered == requested.model:
        return requested.name
    return name_for_litellm_model(answered, default=requested.name)


def _usage(usage: Any) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    if isinstance(usage, dict):  # a lean stream's final chunk, as the provider sent it
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)


def _completion(response: Any, spec: ModelSpec) -> Completion:
    from whizi.llm.usage import reply_cost

    text = response.choices[0].message.content or ""
    name = _answered_by(response, spec)
    input_tokens, output_tokens = _usage(getattr(response, "usage", None))
    return Completion(text=text, model=name, input_tokens=input_tokens, output_tokens=output_tokens,
                      cost=reply_cost(model_lookup(name), input_tokens, output_tokens),
                      finish_reason=response.choices[0].finish_reason or "")


def complete(*, model: str, messages: list[dict[str, str]], timeout: float, retries: int = 0,
             **params: Any) -> Completion:
    """One answer, waited for in this thread (the memory worker, the page without JavaScript).

    `timeout` bounds each attempt; by default there is one attempt plus any configured
    fallbacks, because the memory pass retries at its own level (memory.run).
    """
    from whizi.llm.router import model_router

    spec = model_lookup(model)
    try:
        response = model_router().completion(
            model=spec.name, messages=messages, timeout=_attempt_timeout(spec, timeout),
            num_retries=retries, **_call_params(spec, params))
        return _completion(response, spec)
    except Exception as exc:  # litellm raises many types; callers see one
        raise model_error_from(exc, litellm_module()) from exc


async def acomplete(*, model: str, messages: list[dict[str, str]], timeout: float,
                    **params: Any) -> Completion:
    """One answer, awaited: retries and fallbacks as configured, all within `timeout`.

    An OpenAI-protocol model's answer is read as a lean stream and joined (whizi.llm.lean):
    litellm builds a whole response into its models at about twice the CPU of the lean
    reader's call (docs/PERFORMANCE.md); the routing, retries, fallbacks, error classes,
    usage and cost are the same."""
    from whizi.llm.lean import LEAN_PROVIDERS
    from whizi.llm.router import model_router

    spec = model_lookup(model)
    if spec.provider in LEAN_PROVIDERS and _lean_on():
        reply = ReplyStream(spec, messages, timeout, params)
        async for _ in reply:
            pass
        return reply.completion
    deadline = asyncio.get_running_loop().time() + timeout
    response = await _within(deadline, lambda: model_router().acompletion(
        model=spec.name, messages=messages, timeout=_attempt_timeout(spec, timeout),
        num_retries=_retries(spec), **_call_params(spec, params)))
    try:
        return _completion(response, spec)
    except Exception as exc:
        raise model_error_from(exc, litellm_module()) from exc


async def _within(deadline: float, call: Callable[[], Awaitable[Any]]) -> Any:
    """`call()` before the deadline; a rate limit with a short Retry-After is waited out
    once (rate_limit_wait). Failures come back as ModelError."""
    loop = asyncio.get_running_loop()
    waited = False
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                return await call()
        except Exception as exc:
            error = model_error_from(exc, litellm_module())
            wait = None if waited else rate_limit_wait(error, remaining=deadline - loop.time())
            if wait is None:
                raise error from exc
        waited = True
        log.info("model rate-limited: asking again in %.1f s, as the provider said", wait)
        await asyncio.sleep(wait)


def rate_limit_wait(error: ModelError, *, remaining: float) -> float | None:
    """How long to wait before asking once more, or None to give up now.

    The Router sends a rate-limited call straight to its fallbacks; when there are none
    (or they are limited too), a person waiting on a reply is better served by a short
    wait than by an error, if the provider says the wait is short
    (WHIZI_CHAT_RATE_LIMIT_WAIT) and it fits in what is left of the chat's deadline. A
    longer wait comes back at once, with the provider's Retry-After to tell them.
    """
    from django.conf import settings

    wait = error.retry_after
    if error.kind != "rate_limit" or wait is None:
        return None
    if wait > settings.WHIZI_CHAT_RATE_LIMIT_WAIT or wait >= remaining:
        return None
    return wait


def _lean_on() -> bool:
    from django.conf import settings

    return settings.WHIZI_LEAN_STREAM


def _retries(spec: ModelSpec) -> int:
    from django.conf import settings

    return settings.WHIZI_CHAT_RETRIES if spec.retries is None else spec.retries


class ReplyStream:
    """An answer arriving piece by piece: `async for piece in stream`, then `.completion`
    (the whole text, the provider's token counts and the cost).

    The deadline covers opening the stream and every piece: a provider that sends one
    token every few seconds is cut off when the time is up, not kept alive by each token.
    """

    def __init__(self, spec: ModelSpec, messages: list[dict[str, str]], timeout: float,
                 params: dict[str, Any]) -> None:
        self.spec = spec
        self.messages = messages
        self.timeout = timeout
        self.params = params
        self.completion: Completion | None = None
        self.lean = False  # read by whizi.llm.lean rather than by litellm's chunk models

    def __aiter__(self) -> AsyncIterator[str]:
        return self._pieces()

    async def _pieces(self) -> AsyncIterator[str]:
        from whizi.llm.lean import LeanStream
        from whizi.llm.router import model_router

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        response = None
        pieces: list[str] = []
        usage, finish_reason = None, ""
        try:
            response = await _within(deadline, lambda: model_router().acompletion(
                model=self.spec.name, messages=self.messages, stream=True,
                stream_options={"include_usage": True},
                timeout=_attempt_timeout(self.spec, self.timeout), num_retries=_retries(self.spec),
                **_call_params(self.spec, self.params)))
            if isinstance(response, LeanStream):
                self.lean = True
                # The deadline is kept around each network read, never across a yield: the
                # time the caller spends between pieces is on its own clock.
                async for piece in response.texts(deadline):
                    pieces.append(piece)
                    yield piece
                usage, finish_reason = response.usage, response.finish_reason or ""
            else:
                async for piece, usage_so_far in _litellm_pieces(response, deadline):
                    usage = usage_so_far
                    if piece:
                        pieces.append(piece)
                        yield piece
        except Exception as exc:
            raise model_error_from(exc, litellm_module()) from exc
        finally:
            if response is not None and hasattr(response, "aclose"):
                await response.aclose()
        self.completion = self._finished("".join(pieces), response, usage, finish_reason)

    def _finished(self, text: str, response: Any, usage: Any, finish_reason: str) -> Completion:
        from whizi.llm.usage import reply_cost

        name = _answered_by(response, self.spec)
        input_tokens, output_tokens = _usage(usage)
        return Completion(text=text, model=name, input_tokens=input_tokens, output_tokens=output_tokens,
                          cost=reply_cost(model_lookup(name), input_tokens, output_tokens),
                          finish_reason=finish_reason)


async def _litellm_pieces(response: Any, deadline: float) -> AsyncIterator[tuple[str, Any]]:
    """(text, usage so far) of each chunk of litellm's own stream, each read within the deadline."""
    chunks = aiter(response)
    usage = None
    while True:
        async with asyncio.timeout_at(deadline):
            chunk = await anext(chunks, None)
        if chunk is None:
            return
        usage = getattr(chunk, "usage", None) or usage
        yield (chunk.choices[0].delta.content if chunk.choices else None) or "", usage


def astream(*, model: str, messages: list[dict[str, str]], timeout: float, **params: Any) -> ReplyStream:
    """Stream an answer (async): see ReplyStream. Failures come back as ModelError."""
    return ReplyStream(model_lookup(model), messages, timeout, params)


def stream(*, model: str, messages: list[dict[str, str]], timeout: float, **params: Any) -> Iterator[str]:
    """Yield an answer piece by piece in this thread, within `timeout` in all."""
    from whizi.llm.router import model_router

    spec = model_lookup(model)
    deadline = time.monotonic() + timeout
    try:
        response = model_router().completion(
            model=spec.name, messages=messages, stream=True, timeout=_attempt_timeout(spec, timeout),
            num_retries=0, **_call_params(spec, params))
        for chunk in response:
            if time.monotonic() > deadline:
                response.close()
                raise TimeoutError("the answer took longer than its deadline")
            piece = chunk.choices[0].delta.content if chunk.choices else None
            if piece:
                yield piece
    except Exception as exc:
        raise model_error_from(exc, litellm_module()) from exc
