"""A last check on what the memory model returns: lines that read as attempts to
override Whizi's instructions are never saved.

A saved line is shown to the chat model in every future conversation, so a line such
as "ignore all previous instructions" would act as a standing prompt injection. The
prompt already tells the memory model never to keep such text; this catches the
plain cases when a model (or an old saved line) gets it wrong. It is deliberately
narrow: a standing preference the user asked for ("prefers short answers", "replies
in Vietnamese") is not touched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_OVERRIDES = re.compile(
    "|".join([
        # en: ignore / disregard … previous … instructions; reveal the system prompt
        r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}?\b(?:previous|prior|above|earlier|"
        r"all|any|your|system|safety)\b.{0,25}?\b(?:instructions?|rules|prompts?|guidelines|policies)\b",
        r"\bsystem (?:prompt|message)\b",
        r"\b(?:developer|jailbreak|god) mode\b",
        r"\byou (?:must|are now|will now|have no)\b",
        # vi, zh-hans, ja, ko, ms: ignore (previous) instructions
        r"bỏ qua\b.{0,25}?(?:chỉ dẫn|hướng dẫn|chỉ thị|quy tắc)",
        r"(?:忽略|无视|忘记).{0,8}?(?:指令|指示|规则|提示)",
        r"指示.{0,4}?無視|(?:指示|ルール|プロンプト)を(?:無視|忘れ)",
        r"(?:지시|명령|규칙|프롬프트).{0,6}?무시",
        r"\babaikan\b.{0,25}?(?:arahan|peraturan)",
    ]),
    re.IGNORECASE,
)


def reads_as_override(line: str) -> bool:
    return bool(_OVERRIDES.search(line))


def without_overrides(lines: Sequence[str]) -> list[str]:
    """The lines minus any that read as an attempt to override instructions."""
    return [line for line in lines if not reads_as_override(line)]
