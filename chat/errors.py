"""What goes wrong in a chat, and what the user is told: shared by the page and the JSON API."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from whizi.llm import ModelError

if TYPE_CHECKING:
    from chat.models import Message

# How long a client should wait before trying again after a rate limit or a timeout.
RETRY_AFTER_SECONDS = 5


class ChatInputError(Exception):
    """The request was refused before anything was saved."""

    def __init__(self, message: str, *, field: str = "content") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ChatNotAllowed(Exception):
    """The voice session no longer takes turns (ended, or full); nothing was saved."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ChatModelFailed(Exception):
    """The chat model gave no reply. The user's message is saved; trying again is safe."""

    def __init__(self, error: ModelError, *, user_message: Message) -> None:
        super().__init__(str(error))
        self.kind = error.kind
        self.retryable = error.retryable
        self.retry_after = error.retry_after
        self.user_message = user_message


@dataclass(frozen=True)
class ModelFailureText:
    status: int
    title: str
    message: str
    retryable: bool
    retry_after: int | None


def model_failure_text(*, kind: str, retryable: bool, retry_after: float | None = None) -> ModelFailureText:
    """The HTTP status and the words for a chat-model failure of this class
    (whizi.llm.errors); `retry_after` is the provider's, passed on when it sent one."""
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
            True, math.ceil(retry_after) if retry_after else RETRY_AFTER_SECONDS,
        )
    if kind in ("auth", "not_found", "quota"):
        # The server's set-up, not the user's request: no point in sending it again as is.
        return ModelFailureText(
            503, title,
            _("The chat model is not available right now. Your message is saved: try another "
              "model or try again later."),
            False, None,
        )
    if kind == "context":
        return ModelFailureText(
            502, title,
            _("This conversation is too long for this model. Your message is saved: try another "
              "model or start a new conversation."),
            False, None,
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
