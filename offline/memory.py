"""The offline memory pass: the reader that rewrites the saved list (docs/DESIGN.md §2.2).

It reads only the user's turns, the way people write them:

1. Before reading, a pasted passage is set aside; in a voice transcript a misheard
   stretch is skipped, and hesitations and self-repairs are removed.
2. Each sentence is cut into clauses. A clause is either a request, found with
   memory's one grammar (memory.grammar), or a statement, read with its language's
   small grammar (offline/languages/<code>.py): who it is about (the user, "we", a
   relative, someone a saved line names), when (time words are dropped; a temporary
   state is not kept, a dated change is), and what (being, living, working, studying,
   liking, having, wanting, planning).
3. A fact fills a slot and replaces the line in it; a retraction ("Priya and I broke
   up", "I no longer live in Leeds") removes the line it ends; news about someone a
   line names goes into that line, in place of what it said of the same kind; a
   correction ("not blue — green") replaces the old value; a name or a date right
   after a fact about a relative or a plan joins that line.
4. "remember …" stores what was asked (health and money included), worded as a fact
   about the user ("Prefers short answers"); "remember that" points at the statement
   before it, or after it when nothing came before in that message; "forget …" removes
   the lines it names.
5. Questions, hypotheticals, jokes, temporary states, opinions about Whizi, and health
   and money details nobody asked to keep are never kept.

Nothing changed: the saved list comes back exactly as it was. The list's own
bookkeeping (the rule re-check, slots, where each line came from) is offline/saved.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.grammar import MemoryRequest, RequestFound, memory_request_in
from memory.lines import line_key
from offline.languages import LANGUAGES, Fact, Language, candidates_for, language_for
from offline.saved import (
    Entry,
    SavedList,
    any_language,
    classify,
    is_standing_label,
    mentions,
    replace_word,
)
from offline.text import (
    MAX_SENTENCE_CHARS,
    detect_language,
    is_question,
    looks_garbled,
    looks_like_name,
    own_words,
    script_of,
    split_sentences,
    tidy,
)


@dataclass
class RewriteOutcome:
    """The new list, and where each of its lines came from.

    `sources[i]` is the index in the saved list of the line `lines[i]` keeps or edits
    (None for a new line); every saved index not in `sources` is in `removed`, with why:
    "forgotten" (the user asked), "superseded" (a newer fact replaced it) or "rule"
    (it breaks the rules)."""

    lines: list[str]
    sources: list[int | None]
    removed: dict[int, str]


@dataclass
class _Statement:
    """Consecutive plain clauses: what "remember that" and "forget that" refer to."""

    id: int
    clauses: list[tuple[str, Language, bool]]
    before: list[Entry]  # the list before it, so "just kidding" can undo it
    turn: int = 0


class MemoryRewrite(SavedList):
    """One pass over the user's turns: reads them and rewrites the saved list."""

    def __init__(self, existing: list[str], *, voice: bool = False) -> None:
        super().__init__(existing)
        self.voice = voice
        self.saved = list(self.entries)
        self._next_id = 0
        self._open: _Statement | None = None
        self._last: _Statement | None = None
        self._voice_seen: dict[str, str] = {}
        self._blocked: set[str] = set()
        self._correcting = False
        self._turn = 0
        # "Remember this: …", "이거 기억해 줘. 나 …": a request that points at what
        # comes next ("next"), then at the rest of that sentence ("sentence").
        self._asking: str | None = None
        self._asked_before: _Statement | None = None
        # The line a following name or date belongs to: (its key, its kind, the sentence).
        self._detailed: tuple[str, str, tuple[int, int]] | None = None
        self._sentence = (0, 0)  # (turn, sentence) being read

    # -- the whole pass ---------------------------------------------------------------

    def read_turn(self, text: str) -> None:
        self._turn += 1
        text = own_words(text)
        if not self.voice:
            text = re.sub(r"…+\s+", "…\n", text)  # "born 03/11/2021… pls remember": a new thought
        turn_language = language_for(text)
        greeting = False
        for index, sentence in enumerate(split_sentences(text)):
            self._sentence = (self._turn, index)
            language = self._language(sentence, turn_language)
            if language.has("greeting", language.spoken(sentence) if self.voice else sentence):
                greeting = True
            self._read_sentence(sentence, language, greeting)
            if self._asking == "sentence":
                self._asking = None
        if self._asking == "next" and self._asked_before is not None:
            # Nothing followed the request: it pointed back after all.
            for clause, clause_language, _greeting in self._asked_before.clauses:
                self._store_as_asked(clause, clause_language, self._asked_before.id)
        self._asking = None
        self._close()

    def outcome(self, existing: list[str]) -> RewriteOutcome:
        lines = self.lines()
        if lines == list(existing):
            return RewriteOutcome(lines=list(existing), sources=list(range(len(existing))), removed={})
        sources: list[int | None] = []
        for entry in self.entries:
            sources.append(entry.source if entry.source not in sources else None)
        kept = set(sources)
        removed = {index: self.removed.get(index, "superseded") for index in range(len(existing))
                   if index not in kept}
        return RewriteOutcome(lines=lines, sources=sources, removed=removed)

    # -- sentences and clauses --------------------------------------------------------

    @staticmethod
    def _language(sentence: str, turn_language: Language) -> Language:
        code = detect_language(sentence)
        # A short Latin sentence ("Ingat ya") reads as English; trust the turn instead.
        if code == "en" and turn_language.script == "latin":
            return turn_language
        return LANGUAGES[code]

    def _read_sentence(self, sentence: str, language: Language, greeting: bool) -> None:
        if len(sentence) > MAX_SENTENCE_CHARS:
            return
        self._correcting = language.has("correcting", tidy(sentence))
        if self.voice:
            # Misheard stretches are skipped, not guessed at (docs/DESIGN.md §2.2); what is left
            # is read as it was meant, without hesitations and self-repairs.
            if looks_garbled(sentence) or language.has("noise", sentence):
                return
            if language.particles:
                sentence = re.sub(rf"\s+(?:{language.particles})(?=\s*[…—])", "", sentence,
                                  flags=language.flags)
            sentence = language.spoken(sentence)
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
                    for clause in _clauses(part, language):
                        self._read_clause(language.strip_lead_in(clause), language, greeting, False)
            body = parts[-1] if parts else body
        for clause in _clauses(body, language):
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
            self._note(body, language, greeting)
            self._scoped(body, language)
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
            if self._facts(language.strip_lead_in(restated), language, greeting=True):
                return restated
            if self._correct(match.group("old"), match.group("new"), body, language,
                             more=match.groupdict().get("more") or ""):
                self._note(body, language, greeting)
                return ""
            return restated
        if (self._correcting or language.has("standing", body)) and self._recolour(body, language):
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
            if language.has("kidding", clause) and not self._facts(clause, language, greeting):
                self._undo_last()
            return
        temporary = language.momentary(clause)
        clause = language.strip_when(clause)
        if not clause:
            return
        statement = self._note(clause, language, greeting)
        if self._asking:
            self._store_as_asked(clause, language, statement.id)
            self._asking = "sentence"
            return
        if temporary or self._retract(clause, language) or self._extend_name(clause):
            return
        if self._detailed and self._detailed[1] in ("has", "family") and self._detailed[2] == self._sentence \
                and not re.match(language.subject, clause, language.flags) and self._detail(clause, language):
            return  # "我儿子今年5岁，叫豆豆，特别喜欢恐龙": still about the son
        facts = self._facts(clause, language, greeting)
        for fact in facts:
            self._add(fact, clause=clause, explicit=False, origin=statement.id)
        if not facts and not (language.has("health", clause) or language.has("money", clause)
                              or any_language("app", clause)):
            self._detail(clause, language) or self._about_person(clause, language)

    # -- statements ("remember that", "forget that", "just kidding") -----------------

    def _note(self, clause: str, language: Language, greeting: bool) -> _Statement:
        if self._open is None:
            self._next_id += 1
            self._open = _Statement(id=self._next_id, clauses=[], before=list(self.entries), turn=self._turn)
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
            self.entries = list(previous.before)
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
                self._store_as_asked(clause, clause_language, previous.id)
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
        content_language = self._language(content, language)
        statement = None
        for sentence in split_sentences(content):
            for clause in content_language.clauses(content_language.strip_lead_in(tidy(sentence))):
                statement = self._note(clause, content_language, True)
                self._store_as_asked(clause, content_language, statement.id)
        self._close()

    def _store_as_asked(self, clause: str, language: Language, origin: int) -> None:
        """An explicit request: a fact rule if one reads it, else the user's own words."""
        if is_question(clause) or language.has("question", clause) or _ROLE_WORD.match(clause):
            return
        facts = self._facts(clause, language, greeting=True)
        if facts:
            for fact in facts:
                self._add(fact, clause=clause, explicit=True, origin=origin)
            return
        kind, line = "note", language.about_user(clause)
        about_user = re.match(rf"(?:{language.subject})", clause, language.flags)
        order = not about_user and (language.has("directive", clause) or language.has("style", clause))
        if order:
            # An order to the assistant is kept only as a standing preference, worded as
            # a fact about the user ("Prefers short answers"), never as the order itself.
            standing = language.prefers and language.has("standing", clause)
            preference = language.prefers(clause) if standing else ""
            if preference:
                kind, line = "preference", preference
            elif not language.has("style", clause):
                return
        elif language.script == "latin" and not (about_user or order or language.has("be", clause)
                                                 or _names_someone(clause)):
            return  # a fragment ("a few lines"), not a statement
        if not line or len(line) > 200 or language.has("greeting", line) and len(line.split()) <= 2:
            return
        fact = Fact(kind=kind, slot=f"{kind}:" + line_key(line), line=line, value=line, frame=line,
                    language=language.code)
        self._add(fact, clause=clause, explicit=True, origin=origin)

    def _forget(self, found: RequestFound, language: Language) -> None:
        content = tidy(found.content)
        if found.everything:
            self._drop(lambda entry: True, "forgotten")
            return
        if not content:
            previous = self._previous()
            if previous is None:
                return
            removed = self._drop(lambda entry: entry.origin == previous.id, "forgotten")
            if not removed:
                slots = {fact.slot for clause, lang, greet in previous.clauses
                         for fact in self._facts(clause, lang, True)}
                self._drop(lambda entry: entry.slot in slots, "forgotten")
            return
        self._close()
        # "forget that I have a dog — we rehomed him": the part before the reason names it.
        content = tidy(re.split(r"\s*[—–;:]\s*|,\s+|\s+(?:because|since|as)\s+", content)[0])
        slots = {fact.slot for clause in language.clauses(content)
                 for fact in self._facts(clause, language, True)}
        if slots and self._drop(lambda entry: entry.slot in slots, "forgotten"):
            return
        words = self._forget_words(content, language)
        if words:
            self._drop(lambda entry: all(mentions(entry.line, word) for word in words), "forgotten")

    @staticmethod
    def _forget_words(content: str, language: Language) -> list[str]:
        filler = re.compile(rf"(?:{language.filler})", language.flags)
        if language.script in ("han", "kana"):
            parts = [part.strip() for part in filler.split(content) if part.strip()]
            # One character can be the whole subject ("猫のことは忘れて": forget the cat).
            return [part for part in parts if len(part) >= 2] or parts
        words = []
        for word in re.findall(r"[^\W_]+(?:['’][^\W_]+)?", content):
            word = re.sub(r"(?:['’]s)$", "", word)
            if language.script == "hangul":
                word = re.sub(r"(?:을|를|은|는|가|의|에서|에|도)$|(?<=..)이$", "", word)  # "콩이" stays
            if len(word) >= 2 and not filler.fullmatch(word):
                words.append(word)
        return words

    # -- corrections and scope --------------------------------------------------------

    def _correct(self, old: str, new: str, body: str, language: Language, *, more: str = "") -> bool:
        """Replace the old value in the one line it belongs to; touch nothing else. The
        old value is the longest end of what the user named that a line holds ("저
        초등학교 교사" → "초등학교 교사"); a detail after the new value is added to it."""
        old, new = tidy(old), language.clean_value(new)
        if not old or not new or old.casefold() == new.casefold():
            return False
        pairs = [(tail, new) for tail in _tails(old, language.script)]
        if language.script != "latin":
            # "蓝色"/"파란색" may be saved as "蓝眼睛"/"파란 눈": try the stem too.
            pairs.append((re.sub(r"(?:色|색)$", "", old), re.sub(r"(?:色|색)$", "", new)))
        for old_value, new_value in pairs:
            if not old_value:
                continue
            found = [i for i, entry in enumerate(self.entries) if mentions(entry.line, old_value)]
            if len(found) > 1:
                # Several lines hold the old value: the one sharing most words with the
                # sentence ("Mira's eyes: …") is meant; a tie is left alone.
                subject = _subject_words(body, {old_value, new_value}, language)
                scores = {i: sum(mentions(self.entries[i].line, w) for w in subject) for i in found}
                best = max(scores.values())
                found = [i for i in found if scores[i] == best] if best else []
            if len(found) != 1:
                continue
            index = found[0]
            line = replace_word(self.entries[index].line, old_value, new_value)
            if more and not mentions(line, more):
                line += _DETAIL_JOINERS.get(language.script, ", ") + tidy(more)
            fact = classify(line)
            self.entries[index] = replace(self.entries[index], line=line, slot=fact.slot if fact else None,
                                          kind=fact.kind if fact else None)
            return True
        return False

    def _recolour(self, body: str, language: Language) -> bool:
        """"Actually, make Mira's eyes green from now on": the one line about Mira that
        holds another colour takes the new one."""
        if not language.colours:
            return False
        colours = language.rx("colours")
        named = {m.group(0).casefold() for m in colours.finditer(body)}
        if len(named) != 1:
            return False
        new = colours.search(body).group(0)
        subject = _subject_words(body, {new}, language)
        scores = {}
        for index, entry in enumerate(self.entries):
            held = [m.group(0) for m in colours.finditer(entry.line) if m.group(0).casefold() not in named]
            if len(held) == 1:
                scores[index] = (sum(mentions(entry.line, word) for word in subject), held[0])
        best = max((score for score, _old in scores.values()), default=0)
        chosen = [index for index, (score, _old) in scores.items() if score == best]
        # "make her eyes green": no name, but only one line holds a colour.
        if len(chosen) != 1 or best == 0 and subject:
            return False
        index = chosen[0]
        line = replace_word(self.entries[index].line, scores[index][1], new)
        self.entries[index] = replace(self.entries[index], line=line)
        return True

    def _detail(self, clause: str, language: Language) -> bool:
        """A name right after "I have two kids" ("đứa lớn tên Bông"), a date right after
        a goal or a plan ("10월 춘천 대회 신청해놨어요"): that line takes it."""
        target, self._detailed = self._detailed, None
        if target is None or target[2][0] != self._turn:
            return False
        key, kind, _turn = target
        about_relative = kind in ("has", "family") and (language.has("named", clause)
                                                        or bool(language.slots_of(clause)))
        if not (about_relative or kind in ("goal", "ongoing") and language.has("dated", clause)):
            return False
        for index, entry in enumerate(self.entries):
            if line_key(entry.line) == key:
                detail = language.about_user(clause)
                if language.script == "latin":
                    detail = detail[:1].lower() + detail[1:]
                line = entry.line + _DETAIL_JOINERS.get(language.script, ", ") + detail
                self.entries[index] = replace(entry, line=line)
                self._detailed = (line_key(line), kind, target[2])
                return True
        return False

    def _about_person(self, clause: str, language: Language) -> bool:
        """News about someone a saved line names ("Leo turned 7", "朵朵九月份就上小学一年级",
        "母が大阪に住むことになりました"): that line takes it, in place of what it said
        of the same kind (an age, a home, a school); other news is added to it."""
        found = _person(clause, language, self.entries)
        if found is None:
            return False
        index, who, said = found
        slots = language.slots_of(said)
        if not slots:
            return False  # "Mira is at the station": a passing state, not news
        entry = self.entries[index]
        line = _fold_into(entry.line, who, clause, language.about_user(said), slots, language)
        if line == entry.line or len(line) > 2 * 80:
            return False
        self.entries[index] = replace(entry, line=line)
        return True

    def _retract(self, clause: str, language: Language) -> bool:
        """A break-up or a fact that stopped being true ("Priya and I broke up", "I no
        longer live in Leeds", "健太とは別れました") removes the line it ends."""
        for pattern in language.rx_list("ended"):
            match = pattern.fullmatch(clause)
            who = match and tidy(match.group("who"))
            if who and len(who) <= 40:
                # "저 삼성 그만두고 카카오로 이직했어요": what is left may say what came next.
                self._drop(lambda entry, who=who: mentions(entry.line, who), "superseded")
                return False
        if not language.has("no_longer", clause):
            return False
        positive = tidy(language.rx("negators").sub(" ", clause))
        facts = self._facts(positive, language, greeting=True)
        if facts:
            slots = {fact.slot: re.split(r"[,，、]", fact.value)[0] for fact in facts}
            self._drop(lambda entry: entry.slot in slots and mentions(entry.line, slots[entry.slot]),
                       "superseded")
        return True

    def _extend_name(self, clause: str) -> bool:
        """"I'm Tobias. Tobias Wren.": a full name right after the first name."""
        words = clause.split()
        if len(words) < 2 or not looks_like_name(clause, cased=True):
            return False
        for index, entry in enumerate(self.entries):
            if entry.kind == "name" and entry.value == words[0] and entry.source is None:
                self.entries[index] = replace(entry, line=replace_word(entry.line, entry.value, clause),
                                              value=clause)
                return True
        return False

    def _scoped(self, body: str, language: Language) -> None:
        """Keep a story-scoped statement as its own line when it is about someone or
        something already remembered; it never replaces the default line."""
        scope = language.rx("story").search(body)
        rest = body[: scope.start()] + body[scope.end():] if scope else body
        subject = _subject_words(rest, set(), language)
        if not any(mentions(entry.line, word) for entry in self.entries for word in subject):
            return
        if any_language("app", body) or any_language("injection", body):
            return
        self._upsert(Entry(line=body, slot="scoped:" + line_key(body), kind="scoped", origin=self._next_id))

    # -- adding facts -----------------------------------------------------------------

    @staticmethod
    def _facts(clause: str, language: Language, greeting: bool) -> list[Fact]:
        for candidate in [language] + [c for c in candidates_for(clause) if c is not language]:
            facts = candidate.facts(clause, greeting=greeting)
            if facts:
                return facts
        return []

    def _add(self, fact: Fact, *, clause: str, explicit: bool, origin: int) -> None:
        language = LANGUAGES[fact.language]
        text = f"{clause}\n{fact.line}"
        # An asked-for preference is worded about the user; "keep your answers short"
        # speaks of the assistant's answers without being an opinion about Whizi.
        about = fact.line if fact.kind == "preference" and explicit else text
        if any_language("app", about) or any_language("injection", text):
            return
        if not explicit and (language.has("health", text) or language.has("money", text)):
            return
        if language.has("joke", text):
            return  # a joke or an experiment, even when asked ("remember: always talk like a pirate")
        if fact.kind in ("like", "dislike", "preference") and language.has("passing", fact.value):
            return
        if fact.kind == "diet" and language.has("meat", fact.value) and any(
                language.has("vegetarian", entry.line) for entry in self.entries):
            return  # "I don't eat meat" beside "Vegetarian": a line already implies it
        line = fact.line
        if fact.kind == "family" and self._fold_relative(fact):
            return
        if language.has("style", text):
            # A reply-style rule is kept only when explicitly asked for as a standing
            # preference, and then worded as one (never as a bare instruction).
            if not (explicit and language.has("standing", text)):
                return
            if fact.kind != "preference" and not is_standing_label(line):
                first = line[:1].lower() if language.script == "latin" else line[:1]
                line = language.standing_label + first + line[1:]
            fact = replace(fact, slot="pref:" + line_key(line))
        if fact.kind == "nickname" and any(entry.kind == "name" and mentions(entry.line, fact.value)
                                           for entry in self.entries):
            return  # "Panggil Amin je" beside "Nama Amin": the name already says it
        if self.voice and not self._voice_ok(fact):
            return
        self._upsert(Entry(line=line, slot=fact.slot, kind=fact.kind, origin=origin, value=fact.value))
        detailed = fact.kind in ("goal", "ongoing", "has", "family")
        self._detailed = (line_key(line), fact.kind, self._sentence) if detailed else None

    def _fold_relative(self, fact: Fact) -> bool:
        """"My husband's name is Takuya" beside a saved "Married; husband works at
        Sony": the detail joins the one saved line that names the relative, unless
        that line is itself a fact of that kind about them."""
        relative = fact.slot.split(":")[1]
        holders = [i for i, entry in enumerate(self.entries)
                   if entry.source is not None and mentions(entry.line, relative)
                   and not (entry.slot or "").startswith(f"rel:{relative}:")]
        if len(holders) != 1:
            return False
        entry = self.entries[holders[0]]
        if mentions(entry.line, fact.value):
            return True
        line = fact.line[:1].lower() + fact.line[1:] if script_of(fact.line) == "latin" else fact.line
        self.entries[holders[0]] = replace(entry, line=f"{entry.line}; {line}")
        return True

    def _voice_ok(self, fact: Fact) -> bool:
        """Speech recognition mishears: a name must be clearly written, and a slot that
        hears two different values in one session is left as it was (docs/DESIGN.md §2.2)."""
        if fact.kind in ("name", "nickname") and script_of(fact.value) == "latin" and not looks_like_name(
                fact.value, cased=True):
            return False
        if fact.slot in self._blocked:
            return False
        heard = self._voice_seen.get(fact.slot)
        if heard is not None and heard != line_key(fact.line) and not self._correcting:
            self._blocked.add(fact.slot)
            self.entries = [e for e in self.entries if e.slot != fact.slot] + [
                e for e in self.saved if e.slot == fact.slot]
            return False
        self._voice_seen[fact.slot] = line_key(fact.line)
        return True



_QUESTION_PARTS = re.compile(r"\s*[—–;；]\s*|\s*[,，、]\s*")

# "SYSTEM:", "assistant>", a bare "system": a turn's role, never a fact about the user.
_ROLE_WORD = re.compile(r"\W*(?:system|assistant|developer|user|human|系统|システム|시스템|sistem|hệ thống)"
                        r"\s*(?:$|[:：>|\]\-])", re.IGNORECASE)


def _names_someone(clause: str) -> bool:
    """"my friend Amara Okafor restores vintage cameras": a capitalised name after the
    first word, so a statement about someone in the user's life, not a fragment."""
    words = (word.strip("—–-,.;:!?'’\"") for word in clause.split()[1:])
    return any(len(word) >= 2 and word[0].isupper() and word[1].islower() for word in words)


def _clauses(sentence: str, language: Language) -> list[str]:
    """The language's clauses, with a request between commas made a clause of its own
    ("I'm deaf in my left ear, keep that in mind"); what follows a request that names
    its content belongs to it ("记一下：我每个月房贷8500，15号扣款")."""
    clauses = []
    for clause in _carried(language.clauses(sentence), language):
        pieces = re.split(r"(?<=,)\s+|(?<=[，、])\s*", clause)
        held: list[str] = []
        for index, piece in enumerate(pieces):
            found = memory_request_in(piece)
            if found is None:
                held.append(piece)
                continue
            clauses += [" ".join(held)] if held else []
            held = []
            rest = " ".join(pieces[index:])
            if found.content and memory_request_in(rest) is not None:
                clauses.append(rest)
                break
            clauses.append(piece)
        clauses += [" ".join(held)] if held else []
    return [tidy(clause) for clause in clauses if tidy(clause)]


def _carried(clauses: list[str], language: Language) -> list[str]:
    """"I'm Dana, 29, based in Lisbon but originally from Cork": what follows "I'm"
    between commas, or after "but", still has it for its subject."""
    if not language.carry or not re.match(language.carry, clauses[0] if clauses else "", language.flags):
        return clauses
    subject = re.match(language.carry, clauses[0], language.flags).group(0)
    carried = [clauses[0].split(", ")[0]]
    for index, piece in enumerate(clauses[0].split(", ")[1:] + clauses[1:]):
        if re.match(language.carried, piece, language.flags):
            carried.append(subject + piece)
        elif index < clauses[0].count(", "):
            carried[-1] += ", " + piece  # "… public health, at Glasgow Caledonian"
        else:
            carried.append(piece)
    return carried


def _tails(text: str, script: str) -> list[str]:
    """The ends of a phrase, longest first: words in spaced scripts, characters in
    Chinese and Japanese (at least two)."""
    if script in ("han", "kana"):
        return [text[i:] for i in range(len(text) - 1)] or [text]
    words = text.split()
    return [" ".join(words[i:]) for i in range(len(words))]


_PERSON_PARTICLES = re.compile(r"^(?:['’]s\b)?\s*(?:とは|は|が|も|って|이랑|랑|는|은|이|가|도|,|，)?\s*"
                               r"(?:(?:just|now|also|finally|already|就|也|已经|もう)\s*)*", re.IGNORECASE)


def _person(clause: str, language: Language, entries: list[Entry]) -> tuple[int, str, str] | None:
    """Who a clause is about when exactly one saved line names them: (that line, the
    name or relation word, what the clause says of them)."""
    if language.script == "latin":
        candidates = re.findall(r"^(?:(?:my|bé|con|anak|si)\s+)?((?-i:[A-Z][\w'’-]+))", clause)
        candidates = [word for word in candidates if word not in ("I", "My")]
    else:
        candidates = [clause[:length] for length in (4, 3, 2) if len(clause) > length]
    relation = language.relations and re.match(rf"(?:{language.possessive})?({language.relations})(?=\S)",
                                               clause, language.flags)
    if relation:
        candidates.append(relation.group(1))
    for who in candidates:
        holders = [i for i, entry in enumerate(entries) if mentions(entry.line, who)]
        if relation and who == relation.group(1):
            holders = [i for i in holders if re.match(rf"\W*(?:{language.possessive})?{re.escape(who)}",
                                                      entries[i].line, language.flags)]
        said = tidy(_PERSON_PARTICLES.sub("", clause[clause.find(who) + len(who):], count=1))
        if len(holders) == 1 and said:
            return holders[0], who, said
    return None


_DETAIL_JOINERS = {"han": "，", "kana": "、"}
_PART = re.compile(r"(\s*[;；]\s*|,\s+|[，、]\s*)")
_REPLACEABLE = frozenset({"home", "work", "study", "status", "age"})


def _fold_into(line: str, who: str, clause: str, said: str, slots: set[str], language: Language) -> str:
    """The line with the news in it: the part saying the same kind of thing is
    replaced (an age only has its number changed); other news is added at the end."""
    parts = _PART.split(line)
    for i in range(0, len(parts), 2):
        part = parts[i]
        held = language.slots_of(part) & slots & _REPLACEABLE
        if not held:
            continue
        if held == {"age"}:
            number = re.search(r"\d+", said)
            if number and re.search(r"\d+", part):
                parts[i] = re.sub(r"\d+", number.group(), part, count=1)
                return "".join(parts)
            continue
        head = re.match(rf"^.*?{re.escape(who)}(?:は|が|는|은|이|가)?\s*", part) if who in part else None
        parts[i] = (head.group(0) if head else "") + said
        return "".join(parts)
    joiner = "; " if language.script == "latin" else language.joiner
    return line + joiner + (clause if language.script == "latin" else said)


def _subject_words(text: str, exclude: set[str], language: Language) -> list[str]:
    """The words that say who or what a sentence is about: capitalised or long words in
    Latin script, two-character runs in CJK."""
    excluded = {w.casefold() for w in exclude}
    filler = re.compile(rf"(?:{language.filler})", language.flags)
    if language.script == "latin":
        words = [w for w in re.findall(r"[^\W\d_]+", text)
                 if (w[:1].isupper() or len(w) >= 4) and w.casefold() not in excluded
                 and not filler.fullmatch(w)]
        return words
    words = [w for w in re.findall(r"[A-Za-z]{2,}", text) if w.casefold() not in excluded]
    for run in re.findall(r"[^\W\d_A-Za-z]+", text):
        for ex in excluded:
            run = run.replace(ex, " ")
        for part in run.split():
            words += [part[i:i + 2] for i in range(len(part) - 1)]
    return words


def memory_rewrite(existing: list[str], turns: list[tuple[str, str]], *,
                   source: str = "chat") -> RewriteOutcome:
    """One pass: the whole rewritten list, and where each line came from."""
    rewrite = MemoryRewrite(existing, voice=source == "voice")
    for role, text in turns:
        if role == "user":
            rewrite.read_turn(text)
    return rewrite.outcome(existing)


def rewrite_memory(existing: list[str], turns: list[tuple[str, str]], *, source: str = "chat") -> list[str]:
    """The whole rewritten list for one pass; the saved list itself when nothing changed."""
    outcome = memory_rewrite(existing, turns, source=source)
    return existing if outcome.lines == list(existing) else outcome.lines
