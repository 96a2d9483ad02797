"""The embedded offline model (`whizi/offline`): chat and memory with no key and no network.

One litellm custom provider answers three kinds of call, told apart by the prompt
shapes memory.prompts defines:

- a memory pass (`<saved_memory>` + `<conversation>`): the changes to the list, built
  with deterministic patterns in six languages (memory.py), in memory's answer format;
- a compaction pass (`<memory_to_compact>`): the changes that shorten it (compact.py);
- anything else is a chat: an honest "no chat model is configured" reply in the user's
  language, which can list what the memory system message holds (chat.py).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from memory.grammar import is_forget_request
from memory.lines import line_key
from memory.prompts import NO_CHANGE
from offline.chat import chat_reply
from offline.compact import compact_memory
from offline.languages import LANGUAGES
from offline.memory import rewrite_memory
from offline.prompt import last_user_text, parse_compaction, parse_pass
from whizi.llm.provider import TextLLM

OFFLINE_NOTICE = LANGUAGES["en"].replies["notice"]


def _as_changes(existing: list[str], lines: list[str], *, compaction: bool = False,
                forgetting: bool = False) -> str:
    """The answer format (memory.parse) for turning `existing` into `lines`: lines that
    stay are not mentioned, a line replaced in place is an edit, the rest are removals
    (with their reason) and additions."""
    if lines == existing:
        return NO_CHANGE
    old = [line_key(line) for line in existing]
    new = [line_key(line) for line in lines]
    added = [line for line in lines if line_key(line) not in old]
    gone = "merged" if compaction else "superseded" if added else "forgotten" if forgetting else "rule"
    changes: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        changes += [f"[{i1 + k + 1}] {lines[j1 + k]}" for k in range(pairs)]
        changes += [f"[-{i + 1}] {'dropped' if compaction and tag == 'delete' else gone}"
                    for i in range(i1 + pairs, i2) if old[i] not in new]
        changes += [f"[+] {lines[j]}" for j in range(j1 + pairs, j2) if new[j] not in old]
    return "\n".join(changes) or NO_CHANGE


def offline_answer(messages: list[dict[str, Any]]) -> str:
    text = last_user_text(messages).lstrip()
    if text.startswith("<memory_to_compact"):
        compaction = parse_compaction(text)
        if compaction is not None:
            compacted = compact_memory(compaction.lines, target=compaction.target)
            return _as_changes(compaction.lines, compacted, compaction=True)
    memory_pass = parse_pass(text) if "<saved_memory>" in text else None
    if memory_pass is not None:
        lines = rewrite_memory(memory_pass.existing, memory_pass.turns, source=memory_pass.source)
        forgetting = any(role == "user" and is_forget_request(said) for role, said in memory_pass.turns)
        return _as_changes(memory_pass.existing, lines, forgetting=forgetting)
    return chat_reply(messages)


class OfflineLLM(TextLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return offline_answer(messages)


__all__ = ["OFFLINE_NOTICE", "OfflineLLM", "offline_answer"]
