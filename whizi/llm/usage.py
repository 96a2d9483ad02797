"""What an answer cost, in US dollars, from the provider's token counts.

Prices come from the model's configuration (per million tokens) when it sets them, else
from litellm's price list; a model neither knows is not priced (None), which is not the
same as free. Whizi's own providers (the offline model, the scripted one) cost nothing.
"""

from __future__ import annotations

from decimal import Decimal

from whizi.llm.catalog import ModelSpec

_PLACES = Decimal("0.00000001")


def reply_cost(spec: ModelSpec, input_tokens: int, output_tokens: int) -> Decimal | None:
    if spec.own:
        return Decimal(0)
    if spec.input_cost_per_million is not None or spec.output_cost_per_million is not None:
        dollars = (input_tokens * (spec.input_cost_per_million or 0)
                   + output_tokens * (spec.output_cost_per_million or 0)) / 1_000_000
        return Decimal(str(dollars)).quantize(_PLACES)
    from whizi.llm import litellm_module

    litellm = litellm_module()
    try:
        info = litellm.get_model_info(spec.model)
    except Exception:  # litellm raises a bare Exception (or worse) for a model it cannot price
        return None
    # The Router lists every deployment it is given with a price of 0: only a real price counts.
    if not (info.get("input_cost_per_token") or info.get("output_cost_per_token")):
        return None
    prompt, completion = litellm.cost_per_token(model=spec.model, prompt_tokens=input_tokens,
                                                completion_tokens=output_tokens)
    return Decimal(str(prompt + completion)).quantize(_PLACES)
