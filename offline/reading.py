"""How the offline pass reads a user's turns (the reading half of the offline pass,
docs/DESIGN.md §3.1; what it keeps is §2.2):

1. A pasted passage is set aside; in a voice transcript a misheard stretch is skipped,
   and hesitations and self-repairs are removed.
2. Each sentence is cut into clauses (offline/clauses.py). A clause is a request, found
   with memory's one grammar (memory.grammar), or a statement, read with its language's
   table (offline/languages/).
3. Consecutive statements are remembered, so "remember that" can point at the one before
   it (or after it, when nothing came before in that message), "forget that" can remove
   what it said, and "just kidding" can take it back.
4. What it finds goes to the list (offline/edits.py): facts, requests, corrections, news.
   Questions, hypotheticals and jokes are never handed over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.grammar import MemoryRequest, RequestFound, memory_request_in
from offline.clauses import clauses_of, facts_in, sentence_language
from offline.edits import ListEdits
from offline.languages import LANGUAGES, Language, language_for
from offline.saved import Entry, any_language
from offline.text import (
    MAX_SENTENCE_CHARS,
    is_question,
    looks_garbled,
    own_words,
    script_of,
    split_sentences,
    tidy,
)

_QUESTION_PARTS = re.compile(r"\s*[—–;；]\s*|\s*[,，、]\s*")


@dataclass
class _Statement:
    """Consecutive plain clauses: what "remember that" and "forget that" refer to."""

    id: int
    clauses: list[tuple[str, Language, bool]]
    before: list[Entry]  # the list before it, so "just kidding" can undo it
    turn: int = 0


class TurnReader:
    """Reads one pass's user turns, in order, and hands what it finds to `edits`."""

    def __init__(self, edits: ListEdits) -> None:
        self.edits = edits
        self._next_id = 0
        self._open: _Statement | None = None
        self._last: _Statement | None = None
        self._turn = 0
        # "Remember this: …", "이거 기억해 줘. 나 …": a request that points at what
        # comes next ("next"), then at the rest of that sentence ("sentence").
        self._asking: str | None = None
        self._asked_before: _Statement | None = None

    def read_turn(self, text: str) -> None:
        self._turn += 1
        text = own_words(text)
        if not self.edits.voice:
            text = re.sub(r"…+\s+", "…\n", text)  # "born 03/11/2021… pls remember": a new thought
        turn_language = language_for(text)
        greeting = False
        for index, sentence in enumerate(split_sentences(text)):
            self.edits.position = (self._turn, index)
            language = sentence_language(sentence, turn_language)
            if language.has("greeting", language.spoken(sentence) if self.edits.voice else sentence):
                greeting = True
            self._read_sentence(sentence, language, greeting)
            if self._asking == "sentence":
                self._asking = None
        if self._asking == "next" and self._asked_before is not None:
            # Nothing followed the request: it pointed back after all.
            for clause, clause_language, _greeting in self._asked_before.clauses:
                self.edits.remember(clause, clause_language, self._asked_before.id)
        self._asking = None
        self._close()

    # -- sentences and clauses --------------------------------------------------------

    def _read_sentence(self, sentence: str, language: Language, greeting: bool) -> None:
        if len(sentence) > MAX_SENTENCE_CHARS:
            return
        self.edits.correcting = language.has("correcting", tidy(sentence))
        if self.edits.voice:
            # Misheard stretches are skipped, not guessed at (docs/DESIGN.md §2.2).
            if looks_garbled(sentence) or language.has("noise", sentence):
                return
            sentence = _spoken(sentence, language)
        question = is_question(sentence)
        body = language.strip_lead_in(tidy(sentence))
        if language.particles:
            body = tidy(re.sub(rf"\s+(?:{language.particles})(?=\s*(?:[,，、;]|$))", "", body,
                               flags=language.flags))
        if question and language.polite and language.has("standing", body) and language.has("polite", body):
            # "can you keep your answers short from now on?" asks for a standing rule.
            body, question = tidy(language.rx("polite").sub("", body, count=1).rstrip("?？ ")), False
        if body and not question and memory_request_in(body) is None:
            body = self._scoped_or_corrected(body, language, greeting)
        if not body:
            return
        if question:
            # "I live in Hanoi — any good cafés nearby?": a statement may come before the
            # question; the asking part itself is never a fact.
            parts = [part for part in _QUESTION_PARTS.split(body) if part.strip()]
            for part in parts[:-1]:
                if not (language.has("question", part) or language.has("hypothetical", part)):
                    for clause in clauses_of(part, language):
                        self._read_clause(language.strip_lead_in(clause), language, greeting, False)
            body = parts[-1] if parts else body
        for clause in clauses_of(body, language):
            self._read_clause(language.strip_lead_in(clause), language, greeting, question)

    def _scoped_or_corrected(self, body: str, language: Language, greeting: bool) -> str:
        """A scene detail, a story-scoped statement or a correction, handled here; what
        is left to read as plain statements ("" when nothing is)."""
        if language.has("scene", body):
            # A detail from one scene never becomes a trait (docs/DESIGN.md §2.2,
            # corrections); it is only kept if the user then asks for it to be remembered.
            self._note(body, language, greeting)
            return ""
        if language.has("story", body):
            statement = self._note(body, language, greeting)
            self.edits.scoped(body, language, origin=statement.id)
            return ""
        for correction in language.rx_list("corrections"):
            match = correction.search(body)
            if not match:
                continue
            joint = "" if language.script in ("han", "kana") else " "
            restated = tidy(body[: match.start()] + joint + match.group("new"))
            # "I'm a teaching assistant, not a teacher": a restated fact takes the place of
            # the line in its slot; otherwise the old value is replaced in its line, and
            # with nothing saved to correct it is a plain statement of the new value.
            if facts_in(language.strip_lead_in(restated), language, greeting=True):
                return restated
            if self.edits.correct(match.group("old"), match.group("new"), body, language,
                                  more=match.groupdict().get("more") or ""):
                self._note(body, language, greeting)
                return ""
            return restated
        if (self.edits.correcting or language.has("standing", body)) and self.edits.recolour(body, language):
            self._note(body, language, greeting)
            return ""
        return body

    def _read_clause(self, clause: str, language: Language, greeting: bool, question: bool) -> None:
        if not clause:
            return
        found = memory_request_in(clause + "?" if question and not is_question(clause) else clause)
        if found is not None:
            if found.kind is MemoryRequest.REMEMBER:
                self._remember(found, language)
            else:
                self._forget(found, language)
            return
        if question or language.has("question", clause) or language.has("hypothetical", clause):
            return
        if language.has("joke", clause):
            # "Just kidding" takes back the statement before it; a joke is never kept.
            if language.has("kidding", clause) and not facts_in(clause, language, greeting):
                self._undo_last()
            return
        temporary = language.momentary(clause)
        clause = language.strip_when(clause)
        if clause:
            self._read_statement(clause, language, greeting, temporary)

    def _read_statement(self, clause: str, language: Language, greeting: bool, temporary: bool) -> None:
        """A plain statement: asked for, a retraction, a fact, or news for a saved line."""
        statement = self._note(clause, language, greeting)
        if self._asking:
            self.edits.remember(clause, language, statement.id)
            self._asking = "sentence"
            return
        edits = self.edits
        if temporary or edits.retract(clause, language) or edits.extend_name(clause):
            return
        if edits.still_about_relative(clause, language):
            return  # "我儿子今年5岁，叫豆豆，特别喜欢恐龙": still about the son
        facts = facts_in(clause, language, greeting)
        for fact in facts:
            edits.add(fact, clause=clause, explicit=False, origin=statement.id)
        if not facts and not (language.has("health", clause) or language.has("money", clause)
                              or any_language("app", clause)):
            edits.detail(clause, language) or edits.about_person(clause, language)

    # -- statements ("remember that", "forget that", "just kidding") -----------------

    def _note(self, clause: str, language: Language, greeting: bool) -> _Statement:
        if self._open is None:
            self._next_id += 1
            self._open = _Statement(id=self._next_id, clauses=[], before=list(self.edits.entries),
                                    turn=self._turn)
        self._open.clauses.append((clause, language, greeting))
        return self._open

    def _close(self) -> None:
        if self._open is not None and self._open.clauses:
            self._last = self._open
        self._open = None

    def _previous(self) -> _Statement | None:
        self._close()
        return self._last

    def _undo_last(self) -> None:
        previous = self._previous()
        if previous is not None:
            self.edits.entries = list(previous.before)
            self._last = None

    # -- requests ---------------------------------------------------------------------

    def _remember(self, found: RequestFound, language: Language) -> None:
        content = tidy(found.content)
        if not content:
            previous = self._previous()
            if previous is None or previous.turn != self._turn:
                # Nothing said before it in this message: it points at what comes next.
                self._asking, self._asked_before = "next", previous
                return
            for clause, clause_language, _greeting in previous.clauses:
                self.edits.remember(clause, clause_language, previous.id)
            return
        self._close()
        language = LANGUAGES[found.language] if script_of(content) == language.script else language
        instruction = language.instruction and language.rx("instruction").match(content)
        if instruction:
            # "remember to always use metric": a standing order; "don't forget to buy
            # milk": a one-off task, never kept.
            content = content[instruction.end():]
            if not language.has("standing", content):
                return
        if not content:
            return
        content_language = sentence_language(content, language)
        for sentence in split_sentences(content):
            for clause in content_language.clauses(content_language.strip_lead_in(tidy(sentence))):
                statement = self._note(clause, content_language, True)
                self.edits.remember(clause, content_language, statement.id)
        self._close()

    def _forget(self, found: RequestFound, language: Language) -> None:
        content = tidy(found.content)
        if found.everything:
            self.edits.forget_everything()
            return
        if not content:
            previous = self._previous()
            if previous is not None:
                self.edits.forget_statement(previous.id, previous.clauses)
            return
        self._close()
        self.edits.forget_named(content, language)


def _spoken(sentence: str, language: Language) -> str:
    """A voice sentence as it was meant, without hesitations and self-repairs."""
    if language.particles:
        sentence = re.sub(rf"\s+(?:{language.particles})(?=\s*[…—])", "", sentence, flags=language.flags)
    return language.spoken(sentence)
