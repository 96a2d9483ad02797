"""The offline memory pass (docs/DESIGN.md §3.1): the user's turns read
(offline/reading.py) and applied to the saved list (offline/edits.py). Nothing changed:
the saved list comes back exactly as it was."""

from __future__ import annotations

from offline.edits import ListEdits, RewriteOutcome
from offline.reading import TurnReader


def memory_rewrite(existing: list[str], turns: list[tuple[str, str]], *,
                   source: str = "chat") -> RewriteOutcome:
    """One pass: the whole rewritten list, and where each line came from."""
    edits = ListEdits(existing, voice=source == "voice")
    reader = TurnReader(edits)
    for role, text in turns:
        if role == "user":
            reader.read_turn(text)
    return edits.outcome(existing)


def rewrite_memory(existing: list[str], turns: list[tuple[str, str]], *, source: str = "chat") -> list[str]:
    """The whole rewritten list for one pass; the saved list itself when nothing changed."""
    outcome = memory_rewrite(existing, turns, source=source)
    return existing if outcome.lines == list(existing) else outcome.lines


__all__ = ["RewriteOutcome", "memory_rewrite", "rewrite_memory"]
