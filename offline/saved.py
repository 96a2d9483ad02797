"""The saved list as a pass rewrites it: which saved lines break the rules, where a
new fact goes, and, for each line of the new list, the saved line it came from."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.lines import line_key
from offline.languages import LANGUAGES, Fact, candidates_for
from offline.text import MAX_SENTENCE_CHARS, is_question, script_of


@dataclass(frozen=True)
class Entry:
    line: str
    slot: str | None = None
    kind: str | None = None
    origin: int = 0  # the statement it came from; 0 for a saved line
    value: str = ""
    source: int | None = None  # its index in the saved list, None for a new line


def classify(line: str) -> Fact | None:
    """Read a saved line with the same rules that read statements."""
    if len(line) > MAX_SENTENCE_CHARS:
        return None
    for language in candidates_for(line):
        facts = language.facts(line, reading_line=True)
        if facts:
            return facts[0]
    return None


ONE_VALUE_SLOTS = frozenset({"name", "nickname", "home", "origin", "work:role", "work:place", "study",
                              "rel:status", "speaks"})


def one_value(slot: str) -> bool:
    return slot in ONE_VALUE_SLOTS or slot.startswith("self:")


def any_language(name: str, text: str) -> bool:
    """Facts about Whizi and injected instructions are refused in every language."""
    return any(language.has(name, text) for language in LANGUAGES.values())


def is_standing_label(line: str) -> bool:
    return any(line.startswith(language.standing_label.strip()) for language in LANGUAGES.values())


def breaks_rules(line: str) -> bool:
    """A saved line that no pass may keep (docs/DESIGN.md §2.2, "re-checks every existing line")."""
    if len(line) > MAX_SENTENCE_CHARS:
        return False  # too long to read reliably; compaction and the trim handle its size
    if any_language("app", line) or any_language("injection", line):
        return True
    # A saved line is short, so its language may be unclear: check every table that
    # can read its script.
    languages = candidates_for(line)
    if any(language.has("directive", line) for language in languages) and not is_standing_label(line):
        return True
    if is_question(line) or any(language.has("temporary", line) or language.has("asked", line)
                                for language in languages):
        return True
    fact = classify(line)
    return bool(fact and fact.kind in ("like", "dislike", "preference")
                and LANGUAGES[fact.language].has("passing", fact.value))


class SavedList:
    """The list being rewritten: entries in order, and why each saved line that left
    it went ("rule", "superseded" or "forgotten")."""

    def __init__(self, existing: list[str]) -> None:
        self.entries: list[Entry] = []
        self.removed: dict[int, str] = {}
        for index, line in enumerate(existing):
            if not line_key(line) or breaks_rules(line):
                self.removed[index] = "rule"
                continue
            fact = classify(line)
            # Two saved lines for a one-value fact fold into the later one; other saved
            # lines may share a slot by wording alone ("Sister is …"), so they all stay.
            self._upsert(Entry(line=line, slot=fact.slot if fact else None, kind=fact.kind if fact else None,
                               value=fact.value if fact else "", source=index),
                         fold=bool(fact and one_value(fact.slot)))

    def lines(self) -> list[str]:
        return [entry.line for entry in self.entries]

    def _drop(self, condition, reason: str) -> bool:
        """Remove the entries matching `condition`, noting why for the saved ones."""
        kept = []
        for entry in self.entries:
            if condition(entry):
                if entry.source is not None:
                    self.removed[entry.source] = reason
            else:
                kept.append(entry)
        removed = len(kept) != len(self.entries)
        self.entries = kept
        return removed

    def _upsert(self, entry: Entry, *, fold: bool = True) -> None:
        """Fold: the same line is kept once; a fact in a taken slot replaces that line
        where it stands."""
        key = line_key(entry.line)
        for index, existing in enumerate(self.entries):
            if line_key(existing.line) == key:
                if entry.origin:
                    self.entries[index] = replace(existing, origin=entry.origin)
                if entry.source is not None:
                    self.removed[entry.source] = "rule"  # the same line twice
                return
        if entry.slot and fold:
            for index, existing in enumerate(self.entries):
                if existing.slot != entry.slot:
                    continue
                if existing.kind == entry.kind and entry.value and mentions(existing.line, entry.value):
                    # The saved line already says this ("User lives in Hanoi, Vietnam"):
                    # keep its wording rather than rewrite it.
                    self.entries[index] = replace(existing, origin=entry.origin or existing.origin)
                    if entry.source is not None:
                        self.removed[entry.source] = "rule"
                    return
                self._drop(lambda e, slot=entry.slot, kept=existing: e.slot == slot and e is not kept,
                           "superseded")
                index = self.entries.index(existing)
                if existing.source is not None:
                    self.removed[existing.source] = "superseded"
                self.entries[index] = entry
                return
        self.entries.append(entry)


def mentions(line: str, word: str) -> bool:
    """Does a line contain this word (whole words in Latin script, substrings in CJK)?"""
    word = word.casefold()
    line = line.casefold()
    if script_of(word) != "latin":
        return word in line
    return bool(re.search(rf"(?<![\w]){re.escape(word)}(?:s|es|['’]s)?(?![\w])", line))


def replace_word(line: str, old: str, new: str) -> str:
    if script_of(old) != "latin":
        return line.replace(old, new, 1)
    return re.sub(rf"(?<![\w]){re.escape(old)}(?![\w])", new, line, count=1, flags=re.IGNORECASE)
