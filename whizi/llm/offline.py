"""The embedded offline model (`whizi/offline`): chat and memory with no key and no network."""

from __future__ import annotations

from typing import Any

from whizi.llm.provider import TextLLM

OFFLINE_NOTICE = (
    "I'm Whizi's offline model: no chat model is configured on this server, so I can't "
    "answer questions or know anything beyond this conversation."
)


class OfflineLLM(TextLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return OFFLINE_NOTICE
