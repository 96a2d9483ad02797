"""One memory line: how it is normalised, and when two lines count as the same."""

from __future__ import annotations

import re
import unicodedata

# Bullets, numbering and checkboxes a model (or a person) may put before a line.
_LEAD = re.compile(r"^\s*(?:[-*•·‣▪●◦–—+]|\d{1,3}[.)]|\(\d{1,3}\)|\[[ xX]?\])\s*")
_SPACE = re.compile(r"\s+")


def normalise_line(line: str) -> str:
    """Strip list marks and collapse whitespace; keep the wording and script as written."""
    text = unicodedata.normalize("NFC", line)
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text, count=1)
    return _SPACE.sub(" ", text).strip()


def line_key(line: str) -> str:
    """Lines with the same key are the same fact written twice (case, spaces, bullets)."""
    return normalise_line(line).casefold()
