"""Reading the memory model's answer (docs/DESIGN.md §7): what it edits, adds and removes.

The answer names the changes: `[3] new text` edits saved line 3, `[+] text` adds a line,
`[-3] reason` removes line 3, and `NO CHANGE` changes nothing. A saved line the answer
does not mention is kept, so a model that forgets a line, answers only the new fact or
answers in the wrong shape never deletes anything.

Models drift from the format, so this also reads: bullets and numbers before the tags,
code fences, a preamble or notes around the changes (ignored), bold and quotes around a
line; and, when no line carries a tag, a whole list re-typed the old way (bullets, JSON,
a table): each of its lines keeps, edits or adds, and nothing is removed. What it never
does is save a header, a change note, a placeholder ("None", "(no other facts)") or a
refusal: a refusal or an answer with nothing usable raises AnswerError.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from memory.lines import normalise_line
from memory.prompts import NO_CHANGE
from whizi.text import storable_text

# A saved line aims at ~55 characters; one ten times longer is a pasted paragraph or a
# model ignoring the format, and is not saved.
MAX_LINE_CHARS = 500

_THINKING = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
# Bullets, numbers, checkboxes and bold marks a model puts before a line.
_MARK = re.compile(r"^\s*(?:[-*•·‣▪●◦–—+]\s+|\d{1,3}[.)]\s+|\(\d{1,3}\)\s+|\[[ xX]?\]\s+|\*\*|__)+")
_MARKED = re.compile(r"^\s*(?:[-*•·‣▪●◦–—+]|\d{1,3}[.)]|\(\d{1,3}\))\s+\S")
_EDIT = re.compile(r"^\[\s*(?:#|L|id\s*)?(\d{1,4})\s*\]\s*[:.\-–—]?\s*(.*)$", re.IGNORECASE)
_ADD = re.compile(r"^\[\s*(?:\+|new|add)\s*\]\s*[:.\-–—]?\s*(.*)$", re.IGNORECASE)
_REMOVE = re.compile(r"^\[\s*[-−–]\s*(\d{1,4})\s*\]\s*[:.\-–—]?\s*([A-Za-z]*)", re.IGNORECASE)
_NO_CHANGE = re.compile(r"^\W*(?:no[\s_-]*changes?|nochange|unchanged|empty)\W*$", re.IGNORECASE)
_NO_CHANGE_LEAD = re.compile(rf"^\W*{NO_CHANGE}\b", re.IGNORECASE)
_HEADER = re.compile(r"^[^\[\]]{1,60}:\s*$")
# Sections of an answer that talk about the changes rather than being them.
_NOTES_HEADER = re.compile(
    r"^\W*(?:changes?(?:\s+made)?|notes?|summary|explanations?|reasons?|reasoning|removed|added|"
    r"updated|edits?|rationale|why|thoughts?)\b", re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^\W*(?:none|n/?a|nil|nothing(?:\s+(?:new|to\s+(?:add|remember|change)))?|no\s+(?:new\s+)?"
    r"(?:facts?|changes?|updates?)|không có(?: gì)?|无|沒有|没有|なし|없음|tiada|tidak ada|-+|\.+|…)\W*$"
    r"|^\s*\(.*\)\s*$|^\W*no other\b", re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(?:i['’]?m sorry|i am sorry|sorry,? but|i can(?:no|')t|i cannot|i am unable|i['’]m unable|"
    r"i won['’]t|as an ai|i['’]m not able|i am not able|i do not store|i don['’]t store)\b"
    r"|抱歉|对不起|无法|申し訳|できません|죄송|할 수 없|maaf|tidak dapat|xin lỗi|không thể",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’「」『』«»`"
_JSON_LIST_KEYS = ("memory", "updated_memory", "facts", "memories", "lines", "list", "items", "updated_list")
_JSON_TEXT_KEYS = ("fact", "text", "line", "content", "value", "memory")


class AnswerError(Exception):
    """The answer cannot be used; the saved list stays as it was.

    `kind`: "empty_answer" (nothing came back: worth asking again), "refused" (the
    model declined), "unparseable" (no change and no list in it).
    """

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass
class Answer:
    """The changes an answer names. `retyped` is a whole list given without ids."""

    no_change: bool = False
    edits: dict[int, str] = field(default_factory=dict)
    adds: list[str] = field(default_factory=list)
    removals: dict[int, str] = field(default_factory=dict)
    retyped: list[str] | None = None
    ignored: int = 0  # prose, headers, notes and placeholders left out


def clean_line(line: str) -> str:
    """One line as it is saved: one line of storable text, no marks or wrapping quotes."""
    text = normalise_line(_MARK.sub("", storable_text(line, single_line=True)))
    text = text.replace("**", "").replace("__", "").strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _usable(text: str) -> bool:
    return bool(text) and len(text) <= MAX_LINE_CHARS and not _PLACEHOLDER.match(text)


def parse_answer(text: str | None, *, truncated: bool = False) -> Answer:
    """The changes in a memory model's answer. Raises AnswerError when it has none.

    `truncated`: the answer stopped at its token limit, so its last line may be cut.
    """
    if text is None or not text.strip():
        raise AnswerError("empty_answer")
    body = _THINKING.sub("", text).strip()
    if not body:
        raise AnswerError("empty_answer")
    lines = _body_lines(body)
    if truncated and lines:
        lines = lines[:-1]
    answer = _tagged(lines)
    if answer is not None:
        return answer
    first = next((clean_line(line) for line in lines if line.strip()), "")
    if _NO_CHANGE.match(first) or _NO_CHANGE_LEAD.match(first):
        return Answer(no_change=True)
    if _REFUSAL.search(body):
        raise AnswerError("refused")
    retyped = _json_items(body) if body[:1] in "[{" else None
    if retyped == []:
        return Answer(no_change=True)  # an empty list: nothing new, and nothing is ever wiped
    if retyped is None:
        retyped = _table_items(lines) or _list_items(lines)
    items = [clean_line(item) for item in retyped]
    usable = [item for item in items if _usable(item)]
    if not usable and items and all(_PLACEHOLDER.match(item) for item in items if item):
        return Answer(no_change=True, ignored=len(items))  # "- None": nothing to change
    if not usable:
        raise AnswerError("unparseable")
    return Answer(retyped=usable, ignored=len(items) - len(usable))


def _body_lines(body: str) -> list[str]:
    """The lines to read: inside the code fences when the changes are there."""
    fences = _FENCE.findall(body)
    if fences:
        inside = "\n".join(fences)
        outside = _FENCE.sub("\n", body)
        if _has_tags(inside.splitlines()) or not _has_tags(outside.splitlines()):
            return inside.splitlines()
    return body.splitlines()


def _has_tags(lines: list[str]) -> bool:
    stripped = (_MARK.sub("", line).strip() for line in lines)
    return any(_EDIT.match(line) or _ADD.match(line) or _REMOVE.match(line) for line in stripped)


def _tagged(lines: list[str]) -> Answer | None:
    """The answer in the id format; None when no line carries a tag."""
    answer = Answer()
    tagged = False
    for raw in lines:
        line = _MARK.sub("", raw).strip().replace("**", "")
        if not line:
            continue
        if removal := _REMOVE.match(line):
            answer.removals[int(removal.group(1))] = removal.group(2).casefold()
            answer.edits.pop(int(removal.group(1)), None)
        elif edit := _EDIT.match(line):
            text = clean_line(edit.group(2))
            if _usable(text):
                answer.edits[int(edit.group(1))] = text
                answer.removals.pop(int(edit.group(1)), None)
            else:
                answer.ignored += 1
        elif add := _ADD.match(line):
            text = clean_line(add.group(1))
            if _usable(text):
                answer.adds.append(text)
            else:
                answer.ignored += 1
        else:
            answer.ignored += 1  # prose, a preamble, a note: never saved
            continue
        tagged = True
    return answer if tagged else None


def _json_items(body: str) -> list[str] | None:
    """The strings of a JSON answer ([…], [{"fact": …}], {"updated_memory": […]}); None when
    it is not JSON or holds no list of facts."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict):
        data = next((data[key] for key in _JSON_LIST_KEYS if isinstance(data.get(key), list)), None)
    if not isinstance(data, list):
        return None
    items = []
    for item in data:
        if isinstance(item, dict):
            item = next((item[key] for key in _JSON_TEXT_KEYS if isinstance(item.get(key), str)), None)
        if isinstance(item, str):
            items.append(item)
    return items


def _table_items(lines: list[str]) -> list[str]:
    """The facts of a markdown table: each row's first cell with words in it."""
    rows = [line.strip() for line in lines if line.strip().startswith("|")]
    items = []
    for row in rows[1:]:  # the first row is the header
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if all(set(cell) <= set("-: ") for cell in cells):
            continue
        words = [cell for cell in cells if re.search(r"[^\W\d_]", cell)]
        if words:
            items.append(words[0])
    return items


def _list_items(lines: list[str]) -> list[str]:
    """Marked lines (bullets, numbers), nested ones included, with indented continuations
    joined on; headers and the bullets of a notes section left out."""
    items: list[str] = []
    in_notes = False
    continuing = False
    for raw in lines:
        if not raw.strip():
            continuing = False
            continue
        if _MARKED.match(raw):
            text = _MARK.sub("", raw).strip()
            if _HEADER.match(text):  # a bulleted header ("- About the user:")
                in_notes = bool(_NOTES_HEADER.match(text))
                continuing = False
                continue
            if not in_notes:
                items.append(text)
            continuing = not in_notes
        elif continuing and raw[:1].isspace():
            items[-1] = f"{items[-1]} {raw.strip()}"
        else:
            header = raw.strip().replace("**", "").strip("#").strip()
            in_notes = bool(_HEADER.match(header) and _NOTES_HEADER.match(header)) or (
                bool(_NOTES_HEADER.match(header)) and header.endswith(":"))
            continuing = False
    return items
