"""Which models Whizi knows, and how each one is reached (settings.WHIZI_MODELS).

A model has a *name* (what the picker offers, what a conversation and a reply record)
and a litellm *model* id; they are the same unless a models file says otherwise. The
simple case needs no file: `WHIZI_CHAT_MODELS=openai/gpt-4o-mini` reaches that model
with litellm's defaults (keys and endpoints from the provider's own variables).

WHIZI_MODELS_FILE (TOML or JSON) adds per-model settings:

    chat_models = ["fast", "careful"]          # the picker, first is the default
    memory_model = "memory"

    [models.fast]
    model = "openai/gpt-4.1-mini"              # litellm id
    display_name = "GPT-4.1 mini"
    api_base = "https://api.openai.com/v1"
    api_key_env = "OPENAI_API_KEY"             # the variable holding the key, never the key
    context_window = 1047576
    history_max_tokens = 16000
    max_tokens = 2048
    timeout = 30                               # seconds per attempt
    retries = 2
    fallbacks = ["careful"]

Read once at start-up by whizi.settings; this module imports neither Django apps nor litellm.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

# Our own litellm providers (settings.WHIZI_LLM_PROVIDERS): free, and counted with o200k_base.
OWN_PROVIDERS = ("whizi", "scripted")

_TYPES: dict[str, type | tuple[type, ...]] = {
    "model": str, "display_name": str, "api_base": str, "api_key_env": str, "api_version": str,
    "context_window": int, "history_max_tokens": int, "max_tokens": int, "timeout": (int, float),
    "retries": int, "fallbacks": list, "context_window_fallbacks": list, "token_factor": (int, float),
    "input_cost_per_million": (int, float), "output_cost_per_million": (int, float),
    "litellm_params": dict,
}
_ROUTER_TYPES: dict[str, type | tuple[type, ...]] = {"allowed_fails": int, "cooldown_time": (int, float)}

# How many tokens a family's tokenizer makes of text that o200k_base (our stored counts)
# makes one token of, at worst over Whizi's six languages (memory/eval_scenarios: cl100k
# 1.55 on Korean, litellm's bundled Claude tokenizer 2.04 on Vietnamese). Unknown
# tokenizers (Llama, Mistral, Gemini, self-hosted models) get a wider margin.
TOKEN_FACTORS = {"o200k": 1.0, "cl100k": 1.6, "anthropic": 2.1, "unknown": 2.5}
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5")


@dataclass(frozen=True)
class ModelSpec:
    """One model as configured; None means "not set: litellm's or the caller's default"."""

    name: str
    model: str
    display_name: str = ""
    api_base: str | None = None
    api_key_env: str | None = None
    api_version: str | None = None
    context_window: int | None = None
    history_max_tokens: int | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    retries: int | None = None
    fallbacks: tuple[str, ...] = ()
    context_window_fallbacks: tuple[str, ...] = ()
    token_factor: float | None = None
    input_cost_per_million: float | None = None
    output_cost_per_million: float | None = None
    litellm_params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0] if "/" in self.model else ""

    @property
    def own(self) -> bool:
        return self.provider in OWN_PROVIDERS

    @property
    def family_token_factor(self) -> float:
        """Tokens of this model per o200k_base token (a safety margin when unknown)."""
        if self.token_factor:
            return float(self.token_factor)
        return TOKEN_FACTORS[tokenizer_family(self.model)]


def tokenizer_family(model: str) -> str:
    """o200k, cl100k, anthropic or unknown, from the litellm model id."""
    provider, _, bare = model.rpartition("/")
    if provider.split("/")[0] in OWN_PROVIDERS:
        return "o200k"
    bare = bare.lower()
    if provider in ("", "openai", "text-completion-openai") and bare.startswith(_O200K_PREFIXES):
        return "o200k"
    if provider in ("", "openai", "text-completion-openai") and bare.startswith(_CL100K_PREFIXES):
        return "cl100k"
    if "claude" in bare:
        return "anthropic"
    return "unknown"


def default_display_name(name: str) -> str:
    """A readable label: the part after the provider (`openai/gpt-4o-mini` → `gpt-4o-mini`)."""
    if name == "whizi/offline":
        return "Whizi offline"
    return name.rsplit("/", 1)[-1] or name


def _freeze(options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in options.items()))


@lru_cache(maxsize=256)
def _spec(name: str, frozen: tuple[tuple[str, Any], ...]) -> ModelSpec:
    options = {k: json.loads(v) for k, v in frozen}
    extra = options.pop("litellm_params", None) or {}
    for key in ("fallbacks", "context_window_fallbacks"):
        options[key] = tuple(options.get(key) or ())
    options.setdefault("model", name)
    options["display_name"] = options.get("display_name") or default_display_name(name)
    return ModelSpec(name=name, litellm_params=tuple(sorted(extra.items())), **options)


def model_spec(name: str, models: dict[str, dict[str, Any]]) -> ModelSpec:
    """The spec for `name` from the configured options (defaults for a name not listed)."""
    return _spec(name, _freeze(models.get(name) or {}))


# ---------------------------------------------------------------- the models file


@dataclass(frozen=True)
class ModelsFile:
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    chat_models: list[str] = field(default_factory=list)
    memory_model: str = ""
    router: dict[str, Any] = field(default_factory=dict)


def _checked(where: str, options: object, types: dict[str, type | tuple[type, ...]]) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise ImproperlyConfigured(f"{where} must be a table")
    for key, value in options.items():
        if key not in types:
            raise ImproperlyConfigured(f"{where}: unknown setting {key!r} (known: {', '.join(types)})")
        if isinstance(value, bool) or not isinstance(value, types[key]):
            raise ImproperlyConfigured(f"{where}.{key} has the wrong type: {value!r}")
    return dict(options)


def models_file_load(path: str) -> ModelsFile:
    """Read and check a models file (.toml or .json). Raises ImproperlyConfigured."""
    file = Path(path)
    try:
        raw = file.read_bytes()
        data = json.loads(raw) if file.suffix == ".json" else tomllib.loads(raw.decode())
    except (OSError, ValueError) as exc:
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path} must hold a table")
    unknown = set(data) - {"models", "chat_models", "memory_model", "router"}
    if unknown:
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path}: unknown keys {sorted(unknown)}")
    models = data.get("models") or {}
    if not isinstance(models, dict):
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path}: models must be a table of tables")
    checked = {name: _checked(f"models.{name}", options, _TYPES) for name, options in models.items()}
    chat = data.get("chat_models") or []
    if not isinstance(chat, list) or not all(isinstance(n, str) for n in chat):
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path}: chat_models must be a list of names")
    memory = data.get("memory_model") or ""
    if not isinstance(memory, str):
        raise ImproperlyConfigured(f"WHIZI_MODELS_FILE {path}: memory_model must be a name")
    router = _checked("router", data.get("router") or {}, _ROUTER_TYPES)
    return ModelsFile(models=checked, chat_models=chat, memory_model=memory, router=router)
