"""Reading the prompts memory.prompts builds: the pass, the compaction and the chat memory.

The offline model is the one model that parses these prompts instead of reading them,
so this module mirrors memory.prompts exactly and nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_SAVED = re.compile(r"<saved_memory>\n?(?P<body>.*?)\n?</saved_memory>", re.DOTALL)
_CONVERSATION = re.compile(
    r'<conversation source="(?P<source>\w+)">\n?(?P<body>.*)\n?</conversation>', re.DOTALL)
_COMPACT = re.compile(
    r'<memory_to_compact tokens="(?P<tokens>\d+)" target="(?P<target>\d+)">'
    r"\n?(?P<body>.*?)\n?</memory_to_compact>",
    re.DOTALL,
)
_MEMORY = re.compile(r"<memory>\n?(?P<body>.*?)\n?</memory>", re.DOTALL)
_NUMBERED = re.compile(r"^\[\d+\] ?")


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
    saved = _SAVED.search(text)
    conversation = _CONVERSATION.search(text)
    if not saved or not conversation:
        return None
    turns: list[tuple[str, str]] = []
    for raw in conversation.group("body").splitlines():
        try:
            turn = json.loads(raw)
        except ValueError:
            continue
        # Only the user's own words: what they pasted is never read for facts.
        turns.append((turn.get("role", ""), str(turn.get("text", ""))))
    return PassInput(existing=numbered_lines(saved.group("body")), turns=turns,
                     source=conversation.group("source"))


def parse_compaction(text: str) -> CompactionInput | None:
    match = _COMPACT.search(text)
    if not match:
        return None
    return CompactionInput(lines=numbered_lines(match.group("body")), tokens=int(match.group("tokens")),
                           target=int(match.group("target")))


def memory_lines(messages: list[dict[str, Any]]) -> list[str] | None:
    """The saved list from the chat's memory system message; None when there is none."""
    for message in messages:
        if message.get("role") != "system":
            continue
        match = _MEMORY.search(content_text(message.get("content")))
        if match:
            return bullet_lines(match.group("body"))
    return None
