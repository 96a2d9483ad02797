"""The litellm Router built from the catalogue: one deployment per configured model name,
and a pass-through for any other litellm id (tests and ad-hoc names reach their provider
with litellm's defaults).

Rate limits are not retried on the same model (see router_config). Cooldowns are off
unless the models file's [router] table sets `allowed_fails`: each name is a single
deployment here, and cooling it down after one user's failure would refuse every other
user's chat for that long.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from whizi.llm.catalog import ModelSpec, model_spec

_lock = threading.Lock()
_routers: dict[str, Any] = {}


def _configured_names() -> list[str]:
    from django.conf import settings

    names = [*settings.WHIZI_MODELS, *settings.WHIZI_CHAT_MODELS, settings.WHIZI_MEMORY_MODEL]
    for name in list(names):
        spec = model_spec(name, settings.WHIZI_MODELS)
        names += [*spec.fallbacks, *spec.context_window_fallbacks]
    return list(dict.fromkeys(names))


def _deployment(spec: ModelSpec) -> dict[str, Any]:
    params: dict[str, Any] = {"model": spec.model, **dict(spec.litellm_params)}
    if spec.api_base:
        params["api_base"] = spec.api_base
    if spec.api_key_env:
        params["api_key"] = f"os.environ/{spec.api_key_env}"  # read from the environment, never stored
    if spec.api_version:
        params["api_version"] = spec.api_version
    return {"model_name": spec.name, "litellm_params": params}


def router_config() -> dict[str, Any]:
    """The Router's arguments for the current settings."""
    from django.conf import settings

    specs = [model_spec(name, settings.WHIZI_MODELS) for name in _configured_names()]
    options = dict(settings.WHIZI_MODEL_ROUTER)
    config: dict[str, Any] = {
        "model_list": [_deployment(spec) for spec in specs]
        + [{"model_name": "*", "litellm_params": {"model": "*"}}],
        "fallbacks": [{s.name: list(s.fallbacks)} for s in specs if s.fallbacks],
        "context_window_fallbacks": [{s.name: list(s.context_window_fallbacks)}
                                     for s in specs if s.context_window_fallbacks],
        "num_retries": 0,
        # Retries are for faults that pass (timeouts, 5xx). A rate limit goes straight to
        # the model's fallback, or back to the caller with the provider's Retry-After: a
        # chat waits out a short one itself, within its deadline (whizi.llm.rate_limit_wait),
        # and the memory pass waits at its own level (memory.run).
        "retry_policy": {"RateLimitErrorRetries": 0, "AuthenticationErrorRetries": 0,
                         "BadRequestErrorRetries": 0, "NotFoundErrorRetries": 0,
                         "ContentPolicyViolationErrorRetries": 0},
    }
    if "allowed_fails" in options:
        config.update(allowed_fails=options["allowed_fails"], cooldown_time=options.get("cooldown_time", 30))
    else:
        config["disable_cooldowns"] = True
    return config


def model_router() -> Any:
    """The process's Router for the current settings (built again only when they change)."""
    from django.conf import settings

    config = router_config()
    lean = settings.WHIZI_LEAN_STREAM
    key = json.dumps([config, lean], sort_keys=True, default=str)
    router = _routers.get(key)
    if router is None:
        with _lock:
            router = _routers.get(key)
            if router is None:
                router = _router_build(config, lean=lean)
                _routers.clear()  # settings changed (tests): the old one is not used again
                _routers[key] = router
    return router


def _router_build(config: dict[str, Any], *, lean: bool) -> Any:
    """litellm's Router; with `lean`, on the host that reads OpenAI-protocol streams lean
    (whizi.llm.lean), the same routing, retries and fallbacks."""
    from whizi.llm import litellm_module

    litellm = litellm_module()
    if not lean:
        return litellm.Router(**config)
    from litellm.router import router_arguments
    from litellm.router_config import build_router_config

    from whizi.llm.lean import StreamHost

    return litellm.Router.from_config(build_router_config(router_arguments(**config)), StreamHost())


def name_for_litellm_model(litellm_model: str, *, default: str) -> str:
    """Our name for a litellm id (the first configured name using it), for a fallback's answer."""
    from django.conf import settings

    for name in _configured_names():
        if model_spec(name, settings.WHIZI_MODELS).model == litellm_model:
            return name
    return litellm_model or default
