"""How the offline model reads one sentence: its language, its clauses, the facts in a
clause, and who or what it names (the reading half of the offline pass, docs/DESIGN.md §3.1)."""

from __future__ import annotations

import re

from memory.grammar import memory_request_in
from offline.languages import LANGUAGES, Fact, Language, candidates_for
from offline.saved import Entry, mentions
from offline.text import detect_language, tidy


def sentence_language(sentence: str, turn_language: Language) -> Language:
    code = detect_language(sentence)
    # A short Latin sentence ("Ingat ya") reads as English; trust the turn instead.
    if code == "en" and turn_language.script == "latin":
        return turn_language
    return LANGUAGES[code]


def facts_in(clause: str, language: Language, greeting: bool) -> list[Fact]:
    """The facts a clause states, read with its language's table first, then the others
    sharing its script."""
    for candidate in [language] + [c for c in candidates_for(clause) if c is not language]:
        facts = candidate.facts(clause, greeting=greeting)
        if facts:
            return facts
    return []


def clauses_of(sentence: str, language: Language) -> list[str]:
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


def phrase_tails(text: str, script: str) -> list[str]:
    """The ends of a phrase, longest first: words in spaced scripts, characters in
    Chinese and Japanese (at least two)."""
    if script in ("han", "kana"):
        return [text[i:] for i in range(len(text) - 1)] or [text]
    words = text.split()
    return [" ".join(words[i:]) for i in range(len(words))]


_PERSON_PARTICLES = re.compile(r"^(?:['’]s\b)?\s*(?:とは|は|が|も|って|이랑|랑|는|은|이|가|도|,|，)?\s*"
                               r"(?:(?:just|now|also|finally|already|就|也|已经|もう)\s*)*", re.IGNORECASE)


def person_in(clause: str, language: Language, entries: list[Entry]) -> tuple[int, str, str] | None:
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


def subject_words(text: str, exclude: set[str], language: Language) -> list[str]:
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


def forget_words(content: str, language: Language) -> list[str]:
    """The words a forget request names a line by, filler left out."""
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
