"""The offline compaction pass: shrink an over-budget list toward its target (docs/DESIGN.md §2.5).

1. Drop repeated lines (the passes already keep one line per fact).
2. Merge lines about the same thing: likes with the same wording become one line
   ("Likes cats", "Likes dogs" → "Likes cats, dogs"), and the lines about one relative
   become one line.
3. While over the target, drop the least useful line, judged by what it says: who the
   user is (name, family, work, home, standing preferences) is kept longest; among
   equals the longest line goes first (it frees the most), then by its text, so the
   result never depends on a line's position.
Nothing new is added, and every line keeps its own language and wording.
"""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings

from memory.lines import line_key
from memory.tokens import count_list_tokens, count_tokens
from offline.languages import IDENTITY_KINDS, LANGUAGES, Fact
from offline.saved import classify

# How much a kind of line is worth keeping; higher stays longer.
_WORTH = {kind: 3 for kind in IDENTITY_KINDS}
_WORTH.update({"origin": 2, "goal": 2, "learning": 2, "favourite": 1, "like": 1, "dislike": 1, "scoped": 0})
_UNKNOWN_WORTH = 2  # a line no rule reads may be anything; keep it over tastes


def _merge_family(lines: list[tuple[str, Fact | None]]) -> list[tuple[str, Fact | None]]:
    by_relative: dict[str, list[int]] = defaultdict(list)
    for index, (_line, fact) in enumerate(lines):
        if fact and fact.kind == "family":
            by_relative[fact.slot.split(":")[1]].append(index)
    merged = list(lines)
    for indexes in by_relative.values():
        if len(indexes) < 2:
            continue
        text = "; ".join(sorted(lines[i][0] for i in indexes))
        merged[indexes[0]] = (text, lines[indexes[0]][1])
        for i in indexes[1:]:
            merged[i] = ("", None)
    return [item for item in merged if item[0]]


def _merge_tastes(lines: list[tuple[str, Fact | None]]) -> list[tuple[str, Fact | None]]:
    frames: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, (_line, fact) in enumerate(lines):
        if fact and fact.kind in ("like", "dislike") and "\x00" in fact.frame:
            frames[(fact.language, fact.frame)].append(index)
    merged = list(lines)
    longest = 2 * settings.WHIZI_MEMORY_TARGET_LINE_CHARS
    for (language, frame), indexes in frames.items():
        joiner = LANGUAGES[language].joiner
        indexes = sorted(indexes, key=lambda i: lines[i][1].value)  # type: ignore[union-attr]
        # Fill one line until it reaches twice the target line length, then start
        # another: a merged line stays short enough to read (docs/DESIGN.md §2.5 shape).
        group: list[int] = []
        for index in indexes + [-1]:
            values = [lines[i][1].value for i in group]  # type: ignore[union-attr]
            if index != -1:
                candidate = values + [lines[index][1].value]  # type: ignore[union-attr]
                if not group or len(frame.replace("\x00", joiner.join(candidate))) <= longest:
                    group.append(index)
                    continue
            if len(group) > 1:
                merged[group[0]] = (frame.replace("\x00", joiner.join(values)), lines[group[0]][1])
                for i in group[1:]:
                    merged[i] = ("", None)
            group = [index]
    return [item for item in merged if item[0]]


def compact_memory(lines: list[str], *, target: int) -> list[str]:
    """A shorter list, at or under `target` tokens where dropping lines can get it there."""
    seen: set[str] = set()
    read: list[tuple[str, Fact | None]] = []
    for line in lines:
        key = line_key(line)
        if key and key not in seen:
            seen.add(key)
            read.append((line, classify(line)))
    read = _merge_family(_merge_tastes(read))

    kept = list(read)

    def worth(item: tuple[str, Fact | None]) -> tuple[int, int, str]:
        line, fact = item
        value = _WORTH.get(fact.kind, _UNKNOWN_WORTH) if fact else _UNKNOWN_WORTH
        return (value, -count_tokens(line), line)

    while kept and count_list_tokens([line for line, _fact in kept]) > target:
        kept.remove(min(kept, key=worth))
    return [line for line, _fact in kept]
