"""The one module every model call goes through: a thin layer over litellm.

litellm is imported on first use, not at start-up (importing it costs ~2.5 s), and
our own providers are registered with it then (settings.WHIZI_LLM_PROVIDERS): `whizi/…`
(the embedded offline model, app `offline`) and `scripted/…` (the test provider).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

_lock = threading.Lock()
_litellm_module: Any = None


class ModelError(Exception):
    """A model call failed: timeout, rate limit, provider error or an unusable answer."""

    def __init__(self, message: str, *, kind: str = "error", retryable: bool = True) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    input_tokens: int
    output_tokens: int
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
    litellm.custom_provider_map = [
        item for item in litellm.custom_provider_map if item["provider"] not in providers
    ] + [
        {"provider": name, "custom_handler": import_string(path)()} for name, path in providers.items()
    ]
    return litellm


def _translate_error(exc: Exception) -> ModelError:
    litellm = litellm_module()
    if isinstance(exc, ModelError):
        return exc
    name = type(exc).__name__
    if isinstance(exc, litellm.Timeout) or isinstance(exc, TimeoutError):
        return ModelError(f"model timed out ({name})", kind="timeout")
    if isinstance(exc, litellm.RateLimitError):
        return ModelError(f"model rate limited ({name})", kind="rate_limit")
    if isinstance(exc, litellm.BadRequestError | litellm.AuthenticationError | litellm.NotFoundError):
        return ModelError(f"model rejected the request ({name})", kind="rejected", retryable=False)
    return ModelError(f"model call failed ({name})", kind="error")


def _usage(response: Any) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0
    return int(getattr(usage, "prompt_tokens", 0) or 0), int(
        getattr(usage, "completion_tokens", 0) or 0
    )


def complete(*, model: str, messages: list[dict[str, str]], timeout: float, **params: Any) -> Completion:
    """One non-streaming call; every failure comes back as ModelError."""
    litellm = litellm_module()
    try:
        response = litellm.completion(
            model=model, messages=messages, timeout=timeout, num_retries=0, **params
        )
        text = response.choices[0].message.content or ""
        finish_reason = response.choices[0].finish_reason or ""
    except Exception as exc:  # litellm raises many types; callers see one
        raise _translate_error(exc) from exc
    input_tokens, output_tokens = _usage(response)
    return Completion(text=text, model=model, input_tokens=input_tokens, output_tokens=output_tokens,
                      finish_reason=finish_reason)


def stream(*, model: str, messages: list[dict[str, str]], timeout: float, **params: Any) -> Iterator[str]:
    """Yield the reply's text piece by piece; failures come back as ModelError."""
    litellm = litellm_module()
    try:
        response = litellm.completion(
            model=model, messages=messages, timeout=timeout, num_retries=0, stream=True, **params
        )
        for chunk in response:
            piece = chunk.choices[0].delta.content if chunk.choices else None
            if piece:
                yield piece
    except Exception as exc:
        raise _translate_error(exc) from exc


async def astream(
    *, model: str, messages: list[dict[str, str]], timeout: float, **params: Any
) -> AsyncIterator[str]:
    """Async twin of stream(), for the ASGI chat view."""
    litellm = litellm_module()
    try:
        response = await litellm.acompletion(
            model=model, messages=messages, timeout=timeout, num_retries=0, stream=True, **params
        )
        async for chunk in response:
            piece = chunk.choices[0].delta.content if chunk.choices else None
            if piece:
                yield piece
    except Exception as exc:
        raise _translate_error(exc) from exc
