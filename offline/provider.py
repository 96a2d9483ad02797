"""The embedded offline model (`whizi/offline`): chat and memory with no key and no network.

One litellm custom provider answers three kinds of call, told apart by the prompt
shapes memory.prompts defines:

- a memory pass (`<existing_memory>` + `<conversation>`): the whole rewritten list,
  built with deterministic patterns in six languages (memory.py);
- a compaction pass (`<memory_to_compact>`): a shorter list (compact.py);
- anything else is a chat: an honest "no chat model is configured" reply in the user's
  language, which can list what the memory system message holds (chat.py).
"""

from __future__ import annotations

from typing import Any

from memory.prompts import EMPTY_ANSWER
from offline.chat import chat_reply
from offline.compact import compact_memory
from offline.languages import LANGUAGES
from offline.memory import rewrite_memory
from offline.prompt import last_user_text, parse_compaction, parse_pass
from whizi.llm.provider import TextLLM

OFFLINE_NOTICE = LANGUAGES["en"].replies["notice"]


def _as_list(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines) if lines else EMPTY_ANSWER


def offline_answer(messages: list[dict[str, Any]]) -> str:
    text = last_user_text(messages).lstrip()
    if text.startswith("<memory_to_compact"):
        compaction = parse_compaction(text)
        if compaction is not None:
            return _as_list(compact_memory(compaction.lines, target=compaction.target))
    if text.startswith("<existing_memory>"):
        memory_pass = parse_pass(text)
        if memory_pass is not None:
            lines = rewrite_memory(memory_pass.existing, memory_pass.turns, source=memory_pass.source)
            return _as_list(lines)
    return chat_reply(messages)


class OfflineLLM(TextLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return offline_answer(messages)


__all__ = ["OFFLINE_NOTICE", "OfflineLLM", "offline_answer"]
