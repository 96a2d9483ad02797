"""The scripted provider: a queue of canned answers for tests (`scripted/<queue>`).

The queue lives in Redis, so a test and a real Celery worker process share it: the
test loads replies, errors, delays and gates; the worker's model call takes the next
entry. Each entry is a JSON object:

    {"reply": "…"}                          answer with this text
    {"error": "timeout"|"rate_limit"|"error"|"rejected"}   fail like a provider would
    {"delay": 2.5, "reply": "…"}            wait, then answer
    {"gate": "g1", "reply": "…"}            announce arrival, block until the test
                                            calls release("g1"), then answer

Every call's messages are recorded, so tests can assert what a model was sent.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from whizi.llm.provider import TextLLM
from whizi.redis import redis_client

_PREFIX = "whizi:scripted"
GATE_TIMEOUT = 60


def _redis() -> redis.Redis:
    # A gate blocks on purpose: allow the longest wait a test may ask for.
    return redis_client(connect_timeout=5, timeout=GATE_TIMEOUT + 15, decode=True)


def _queue_name(model: str) -> str:
    return model.split("/", 1)[-1]


class Script:
    """The test-side handle on one scripted queue, e.g. Script("memory") for scripted/memory."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.model = f"scripted/{name}"
        self._r = _redis()

    def _key(self, part: str) -> str:
        return f"{_PREFIX}:{self.name}:{part}"

    def reset(self) -> Script:
        keys = list(self._r.scan_iter(f"{_PREFIX}:{self.name}:*"))
        if keys:
            self._r.delete(*keys)
        return self

    def push(self, entry: dict[str, Any]) -> Script:
        self._r.rpush(self._key("queue"), json.dumps(entry))
        return self

    def reply(self, text: str) -> Script:
        return self.push({"reply": text})

    def error(self, kind: str = "error") -> Script:
        return self.push({"error": kind})

    def delay(self, seconds: float, text: str) -> Script:
        return self.push({"delay": seconds, "reply": text})

    def gate(self, gate: str, text: str) -> Script:
        return self.push({"gate": gate, "reply": text})

    def release(self, gate: str) -> None:
        self._r.rpush(self._key(f"gate:{gate}"), "go")

    def wait_arrived(self, gate: str, timeout: float = 30) -> bool:
        return self._r.blpop([self._key(f"arrived:{gate}")], timeout=timeout) is not None

    def remaining(self) -> int:
        return int(self._r.llen(self._key("queue")))

    def calls(self) -> list[list[dict[str, Any]]]:
        return [json.loads(item) for item in self._r.lrange(self._key("calls"), 0, -1)]


class ScriptedLLM(TextLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        import litellm

        script = Script(_queue_name(model))
        r = script._r
        r.rpush(script._key("calls"), json.dumps(messages, ensure_ascii=False))
        raw = r.lpop(script._key("queue"))
        if raw is None:
            raise litellm.APIError(
                status_code=500, message="scripted model: nothing queued",
                llm_provider="scripted", model=model,
            )
        entry = json.loads(raw)
        if "gate" in entry:
            r.rpush(script._key(f"arrived:{entry['gate']}"), "1")
            r.blpop([script._key(f"gate:{entry['gate']}")], timeout=GATE_TIMEOUT)
        if "delay" in entry:
            time.sleep(float(entry["delay"]))
        kind = entry.get("error")
        if kind == "timeout":
            raise litellm.Timeout(message="scripted timeout", model=model, llm_provider="scripted")
        if kind == "rate_limit":
            raise litellm.RateLimitError(message="scripted rate limit", llm_provider="scripted", model=model)
        if kind == "rejected":
            raise litellm.BadRequestError(
                message="scripted bad request", model=model, llm_provider="scripted"
            )
        if kind:
            raise litellm.APIError(status_code=500, message="scripted provider error",
                                   llm_provider="scripted", model=model)
        return str(entry.get("reply", ""))
