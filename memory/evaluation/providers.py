"""memory_eval's two litellm providers (docs/DESIGN.md §6, "Recorded answers"): one
answers the real pass with the answers recorded for a scenario, the other passes each
call on to a real model and keeps what it answered."""

from __future__ import annotations

from typing import Any

from litellm.llms.custom_llm import CustomLLM

from memory.evaluation.files import answer_kind
from whizi import llm
from whizi.llm.provider import TextLLM

REPLAY_PROVIDER = "memory-eval-replay"
RECORD_PROVIDER = "memory-eval-record"
REPLAY_MODEL = f"{REPLAY_PROVIDER}/recorded"


class ReplayLLM(TextLLM):
    """A memory model that answers each call with the recorded answer of its kind."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, str] = {}
        self.missing: list[str] = []

    def load(self, answers: dict[str, str]) -> None:
        self.answers, self.missing = dict(answers), []

    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        kind = answer_kind(messages)
        if kind not in self.answers:
            self.missing.append(kind)
            raise llm.litellm_module().APIError(status_code=500, message=f"no recorded {kind} answer",
                                                llm_provider=REPLAY_PROVIDER, model=model)
        return self.answers[kind]


class RecordingLLM(CustomLLM):
    """Passes each call on to the model named after the provider (`memory-eval-record/<model>`)
    with the same parameters, answers with its response as it is, and keeps its text."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, str] = {}

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        params = kwargs.get("optional_params") or {}
        response = llm.litellm_module().completion(
            model=model, messages=messages, timeout=kwargs.get("timeout"), num_retries=0, **params)
        self.answers[answer_kind(messages)] = response.choices[0].message.content or ""
        return response


_REPLAY = ReplayLLM()
_RECORDER = RecordingLLM()


def _providers_register() -> None:
    """Put the replay and recording providers beside the ones settings registers."""
    litellm = llm.litellm_module()
    ours = {REPLAY_PROVIDER: _REPLAY, RECORD_PROVIDER: _RECORDER}
    litellm.custom_provider_map = [
        item for item in litellm.custom_provider_map if item["provider"] not in ours
    ] + [{"provider": name, "custom_handler": handler} for name, handler in ours.items()]


def replay_start(answers: dict[str, str]) -> str:
    """The model name that answers with these recorded answers, until the next start."""
    _providers_register()
    _REPLAY.load(answers)
    return REPLAY_MODEL


def replay_missing() -> list[str]:
    """The kinds of answer the replay was asked for and had none of, in order, once each."""
    return list(dict.fromkeys(_REPLAY.missing))


def record_start(model: str) -> str:
    """The model name that calls `model` and keeps its answers, from now on."""
    _providers_register()
    _RECORDER.answers = {}
    return f"{RECORD_PROVIDER}/{model}"


def record_answers() -> dict[str, str]:
    """What the model answered since record_start(), by kind."""
    return dict(_RECORDER.answers)
