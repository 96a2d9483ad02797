"""Reading the prompts memory builds: the pass and the compaction (memory.prompts) and the
chat model's memory block (memory.chat_block).

The offline model is the one model that parses these prompts instead of reading them,
so this module mirrors those two exactly and nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# The opening tags' attributes, read where the tag starts (never searched for).
_CONVERSATION_OPEN = re.compile(r'<conversation source="(?P<source>\w{1,20})">')
_COMPACT_OPEN = re.compile(r'<memory_to_compact tokens="(?P<tokens>\d{1,9})" target="(?P<target>\d{1,9})">')
_NUMBERED = re.compile(r"^\[\d+\] ?")


def _section(text: str, tag: str, closing: str, *, attributes: re.Pattern[str] | None = None,
             last: bool = False) -> tuple[re.Match[str] | None, str] | None:
    """The body between the first `tag` and its `closing` tag (the first after it, or the
    last with `last`), found with plain string search: no pattern reads the body.
    `attributes` reads the opening tag where it starts."""
    start = text.find(tag)
    if start < 0:
        return None
    found = None
    body_start = start + len(tag)
    if attributes is not None:
        found = attributes.match(text, start)
        if found is None:
            return None
        body_start = found.end()
    end = text.rfind(closing) if last else text.find(closing, body_start)
    if end < body_start:
        return None
    return found, text[body_start:end].strip("\n")


@dataclass(frozen=True)
class PassInput:
    existing: list[str]
    turns: list[tuple[str, str]]  # (role, text), in order
    source: str


@dataclass(frozen=True)
class CompactionInput:
    lines: list[str]
    tokens: int
    target: int


def content_text(content: Any) -> str:
    """A message's text, whether litellm hands over a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def bullet_lines(body: str) -> list[str]:
    """Saved lines exactly as written, without their "- " marker."""
    lines = []
    for raw in body.splitlines():
        raw = raw.strip()
        if raw.startswith("- "):
            raw = raw[2:].strip()
        elif raw.startswith("-"):
            raw = raw[1:].strip()
        if raw:
            lines.append(raw)
    return lines


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def numbered_lines(body: str) -> list[str]:
    """Saved lines exactly as shown, without their "[n] " id (in order, so ids are positions)."""
    return [_NUMBERED.sub("", raw.strip()) for raw in body.splitlines() if raw.strip()]


def parse_pass(text: str) -> PassInput | None:
    saved = _section(text, "<saved_memory>", "</saved_memory>")
    conversation = _section(text, "<conversation ", "</conversation>", attributes=_CONVERSATION_OPEN,
                            last=True)
    if not saved or not conversation or conversation[0] is None:
        return None
    turns: list[tuple[str, str]] = []
    for raw in conversation[1].splitlines():
        try:
            turn = json.loads(raw)
        except ValueError:
            continue
        # Only the user's own words: what they pasted is never read for facts.
        turns.append((turn.get("role", ""), str(turn.get("text", ""))))
    return PassInput(existing=numbered_lines(saved[1]), turns=turns, source=conversation[0].group("source"))


def parse_compaction(text: str) -> CompactionInput | None:
    found = _section(text, "<memory_to_compact ", "</memory_to_compact>", attributes=_COMPACT_OPEN)
    if not found or found[0] is None:
        return None
    attributes, body = found
    return CompactionInput(lines=numbered_lines(body), tokens=int(attributes.group("tokens")),
                           target=int(attributes.group("target")))


def memory_lines(messages: list[dict[str, Any]]) -> list[str] | None:
    """The saved list from the chat's memory system message; None when there is none."""
    for message in messages:
        if message.get("role") != "system":
            continue
        found = _section(content_text(message.get("content")), "<memory>", "</memory>")
        if found:
            return bullet_lines(found[1])
    return None
