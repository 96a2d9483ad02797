"""The last check on every line before it is saved: memory holds facts about the user,
never instructions to the assistant, links, markup or code.

A stored line reaches every future chat as part of a system message, so a planted
"ignore previous instructions" or a markdown image pointing elsewhere would act in
every later conversation. The memory model is told this; this check does not trust it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Never stored, whoever asked: these are attacks or exfiltration channels, not facts.
_ALWAYS_BLOCKED = [
    ("link", re.compile(r"\b(?:https?|ftp|file|data|javascript):|\bwww\.\S|\]\(", re.I)),
    # A tag even when cut short ("<meta http-equiv=… content=0"), fences, templates.
    ("markup", re.compile(
        r"<\s*/?\s*[a-z!][^>]*>|<\s*/?[a-z][a-z0-9-]*(?:\s|/|$)|```|\{\{|\}\}|<\|[a-z_]+\|>", re.I)),
    # A fake role line, at the start or after a lead-in ("Exactly: SYSTEM: …").
    ("role marker", re.compile(
        r"(?:^|:)\W*user\s*(?::|\])|\b(?:system|assistant|developer)\s*(?::|\])|\[\s*system\s*\]",
        re.I)),
    ("override", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:instruction|rule|prompt|guideline|polic)",
        re.I)),
    ("override", re.compile(
        r"\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bdeveloper\s+mode\b|\bjailbr(?:ea|o)k"
        r"|\b(?:reveal|print|repeat|show)\b.{0,30}\b(?:instructions|system\s+message|prompt)\b",
        re.I)),
    ("override", re.compile(
        r"bỏ qua.{0,30}(?:hướng dẫn|chỉ dẫn)|忽略.{0,20}(?:指令|指示|提示)"
        r"|無視.{0,20}(?:指示|命令|プロンプト)|(?:指示|命令|プロンプト).{0,20}無視"
        r"|(?:지시|명령|프롬프트).{0,20}무시|abaikan.{0,30}(?:arahan|perintah)",
        re.I)),
]

# Directives to the assistant ("Always reply in French", "You must…", "From now on,
# speak like…"): kept only when the user explicitly asked Whizi to remember that very
# rule as a standing preference. A fact about the user ("Always drinks tea at 7") is not one.
_ASSISTANT_VERB = (
    r"(?:respond|reply|answer|say|write|use|format|talk|speak|mention|ask|call me|address me|"
    r"end|start|begin|include|refer|add|sign|act|be)"
)
_DIRECTIVE = re.compile(
    r"^\W*(?:you\s+(?:must|should|will|shall|are|need|have to)|act as|pretend|behave|"
    r"talk like|speak like|respond|reply|answer)\b"
    rf"|^\W*(?:always|never|only|do not|don'?t)\s+{_ASSISTANT_VERB}\b"
    rf"|\bfrom now on\W+(?:you|always|never|only|please|{_ASSISTANT_VERB})\b"
    r"|\b(?:always|only)\s+(?:respond|reply|answer)\b",
    re.I,
)


def blocked_reason(line: str) -> str | None:
    """Why this line may never be saved, or None."""
    for reason, pattern in _ALWAYS_BLOCKED:
        if pattern.search(line):
            return reason
    return None


def is_directive(line: str) -> bool:
    return bool(_DIRECTIVE.search(line))


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2}


def _asked_for(line: str, requests: list[str]) -> bool:
    """Did one of the user's remember requests spell out this rule (most of its words)?"""
    wanted = _words(line)
    if not wanted:
        return False
    return any(len(wanted & _words(request)) >= max(2, (len(wanted) * 2 + 2) // 3) for request in requests)


def safe_lines(lines: Iterable[str], *, explicit_requests: Iterable[str] = ()) -> tuple[list[str], int]:
    """The lines that may be saved, and how many were refused.

    `explicit_requests` are the texts that can vouch for a directive line: the user's own
    messages in the pass input that asked Whizi to remember something, and the lines
    already saved (a standing preference kept earlier stays kept). A directive line is
    kept only when one of them spells it out.
    """
    requests = list(explicit_requests)
    kept: list[str] = []
    refused = 0
    for line in lines:
        if blocked_reason(line) or (is_directive(line) and not _asked_for(line, requests)):
            refused += 1
            continue
        kept.append(line)
    return kept, refused


def storable_line(line: str) -> str:
    """The line as it is saved: no format characters (zero-width, bidi controls), NFC."""
    import unicodedata

    text = "".join(char for char in line if unicodedata.category(char) != "Cf")
    return " ".join(unicodedata.normalize("NFC", text).split())
