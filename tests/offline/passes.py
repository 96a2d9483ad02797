"""Call the offline model exactly as the memory pipeline does: through whizi.llm (litellm)
with the prompts memory.prompts builds."""

from __future__ import annotations

from memory.prompts import EMPTY_ANSWER, Turn, compaction_messages, memory_system_message, pass_messages
from whizi.llm import complete

MODEL = "whizi/offline"


def saved_list(answer: str) -> list[str]:
    """The answer's lines without their "- ", or [] for EMPTY."""
    if answer.strip() == EMPTY_ANSWER:
        return []
    lines = answer.splitlines()
    assert lines and all(line.startswith("- ") for line in lines), answer
    return [line[2:] for line in lines]


def memory_pass(*user_says: str, existing: list[str] | tuple[str, ...] = (), source: str = "chat",
                assistant: str = "Okay.") -> list[str]:
    """One pass over these user turns (each answered by the assistant) and the saved list."""
    turns: list[Turn] = []
    for text in user_says:
        turns += [Turn("user", text), Turn("assistant", assistant)]
    messages = pass_messages(existing=list(existing), turns=turns, source=source)
    return saved_list(complete(model=MODEL, messages=messages, timeout=10).text)


def compaction_pass(lines: list[str], tokens: int) -> list[str]:
    return saved_list(complete(model=MODEL, messages=compaction_messages(lines=lines, tokens=tokens),
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
