"""Reading the memory model's answer: the changes it names by id, read leniently, and the
old whole-list shape, never saved blindly (docs/DESIGN.md §7, "Answered" and "Read
leniently, saved strictly"). What it recognises is memory/answer_patterns.py; an answer
with nothing usable is a no-change or raises AnswerError.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from memory.answer_patterns import (
    ANNOTATION,
    ANSWER_TITLE,
    ARROW,
    BOLD_LINE,
    EXPLANATION_HEADER,
    EXPLANATION_LINE,
    FACT_COLUMN,
    FENCE,
    GONE_CELL,
    GONE_HEADER,
    HEADING,
    JSON_ADD_KEYS,
    JSON_EDIT_KEYS,
    JSON_LIST_KEYS,
    JSON_REMOVE_KEYS,
    JSON_START,
    JSON_TEXT_KEYS,
    KEEP_WORDS,
    MARK,
    MARKED,
    NO_CHANGE_PROSE,
    NO_CHANGE_WORDS,
    NOTE_LINE,
    PAIR_COLUMN,
    PLACEHOLDER,
    PROSE,
    QUOTES,
    REFUSAL,
    SUMMARY_HEADER,
    TAG,
    THINK_CLOSE,
    THINKING,
    WRAPS,
)
from memory.lines import line_key, normalise_line
from memory.prompts import COMPACTION_REASONS, NO_CHANGE, REMOVAL_REASONS
from whizi.text import storable_text

# A saved line aims at ~55 characters; one ten times longer is a pasted paragraph or a
# model ignoring the format, and is not saved.
MAX_LINE_CHARS = 500

_REASONS = REMOVAL_REASONS + COMPACTION_REASONS


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


# ---------------------------------------------------------------- one line

def _unwrap(text: str) -> str:
    """Without the quotes, bold, italics or backticks wrapped around the whole text."""
    while len(text) >= 2:
        wrap = next((w for w in WRAPS if len(text) > 2 * len(w) and text.startswith(w)
                     and text.endswith(w)), None)
        if wrap is not None:
            text = text[len(wrap):-len(wrap)].strip()
        elif text[0] in QUOTES and text[-1] in QUOTES:
            text = text[1:-1].strip()
        else:
            break
    return text


def _bare(raw: str) -> str:
    """A line of the answer without its list marks and wrapping."""
    return _unwrap(MARK.sub("", storable_text(raw, single_line=True)).strip())


def clean_line(line: str) -> str:
    """One line as it is saved: one line of storable text, no marks, wrapping quotes or
    bold, and no note about it ("(unchanged)", "(was: …)")."""
    text = line
    for _ in range(8):  # marks, quotes and notes can nest: "- "Sam" (unchanged)"
        previous = text
        text = normalise_line(_bare(text)).replace("**", "")
        text = normalise_line(_unwrap(ANNOTATION.sub("", text).strip()))
        if text == previous:
            break
    return text


def _is_junk(text: str) -> bool:
    """Never a saved line: empty, too long, a placeholder, a no-change word, a refusal,
    a header or a note about the changes."""
    return (not text or len(text) > MAX_LINE_CHARS or bool(PLACEHOLDER.search(text))
            or bool(NO_CHANGE_WORDS.match(text)) or bool(REFUSAL.search(text))
            or text.rstrip().endswith((":", "：")) or bool(NOTE_LINE.search(text))
            or bool(NO_CHANGE_PROSE.search(text)) or bool(EXPLANATION_LINE.match(text)))


def _is_prose(text: str) -> bool:
    return bool(PROSE.match(text)) or text.rstrip().endswith(("?", "？")) or _is_junk(text)


def _header(raw: str) -> str | None:
    """The title of a header line ("About the user:", "## Notes", "**Changes made**")."""
    text = storable_text(raw, single_line=True).strip()
    if HEADING.match(text):
        return text.strip("# ").strip("*_: ")
    if BOLD_LINE.fullmatch(text):  # a bold line: a header only if it names a section
        title = text.strip("*_: ")
        return title if _notes_title(title) or ANSWER_TITLE.match(title) else None
    text = _unwrap(MARK.sub("", text).strip()).replace("**", "")
    if len(text) <= 60 and text.endswith((":", "：")) and not TAG.match(text):
        return text.rstrip(":：").strip()
    return None


# ---------------------------------------------------------------- the whole answer

def parse_answer(text: str | None, *, truncated: bool = False) -> Answer:
    """The changes in a memory model's answer. Raises AnswerError when it has none.

    `truncated`: the answer stopped at its token limit, so its last line may be cut and
    is not read (a JSON answer keeps its values that were complete).
    """
    if text is None or not text.strip():
        raise AnswerError("empty_answer")
    body = THINK_CLOSE.sub("", THINKING.sub("", text)).strip()
    if not body:
        raise AnswerError("empty_answer")
    lines = _body_lines(body)
    if truncated and not text.endswith("\n") and lines and body.splitlines()[-1].strip() == lines[-1].strip():
        lines = lines[:-1]  # cut mid-line: the last line may say half of something
    answer = _tagged(lines)
    if answer is not None:
        return answer
    json_answer = _json_answer(body, lines)
    if json_answer is not None:
        return json_answer
    fenced = bool(FENCE.search(body))
    items, ignored = _deduped(_table_items(lines) or _list_items(lines) or _plain_items(lines, fenced=fenced))
    if items:
        return Answer(retyped=items, ignored=ignored)
    return _nothing_usable(lines)


def _body_lines(body: str) -> list[str]:
    """The lines to read: inside the code fences when the changes are there."""
    fences = [match.group(2) for match in FENCE.finditer(body)]
    if fences:
        inside = "\n".join(fences).splitlines()
        outside = FENCE.sub("\n", body).splitlines()
        if _has_tags(inside) or not _has_tags(outside):
            return inside
    return body.splitlines()


def _has_tags(lines: list[str]) -> bool:
    return any(TAG.match(_bare(line)) for line in lines)


def _nothing_usable(lines: list[str]) -> Answer:
    """An answer with no change and no list: a no-change in other words, a refusal, or
    nothing that can be read."""
    bare = [_bare(line) for line in lines if line.strip() and _header(line) is None]
    if any(NO_CHANGE_WORDS.match(line) for line in bare):
        return Answer(no_change=True, ignored=len(bare))
    if any(REFUSAL.search(line) for line in bare):
        raise AnswerError("refused")
    if bare and all(PLACEHOLDER.search(line) or NO_CHANGE_PROSE.search(line) for line in bare):
        return Answer(no_change=True, ignored=len(bare))
    if not bare:
        raise AnswerError("empty_answer")
    raise AnswerError("unparseable")


# ---------------------------------------------------------------- the id format

def _tagged(lines: list[str]) -> Answer | None:
    """The answer in the id format; None when no line of its answer carries a tag.

    Lines in a notes section ("Explanation:", or "Changes made:" after the changes) are
    read as notes, even when they quote a tag.
    """
    answer = Answer()
    tagged = False
    in_notes = False
    for raw in lines:
        if raw.lstrip().startswith("|"):  # a table row: "| [+] | Works at Aviva |"
            raw = " ".join(cell.strip() for cell in raw.strip().strip("|").split("|"))
        if not raw.strip():
            continue
        title = _header(raw)
        if title is not None:
            in_notes = bool(EXPLANATION_HEADER.match(title) or (tagged and SUMMARY_HEADER.match(title)))
            answer.ignored += 1
            continue
        match = TAG.match(_bare(raw))
        if match is None or in_notes:
            answer.ignored += 1  # prose, a preamble, a note: never saved
            continue
        tagged = True
        if not _tag_read(answer, match):
            answer.ignored += 1
    return answer if tagged else None


def _tag_read(answer: Answer, match: re.Match[str]) -> bool:
    """Add one tagged line to the answer; False when it says nothing usable.

    An edit outranks a removal of the same line (it loses nothing), and a second,
    different edit of a line already edited is read as a new line rather than replacing
    the first: neither loses what the model wrote.
    """
    rest = match.group("rest")
    if match.group("removed"):
        index = int(match.group("removed"))
        if index not in answer.removals and index not in answer.edits:
            answer.removals[index] = _reason(rest)
        return True
    text = _change_text(rest)
    if _is_junk(text) or KEEP_WORDS.match(text):
        return False
    known = {line_key(line) for line in (*answer.edits.values(), *answer.adds)}
    if match.group("add") or int(match.group("edited")) in answer.edits:
        if line_key(text) not in known:
            answer.adds.append(text)
        return True
    index = int(match.group("edited"))
    answer.edits[index] = text
    answer.removals.pop(index, None)
    return True


def _change_text(rest: str) -> str:
    """The text of an edit or addition; "old → new" gives the new text."""
    text = clean_line(rest)
    parts = ARROW.split(text)
    if len(parts) == 2 and parts[0].split()[:1] and parts[1].split()[:1] \
            and parts[0].split()[0].casefold() == parts[1].split()[0].casefold():
        text = clean_line(parts[1])
    return text


def _reason(rest: str) -> str:
    """The reason of a removal: its first word when that is a reason, else the last
    reason named in it ("Lives in Leeds (superseded)"), else its first word."""
    words = re.findall(r"[^\W\d_]+", rest.casefold())
    if words and words[0] in _REASONS:
        return words[0]
    named = [word.rstrip("s") if word == "rules" else word for word in words
             if word in _REASONS or word == "rules"]
    return named[-1] if named else (words[0] if words else "")


# ---------------------------------------------------------------- JSON

def _json_answer(body: str, lines: list[str]) -> Answer | None:
    """A JSON answer: a list of lines or of objects, an object holding one, or the
    changes as objects. None when the answer is not JSON."""
    data = _json_load("\n".join(lines)) if lines else None
    if data is None:
        data = _json_load(body)
    if data is None:
        return None
    if isinstance(data, dict) and (data.get("no_change") is True or any(
            isinstance(value, str) and NO_CHANGE_WORDS.match(value) for value in data.values())):
        return Answer(no_change=True)
    changes = _json_changes(data)
    if changes is not None:
        return _tagged(changes) or Answer(no_change=True)
    items = _json_items(data)
    if items is None:
        raise AnswerError("unparseable")  # JSON, but not a list of lines: never guessed at
    usable, ignored = _deduped(items)
    if usable:
        return Answer(retyped=usable, ignored=ignored)
    return _nothing_usable(items or [NO_CHANGE])  # "[]", "{"memory": []}": nothing new


def _json_load(text: str) -> Any:
    """JSON from the first "[" or "{" at the start of a line: as it is, with trailing
    commas or Python quotes, or cut short (the values that were complete)."""
    start = JSON_START.search(text)
    if start is None:
        return None
    text = text[start.start():].strip()
    text = re.sub(r",\s*([\]}])", r"\1", text)
    for attempt in (text, text[: max(text.rfind("]"), text.rfind("}")) + 1]):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):  # "[[[[…": nested past the parser's depth
            pass
        try:
            return ast.literal_eval(attempt)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
    return _json_completed(text)


def _json_completed(text: str) -> Any:
    """JSON cut short, closed after its last complete value."""
    stack: list[str] = []
    ends: list[tuple[int, str]] = []  # where a value ended, and the closers needed there
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                ends.append((index + 1, "".join(reversed(stack))))
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}" and stack:
            stack.pop()
            ends.append((index + 1, "".join(reversed(stack))))
    for end, closers in reversed(ends[-20:]):
        try:
            return json.loads(text[:end] + closers)
        except ValueError:
            continue
    return None


def _json_changes(data: Any) -> list[str] | None:
    """The changes of a JSON answer in the id format, as tagged lines; None when it is
    not in that format."""
    if isinstance(data, list) and any(isinstance(item, str) and TAG.match(_bare(item)) for item in data):
        return [item for item in data if isinstance(item, str)]
    if isinstance(data, dict):
        for key in ("changes", "answer"):
            if isinstance(data.get(key), list) and data[key]:
                return _json_changes(data[key])
        if not any(key in data for key in (*JSON_ADD_KEYS, *JSON_EDIT_KEYS, *JSON_REMOVE_KEYS)):
            return None
        lines = [f"[+] {text}" for key in JSON_ADD_KEYS for text in _strings(data.get(key))]
        lines += [f"[{index}] {text}" for key in JSON_EDIT_KEYS
                  for index, text in _numbered(data.get(key))]
        lines += [f"[-{index}] {reason}" for key in JSON_REMOVE_KEYS
                  for index, reason in _numbered(data.get(key), bare_ids=True)]
        return lines
    if isinstance(data, list) and any(isinstance(item, dict) and _json_action(item) for item in data):
        return [line for item in data if isinstance(item, dict) for line in [_json_action(item)] if line]
    return None


def _json_action(item: dict[str, Any]) -> str:
    """One change given as an object: {"action": "edit", "id": 2, "text": "…"}."""
    action = str(item.get("action") or item.get("op") or item.get("type") or "").casefold()
    ident = item.get("id", item.get("line", item.get("index")))
    text = _json_text(item) or ""
    reason = str(item.get("reason") or "")
    if action in ("add", "new", "insert", "create") or ident == "+":
        return f"[+] {text}"
    if isinstance(ident, str) and re.fullmatch(r"-?\d{1,4}", ident.strip()):
        ident = int(ident)
    if not isinstance(ident, int) or isinstance(ident, bool):
        return ""
    if action in ("remove", "delete", "forget", "drop") or ident < 0:
        return f"[-{abs(ident)}] {reason}"
    return f"[{ident}] {text}" if text else ""


def _json_text(item: dict[str, Any]) -> str | None:
    return next((item[key] for key in JSON_TEXT_KEYS if isinstance(item.get(key), str)), None)


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _numbered(value: Any, *, bare_ids: bool = False) -> list[tuple[int, str]]:
    """{"2": "text"} or [{"id": 2, "text": …}] (or, for removals, [3, 4]) as (id, text)."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                ident = item.get("id", item.get("line", item.get("index")))
                pairs.append((ident, item.get("reason") if bare_ids else _json_text(item)))
            elif bare_ids:
                pairs.append((item, ""))
    found = []
    for ident, text in pairs:
        if isinstance(ident, int | str) and re.fullmatch(r"\d{1,4}", str(ident).strip()):
            found.append((int(str(ident).strip()), str(text or "")))
    return found


def _json_items(data: Any) -> list[str] | None:
    """The lines of a list given in JSON ([…], [{"fact": …}], {"updated_memory": […]});
    None when it holds no list of lines."""
    if isinstance(data, dict):
        data = next((data[key] for key in JSON_LIST_KEYS if isinstance(data.get(key), list)), None)
    if not isinstance(data, list):
        return None
    items = []
    for item in data:
        if isinstance(item, dict):
            item = _json_text(item)
        if isinstance(item, str):
            items.append(item)
    return items if items or not data else None


# ---------------------------------------------------------------- a list re-typed

def _deduped(items: list[str]) -> tuple[list[str], int]:
    """The items as saved lines, junk and repeats left out; and how many were."""
    usable: list[str] = []
    seen: set[str] = set()
    for item in items:
        text = clean_line(item)
        if not _is_junk(text) and line_key(text) not in seen:
            seen.add(line_key(text))
            usable.append(text)
    return usable, len(items) - len(usable)


def _notes_title(title: str) -> bool:
    """A section of a re-typed list that is not the list: notes, the changes, what went."""
    return bool(EXPLANATION_HEADER.match(title) or SUMMARY_HEADER.match(title)
                or GONE_HEADER.match(title))


def _table_items(lines: list[str]) -> list[str]:
    """The facts of a markdown table: the column headed like facts, else each row's
    first cell with words in it ("Name | Sam" rows become "Name: Sam")."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in lines if line.strip().startswith("|")]
    rows = [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]
    if len(rows) < 2:
        return []
    head = [_unwrap(cell).casefold() for cell in rows[0]]
    column = next((i for i, name in enumerate(head) if FACT_COLUMN.match(name)), None)
    pair = column is None and len(head) == 2 and PAIR_COLUMN.match(head[0])
    items = []
    for row in rows[1:]:
        if any(GONE_CELL.fullmatch(cell) for cell in row):
            continue  # a row the table marks as removed
        if pair and len(row) == 2 and all(row):
            items.append(f"{_unwrap(row[0])}: {_unwrap(row[1])}")
            continue
        if column is not None and column < len(row):
            items.append(row[column])
            continue
        words = [cell for cell in row if re.search(r"[^\W\d_]", cell)]
        if words:
            items.append(words[0])
    return items


def _list_items(lines: list[str]) -> list[str]:
    """Marked lines (bullets, numbers), nested ones included, with indented continuations
    joined on; headers and the lines of a notes section left out."""
    items: list[str] = []
    in_notes = False
    continuing = False
    for raw in lines:
        if not raw.strip():
            continuing = False
            continue
        title = _header(raw)
        if title is not None:
            in_notes = _notes_title(title)
            continuing = False
        elif MARKED.match(raw):
            if not in_notes:
                items.append(MARK.sub("", raw).strip())
            continuing = not in_notes
        elif continuing and raw[:1].isspace():
            items[-1] = f"{items[-1]} {raw.strip()}"
        else:
            continuing = False
    return items


def _plain_items(lines: list[str], *, fenced: bool) -> list[str]:
    """Unmarked lines read as a list: only when every one of them reads like a fact
    (no preamble, aside or note among them), headers aside."""
    items: list[str] = []
    in_notes = False
    for raw in lines:
        if not raw.strip():
            continue
        title = _header(raw)
        if title is not None:
            in_notes = _notes_title(title)
        elif not in_notes:
            items.append(raw.strip())
    if not items or any(_is_prose(clean_line(item)) for item in items):
        return []
    if len(items) == 1 and not fenced and not _reads_like_a_line(clean_line(items[0])):
        return []
    return items


def _reads_like_a_line(text: str) -> bool:
    """One unmarked line on its own: a fact as a list writes it ("Works at Aviva"), not a
    remark ("no list here", "Okay"): two words or more and, in Latin script, a capital."""
    first = text[:1]
    latin = first.isascii() or "\u00c0" <= first <= "\u024f"
    return len(text.split()) >= 2 and (first.isupper() if latin and first.isalpha() else True)
