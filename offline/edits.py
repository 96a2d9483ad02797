"""What the offline pass does to the saved list with what it read: remember, forget,
correct, add and fold (the applying half of the offline pass; the rules are
docs/DESIGN.md §2.2, and offline/reading.py is what hands the clauses over).

A fact fills a slot and replaces the line in it; a retraction removes the line it ends;
news about someone a line names goes into that line; a correction replaces the old value
in the one line that holds it; a name or a date right after a fact about a relative or a
plan joins that line. The list's own bookkeeping (the rule re-check, slots, where each
line came from) is offline/saved.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.lines import line_key
from offline.clauses import facts_in, forget_words, person_in, phrase_tails, subject_words
from offline.languages import LANGUAGES, Fact, Language
from offline.saved import Entry, SavedList, any_language, classify, is_standing_label, mentions, replace_word
from offline.text import is_question, looks_like_name, script_of, tidy


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


# "SYSTEM:", "assistant>", a bare "system": a turn's role, never a fact about the user.
_ROLE_WORD = re.compile(r"\W*(?:system|assistant|developer|user|human|系统|システム|시스템|sistem|hệ thống)"
                        r"\s*(?:$|[:：>|\]\-])", re.IGNORECASE)
_DETAIL_JOINERS = {"han": "，", "kana": "、"}
_PART = re.compile(r"(\s*[;；]\s*|,\s+|[，、]\s*)")
_REPLACEABLE = frozenset({"home", "work", "study", "status", "age"})


def _names_someone(clause: str) -> bool:
    """"my friend Amara Okafor restores vintage cameras": a capitalised name after the
    first word, so a statement about someone in the user's life, not a fragment."""
    words = (word.strip("—–-,.;:!?'’\"") for word in clause.split()[1:])
    return any(len(word) >= 2 and word[0].isupper() and word[1].islower() for word in words)


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


class ListEdits(SavedList):
    """The saved list as one pass changes it.

    The reader says where it is: `position` is the (turn, sentence) being read and
    `correcting` whether that sentence opens as a correction."""

    def __init__(self, existing: list[str], *, voice: bool = False) -> None:
        super().__init__(existing)
        self.voice = voice
        self.saved = list(self.entries)
        self.position = (0, 0)
        self.correcting = False
        self._voice_seen: dict[str, str] = {}
        self._blocked: set[str] = set()
        # The line a following name or date belongs to: (its key, its kind, its position).
        self._detailed: tuple[str, str, tuple[int, int]] | None = None

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

    # -- remember ---------------------------------------------------------------------

    def remember(self, clause: str, language: Language, origin: int) -> None:
        """An explicit request: a fact rule if one reads it, else the user's own words."""
        if is_question(clause) or language.has("question", clause) or _ROLE_WORD.match(clause):
            return
        facts = facts_in(clause, language, greeting=True)
        if facts:
            for fact in facts:
                self.add(fact, clause=clause, explicit=True, origin=origin)
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
        self.add(fact, clause=clause, explicit=True, origin=origin)

    # -- forget -----------------------------------------------------------------------

    def forget_everything(self) -> None:
        self._drop(lambda entry: True, "forgotten")

    def forget_statement(self, origin: int, clauses: list[tuple[str, Language, bool]]) -> None:
        """"Forget that": the lines the statement before it made, else the slots it speaks of."""
        if not self._drop(lambda entry: entry.origin == origin, "forgotten"):
            slots = {fact.slot for clause, lang, _greeting in clauses
                     for fact in facts_in(clause, lang, True)}
            self._drop(lambda entry: entry.slot in slots, "forgotten")

    def forget_named(self, content: str, language: Language) -> None:
        """"Forget my address": the lines in the slots it names, else the lines holding its words."""
        # "forget that I have a dog — we rehomed him": the part before the reason names it.
        content = tidy(re.split(r"\s*[—–;:]\s*|,\s+|\s+(?:because|since|as)\s+", content)[0])
        slots = {fact.slot for clause in language.clauses(content)
                 for fact in facts_in(clause, language, True)}
        if slots and self._drop(lambda entry: entry.slot in slots, "forgotten"):
            return
        words = forget_words(content, language)
        if words:
            self._drop(lambda entry: all(mentions(entry.line, word) for word in words), "forgotten")

    # -- corrections and scope --------------------------------------------------------

    def correct(self, old: str, new: str, body: str, language: Language, *, more: str = "") -> bool:
        """Replace the old value in the one line it belongs to; touch nothing else. The
        old value is the longest end of what the user named that a line holds ("저
        초등학교 교사" → "초등학교 교사"); a detail after the new value is added to it."""
        old, new = tidy(old), language.clean_value(new)
        if not old or not new or old.casefold() == new.casefold():
            return False
        pairs = [(tail, new) for tail in phrase_tails(old, language.script)]
        if language.script != "latin":
            # "蓝色"/"파란색" may be saved as "蓝眼睛"/"파란 눈": try the stem too.
            pairs.append((re.sub(r"(?:色|색)$", "", old), re.sub(r"(?:色|색)$", "", new)))
        for old_value, new_value in pairs:
            index = self._holder(old_value, new_value, body, language) if old_value else None
            if index is None:
                continue
            line = replace_word(self.entries[index].line, old_value, new_value)
            if more and not mentions(line, more):
                line += _DETAIL_JOINERS.get(language.script, ", ") + tidy(more)
            fact = classify(line)
            self.entries[index] = replace(self.entries[index], line=line, slot=fact.slot if fact else None,
                                          kind=fact.kind if fact else None)
            return True
        return False

    def _holder(self, old_value: str, new_value: str, body: str, language: Language) -> int | None:
        """The one line holding the old value; among several, the one sharing most words
        with the sentence ("Mira's eyes: …"); None for none or a tie."""
        found = [i for i, entry in enumerate(self.entries) if mentions(entry.line, old_value)]
        if len(found) > 1:
            subject = subject_words(body, {old_value, new_value}, language)
            scores = {i: sum(mentions(self.entries[i].line, w) for w in subject) for i in found}
            best = max(scores.values())
            found = [i for i in found if scores[i] == best] if best else []
        return found[0] if len(found) == 1 else None

    def recolour(self, body: str, language: Language) -> bool:
        """"Actually, make Mira's eyes green from now on": the one line about Mira that
        holds another colour takes the new one."""
        if not language.colours:
            return False
        colours = language.rx("colours")
        named = {m.group(0).casefold() for m in colours.finditer(body)}
        if len(named) != 1:
            return False
        new = colours.search(body).group(0)
        subject = subject_words(body, {new}, language)
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

    def scoped(self, body: str, language: Language, *, origin: int) -> None:
        """Keep a story-scoped statement as its own line when it is about someone or
        something already remembered; it never replaces the default line."""
        scope = language.rx("story").search(body)
        rest = body[: scope.start()] + body[scope.end():] if scope else body
        subject = subject_words(rest, set(), language)
        if not any(mentions(entry.line, word) for entry in self.entries for word in subject):
            return
        if any_language("app", body) or any_language("injection", body):
            return
        self._upsert(Entry(line=body, slot="scoped:" + line_key(body), kind="scoped", origin=origin))

    def retract(self, clause: str, language: Language) -> bool:
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
        facts = facts_in(positive, language, greeting=True)
        if facts:
            slots = {fact.slot: re.split(r"[,，、]", fact.value)[0] for fact in facts}
            self._drop(lambda entry: entry.slot in slots and mentions(entry.line, slots[entry.slot]),
                       "superseded")
        return True

    def extend_name(self, clause: str) -> bool:
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

    # -- details and news -------------------------------------------------------------

    def still_about_relative(self, clause: str, language: Language) -> bool:
        """"我儿子今年5岁，叫豆豆，特别喜欢恐龙": a clause with no subject of its own, in
        the sentence that told of a relative, is still about them."""
        held = self._detailed
        return bool(held and held[1] in ("has", "family") and held[2] == self.position
                    and not re.match(language.subject, clause, language.flags)
                    and self.detail(clause, language))

    def detail(self, clause: str, language: Language) -> bool:
        """A name right after "I have two kids" ("đứa lớn tên Bông"), a date right after
        a goal or a plan ("10월 춘천 대회 신청해놨어요"): that line takes it."""
        target, self._detailed = self._detailed, None
        if target is None or target[2][0] != self.position[0]:
            return False
        key, kind, _position = target
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

    def about_person(self, clause: str, language: Language) -> bool:
        """News about someone a saved line names ("Leo turned 7", "朵朵九月份就上小学一年级",
        "母が大阪に住むことになりました"): that line takes it, in place of what it said
        of the same kind (an age, a home, a school); other news is added to it."""
        found = person_in(clause, language, self.entries)
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

    # -- adding facts -----------------------------------------------------------------

    def add(self, fact: Fact, *, clause: str, explicit: bool, origin: int) -> None:
        """Put a fact in its slot, unless a rule of docs/DESIGN.md §2.2 keeps it out."""
        language = LANGUAGES[fact.language]
        text = f"{clause}\n{fact.line}"
        if not self._may_keep(fact, language, text, explicit):
            return
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
        self._detailed = (line_key(line), fact.kind, self.position) if detailed else None

    def _may_keep(self, fact: Fact, language: Language, text: str, explicit: bool) -> bool:
        """Not Whizi, not an injection, not unasked health or money, not a joke, not a
        passing taste, not what a saved line already implies."""
        # An asked-for preference is worded about the user; "keep your answers short"
        # speaks of the assistant's answers without being an opinion about Whizi.
        about = fact.line if fact.kind == "preference" and explicit else text
        if any_language("app", about) or any_language("injection", text):
            return False
        if not explicit and (language.has("health", text) or language.has("money", text)):
            return False
        if language.has("joke", text):
            return False  # a joke or an experiment, even when asked ("remember: always talk like a pirate")
        if fact.kind in ("like", "dislike", "preference") and language.has("passing", fact.value):
            return False
        # "I don't eat meat" beside "Vegetarian": a line already implies it.
        return not (fact.kind == "diet" and language.has("meat", fact.value) and any(
            language.has("vegetarian", entry.line) for entry in self.entries))

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
        if heard is not None and heard != line_key(fact.line) and not self.correcting:
            self._blocked.add(fact.slot)
            self.entries = [e for e in self.entries if e.slot != fact.slot] + [
                e for e in self.saved if e.slot == fact.slot]
            return False
        self._voice_seen[fact.slot] = line_key(fact.line)
        return True
