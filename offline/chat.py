"""The offline chat reply: honest that no chat model is configured, in the user's language.

It invents nothing. What it can do is read the memory system message it was given
(memory.chat_block.memory_system_message) and list those facts when asked "what do you
remember about me?", greet the user by name, and acknowledge remember/forget requests
without claiming anything was saved: memory passes run after the reply.
"""

from __future__ import annotations

from typing import Any

from memory.grammar import MemoryRequest, memory_request_kind
from offline.languages import language_for
from offline.memory import memory_rewrite
from offline.prompt import last_user_text, memory_lines
from offline.saved import classify
from offline.text import tidy


def _name_from(lines: list[str]) -> str | None:
    for line in lines:
        fact = classify(line)
        if fact and fact.kind in ("nickname", "name"):
            return fact.value
    return None


def _introduced_name(text: str) -> str | None:
    """A name the user gives in this very message ("Hi, I'm Anna")."""
    return _name_from(memory_rewrite([], [("user", text)]).lines)


def chat_reply(messages: list[dict[str, Any]]) -> str:
    text = last_user_text(messages)
    language = language_for(text)
    say = language.replies
    remembered = memory_lines(messages) or []

    if language.has("memory_question", text):
        if not remembered:
            return f"{say['memory_empty']} {say['notice']}"
        bullets = "\n".join(f"- {line}" for line in remembered)
        return f"{say['memory']}\n{bullets}"
    request = memory_request_kind(text)
    if request is not None:
        return say["forget"] if request is MemoryRequest.FORGET else say["request"]

    introduced = _introduced_name(text)
    if introduced:
        return f"{say['nice'].format(name=introduced)} {say['notice']} {say['hint']}"
    if language.has("greeting", tidy(text)):
        name = _name_from(remembered)
        greeting = say["greet"].format(name=say["greet_name"].format(name=name) if name else "")
        return f"{greeting} {say['notice']} {say['hint']}"
    if language.has("thanks", text):
        return f"{say['thanks']} {say['notice']}"
    return f"{say['notice']} {say['hint']}"
