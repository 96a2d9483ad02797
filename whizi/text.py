"""Text as it may be stored: what PostgreSQL cannot hold, and what nobody can read, goes."""

from __future__ import annotations

import re
import unicodedata

# Lone UTF-16 surrogate halves: valid in a JSON string escape, not encodable as UTF-8.
_SURROGATES = re.compile("[\ud800-\udfff]")


def storable_text(text: str, *, single_line: bool = False) -> str:
    """The text without NUL characters and lone surrogate halves (a client can send either
    as a JSON escape, a model can answer with them; PostgreSQL stores neither).

    `single_line` also drops every other control character and turns tabs and line
    breaks into spaces: a memory line is one line, whatever a model answered.
    """
    if single_line:
        return "".join(
            " " if char in "\t\r\n" else char
            for char in text
            if char in "\t\r\n" or unicodedata.category(char) not in ("Cc", "Cs")
        )
    if "\x00" in text:
        text = text.replace("\x00", "")
    return _SURROGATES.sub("", text)
