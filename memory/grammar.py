"""Memory's one grammar of requests: does a clause ask Whizi to remember, or to forget,
something, and what? (docs/DESIGN.md §2.3)

The trigger uses it to run a pass right away; the offline memory model uses it to
read what the request names. One clause at a time, in six languages, with each
language's words in memory/request_words/:

- English, Vietnamese and Malay put the verb first: "(please) remember (that) X",
  "forget (about) X", "save X in your memory", "xóa X đi", "lupakan pasal X".
- Chinese puts it first or uses 把: "记住X", "把X忘了", "X的事别提了".
- Japanese and Korean put it last: "Xを覚えておいて", "X 기억해 줘", "X는 잊어 줘".

A request's content is what to remember or forget, with its complement ("that",
"rằng", "bahawa") and politeness ("please", "nhé", "ya") trimmed. It is empty when the
request points at something said ("remember that", "이거 기억해 줘"): the model then
reads the statement before it, or the one right after it in the same message.

A mere mention does not fire: "I can't remember where I parked", "tôi không nhớ",
"我记不住", "覚えていない", "기억이 안 나", "saya tak ingat", "remember?". A false
positive costs one extra background pass; a false negative delays a fact until the
next multiple of 6 turns, so beyond mentions the patterns lean towards firing.
This module is pure: text in, answer out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from memory.request_words.base import F, MemoryRequest, R, RequestWords
from memory.request_words.en import ENGLISH
from memory.request_words.forgetting import FORGET_WORDS
from memory.request_words.ja import JAPANESE
from memory.request_words.ko import KOREAN
from memory.request_words.ms import MALAY
from memory.request_words.vi import VIETNAMESE
from memory.request_words.zh import CHINESE


@dataclass(frozen=True)
class RequestFound:
    kind: MemoryRequest
    content: str  # what to remember or forget; "" when it refers to a statement
    language: str
    everything: bool = False  # "forget everything (about me)"


_FLAGS = re.IGNORECASE

_BY_SCRIPT = {
    "hangul": (("ko", KOREAN),),
    "kana": (("ja", JAPANESE),),
    "han": (("zh-hans", CHINESE), ("ja", JAPANESE)),
    "latin": (("en", ENGLISH), ("vi", VIETNAMESE), ("ms", MALAY)),
}
_SCRIPTS = (("hangul", re.compile(r"[\uac00-\ud7a3]")), ("kana", re.compile(r"[\u3040-\u30ff]")),
            ("han", re.compile(r"[\u4e00-\u9fff]")))
# What ends a clause without saying anything: spaces, punctuation, closing quotes.
_END_CHARS = frozenset(" \t\n\r\f\v.,;:：!。，、！~…\"'“”‘’)]）」』\u3000\xa0")
_TRIM_CHARS = " \t,:：，"
# Politeness and particles are short: the tail is read in windows of this many characters
# from the end, so trimming a clause costs the same per character however long it is.
TAIL_WINDOW = 80


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text or "")
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("‘", "'")).strip()


def _script(text: str) -> str:
    return next((name for name, pattern in _SCRIPTS if pattern.search(text)), "latin")


def _compiled(pattern: str) -> re.Pattern[str]:
    if pattern not in _CACHE:
        _CACHE[pattern] = re.compile(pattern, _FLAGS)
    return _CACHE[pattern]


# Filled without a lock: two worker threads racing on a pattern only compile it twice.
_CACHE: dict[str, re.Pattern[str]] = {}


def _end_stripped(text: str, end: int) -> int:
    while end > 0 and (text[end - 1] in _END_CHARS or text[end - 1].isspace()):
        end -= 1
    return end


def _tail_trimmed(words: RequestWords, text: str) -> str:
    """`text` without the spaces, punctuation, politeness and particles it ends with."""
    tail = _compiled(words.tail)
    end = _end_stripped(text, len(text))
    while end > 0:
        start = max(0, end - TAIL_WINDOW)
        if start > 0:  # begin the window at a word, so "^" in a tail means a word's start
            space = text.find(" ", start, end)
            start = space if space >= 0 else start
        window = text[start:end]
        trimmed = start + len(tail.sub("", window, count=1))
        trimmed = _end_stripped(text, trimmed)
        if trimmed == end:
            break
        end = trimmed
    return text[:end]


def _content(words: RequestWords, kind: MemoryRequest, match: re.Match[str]) -> tuple[str, bool]:
    """The content with its topic words and tail trimmed; ("", True) for "everything"."""
    groups = match.groupdict()
    content = groups.get("rest") or groups.get("content") or ""
    if words.reason:
        reason = _compiled(words.reason).search(content)
        if reason:
            content = content[: reason.start()]
    content = _tail_trimmed(words, content).lstrip(_TRIM_CHARS).rstrip(_TRIM_CHARS)
    if kind is F and _compiled(f"^{words.everything}$").match(content):
        return "", True
    content = _compiled(words.topic).sub("", content).strip()
    anaphora = _compiled(rf"^(?:{words.anaphora}" + (f"|{words.names}" if kind is R else "") + ")$")
    if anaphora.match(content):
        return "", False
    # "this: X", "cái này nha: X": the pointer announces the content after the colon.
    announced = _compiled(rf"^(?:{words.anaphora})(?:\s*\S{{1,4}})?\s*[:：]\s*(?P<said>.+)$").match(content)
    if announced:
        return announced.group("said"), False
    if words.complement:
        content = _compiled(words.complement).sub("", content, count=1)
    return content, False


def _is_question(clause: str) -> bool:
    return clause.rstrip().endswith(("?", "？"))


def memory_request_in(clause: str) -> RequestFound | None:
    """The request one clause makes, if it makes one: its kind and what it names."""
    clause = _clean(clause)
    question = _is_question(clause)
    unasked = clause.rstrip().rstrip("?？")
    body = unasked[: _end_stripped(unasked, len(unasked))].strip()
    if not body:
        return None
    for code, words in _BY_SCRIPT[_script(clause)]:
        if question and not (words.asks and _compiled(words.asks).search(body)):
            continue
        trimmed = _tail_trimmed(words, body)
        for kind, pattern in words.forms:
            match = _compiled(pattern + r"$").match(body) or _compiled(pattern + r"$").match(trimmed)
            if not match:
                continue
            content, everything = _content(words, kind, match)
            if words.self_subject and _compiled(words.self_subject).match(content) and not re.search(
                    r"(?:줘|주세요|둬|두세요|놔|마|말아)", body):
                continue  # "저는 그 날을 기억해요": the user remembers, nobody is asked
            return RequestFound(kind=kind, content=content, language=code, everything=everything)
    return None


# The trigger reads a message as sentences cut at their commas and dashes; only the
# last clause of a question keeps its question mark.
_SENTENCES = re.compile(r"[^.!?;。！？；\n]+[.!?;。！？；]*")
_CLAUSES = re.compile(r"[,，、]\s*|(?<!\s)\s*[—–]\s+")


def memory_requests_in(text: str) -> list[RequestFound]:
    """Every request a message makes, clause by clause, in order."""
    found = []
    for sentence in _SENTENCES.findall(_clean(text)):
        for clause in _CLAUSES.split(sentence):
            request = memory_request_in(clause)
            if request:
                found.append(request)
    return found


def memory_request_kind(text: str) -> MemoryRequest | None:
    """FORGET when the message asks Whizi to forget something, REMEMBER when it asks
    it to remember something, else None. A message that does both counts as FORGET,
    because forgetting is what the pass must not hold back."""
    kinds = {request.kind for request in memory_requests_in(text)}
    if F in kinds:
        return F
    return R if R in kinds else None


def is_memory_request(text: str) -> bool:
    """Does this user message ask Whizi to remember (or forget) something?"""
    return memory_request_kind(text) is not None


def is_forget_request(text: str) -> bool:
    """Does this user message ask Whizi to forget something?"""
    return memory_request_kind(text) is F


def forget_asked(text: str) -> bool:
    """Do these words (the user's own) speak of forgetting, dropping or no longer mentioning
    something, however phrased? (A remember request never removes a line: this only lets a
    removal the model made for "forgotten" stand when the words name no saved line.)"""
    return bool(FORGET_WORDS.search(unicodedata.normalize("NFC", text or "")))
