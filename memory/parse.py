"""Reading the memory model's answer: the whole rewritten list, checked before it is saved.

The prompt asks for one "- " line per fact, or the single word EMPTY. Models drift
from that, so this also reads numbered lines, other bullets, blank lines, a code
fence around the list, a JSON list, a short preamble ("Here is the updated list:")
and lines wrapped onto an indented next line. What it will not do is guess: an answer
with no recognisable list is rejected, so a refusal or a chatty reply never becomes
a saved fact.
"""

from __future__ import annotations

import json
import re

from memory.lines import line_key, normalise_line
from memory.prompts import EMPTY_ANSWER
from whizi.text import storable_text

# A saved line aims at ~55 characters; one ten times longer is not a list line but a
# pasted paragraph (or a model that ignored the format), so the answer is rejected.
MAX_LINE_CHARS = 500

_THINKING = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_MARK = re.compile(r"^\s*(?:[-*•·‣▪●◦–—+]|\d{1,3}[.)]|\(\d{1,3}\)|\[[ xX]?\])(?:\s+|$)")
_EMPTY_WORD = re.compile(rf"^[\s\-*_`'\".]*{EMPTY_ANSWER}[\s\-*_`'\".!]*$", re.IGNORECASE)
_JSON_KEYS = ("memory", "facts", "lines", "list", "items")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


class AnswerError(Exception):
    """The answer cannot be used; the saved list stays as it was.

    `kind` is "empty_answer" (nothing came back: a fault, not the word EMPTY),
    "unparseable" (no list in it) or "schema" (a list with unusable lines).
    """

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def parse_answer(text: str | None) -> list[str]:
    """The list in a memory model's answer, normalised and without duplicates.

    Returns [] only when the model said so (EMPTY, or an empty JSON list).
    Raises AnswerError for anything else that holds no usable list.
    """
    if text is None or not text.strip():
        raise AnswerError("empty_answer")
    body = _THINKING.sub("", text).strip()
    fence = _FENCE.search(body)
    fenced = fence is not None
    if fenced:
        body = fence.group(1).strip()
    if _EMPTY_WORD.match(body):
        return []
    if body[:1] in "[{":
        items = _json_items(body)
        if items is not None:
            return _checked(items)
    items = _list_items(body, fenced=fenced)
    if len(items) == 1 and _EMPTY_WORD.match(items[0]):
        return []
    return _checked(items)


def _json_items(body: str) -> list[str] | None:
    """The strings of a JSON list answer; None when the body is not JSON at all."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict):
        data = next((data[key] for key in _JSON_KEYS if isinstance(data.get(key), list)), None)
    if not isinstance(data, list):
        raise AnswerError("unparseable")
    if not all(isinstance(item, str) for item in data):
        raise AnswerError("schema")
    if not data:
        return []
    return data


def _list_items(body: str, *, fenced: bool) -> list[str]:
    """Marked lines (bullets, numbers), with indented continuations joined on.

    Unmarked lines are prose around the list and are skipped, except inside a code
    fence with no marks at all, where each line is taken as one fact.
    """
    items: list[str] = []
    unmarked: list[str] = []
    continuing = False
    for raw in body.splitlines():
        if not raw.strip():
            continuing = False
            continue
        if _MARK.match(raw):
            items.append(raw)
            continuing = True
        elif continuing and raw[:1].isspace():
            items[-1] = f"{items[-1]} {raw.strip()}"
        else:
            unmarked.append(raw)
            continuing = False
    if items:
        return items
    if fenced and unmarked:
        return unmarked
    raise AnswerError("unparseable")


def clean_line(line: str) -> str:
    """One line as it is saved: one line of storable text (whizi.text), normalised."""
    return normalise_line(_BOLD.sub(r"\1", storable_text(line, single_line=True)))


def _checked(items: list[str]) -> list[str]:
    """Schema check: non-empty lines of sane length, first of each duplicate kept."""
    if not items:
        return []
    lines: list[str] = []
    seen: set[str] = set()
    for item in items:
        line = clean_line(item)
        if not line:
            continue
        if len(line) > MAX_LINE_CHARS:
            raise AnswerError("schema")
        key = line_key(line)
        if key in seen:
            continue
        seen.add(key)
        lines.append(line)
    if not lines:
        # Only empty bullets: not the EMPTY the model was told to use.
        raise AnswerError("unparseable")
    return lines
