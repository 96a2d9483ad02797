"""Applying a memory model's answer to the saved list, change by change, each checked
(docs/DESIGN.md §7). Pure: no database, no model.

Losses are accounted by line id, never guessed from text: a line goes only when the
answer removes it by id with a reason the pass allows.

- forgotten: only when the user asked, in their own words, to forget, and only the lines
  about what they named (or everything, when they asked for that);
- superseded: only when the answer also adds or edits the newer fact;
- rule: any line, except the lasting facts about who the user is (name, family, work,
  standing preferences), which no rule removes;
- merged, dropped (compaction only): never an identity line dropped, and an identity line
  merged only into a line that still holds what it said.

Every edited or added line must pass the line check (memory.safety) and be grounded in
the user's own words (or, for an edit or a compaction, in the saved lines): a name, number
or link that only the assistant or a pasted text said is never saved. A change that fails
its check is refused and the saved line stays as it was.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory.grammar import MemoryRequest, memory_requests_in
from memory.lines import line_key
from memory.own_words import own_words
from memory.parse import Answer
from memory.prompts import COMPACTION_REASONS, REMOVAL_REASONS, Turn
from memory.safety import blocked_reason, safe_lines, storable_line

# A re-typed line (no id) this close to a saved line is taken as that line, edited.
RETYPED_SAME_LINE = 0.6

# The lasting facts about who the user is, in the six languages (docs/DESIGN.md §2.5).
_IDENTITY = re.compile(
    r"\b(?:name[ds]?|called|wife|husband|partner|spouse|son|daughter|mother|father|mom|mum|dad|"
    r"sister|brother|child(?:ren)?|kids?|married|fianc[ée]e?|boyfriend|girlfriend|works?|job|"
    r"employ\w*|profession|occupation|prefers?|preference)\b"
    r"|tên|vợ|chồng|con trai|con gái|bố|mẹ|anh trai|chị gái|em gái|em trai|làm việc|công việc|nghề|ưu tiên"
    r"|名字|叫|妻子|丈夫|老婆|老公|儿子|女儿|妈妈|爸爸|姐姐|哥哥|妹妹|弟弟|孩子|男朋友|女朋友|工作|职业|偏好"
    r"|名前|妻|夫|息子|娘|母|父|姉|兄|妹|弟|子供|彼氏|彼女|仕事|勤め|職業|好み"
    r"|이름|아내|남편|아들|딸|엄마|아빠|어머니|아버지|언니|누나|형|오빠|동생|남자친구|여자친구|직업|회사|일해|선호"
    r"|\b(?:nama|isteri|suami|anak|ibu|bapa|emak|ayah|kakak|abang|adik|kerja|bekerja|pekerjaan|lebih suka)\b",
    re.IGNORECASE,
)
_FORGET_ALL = re.compile(
    r"\b(?:everything|all of it|all about me)\b|tất cả|hết|一切|所有|全部|すべて|全部|모두|전부|\bsemua\b",
    re.IGNORECASE,
)
_LATIN_WORD = re.compile(r"[^\W\d_][\w'’.-]*", re.UNICODE)
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
_NUMBER = re.compile(r"\d[\d.,:/-]*\d|\d")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Words a request or a line is made of that say nothing about what it is about.
_STOP = frozenset("""
i me my mine we our you your the a an and or but of to in on at for with about from that this
these those it its is are was were be been am do does did please can could would will just
forget remember delete remove erase stop don't dont not no anything everything all thing things
whizi memory again anymore
""".split())


@dataclass
class Applied:
    """The list an answer leads to, and what happened to each line, by reason."""

    lines: list[str]
    kept: int = 0
    edited: int = 0
    added: int = 0
    removed: Counter = field(default_factory=Counter)  # reason -> lines
    refused: int = 0  # changes refused by a check: the saved line stayed as it was

    @property
    def changed(self) -> bool:
        return bool(self.edited or self.added or sum(self.removed.values()))


@dataclass(frozen=True)
class Context:
    """What a pass may draw on: the user's own words, and what they asked to forget."""

    own_words: str
    forget: tuple[str, ...] = ()  # what each forget request names
    forget_everything: bool = False
    compaction: bool = False

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> Context:
        said = [own_words(t.content).own for t in turns if t.role == "user"]
        forget: list[str] = []
        everything = False
        for index, text in enumerate(said):
            for request in memory_requests_in(text):
                if request.kind is not MemoryRequest.FORGET:
                    continue
                everything = everything or request.everything or bool(_FORGET_ALL.search(request.content))
                # "Forget that" names what the user said just before it.
                forget.append(request.content or (said[index - 1] if index else text))
        return cls(own_words="\n".join(said), forget=tuple(forget), forget_everything=everything)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def is_identity_line(line: str) -> bool:
    return bool(_IDENTITY.search(line))


def _salient(line: str) -> list[str]:
    """What in a line must come from somewhere: names (capitalised words after the first),
    numbers, and runs of CJK or Hangul."""
    tokens = []
    words = _LATIN_WORD.findall(line)
    tokens += [w.strip(".'’-") for w in words[1:] if w[:1].isupper() and w.casefold() not in _STOP]
    tokens += [n for n in _NUMBER.findall(line) if not _ISO_DATE.match(n)]
    return [t for t in tokens if t]


def grounded(line: str, sources: str) -> bool:
    """Is every name and number of `line` in `sources`, and, for CJK or Hangul, some of
    its wording? (A paraphrase passes; a fact from somewhere else does not.)"""
    folded = _fold(sources)
    if any(_fold(token) not in folded for token in _salient(line)):
        return False
    runs = _CJK_RUN.findall(line)
    if runs:
        pairs = {run[i:i + 2] for run in runs for i in range(len(run) - 1)}
        return any(pair in sources for pair in pairs)
    return True


# Particles and pronouns that say nothing about what a CJK or Hangul request names.
_CJK_STOP = frozenset("のはをがにでともへや的了是我你他她它们吗呢吧啊和在这那个一不有就都也要会事こそあどれ"
                      "나는저그이것을를은는이가의에와과도요")


def _content_words(text: str) -> set[str]:
    """What a text is about: its longer words, and its CJK or Hangul characters and pairs."""
    words = {w.casefold().strip(".'’-") for w in _LATIN_WORD.findall(text)}
    words = {w for w in words if len(w) >= 3 and w not in _STOP}
    for run in _CJK_RUN.findall(text):
        words |= {run[i:i + 2] for i in range(len(run) - 1)}
        if len(run) <= 3:  # a short name or noun ("猫", "ミケ"): its characters count alone
            words |= set(run) - _CJK_STOP
    for char in re.findall(r"[\u3400-\u9fff]", text):
        if char not in _CJK_STOP:
            words.add(char)
    return words


def _forget_allows(line: str, context: Context) -> bool:
    line_words = _content_words(line)
    return context.forget_everything or any(_content_words(named) & line_words for named in context.forget)


def _user_names(line: str, context: Context) -> bool:
    """Do the user's own words in this conversation name what the line is about (a name,
    a place, a company)? A retraction ("Priya and I broke up") names it."""
    own = _fold(context.own_words)
    if any(_fold(token) in own for token in _salient(line) if not token.isdigit()):
        return True
    pairs = {word for word in _content_words(line) if len(word) == 2 and not word.isascii()}
    return bool(pairs & _content_words(context.own_words))


def _removal_allowed(line: str, reason: str, answer: Answer, context: Context,
                     edited: dict[int, str], saved: Sequence[str]) -> bool:
    allowed = COMPACTION_REASONS + ("rule",) if context.compaction else REMOVAL_REASONS
    if reason not in allowed:
        return False
    if reason == "forgotten":
        return _forget_allows(line, context)
    if reason == "superseded":
        # A newer fact in the answer; for a line about who the user is, also the user naming
        # its subject ("Priya and I broke up") or another saved line saying the same kind of thing.
        if edited or answer.adds or not is_identity_line(line) or _user_names(line, context):
            return True
        return any(other != line and len(_pairs(other) & _pairs(line)) * 5 >= len(_pairs(line)) * 2
                   for other in saved)
    if reason == "merged":
        # Merged into another line: that line must still say what this one said.
        return not is_identity_line(line) or any(grounded(line, text) for text in edited.values())
    return not is_identity_line(line)  # rule, dropped


def _pairs(text: str) -> set[str]:
    text = "".join(line_key(text).split())
    return {text[i:i + 2] for i in range(len(text) - 1)} or {text}


def _retyped_as_changes(existing: Sequence[str], retyped: list[str]) -> Answer:
    """A whole list given without ids: its lines keep, edit or add; nothing is removed."""
    answer = Answer()
    keys = {line_key(line): index for index, line in enumerate(existing, 1)}
    for item in retyped:
        if line_key(item) in keys:
            continue
        pairs = _pairs(item)
        if any(pairs <= _pairs(line) for line in existing):
            continue  # a shortened copy of a saved line: the saved line already says it
        scores = {index: len(pairs & _pairs(line)) / max(len(pairs), 1)
                  for index, line in enumerate(existing, 1) if index not in answer.edits}
        best = max(scores, key=scores.get, default=None)
        if best is not None and scores[best] >= RETYPED_SAME_LINE:
            answer.edits[best] = item
        else:
            answer.adds.append(item)
    return answer


def _change_allowed(text: str, sources: str) -> bool:
    return blocked_reason(text) is None and bool(safe_lines([text])[0]) and grounded(text, sources)


def answer_apply(existing: Sequence[str], answer: Answer, context: Context) -> Applied:
    """The saved list after the answer's changes, each one checked."""
    if answer.retyped is not None:
        answer = _retyped_as_changes(existing, answer.retyped)
    saved = "\n".join(existing)
    sources = saved if context.compaction else context.own_words
    # An edit of an id the list does not have is a new line, checked as one.
    adds = answer.adds + [text for index, text in answer.edits.items() if not 1 <= index <= len(existing)]
    applied = Applied(lines=[])
    edited: dict[int, str] = {}
    for index, line in enumerate(existing, 1):
        new = answer.edits.get(index)
        if new is None or line_key(new) == line_key(line):
            continue
        # An edit may keep what the saved lines said, and add only what the user said.
        if _change_allowed(new, f"{sources}\n{saved}"):
            edited[index] = storable_line(new)
        else:
            applied.refused += 1
    seen = {line_key(line) for line in existing} | {line_key(line) for line in edited.values()}
    for index, line in enumerate(existing, 1):
        if blocked_reason(line) is not None:
            applied.removed["rule"] += 1  # a line no pass may keep, whoever saved it
            continue
        reason = answer.removals.get(index)
        if reason is not None and _removal_allowed(line, reason, answer, context, edited, existing):
            applied.removed[reason] += 1
            continue
        if reason is not None:
            applied.refused += 1
        if index in edited:
            applied.lines.append(edited[index])
            applied.edited += 1
        else:
            applied.lines.append(line)
            applied.kept += 1
    for line in adds:
        if context.compaction or line_key(line) in seen:
            continue
        if _change_allowed(line, sources):
            applied.lines.append(storable_line(line))
            applied.added += 1
            seen.add(line_key(line))
        else:
            applied.refused += 1
    return applied
