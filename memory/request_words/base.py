"""What one language's request words hold (memory/grammar.py reads them; each language
module of this package fills one table)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class MemoryRequest(Enum):
    REMEMBER = "remember"
    FORGET = "forget"


R, F = MemoryRequest.REMEMBER, MemoryRequest.FORGET


@dataclass(frozen=True)
class RequestWords:
    """One language's request words. Each form has a `content` group."""

    forms: list[tuple[MemoryRequest, str]]
    anaphora: str  # a content that points at a statement ("that", "điều đó", "それ")
    names: str  # "my name": points at the name just given (remember only)
    everything: str  # "everything about me": forget the whole list
    topic: str  # "everything about", "pasal", "のこと": trimmed from a content
    tail: str  # politeness and particles trimmed from a content's end
    reason: str = ""  # where a reason given after the content starts ("… because …"): trimmed
    complement: str = ""  # "that", "rằng", "bahawa": the word before a stated content
    self_subject: str = ""  # "저는 … 기억해요" is the user speaking of themselves
    asks: str = ""  # a question that is still a request ("can you remember …?")


def forms(kind: MemoryRequest, *patterns: str) -> list[tuple[MemoryRequest, str]]:
    return [(kind, pattern) for pattern in patterns]


CONTENT = r"(?P<content>.*?)"  # a content, shortest first so the tail can be trimmed
