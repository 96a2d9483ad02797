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
from datetime import date

from memory.dates import date_parts, is_date_word
from memory.grammar import MemoryRequest, forget_asked, memory_requests_in
from memory.lines import line_key
from memory.own_words import own_words
from memory.parse import Answer
from memory.prompts import COMPACTION_REASONS, REMOVAL_REASONS
from memory.safety import blocked_reason, decoded_payloads, safe_lines, storable_line
from memory.sources import Turn

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


@dataclass(frozen=True)
class LineChange:
    """One line a pass changed, with its words: what the reply's mark shows (memory.models.
    MemoryChange keeps it with the owner's memory, never in the pass log).

    kind: "added" (new), "replaced" (old -> new), "removed" (old, with `reason`: a removal
    reason of memory.prompts), "compacted" (`count` lines merged, none of them listed).
    """

    kind: str
    old: str = ""
    new: str = ""
    reason: str = ""
    count: int = 0


@dataclass
class Applied:
    """The list an answer leads to, and what happened to each line, by reason."""

    lines: list[str]
    kept: int = 0
    edited: int = 0
    added: int = 0
    removed: Counter = field(default_factory=Counter)  # reason -> lines
    # Changes refused, by the check that refused them: the saved line stayed as it was.
    refused_by: Counter = field(default_factory=Counter)
    # Each changed line with its words, in list order: removals and replacements, then additions.
    changes: list[LineChange] = field(default_factory=list)

    @property
    def refused(self) -> int:
        return sum(self.refused_by.values())

    @property
    def changed(self) -> bool:
        return bool(self.edited or self.added or sum(self.removed.values()))


@dataclass(frozen=True)
class Context:
    """What a pass may draw on: the user's own words, and what else the conversation says.

    `untrusted` is what the user pasted and what the assistant said (with what any encoded
    run in them decodes to): context for the model, never a source of a saved name or
    number, never a reason to remove a line.
    """

    own_words: str
    untrusted: str = ""
    forget_asked: bool = False  # the user's own words ask to forget, drop or stop mentioning something
    forget_everything: bool = False
    compaction: bool = False
    today: date | None = None

    @classmethod
    def of(cls, turns: Sequence[Turn], *, today: date | None = None) -> Context:
        said: list[str] = []
        untrusted: list[str] = []
        for turn in turns:
            if turn.role == "user":
                message = own_words(turn.content)
                said.append(message.own)
                untrusted.append(message.pasted)
            else:
                untrusted.append(turn.content)
        untrusted += decoded_payloads("\n".join(untrusted))
        everything = any(
            request.kind is MemoryRequest.FORGET
            and (request.everything or bool(_FORGET_ALL.search(request.content)))
            for text in said for request in memory_requests_in(text))
        own = "\n".join(said)
        return cls(own_words=own, untrusted="\n".join(untrusted), forget_asked=forget_asked(own),
                   forget_everything=everything, today=today)


def request_already_saved(content: str, lines: Sequence[str]) -> bool:
    """Does a saved line already say what a remember request names? Most of the request's
    content words in one line ("Remember I'm vegetarian" and "Is vegetarian")."""
    wanted = _content_words(content)
    if not wanted:
        return False
    return any(len(wanted & _content_words(line)) * 2 >= len(wanted) for line in lines)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def is_identity_line(line: str) -> bool:
    return bool(_IDENTITY.search(line))


def _names(line: str) -> list[str]:
    """The names of a line: its capitalised words after the first (the first is capitalised
    anyway), month and weekday names left out."""
    words = [w.strip(".'’-") for w in _LATIN_WORD.findall(line)[1:]]
    return [w for w in words if w[:1].isupper() and w.casefold() not in _STOP and not is_date_word(w)]


def _numbers(text: str) -> set[str]:
    """Every number of a text, split at its separators and without leading zeros
    ("2026-12-07" is 2026, 12 and 7)."""
    return {part.lstrip("0") or "0" for token in _NUMBER.findall(text) for part in re.split(r"[.,:/-]", token)
            if part.isdigit()}


def _salient(line: str) -> list[str]:
    """What in a line must come from somewhere: names and numbers (not those of a date)."""
    dates = date_parts(line)
    return _names(line) + [n for n in _NUMBER.findall(line) if n not in dates and not _ISO_DATE.match(n)]


def holds(line: str, sources: str) -> bool:
    """Is every name and number of `line` in `sources`, and, for CJK or Hangul, some of
    its wording? (A merged line must still hold what the line merged into it said.)"""
    folded = _fold(sources)
    if any(_fold(token) not in folded for token in _salient(line)):
        return False
    pairs = _pairs_of_runs(line)
    return not pairs or any(pair in sources for pair in pairs)


def _pairs_of_runs(text: str) -> set[str]:
    return {run[i:i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1)}


def provenance_refusal(line: str, *, trusted: str, untrusted: str) -> str | None:
    """Why a line cannot be saved because of where its words came from, or None.

    A name, a number or (in CJK and Hangul) the wording that only untrusted text supplied
    (pasted, or said by the assistant) is refused. What the prompt asks the model to write
    is not: the user's facts reworded or folded into a saved line (`trusted` is the user's
    own words and the saved lines), and dates worked out from today's date (memory.dates).
    """
    own = _fold(trusted)
    said_elsewhere = {_fold(w.strip(".'’-")) for w in _LATIN_WORD.findall(untrusted)}
    if any(_fold(name) not in own and _fold(name) in said_elsewhere for name in _names(line)):
        return "from pasted or assistant text: name"
    dates = {part.lstrip("0") or "0" for part in date_parts(line)}
    numbers_elsewhere = _numbers(untrusted) - _numbers(trusted)
    if any(number in numbers_elsewhere and number not in dates for number in _numbers(line)):
        return "from pasted or assistant text: number"
    pairs = _pairs_of_runs(line)
    if pairs and not any(pair in trusted for pair in pairs) and any(pair in untrusted for pair in pairs):
        return "from pasted or assistant text: wording"
    return None


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


def _user_names(line: str, context: Context) -> bool:
    """Do the user's own words in this conversation name what the line is about (a name,
    a place, a company, a thing)? A retraction ("Priya and I broke up") names it."""
    own = _fold(context.own_words)
    if any(_fold(token) in own for token in _names(line)):
        return True
    return bool(_content_words(line) & _content_words(context.own_words))


# A forget request names its subject in the user's own words ("the Natalie thing… I'd rather
# that wasn't something you know") or asks with a word of forgetting and leaves the subject to
# the model ("drop the gym schedule thing" for "Goes to Anytime Fitness"). For the second, at
# most this many lines go: a model that misreads which lines cannot empty the list.
FORGET_UNNAMED_MAX = 2


def _removal_refusal(line: str, reason: str, answer: Answer, context: Context,
                     edited: dict[int, str], saved: Sequence[str], unnamed_forgets: list[bool]) -> str | None:
    """The check that refuses this removal, or None when the line may go.

    `forgotten`: the user's own words must speak of forgetting (never a pasted text or the
    assistant), and name what the line is about; when they name none of the lines the
    answer forgets, the model's reading stands for up to FORGET_UNNAMED_MAX lines
    (`unnamed_forgets`, shared by the pass's removals).
    """
    allowed = COMPACTION_REASONS + ("rule",) if context.compaction else REMOVAL_REASONS
    if reason not in allowed:
        return "removal reason"
    if reason == "forgotten":
        if context.forget_everything:
            return None
        if not context.forget_asked:
            return "forget not asked"
        if _user_names(line, context):
            return None
        if unnamed_forgets:
            unnamed_forgets.pop()
            return None
        return "forget names another line"
    if reason == "superseded":
        # A newer fact in the answer; for a line about who the user is, also the user naming
        # its subject ("Priya and I broke up") or another saved line saying the same kind of thing.
        if edited or answer.adds or not is_identity_line(line) or _user_names(line, context):
            return None
        similar = any(other != line and len(_pairs(other) & _pairs(line)) * 5 >= len(_pairs(line)) * 2
                      for other in saved)
        return None if similar else "superseded by nothing"
    if reason == "merged":
        # Merged into another line: that line must still say what this one said.
        kept = not is_identity_line(line) or any(holds(line, text) for text in edited.values())
        return None if kept else "merged away"
    return "identity line" if is_identity_line(line) else None  # rule, dropped


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


def _change_refusal(text: str, trusted: str, context: Context, *, strict: bool = False) -> str | None:
    """The check that refuses this edited or added line, or None when it may be saved.

    `strict` (a list re-typed without ids, or a compaction) asks more: every name and number
    must be in `trusted`, since such an answer re-writes lines the model was not asked to
    change (a list translated into English would otherwise be saved beside the original).
    """
    blocked = blocked_reason(text)
    if blocked is not None:
        return blocked
    if not safe_lines([text])[0]:
        return "empty"
    if strict or context.compaction:
        return None if holds(text, trusted) else "not in the user's words or the saved lines"
    return provenance_refusal(text, trusted=trusted, untrusted=context.untrusted)


def answer_apply(existing: Sequence[str], answer: Answer, context: Context) -> Applied:
    """The saved list after the answer's changes, each one checked: the edits, then each
    saved line kept, replaced or removed, then the new lines."""
    strict = answer.retyped is not None
    if strict:
        answer = _retyped_as_changes(existing, answer.retyped)
    saved = "\n".join(existing)
    # An edit may keep what the saved lines say and add what the user said; an addition may
    # too (a fact folded in), unless the whole list came re-typed; a compaction adds nothing.
    trusted = saved if context.compaction else f"{context.own_words}\n{saved}"
    applied = Applied(lines=[])
    edited = _edits_checked(existing, answer, context, applied, trusted=trusted, strict=strict)
    _saved_lines_applied(existing, answer, context, applied, edited)
    # An edit of an id the list does not have is a new line, checked as one.
    adds = answer.adds + [text for index, text in answer.edits.items() if not 1 <= index <= len(existing)]
    seen = {line_key(line) for line in existing} | {line_key(line) for line in edited.values()}
    added_from = context.own_words if strict else trusted
    _adds_applied(adds, context, applied, seen, trusted=added_from, strict=strict)
    return applied


def _edits_checked(existing: Sequence[str], answer: Answer, context: Context, applied: Applied, *,
                   trusted: str, strict: bool) -> dict[int, str]:
    """The edits that pass their checks, by line id; the others counted as refused."""
    edited: dict[int, str] = {}
    for index, line in enumerate(existing, 1):
        new = answer.edits.get(index)
        if new is None or line_key(new) == line_key(line):
            continue
        # An edit may keep what the saved lines said, and add only what the user said.
        refusal = _change_refusal(new, trusted, context, strict=strict)
        if refusal is None:
            edited[index] = storable_line(new)
        else:
            applied.refused_by[refusal] += 1
    return edited


def _saved_lines_applied(existing: Sequence[str], answer: Answer, context: Context, applied: Applied,
                         edited: dict[int, str]) -> None:
    """Each saved line, in order: removed (by the rules, or by the answer for a reason its
    checks allow), replaced by its checked edit, or kept."""
    forgets = [i for i, reason in answer.removals.items()
               if reason == "forgotten" and 1 <= i <= len(existing)]
    named = any(_user_names(existing[i - 1], context) for i in forgets)
    unnamed_forgets = [] if named else [True] * FORGET_UNNAMED_MAX
    for index, line in enumerate(existing, 1):
        if blocked_reason(line) is not None:
            applied.removed["rule"] += 1  # a line no pass may keep, whoever saved it
            applied.changes.append(LineChange("removed", old=line, reason="rule"))
            continue
        reason = answer.removals.get(index)
        refusal = None if reason is None else _removal_refusal(
            line, reason, answer, context, edited, existing, unnamed_forgets)
        if reason is not None and refusal is None:
            applied.removed[reason] += 1
            applied.changes.append(LineChange("removed", old=line, reason=reason))
            continue
        if refusal is not None:
            applied.refused_by[refusal] += 1
        if index in edited:
            applied.lines.append(edited[index])
            applied.edited += 1
            applied.changes.append(LineChange("replaced", old=line, new=edited[index]))
        else:
            applied.lines.append(line)
            applied.kept += 1


def _adds_applied(adds: Sequence[str], context: Context, applied: Applied, seen: set[str], *,
                  trusted: str, strict: bool) -> None:
    """The new lines that pass their checks, after the saved ones; none from a compaction,
    none the list already says."""
    for line in adds:
        if context.compaction or line_key(line) in seen:
            continue
        refusal = _change_refusal(line, trusted, context, strict=strict)
        if refusal is None:
            applied.lines.append(storable_line(line))
            applied.added += 1
            applied.changes.append(LineChange("added", new=storable_line(line)))
            seen.add(line_key(line))
        else:
            applied.refused_by[refusal] += 1
