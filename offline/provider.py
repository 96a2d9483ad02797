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

from collections import Counter
from typing import Any

from memory.lines import line_key
from memory.prompts import NO_CHANGE
from offline.chat import chat_reply
from offline.compact import compact_memory
from offline.languages import LANGUAGES
from offline.memory import RewriteOutcome, memory_rewrite
from offline.prompt import last_user_text, parse_compaction, parse_pass
from whizi.llm.provider import TextLLM

OFFLINE_NOTICE = LANGUAGES["en"].replies["notice"]


def _pairs(text: str) -> set[str]:
    text = "".join(line_key(text).split())
    return {text[i:i + 2] for i in range(len(text) - 1)} or {text}


def _compaction_answer(existing: list[str], lines: list[str]) -> str:
    """The answer format for a compaction that turned `existing` into `lines`: each merged
    line edits the first saved line it holds, the others it holds are "merged", the saved
    lines left out are "dropped" (a line repeated is kept once)."""
    if lines == existing:
        return NO_CHANGE
    left = Counter(line_key(line) for line in lines)
    gone = []
    for index, line in enumerate(existing):
        if left[line_key(line)] > 0:
            left[line_key(line)] -= 1
        else:
            gone.append(index)
    saved_keys = {line_key(line) for line in existing}
    merged = [line for line in lines if line_key(line) not in saved_keys]
    # Each saved line left out belongs to the merged line most like it, if any is alike.
    parts: dict[int, list[int]] = {m: [] for m in range(len(merged))}
    for index in gone:
        pairs = _pairs(existing[index])
        scores = [len(pairs & _pairs(text)) / len(pairs) for text in merged]
        if scores and max(scores) >= 0.6:
            parts[scores.index(max(scores))].append(index)
    changes: list[str] = []
    for m, text in enumerate(merged):
        if parts[m]:
            changes += [f"[{parts[m][0] + 1}] {text}", *(f"[-{i + 1}] merged" for i in parts[m][1:])]
            gone = [i for i in gone if i not in parts[m]]
    changes += [f"[-{i + 1}] dropped" for i in gone]
    return "\n".join(changes) or NO_CHANGE


def _pass_answer(outcome: RewriteOutcome, existing: list[str]) -> str:
    """The reader's outcome in the answer format: edits and removals by id, new lines. A
    new line standing where a superseded line stood is that line, edited."""
    if outcome.lines == existing:
        return NO_CHANGE
    removed = dict(outcome.removed)
    changes: list[str] = []
    previous = -1
    for position, (line, source) in enumerate(zip(outcome.lines, outcome.sources, strict=True)):
        if source is not None:
            if line != existing[source]:
                changes.append(f"[{source + 1}] {line}")
            previous = source
            continue
        following = next((s for s in outcome.sources[position + 1:] if s is not None), len(existing))
        between = (i for i in sorted(removed) if previous < i < following and removed[i] == "superseded")
        replaced = next(between, None)
        if replaced is None:
            changes.append(f"[+] {line}")
        else:
            del removed[replaced]
            changes.append(f"[{replaced + 1}] {line}")
            previous = replaced
    changes = [f"[-{index + 1}] {reason}" for index, reason in sorted(removed.items())] + changes
    return "\n".join(changes) or NO_CHANGE


def offline_answer(messages: list[dict[str, Any]]) -> str:
    text = last_user_text(messages).lstrip()
    if text.startswith("<memory_to_compact"):
        compaction = parse_compaction(text)
        if compaction is not None:
            compacted = compact_memory(compaction.lines, target=compaction.target)
            return _compaction_answer(compaction.lines, compacted)
    memory_pass = parse_pass(text) if "<saved_memory>" in text else None
    if memory_pass is not None:
        outcome = memory_rewrite(memory_pass.existing, memory_pass.turns, source=memory_pass.source)
        return _pass_answer(outcome, memory_pass.existing)
    return chat_reply(messages)


class OfflineLLM(TextLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return offline_answer(messages)


__all__ = ["OFFLINE_NOTICE", "OfflineLLM", "offline_answer"]
