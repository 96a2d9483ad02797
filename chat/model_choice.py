"""Which chat model answers, and how much of a conversation it can be sent."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.utils.translation import gettext as _

from accounts.owner import Owner
from accounts.preferences import chat_models, preferred_chat_model
from chat.errors import ChatInputError
from whizi.llm import litellm_module, model_lookup

# Context window for a model neither its configuration nor litellm knows (the offline
# model, scripted models, custom deployments): the smallest any current chat model has.
DEFAULT_CONTEXT_TOKENS = 8_192
# Room kept for the reply when litellm knows a model's total tokens but not its input.
REPLY_RESERVE_TOKENS = 1_024


def chat_model_choose(*, requested: str | None, current: str | None = None,
                      owner: Owner | None = None) -> str:
    """The model for the next reply: the one asked for, else the conversation's, else
    the owner's preferred one, else the first configured. Raises ChatInputError."""
    models = chat_models()
    if requested:
        if requested not in models:
            raise ChatInputError(
                _("That chat model is not available. Pick one from the list."), field="model"
            )
        return requested
    if current in models:
        return current
    return preferred_chat_model(owner=owner)


def model_context_tokens(model: str) -> int:
    """The model's input window: configured, else litellm's model map, else a safe default."""
    configured = model_lookup(model).context_window
    return configured or _mapped_context_tokens(model_lookup(model).model)


@lru_cache(maxsize=64)
def _mapped_context_tokens(litellm_model: str) -> int:
    try:
        info = litellm_module().get_model_info(litellm_model)
    except Exception:  # litellm raises a bare Exception for an unmapped model
        return DEFAULT_CONTEXT_TOKENS
    max_input = info.get("max_input_tokens")
    if max_input:
        return int(max_input)
    max_tokens = info.get("max_tokens")
    if max_tokens:
        return max(int(max_tokens) - REPLY_RESERVE_TOKENS, REPLY_RESERVE_TOKENS)
    return DEFAULT_CONTEXT_TOKENS


def model_reply_tokens(model: str) -> int:
    """The longest reply asked of the model (its max_tokens)."""
    return model_lookup(model).max_tokens or settings.WHIZI_CHAT_MAX_TOKENS


def history_budget(model: str, *, fixed_tokens: int) -> int:
    """How many tokens of history (counted with o200k_base, as stored) one message may
    carry on `model`, after `fixed_tokens` of system messages, memory and the new message.

    1. The model's window, less the reply it may write, less the fixed part.
    2. No more than the product cap (WHIZI_HISTORY_MAX_TOKENS, or the model's own).
    3. Both are in the model's tokens: divided by its tokenizer's factor (whizi.llm.catalog:
       exact for o200k models, a measured margin for others, a wider one when unknown).
    """
    spec = model_lookup(model)
    factor = spec.family_token_factor
    room = model_context_tokens(model) - model_reply_tokens(model) - fixed_tokens * factor
    cap = spec.history_max_tokens or settings.WHIZI_HISTORY_MAX_TOKENS
    return max(0, int(min(room, cap) / factor))
