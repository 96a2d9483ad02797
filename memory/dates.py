"""Dates in a memory line (docs/DESIGN.md §2.2, §7).

The pass prompt asks the model to write a relative date as an absolute one, using today's
date: "moved here last month" becomes "Moved to Raleigh in November 2026". So the numbers
and month names of a date are the model's own work, not something the user, a pasted text
or the assistant supplied, and the line checks (memory.apply) must not refuse them.

`date_parts()` finds them in the forms the six languages write: "November 2026", "Nov
2026", "14 March", "December 5", "2026-12-07", "11/2026", "tháng 6/2027", "năm 2027",
"2027年5月", "2026년 11월", "tahun 2027", "Disember 2026", "since 2019". Every pattern is a
plain sequence of bounded pieces (no nested repeats), so it runs in linear time.
"""

from __future__ import annotations

import re

# Month, weekday and season names of the Latin-script languages (English, Malay), full and
# short; Vietnamese and the CJK languages write months as numbers with a marker.
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "januari februari mac mei julai ogos oktober disember"
)
_WEEKDAYS = (
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun "
    "isnin selasa rabu khamis jumaat sabtu ahad"
)
_SEASONS = "spring summer autumn fall winter"
DATE_WORDS = frozenset(f"{_MONTHS} {_WEEKDAYS} {_SEASONS}".split())
_MONTH_WORDS = frozenset(_MONTHS.split())

# A number with the separators of a date: 2026-12-07, 11/2026, 3/2020, 12.8.2026.
_COMPOUND = re.compile(r"(?<![\d/.-])\d{1,4}(?:[/.-]\d{1,4}){1,2}(?![\d/-])")
# A number a date marker follows (2027年, 5月, 7日, 15号, 2026년, 11월, 8일) or precedes
# (tháng 6, ngày 20, năm 2027, tahun 2027, hb 5).
_MARKED_AFTER = re.compile(r"(\d{1,4})\s?(?:年|月|日|号|년|월|일)")
_MARKED_BEFORE = re.compile(r"(?:tháng|ngày|năm|tahun|bulan|hb)\s?(\d{1,4})", re.IGNORECASE)
# A number beside a month name: "14 March", "March 14", "Nov 2026", "5th of December".
_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d{1,4}(?:st|nd|rd|th)?\b")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _compound_parts(token: str) -> list[str]:
    parts = re.split(r"[/.-]", token)
    numbers = [int(part) for part in parts]
    has_year = any(len(part) == 4 for part in parts)
    small = [n for part, n in zip(parts, numbers, strict=True) if len(part) <= 2]
    plausible = all(1 <= n <= 31 for n in small) and (has_year or any(n <= 12 for n in small))
    return parts if plausible else []


def _beside_month(line: str) -> set[str]:
    """Numbers next to a month name (one space or a comma between)."""
    found: set[str] = set()
    for word in _WORD.finditer(line):
        if word.group().casefold() not in _MONTH_WORDS:
            continue
        before = line[max(0, word.start() - 12):word.start()]
        after = line[word.end():word.end() + 12]
        for match in _NUMBER.finditer(before):
            if not before[match.end():].strip(" ,.of"):
                found.add(match.group().rstrip("stndrh"))
        match = re.match(r"[\s,.]{0,2}(\d{1,4})(?:st|nd|rd|th)?\b", after)
        if match:
            found.add(match.group(1))
    return found


def date_parts(line: str) -> set[str]:
    """The numbers of `line` that belong to a date, as written ("2026", "11", "05")."""
    parts: set[str] = set()
    for match in _COMPOUND.finditer(line):
        parts.update(_compound_parts(match.group()))
    for pattern in (_MARKED_AFTER, _MARKED_BEFORE):
        parts.update(match.group(1) for match in pattern.finditer(line))
    parts.update(_beside_month(line))
    parts.update(match.group() for match in _YEAR.finditer(line))
    return parts


def is_date_word(word: str) -> bool:
    """A month, weekday or season name ("November", "Sat", "Disember")."""
    return word.casefold().strip(".") in DATE_WORDS
