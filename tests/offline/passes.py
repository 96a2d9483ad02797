"""Call the offline model exactly as the memory pipeline does: through whizi.llm (litellm)
with the prompts memory.prompts builds."""

from __future__ import annotations

from memory.chat_block import memory_system_message
from memory.parse import parse_answer
from memory.prompts import compaction_messages, pass_messages
from memory.sources import Turn
from whizi.llm import complete

MODEL = "whizi/offline"


def saved_list(existing: list[str], answer: str) -> list[str]:
    """The list the model's answer asks for, read as written (memory.parse), before the
    pass's own checks: what the offline model says, nothing more."""
    changes = parse_answer(answer)
    assert changes.retyped is None, f"the offline model answers in the id format: {answer!r}"
    lines = []
    for index, line in enumerate(existing, 1):
        if index not in changes.removals:
            lines.append(changes.edits.get(index, line))
    return lines + changes.adds


def memory_pass(*user_says: str, existing: list[str] | tuple[str, ...] = (), source: str = "chat",
                assistant: str = "Okay.") -> list[str]:
    """One pass over these user turns (each answered by the assistant) and the saved list."""
    turns: list[Turn] = []
    for text in user_says:
        turns += [Turn("user", text), Turn("assistant", assistant)]
    messages = pass_messages(existing=list(existing), turns=turns, source=source)
    return saved_list(list(existing), complete(model=MODEL, messages=messages, timeout=10).text)


def compaction_pass(lines: list[str], tokens: int) -> list[str]:
    return saved_list(lines, complete(model=MODEL, messages=compaction_messages(lines=lines, tokens=tokens),
                                      timeout=10).text)


def chat_messages(text: str, memory: list[str] | None = None) -> list[dict[str, str]]:
    """A chat request as the chat service builds it: system prompt, memory, the user."""
    messages = [{"role": "system", "content": "You are Whizi, a helpful assistant."}]
    block = memory_system_message(memory or [])
    if block:
        messages.append(block)
    messages.append({"role": "user", "content": text})
    return messages


def chat(text: str, memory: list[str] | None = None) -> str:
    return complete(model=MODEL, messages=chat_messages(text, memory), timeout=10).text
