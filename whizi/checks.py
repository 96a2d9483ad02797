"""Start-up checks of the model configuration (`manage.py check`, `check --deploy`).

`check` warns; `check --deploy` makes errors of what would break users: a model whose
provider litellm does not know, a key variable that is not set, and the offline model
as the memory model (it is a stand-in, not a language model).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning, register

from whizi.llm import litellm_module, model_lookup
from whizi.llm.catalog import ModelSpec

TAG = "whizi_models"


def _used_names() -> list[str]:
    names = [*settings.WHIZI_CHAT_MODELS, settings.WHIZI_MEMORY_MODEL]
    for name in list(names):
        spec = model_lookup(name)
        names += [*spec.fallbacks, *spec.context_window_fallbacks]
    return list(dict.fromkeys(names))


def _unknown_provider(spec: ModelSpec, litellm: Any) -> bool:
    if spec.own:
        return spec.provider not in settings.WHIZI_LLM_PROVIDERS
    try:
        litellm.get_llm_provider(spec.model)
    except Exception:  # litellm raises BadRequestError for a name it cannot place
        return True
    return False


def _missing_keys(spec: ModelSpec, litellm: Any) -> list[str]:
    if spec.own:
        return []
    if spec.api_key_env:
        return [] if os.environ.get(spec.api_key_env) else [spec.api_key_env]
    try:
        missing = litellm.validate_environment(spec.model).get("missing_keys") or []
    except Exception:
        return []
    if spec.api_base:  # an endpoint given in the models file needs no *_API_BASE variable
        missing = [name for name in missing if "BASE" not in name]
    return list(missing)


def _unknown_window(spec: ModelSpec, litellm: Any) -> bool:
    if spec.own or spec.context_window:
        return False
    try:
        litellm.get_model_info(spec.model)
    except Exception:
        return True
    return False


def _findings(deploy: bool) -> list[Warning | Error]:
    litellm = litellm_module()
    serious = Error if deploy else Warning
    found: list[Warning | Error] = []
    for name in _used_names():
        spec = model_lookup(name)
        if _unknown_provider(spec, litellm):
            found.append(serious(f"Model {name!r}: litellm knows no provider {spec.provider!r}.",
                                 hint="Use a litellm id such as openai/gpt-4o-mini.", id="whizi.E001"
                                 if deploy else "whizi.W001"))
            continue
        missing = _missing_keys(spec, litellm)
        if missing:
            found.append(serious(f"Model {name!r}: {', '.join(missing)} not set in the environment.",
                                 hint="Set the provider's key variable (or api_key_env in the models file).",
                                 id="whizi.E002" if deploy else "whizi.W002"))
        if _unknown_window(spec, litellm):
            found.append(Warning(f"Model {name!r}: context window unknown, history is budgeted for "
                                 "8,192 tokens.", hint="Set context_window in WHIZI_MODELS_FILE.",
                                 id="whizi.W003"))
    if deploy and settings.WHIZI_MEMORY_MODEL == settings.WHIZI_OFFLINE_MODEL:
        found.append(Error("The memory model is the offline model.",
                           hint="Set WHIZI_MEMORY_MODEL to a real model for production.", id="whizi.E004"))
    return found


@register(TAG)
def model_configuration_check(app_configs: Any = None, **kwargs: Any) -> list[Warning | Error]:
    return [] if kwargs.get("include_deployment_checks") else _findings(deploy=False)


@register(TAG, deploy=True)
def model_deployment_check(app_configs: Any = None, **kwargs: Any) -> list[Warning | Error]:
    return _findings(deploy=True)


@register("whizi_metrics", deploy=True)
def metrics_deployment_check(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Metrics scraped from gunicorn's workers without a shared directory would each be one
    worker's counts, whichever answered the scrape (docs/DEPLOY.md → Metrics)."""
    metrics_on = settings.WHIZI_METRICS_TOKEN or settings.WHIZI_METRICS_ALLOW
    if metrics_on and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return [Warning("Metrics are on but PROMETHEUS_MULTIPROC_DIR is not set: each web worker "
                        "and each of the worker's pool processes counts alone.",
                        hint="Set PROMETHEUS_MULTIPROC_DIR to an empty directory for every process.",
                        id="whizi.W005")]
    return []


# What Django's own checks look for in MIDDLEWARE by name, found here in either list
# (WHIZI_THREAD_STEP_MIDDLEWARE runs inside MIDDLEWARE: whizi.middleware.ThreadStepMiddleware).
_MIDDLEWARE_NEEDED = {
    "django.contrib.sessions.middleware.SessionMiddleware": "the admin and sign-in need sessions",
    "django.contrib.auth.middleware.AuthenticationMiddleware": "the admin and sign-in need request.user",
    "django.contrib.messages.middleware.MessageMiddleware": "the admin and the pages show messages",
    "django.middleware.csrf.CsrfViewMiddleware": "every form and the API are protected against CSRF",
    "django.middleware.clickjacking.XFrameOptionsMiddleware": "no page may be framed by another site",
}


@register("whizi_middleware")
def middleware_check(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """admin.E408–E410 and security.W002/W003 (silenced in settings: they read MIDDLEWARE
    alone) for the two lists together, and the thread step where it must be."""
    found: list[Error] = []
    thread_step = list(getattr(settings, "WHIZI_THREAD_STEP_MIDDLEWARE", []))
    if thread_step and "whizi.middleware.ThreadStepMiddleware" not in settings.MIDDLEWARE:
        found.append(Error("WHIZI_THREAD_STEP_MIDDLEWARE is set, ThreadStepMiddleware is not in MIDDLEWARE.",
                           hint="Add whizi.middleware.ThreadStepMiddleware to MIDDLEWARE.", id="whizi.E005"))
    present = [*settings.MIDDLEWARE, *thread_step]
    for path, why in _MIDDLEWARE_NEEDED.items():
        if path not in present:
            found.append(Error(f"{path} is in neither MIDDLEWARE nor WHIZI_THREAD_STEP_MIDDLEWARE: {why}.",
                               id="whizi.E006"))
    return found
