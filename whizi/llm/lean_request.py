"""An OpenAI-protocol chat stream asked for without litellm's per-call work, when that
sends exactly the request litellm would (docs/PERFORMANCE.md, "A lean fixed path, a
fourth time").

litellm's set-up of one call (its logging object, the parameter mapping, the OpenAI
client's request, the response's metadata and a cost calculation) costs about as much
CPU again as the request and its reading, on the event loop every chat shares. The Router
still picks the deployment and runs the retries and fallbacks around this (StreamHost in
whizi.llm.lean); only the request of one attempt is made here, and only when:

- the deployment is `openai/…` and the call passes nothing but the messages (plain role
  and text), `max_tokens`, `user`, `stream_options` and the endpoint, key and timeout;
- litellm itself, asked once per model and set of parameters, would send the same body
  (`request_plan`): it renames `max_tokens` for reasoning models and leaves out what a
  model does not take, and a model whose messages it rewrites is left to it;
- nothing the process configured would change the request: litellm's own headers,
  organisation, callbacks, a proxy or a client certificate (then litellm makes it).

A failure is classed by litellm's own mapping from the OpenAI client's error for it, as
if litellm had made the request; the two answers litellm turns into something else (a 422
naming parameters, an output budget too small for one token) are asked again through it.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import weakref
from functools import lru_cache
from typing import Any

import httpx
import openai
from litellm.llms.openai.common_utils import OpenAIError, is_output_token_limit_error, upstream_error_response

from whizi.llm.lean import LeanStream, lean_error_mapped

# What the Router hands an attempt that says nothing about the request itself, and the
# call's own parameters a chat passes (whizi.llm.astream / acomplete).
_ROUTER_KEYS = frozenset({"model", "messages", "stream", "timeout", "api_base", "api_key", "metadata",
                          "model_info", "litellm_trace_id", "max_retries", "caching", "client",
                          "allow_client_keepalive_override", "use_in_pass_through", "use_litellm_proxy",
                          "use_xai_oauth", "merge_reasoning_content_in_choices", "_context_compaction_state"})
_PARAMS = ("max_tokens", "user", "stream_options")
_PROBE = {"max_tokens": 7654321, "user": "\x00whizi-probe", "stream_options": {"include_usage": True}}
_PROBE_MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                   {"role": "assistant", "content": "a"}, {"role": "user", "content": "v"}]
# Settings of the environment that change how litellm or its client send a request.
# (Certificates are litellm's own: its SSL configuration, SSL_CERT_FILE included, is used.)
_ENVIRONMENT = ("OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID", "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER",
                "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                "SSL_CERTIFICATE")

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary())


async def lean_request_open(kwargs: dict[str, Any]) -> LeanStream | None:
    """The attempt's stream, asked for and opened up to its first text; None when litellm
    must make this request (see the module's conditions)."""
    import litellm

    model = kwargs.get("model") or ""
    if not (kwargs.get("stream") and kwargs.get("stream_options") and model.startswith("openai/")
            and _plain(kwargs) and _untouched(litellm)):
        return None
    name = model.removeprefix("openai/")
    params = tuple(sorted(key for key in _PARAMS if kwargs.get(key) is not None))
    plan = request_plan(name, params, bool(litellm.drop_params))
    if plan is None:
        return None
    body: dict[str, Any] = {"model": name, "messages": kwargs["messages"], "stream": True}
    body.update({sent: kwargs[key] for key, sent in plan if sent})
    base = (kwargs.get("api_base") or litellm.api_base or os.environ.get("OPENAI_BASE_URL")
            or os.environ.get("OPENAI_API_BASE") or "https://api.openai.com/v1").rstrip("/")
    key = _key(kwargs.get("api_key"), litellm)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    client = _client()
    timeout = kwargs.get("timeout")
    request = client.build_request("POST", f"{base}/chat/completions", json=body, headers=headers,
                                   timeout=httpx.Timeout(timeout) if timeout else httpx.USE_CLIENT_DEFAULT)
    try:
        response = await client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise lean_error_mapped(openai.APITimeoutError(request=request), model=model,
                                provider="openai") from exc
    except httpx.TransportError as exc:
        raise lean_error_mapped(openai.APIConnectionError(request=request), model=model,
                                provider="openai") from exc
    if not response.is_success:
        error = await _sdk_error(response)
        if _litellm_answers(error):
            return None
        raise lean_error_mapped(OpenAIError(
            status_code=error.status_code, message=str(error), response=upstream_error_response(error),
            headers=response.headers, body=error.body), model=model, provider="openai")
    hidden = {"litellm_model_name": model, "api_base": base,
              "model_id": (kwargs.get("model_info") or {}).get("id"),
              "additional_headers": {f"llm_provider-{k}": v for k, v in response.headers.items()}}
    stream = LeanStream(response, model=name, provider="openai", hidden_params=hidden)
    try:
        return await stream.open()
    except BaseException:
        await stream.aclose()
        raise


@lru_cache(maxsize=256)
def request_plan(name: str, params: tuple[str, ...], drop_params: bool) -> tuple[tuple[str, str], ...] | None:
    """How the call's parameters go into the body of model `name` as litellm would send
    them — (parameter, the body's name for it, "" when left out) — or None when litellm's
    body differs otherwise (messages rewritten, more fields): then litellm asks.

    Found by asking litellm once for a probe request's body, with values nothing else
    could be."""
    from litellm.types.utils import LlmProviders
    from litellm.utils import ProviderConfigManager, get_optional_params

    probe = {key: _PROBE[key] for key in params}
    try:
        optional = get_optional_params(model=name, custom_llm_provider="openai", drop_params=drop_params,
                                       stream=True, **probe)
        config = ProviderConfigManager.get_provider_chat_config(model=name, provider=LlmProviders.OPENAI)
        if config is None:
            return None
        data = config.transform_request(model=name, messages=[dict(m) for m in _PROBE_MESSAGES],
                                        optional_params=dict(optional), litellm_params={}, headers={})
    except Exception:  # noqa: BLE001 - whatever litellm makes of the probe, it asks itself
        return None
    if data.pop("extra_body", None) or data.pop("model", None) != name:
        return None
    if data.pop("messages", None) != _PROBE_MESSAGES:
        return None
    data.pop("stream", None)
    plan = []
    for key in params:
        sent = next((field for field, value in data.items() if value == probe[key]), "")
        data.pop(sent, None)
        plan.append((key, sent))
    return None if data else tuple(plan)


def _plain(kwargs: dict[str, Any]) -> bool:
    """Only keys this module knows, no flag the Router would set for something else, and
    messages of plain text."""
    if any(key not in _ROUTER_KEYS and key not in _PARAMS for key in kwargs):
        return False
    if kwargs.get("client") is not None or any(kwargs.get(flag) for flag in (
            "caching", "allow_client_keepalive_override", "use_in_pass_through", "use_litellm_proxy",
            "use_xai_oauth", "merge_reasoning_content_in_choices")):
        return False
    return all(isinstance(m, dict) and m.keys() == {"role", "content"} and isinstance(m["content"], str)
               for m in kwargs.get("messages") or [None])


def _untouched(litellm: Any) -> bool:
    """Nothing set in litellm or the environment that would change the request or want
    to see it (headers, organisation, callbacks, certificates, proxies)."""
    if litellm.headers or litellm.organization or litellm.ssl_certificate:
        return False
    if (litellm.callbacks or litellm.success_callback or litellm.failure_callback
            or litellm._async_success_callback or litellm._async_failure_callback):
        return False
    return not any(os.environ.get(variable) for variable in _ENVIRONMENT)


def _key(given: str | None, litellm: Any) -> str | None:
    if given and given.startswith("os.environ/"):
        given = os.environ.get(given.removeprefix("os.environ/"))
    return given or litellm.api_key or litellm.openai_key or os.environ.get("OPENAI_API_KEY")


def _client() -> httpx.AsyncClient:
    """One client (its connection pool) per event loop, as litellm builds its own: on its
    aiohttp transport (which reads a stream of small chunks at a fraction of httpx's own
    CPU) and with its SSL configuration (litellm.ssl_verify, SSL_VERIFY, SSL_CERT_FILE)."""
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, get_ssl_configuration

    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        verify = get_ssl_configuration()
        transport = None
        if AsyncHTTPHandler.should_use_aiohttp_transport():
            transport = AsyncHTTPHandler.create_aiohttp_transport(
                ssl_verify=verify if isinstance(verify, bool) else None,
                ssl_context=verify if isinstance(verify, ssl.SSLContext) else None)
        client = _clients[loop] = httpx.AsyncClient(timeout=httpx.Timeout(600.0), trust_env=False,
                                                    verify=verify, transport=transport)
    return client


async def _sdk_error(response: httpx.Response) -> openai.APIStatusError:
    """The OpenAI client's error for this answer, as litellm's OpenAI handler receives it."""
    await response.aread()
    await response.aclose()
    sdk = openai.AsyncOpenAI(api_key="unused", base_url=str(response.request.url), http_client=_client())
    return sdk._make_status_error_from_response(response)


def _litellm_answers(error: openai.APIStatusError) -> bool:
    """Whether litellm's OpenAI handler makes something other than an error of this one:
    it asks again without the parameters a 422 names, and answers a 400 for an output
    budget too small for one token as an empty reply cut at its length. Then the
    attempt is asked again through litellm, to do as it does."""
    if isinstance(error, openai.UnprocessableEntityError):
        return True
    return isinstance(error, openai.BadRequestError) and is_output_token_limit_error(error)
