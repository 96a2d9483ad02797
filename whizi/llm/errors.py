"""A failed model call, told as one ModelError with the provider's error class.

Kinds: auth (bad or missing key, no permission), not_found (unknown model or
deployment), quota (billing or credit used up), rate_limit, context (the request is
over the model's window), timeout, server (5xx, overloaded, connection refused or cut
mid-stream) and other (a request the provider refuses for any other reason).
`retryable` says whether the same request may succeed later; `retry_after` is the
provider's Retry-After in seconds when it sent one.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

KINDS = ("auth", "not_found", "quota", "rate_limit", "context", "timeout", "server", "other")
RETRYABLE_KINDS = frozenset({"rate_limit", "timeout", "server"})


class ModelError(Exception):
    """A model call failed. `provider_error` names the exception it came from (for logs)."""

    def __init__(self, message: str, *, kind: str = "other", retryable: bool | None = None,
                 retry_after: float | None = None, provider_error: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = kind in RETRYABLE_KINDS if retryable is None else retryable
        self.retry_after = retry_after
        self.provider_error = provider_error or type(self).__name__


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


def _headers(exc: BaseException) -> dict[str, str]:
    found: dict[str, str] = {}
    response = getattr(exc, "response", None)
    for source in (getattr(response, "headers", None), getattr(exc, "litellm_response_headers", None),
                   getattr(exc, "headers", None)):
        if source:
            found.update({str(k).lower(): str(v) for k, v in dict(source).items()})
    return found


def retry_after_seconds(exc: BaseException) -> float | None:
    """The provider's Retry-After (seconds, or an HTTP date; `retry-after-ms` too), if sent."""
    headers = _headers(exc)
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        return max(0.0, email.utils.mktime_tz(parsed) - time.time()) if parsed else None


def _is_quota(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "insufficient_quota" in text or "exceeded your current quota" in text or "credit" in text


def _kind(exc: BaseException, litellm: Any) -> str:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError | litellm.Timeout):
        return "timeout"
    if isinstance(exc, litellm.ContextWindowExceededError):
        return "context"
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return "auth"
    if isinstance(exc, litellm.NotFoundError):
        return "not_found"
    if isinstance(exc, litellm.PaymentRequiredError) or (
            _is_quota(exc) and isinstance(exc, litellm.RateLimitError | litellm.BadRequestError)):
        return "quota"
    if isinstance(exc, litellm.RateLimitError) or type(exc).__name__ == "RouterRateLimitError":
        return "rate_limit"
    if isinstance(exc, litellm.BadRequestError | litellm.UnprocessableEntityError):
        return "other"
    status = _status(exc)
    if status is not None and 400 <= status < 500:
        return "rate_limit" if status == 429 else "other"
    if isinstance(exc, litellm.APIConnectionError | litellm.APIError) or (status or 0) >= 500:
        return "server"
    return "other"


def model_error_from(exc: BaseException, litellm: Any) -> ModelError:
    """The ModelError for whatever a litellm call raised."""
    if isinstance(exc, ModelError):
        return exc
    original = getattr(exc, "original_exception", None)
    if type(exc).__name__ == "MidStreamFallbackError" and isinstance(original, BaseException):
        # The stream broke after its first pieces: what broke it is the error's class.
        exc = original
    kind = _kind(exc, litellm)
    name = type(exc).__name__
    status = _status(exc)
    detail = f"{name}, HTTP {status}" if status else name
    return ModelError(f"model call failed: {kind} ({detail})", kind=kind,
                      retry_after=retry_after_seconds(exc), provider_error=detail)
