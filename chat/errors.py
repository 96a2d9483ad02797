"""What the user is told when a reply does not arrive: shared by the page and the JSON API."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

# How long a client should wait before trying again after a rate limit or a timeout.
RETRY_AFTER_SECONDS = 5


@dataclass(frozen=True)
class ModelFailureText:
    status: int
    title: str
    message: str
    retryable: bool
    retry_after: int | None


def model_failure_text(*, kind: str, retryable: bool) -> ModelFailureText:
    """The HTTP status and the words for a chat-model failure of this kind."""
    title = _("The reply didn't arrive")
    if kind == "timeout":
        return ModelFailureText(
            504, title,
            _("The chat model took too long to answer. Your message is saved: try again."),
            True, RETRY_AFTER_SECONDS,
        )
    if kind == "rate_limit":
        return ModelFailureText(
            503, title,
            _("The chat model is busy right now. Your message is saved: try again in a moment."),
            True, RETRY_AFTER_SECONDS,
        )
    if not retryable:
        return ModelFailureText(
            502, title,
            _("The chat model refused this request. Your message is saved: try another model "
              "or rephrase it."),
            False, None,
        )
    return ModelFailureText(
        502, title,
        _("The chat model could not answer. Your message is saved: try again."),
        True, None,
    )
