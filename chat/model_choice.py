"""Which chat model answers, and how much of a conversation it can be sent."""

from __future__ import annotations

from functools import lru_cache

from django.utils.translation import gettext as _

from accounts.owner import Owner
from accounts.preferences import chat_models, preference_read
from chat.errors import ChatInputError
from whizi.llm import litellm_module

# Context budget for a model litellm has no figures for (the offline model, scripted
# models, custom deployments): the smallest context any current chat model offers.
DEFAULT_CONTEXT_TOKENS = 8_192
# Room left for the reply when the budget is a model's whole context window.
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
    if owner is not None:
        preferred = preference_read(owner=owner).chat_model
        if preferred:  # preference_read only returns a configured model
            return preferred
    return models[0]


@lru_cache(maxsize=64)
def model_context_tokens(model: str) -> int:
    """The model's input budget from litellm's model map, or a safe default."""
    try:
        info = litellm_module().get_model_info(model)
    except Exception:  # litellm raises a bare Exception for an unmapped model
        return DEFAULT_CONTEXT_TOKENS
    max_input = info.get("max_input_tokens")
    if max_input:
        return int(max_input)
    max_tokens = info.get("max_tokens")
    if max_tokens:
        return max(int(max_tokens) - REPLY_RESERVE_TOKENS, REPLY_RESERVE_TOKENS)
    return DEFAULT_CONTEXT_TOKENS
