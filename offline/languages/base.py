"""What one language table holds, and how a clause is matched against it.

Each language module (en, vi, zh, ja, ko, ms) fills one `Language`: a table of fact
rules plus the small word lists the extraction rules (docs/DESIGN.md §2.2) need. Rules are
anchored regular expressions over one clause. The same rule reads a user's statement
("I live in Hanoi") and a saved line ("Lives in Hanoi"), so a later statement can find
and replace the line it corrects. In a rule's pattern:

- `{I}` is the language's first-person subject ("I", "tôi", "我" …). Patterns write
  `(?:{I})?` where a continued clause may drop it ("… and work at Google").
- `{MY}` is the possessive ("my", "tôi" after the noun, "我的" …): required when reading
  a user's statement (so "Dad is coming" is not taken as a fact about the user's dad),
  optional when reading a saved line ("Sister's name is Anna").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from offline.text import capitalise, looks_like_name, tidy

# The slot a kind of fact fills: a new fact with the same slot replaces the old line
# (docs/DESIGN.md §2.2 "the newest version when two facts conflict", "fold instead of duplicating").
SLOTS = {
    "name": "name",
    "nickname": "nickname",
    "home": "home",
    "origin": "origin",
    "role": "work:role",
    "workplace": "work:place",
    "study": "study",
    "learning": "learning:{value}",
    "family": "rel:{rel}:{attr}",
    "has": "rel:{rel}:has",
    "status": "rel:status",
    "like": "taste:{value}",
    "dislike": "taste:{value}",
    "favourite": "fav:{thing}",
    "preference": "pref:{value}",
    "diet": "diet:{value}",
    "personal": "self:{attr}",  # age, birthday
    "speaks": "speaks",
    "goal": "goal:{value}",
    "ongoing": "ongoing:{value}",
    "household": "household",
}

# Kinds that say who the user is: compaction keeps them longest (docs/DESIGN.md §2.5).
IDENTITY_KINDS = frozenset({"name", "nickname", "family", "has", "status", "role", "workplace", "study",
                            "home", "preference", "diet", "personal", "household"})


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: str
    line: str  # the saved line, from the pattern's named groups
    capital: bool = False  # the value starts with a capital ("I'm Anna", "tôi ở Hà Nội")
    greeting: bool = False  # only after a greeting or in an explicit request ("Hi, I'm Anna")
    name: bool = False  # the value must read as a person's name


@dataclass(frozen=True)
class Fact:
    kind: str
    slot: str
    line: str
    value: str
    frame: str  # the line with its value cut out, so like-lines can be merged
    language: str


@dataclass(frozen=True)
class Language:
    code: str
    script: str  # "latin", "han", "kana" or "hangul"
    subject: str  # regex for {I}: "I", "we", "tôi", "我们家" …
    possessive: str  # regex for {MY}
    rules: list[Rule]
    lead_in: str  # discourse words stripped from a clause's start ("actually", "hi")
    clause_split: str
    correcting: str  # lead-ins that mark a correction ("actually", "sorry, I mean")
    # Not kept (docs/DESIGN.md §2.2), as regexes searched in a clause or a line:
    health: str
    money: str
    app: str  # Whizi itself: its name, interface, features, models
    style: str  # how the assistant should talk or format replies
    injection: str  # text that tries to override instructions: never stored
    standing: str  # "always", "from now on": a standing preference
    temporary: str  # "today", "right now": a temporary state
    joke: str  # a joke or an experiment; laughter too ("lol", "笑")
    hypothetical: str  # "if …", "imagine …"
    question: str
    passing: str  # a liked "it"/"this": a passing opinion, not a durable taste
    # Scope (docs/DESIGN.md §2.2, corrections): a scene detail is never kept; a story-scoped statement is kept
    # as its own line, never replacing the character's default profile.
    scene: str
    story: str
    # A correction names the old value and the new one ("not blue — green").
    corrections: list[str]
    # Words left out when a forget request is matched against saved lines.
    filler: str
    # Chat.
    memory_question: str
    greeting: str
    thanks: str
    replies: dict[str, str]
    standing_label: str  # how an explicitly asked standing preference is written
    joiner: str = ", "  # how merged like-lines list their items
    about_user: Callable[[str], str] = tidy  # a verbatim request as a memory line
    derive: Callable[[dict[str, str]], dict[str, str]] = dict  # computed template fields
    trailing: str = ""  # words dropped from a value's end ("too", "です")
    # A saved line that records a question ("Asked about the weather in Rome").
    asked: str = ""
    # A saved line worded as an order to the assistant ("Always reply in …"): removed
    # unless it carries the standing-preference label. A line stating the user's own
    # preference ("Prefers Mira's dialogue short") is not an order and stays.
    directive: str = ""
    # Colour words: "make Mira's eyes green from now on" names no old value, so the
    # colour in the line about Mira is the one replaced (the corrections example of docs/DESIGN.md §2.2).
    colours: str = ""
    # Capitalised words that follow "I'm" without being a name ("I'm American", "I'm
    # Back"): with these ruled out, "I'm Anna" counts as a name even without a greeting.
    not_names: str = ""
    # "remember to …": an instruction or a task, not a fact; kept only as a standing
    # preference ("remember to always …"), never as a one-off ("don't forget to buy milk").
    instruction: str = ""
    be: str = ""  # regex for {BE}: the verb of being after the subject ("am", "'re")
    # Relation words, for "lines about the same person" when compacting.
    relations: str = ""
    # Time: `when` words say when, not what ("last month", "요즘", "hồi tháng trước") and
    # are dropped before a clause is read; `temporary` above marks a passing state.
    when: str = ""
    # Verbs of change: a time word dates them rather than making them temporary.
    change: str = ""
    # Retractions: `ended` names who or what a break-up or a quitting ends ("Priya and I
    # broke up", "健太とは別れました"); `no_longer` marks a fact that stopped being true,
    # read as the fact without its `negators` ("I no longer live in Leeds").
    ended: list[str] = field(default_factory=list)
    no_longer: str = ""
    negators: str = ""
    # Voice: what a self-repair puts between the wrong word and the right one ("no",
    # "じゃなくて", "아니"), and what says a stretch was misheard ("it cut out", "電波").
    repair: str = ""
    noise: str = ""
    fillers: str = ""  # hesitations a recogniser writes out ("um", "えーと", "음")
    bound: str = ""  # words that need what follows a hesitation ("at", "の")
    # "just kidding": takes back the statement before it (laughter alone does not).
    kidding: str = ""
    # A detail that belongs to the fact just read: a name after "I have two kids"
    # (`named`), a date after a goal or a plan (`dated`).
    named: str = ""
    dated: str = ""
    # Where a value ends and an aside begins ("Denver, still unpacking").
    aside: str = ""
    # Discourse particles that carry no fact ("la", "nha", "á"), dropped before commas.
    particles: str = ""
    # "I'm Dana, 29, based in Lisbon": the subject (`carry`) that the pieces after it
    # starting with `carried` words share.
    carry: str = ""
    carried: str = ""
    # "can you … ?": a question that asks for something rather than asks about it.
    polite: str = ""
    # Which fact about a person a predicate states: the slot a newer one replaces.
    slots: dict[str, str] = field(default_factory=dict)
    # An order to the assistant, as a preference of the user's ("Prefers short answers").
    prefers: Callable[[str], str] | None = None
    # Meat and fish: "I don't eat meat" adds nothing beside "Vegetarian".
    meat: str = ""
    vegetarian: str = ""
    flags: int = re.IGNORECASE
    extra: dict[str, str] = field(default_factory=dict)

    # -- compiled forms ---------------------------------------------------------------

    def _expand(self, pattern: str, *, reading_line: bool) -> str:
        possessive = f"(?:{self.possessive})" + ("?" if reading_line else "")
        return (pattern.replace("{MY}", possessive)
                .replace("{I}", f"(?:{self.subject})")
                .replace("{BE}", self.be)
                .replace("{REL}", f"(?:{self.relations})"))

    def _compile_rules(self, *, reading_line: bool) -> list[tuple[Rule, re.Pattern[str]]]:
        compiled = []
        for rule in self.rules:
            pattern = self._expand(rule.pattern, reading_line=reading_line)
            compiled.append((rule, re.compile(pattern, self.flags)))
        return compiled

    @cached_property
    def statement_rules(self) -> list[tuple[Rule, re.Pattern[str]]]:
        return self._compile_rules(reading_line=False)

    @cached_property
    def line_rules(self) -> list[tuple[Rule, re.Pattern[str]]]:
        return self._compile_rules(reading_line=True)

    def rx(self, name: str) -> re.Pattern[str]:
        """One of the word-list regexes, compiled once."""
        return _compiled(self.code, name, self._expand(getattr(self, name), reading_line=False), self.flags)

    def rx_list(self, name: str) -> list[re.Pattern[str]]:
        return [_compiled(self.code, f"{name}{i}", self._expand(p, reading_line=False), self.flags)
                for i, p in enumerate(getattr(self, name))]

    def has(self, name: str, text: str) -> bool:
        pattern = getattr(self, name)
        return bool(pattern) and bool(self.rx(name).search(text))

    # -- voice --------------------------------------------------------------------------

    def spoken(self, text: str) -> str:
        """A voice sentence as it was meant: hesitations and repeated words dropped, and a
        self-repair ("看護師…じゃなくて、薬剤師", "Anna— sorry, Hannah") keeps only what was
        said last."""
        if self.fillers:
            text = re.sub(rf"[,，、]?\s*(?<!\w)(?:{self.fillers})(?!\w)[,，、…]*\s*", self._unfilled, text,
                          flags=self.flags)
        previous = None
        while previous != text:
            previous = text
            text = _REPEATED_CJK.sub(r"\1", _REPEATED.sub(r"\1", text))
        match = self.repair and re.search(rf"(?<=\S)\s*(?:…+|—+|,|、)?\s*(?<![A-Za-z])(?:{self.repair})"
                                          r"(?![A-Za-z])[\s,，、…]*(?=\S)", text, re.IGNORECASE)
        if match:
            said, fixed = text[: match.start()], text[match.end():]
            # The repaired word is the last one before the repair ("Anna", "看護師"); an
            # article repeated after it goes with it ("a nurse— no, a paramedic").
            words = re.split(r"(?<=[\s…—、])", said)
            cut = len(words) - 1
            if cut > 0 and words[cut - 1].strip().casefold() == fixed.split(" ")[0].casefold():
                cut -= 1
            text = "".join(words[:cut]) + fixed
        spaced = self.script in ("latin", "hangul")
        if not spaced:  # "名前は…山本": a pause after a particle joins; elsewhere it is a comma
            text = re.sub(r"(?<=[はがをにでとのも])\s*(?:…+|\.{3,}|—+)\s*", "", text)
        return re.sub(r"\s+", " ", _PAUSE.sub(" " if spaced else "、", text)).strip(" ,，、")

    def _unfilled(self, match: re.Match[str]) -> str:
        """"á, ờ, ở quận": a hesitation between two commas leaves one comma, unless the
        word before it needs what follows ("a sous chef at, um, a hotel")."""
        said, before = match.group(0), match.string[: match.start()].rstrip()
        between = re.match(r"\s*[,，、]", said) and re.search(r"[,，、]\s*$", said)
        if between and not (self.bound and re.search(rf"(?:{self.bound})$", before, self.flags)):
            return said.strip()[0] + (" " if said.strip()[0] == "," else "")
        return " " if self.script in ("latin", "hangul") else ""

    # -- reading clauses --------------------------------------------------------------

    def strip_lead_in(self, clause: str) -> str:
        """Drop up to four lead-ins ("Oh, hi, actually …")."""
        pattern = self.rx("lead_in")
        for _ in range(4):
            stripped = tidy(pattern.sub("", clause, count=1))
            if stripped == clause:
                break
            clause = stripped
        return clause

    def clauses(self, sentence: str) -> list[str]:
        parts = [tidy(p) for p in self.rx("clause_split").split(sentence) if p and tidy(p)]
        for i in range(len(parts) - 2, -1, -1):
            if re.fullmatch(r"(?-i:[A-Z][\w'’-]+)", parts[i]) and parts[i + 1].startswith("I "):
                # "Priya and I broke up": one clause with two subjects, not two clauses.
                parts[i:i + 2] = [f"{parts[i]} and {parts[i + 1]}"]
        return parts

    def clean_value(self, value: str) -> str:
        value = re.sub(r"^(.+?)(?:\s*[,，、]\s*\1)+$", r"\1", tidy(value))  # "Đà Lạt, Đà Lạt"
        if self.aside:
            # "Denver, still unpacking": a value ends where an aside begins ("Austin,
            # Texas" and "public health, at Glasgow Caledonian" stay whole).
            value = self.rx("aside").split(value)[0]
        if self.trailing:
            previous = None
            while previous != value:
                previous = value
                value = tidy(self.rx("trailing").sub("", value))
        return value

    def facts(self, clause: str, *, reading_line: bool = False, greeting: bool = False) -> list[Fact]:
        """The fact one clause states, if any rule reads it (first rule wins)."""
        rules = self.line_rules if reading_line else self.statement_rules
        for rule, regex in rules:
            match = regex.fullmatch(clause)
            if not match:
                continue
            if rule.greeting and not (greeting or reading_line) and not self._plain_name(match):
                continue
            groups = {k: self.clean_value(v) for k, v in match.groupdict().items() if v}
            value = groups.get("value", "")
            if not value or len(value) > 80:
                continue
            if rule.name and (not looks_like_name(value, cased=rule.capital) or self.has("health", value)):
                continue  # "私、卵アレルギーなんです" names an allergy, not a person
            if rule.capital and not value[:1].isupper():
                continue
            return [self._fact(rule, groups)]
        return []

    def _plain_name(self, match: re.Match[str]) -> bool:
        value = match.groupdict().get("value") or ""
        return bool(self.not_names) and value[:1].isupper() and not self.rx("not_names").match(value)

    def slots_of(self, text: str) -> set[str]:
        """Which kinds of fact about a person a predicate states (home, work, study,
        age, status; "like" and "has" are news that replaces nothing)."""
        return {slot for slot, words in self.slots.items()
                if _compiled(self.code, f"slot:{slot}", words, self.flags).search(text)}

    def slot_of(self, text: str) -> str | None:
        return next((slot for slot in self.slots if slot in self.slots_of(text)), None)

    def momentary(self, clause: str) -> bool:
        """A temporary state ("I'm tired today"); a change dated by the same words is
        not one ("Theo started nursery this week", "Bin vừa tròn 6 tuổi hôm qua")."""
        return self.has("temporary", clause) and not self.has("change", clause)

    def strip_when(self, clause: str) -> str:
        """The clause without its time words ("we moved to Denver last month"), and
        without those that date a change."""
        for name in ("when", "temporary") if self.has("change", clause) else ("when",):
            if getattr(self, name):
                clause = self.rx(name).sub(" " if self.script in ("latin", "hangul") else "", clause)
        return tidy(re.sub(r"\s+([,，、])", r"\1", clause))

    def _fact(self, rule: Rule, groups: dict[str, str]) -> Fact:
        groups = self.derive(groups)
        fields = _Fields(groups)
        line = _render(rule.line, fields)
        frame = _render(rule.line, _Fields({**groups, "value": "\x00"}))
        if self.script == "latin":
            line, frame = capitalise(line), capitalise(frame)
        slot_fields = _Fields({k: _slot_word(v) for k, v in groups.items()})
        if rule.kind == "family" and "attr" not in groups:
            slot_fields["attr"] = self.slot_of(groups.get("value", "")) or _slot_word(
                _family_attr(groups, self.script))
        slot = _render(SLOTS[rule.kind], slot_fields)
        return Fact(kind=rule.kind, slot=slot, line=line, value=groups["value"], frame=frame,
                    language=self.code)


class _Fields(dict):
    def __missing__(self, key: str) -> str:
        return ""


def _render(template: str, fields: dict[str, str]) -> str:
    return re.sub(r"\s+", " ", template.format_map(fields)).strip()


def _slot_word(value: str) -> str:
    """Slot keys ignore case, plural -s and a leading article."""
    value = value.casefold().strip()
    value = re.sub(r"^(?:a|an|the|my)\s+", "", value)
    value = re.sub(r"(?:'s|’s)$", "", value)
    if re.fullmatch(r"[a-z ]+[^s]s", value):
        value = value[:-1]
    return {"children": "child", "kid": "child", "mom": "mother", "mum": "mother",
            "dad": "father"}.get(value, value)


def _family_attr(groups: dict[str, str], script: str) -> str:
    """Which fact about a relative a line states, so "my sister lives in …" and "my
    sister is a nurse" stay two lines while a newer "my sister lives in …" replaces
    the first: the verb (or the rest's first word); in Japanese and Korean, where the
    verb ends the clause, its last characters."""
    verb = groups.get("verb")
    if verb:
        rest = (groups.get("value") or "").split()
        # "is a nurse" and "is married" are two facts; "is a doctor" replaces "is a nurse".
        if verb.casefold() in ("is", "are", "was", "has") and len(rest) > 1:
            return f"{verb} {rest[1]}"
        return verb
    rest = groups.get("rest") or groups.get("value", "")
    if script in ("kana", "hangul"):
        return rest[-3:]
    words = rest.split()
    return words[0] if words else ""


# A word said twice across a pause ("I'm— I'm", "저는… 저는", "就…就").
_REPEATED = re.compile(r"(?<![\w'’])([\w'’]+(?:\s+[\w'’]+)?)\s*(?:[—–]|…+|\.{2,}|,)?\s+\1(?![\w'’])",
                       re.IGNORECASE)
_REPEATED_CJK = re.compile(r"([\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]{1,4})\s*(?:…+|—+|、)\s*\1")
_PAUSE = re.compile(r"\s*(?:…+|\.{3,}|—+|–)\s*")


# Filled without a lock: two worker threads racing on a pattern only compile it twice.
_CACHE: dict[tuple[str, str], re.Pattern[str]] = {}


def _compiled(code: str, name: str, pattern: str, flags: int) -> re.Pattern[str]:
    key = (code, name)
    if key not in _CACHE:
        _CACHE[key] = re.compile(pattern or r"(?!x)x", flags)
    return _CACHE[key]
