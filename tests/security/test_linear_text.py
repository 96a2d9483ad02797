"""No input stalls the server: every function that reads user or model text with regular
expressions does work that grows linearly with the text (docs/DESIGN.md §3).

One 89-character message of repeated lead words ("ok ok ok …") once froze a web process:
a pattern backtracked exponentially. Each module's entry points are fed, as the product
calls them, adversarial text built from that module's own patterns: every literal word
its patterns spell, repeated with spaces, commas or nothing (repeated lead words in six
languages), and long runs of single characters (quotes, brackets, separators, digits,
each script). The cost of 16 repetitions is compared with 8, and of 6,000 characters with
1,500 (tests/security/linear.py): a ratio, not a time limit.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from memory import (
    answer_patterns,
    apply,
    chat_block,
    compute,
    dates,
    grammar,
    lines,
    own_words,
    parse,
    prompts,
    safety,
)
from memory.evaluation import files as eval_files
from memory.evaluation import scoring as eval_scoring
from memory.request_words import base as request_base
from memory.request_words import en as request_en
from memory.request_words import forgetting as request_forgetting
from memory.request_words import ja as request_ja
from memory.request_words import ko as request_ko
from memory.request_words import ms as request_ms
from memory.request_words import vi as request_vi
from memory.request_words import zh as request_zh
from memory.sources import Turn
from offline import chat as offline_chat
from offline import clauses as offline_clauses
from offline import compact as offline_compact
from offline import edits as offline_edits
from offline import prompt as offline_prompt
from offline import reading as offline_reading
from offline import saved as offline_saved
from offline import text as offline_text
from offline.languages import base, en, ja, ko, ms, vi, zh
from offline.provider import offline_answer
from tests.security.linear import (
    CHARS_RATIO_MAX,
    UNITS_RATIO_MAX,
    families,
    literals,
    worst_growth_bounded,
)
from whizi import text as whizi_text

pytestmark = pytest.mark.slow

SAVED = ["Name is Sam", "Lives in Leeds", "Tên là Mai", "名前は佐藤健"]


def _parse(text: str) -> object:
    try:
        return parse.parse_answer(text)
    except parse.AnswerError:
        return None


def _answer_file(text: str) -> object:
    try:
        return eval_files.answer_path(Path("answers"), text, eval_files.PASS_ANSWER)
    except eval_files.ScenarioError:
        return None


def _offline_pass(text: str) -> object:
    turns = [Turn("user", text), Turn("assistant", text)]
    return offline_answer(prompts.pass_messages(existing=SAVED, turns=turns))


def _offline_chat(text: str) -> object:
    memory = chat_block.memory_system_message(SAVED)
    return offline_answer([memory, {"role": "user", "content": text}])


REQUEST_TABLES = (grammar, request_base, request_en, request_vi, request_ms, request_zh, request_ja,
                  request_ko)
OFFLINE_TABLES = (offline_reading, offline_clauses, offline_edits, offline_saved, offline_text,
                  offline_prompt, grammar, base, en, vi, zh, ja, ko, ms)


# (name, the modules whose patterns the inputs are made of, the entry point as the product calls it)
ENTRY_POINTS: list[tuple[str, tuple[ModuleType, ...], Callable[[str], object]]] = [
    ("grammar: requests in a message", REQUEST_TABLES, grammar.memory_requests_in),
    ("grammar: words of forgetting", (grammar, request_forgetting), grammar.forget_asked),
    ("own words and pasted text", (own_words,), own_words.own_words),
    ("line check", (safety,), safety.blocked_reason),
    ("encoded payloads", (safety,), safety.decoded_payloads),
    ("answer parser", (parse, answer_patterns, lines), _parse),
    ("dates of a line", (dates,), dates.date_parts),
    ("provenance of a line", (apply, dates),
     lambda text: apply.provenance_refusal(text, trusted=text, untrusted=text)),
    ("what a pass may draw on", (apply, grammar, own_words, safety),
     lambda text: apply.Context.of([Turn("user", text), Turn("assistant", text)])),
    ("what a request asked, for its mark", (*REQUEST_TABLES, apply, safety),
     lambda text: compute.request_asked([Turn("user", text)], [*SAVED, text])),
    ("a list's shape (memory_eval)", (eval_scoring, safety),
     lambda text: eval_scoring.line_shape_problems([text])),
    ("a scenario's answer file (memory_eval)", (eval_files,), _answer_file),
    ("the pass prompt", (prompts, own_words),
     lambda text: prompts.pass_messages(existing=[text], turns=[Turn("user", text)])),
    ("offline model: a memory pass", OFFLINE_TABLES, _offline_pass),
    ("offline model: a compaction", (offline_compact, offline_saved),
     lambda text: offline_compact.compact_memory([text, *SAVED], target=10)),
    ("offline model: a chat", (offline_chat, offline_prompt, offline_text), _offline_chat),
    ("storable text", (whizi_text,), whizi_text.storable_text),
]


def _patterns(module: ModuleType) -> list[re.Pattern[str] | str]:
    """Every regular expression a module holds: compiled patterns, and the pattern strings
    of its tables (dataclasses, lists, dicts), a few levels down."""
    found: list[re.Pattern[str] | str] = []
    seen: set[int] = set()

    def walk(value: object, depth: int) -> None:
        if depth > 5 or id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, re.Pattern):
            found.append(value)
        elif isinstance(value, str) and depth > 0 and any(c in value for c in "(|\\[?*+"):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                walk(item, depth + 1)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for item in dataclasses.fields(value):
                walk(getattr(value, item.name), depth + 1)

    for name, value in vars(module).items():
        if not name.startswith("__") and not isinstance(value, ModuleType):
            walk(value, 0)
    return found


@pytest.mark.parametrize(("name", "modules", "entry"), ENTRY_POINTS, ids=[e[0] for e in ENTRY_POINTS])
def test_the_work_grows_linearly_with_the_text(name, modules, entry):
    words = literals(pattern for module in modules for pattern in _patterns(module))
    growth = worst_growth_bounded(entry, families(words, limit=60))
    assert not isinstance(growth, str), f"{name}: {growth} did not finish (a pattern backtracks without end)"
    by_units, by_chars = growth
    assert by_units.ratio <= UNITS_RATIO_MAX, (
        f"{name}: 16 repetitions of {by_units.family} cost {by_units.ratio:.0f}x 8 of them "
        f"({by_units.small * 1000:.1f} → {by_units.large * 1000:.1f} ms): backtracking")
    assert by_chars.ratio <= CHARS_RATIO_MAX, (
        f"{name}: 6,000 characters of {by_chars.family} cost {by_chars.ratio:.1f}x 1,500 "
        f"({by_chars.small * 1000:.1f} → {by_chars.large * 1000:.1f} ms): super-linear")


ROOT = Path(__file__).resolve().parents[2]
# Python 3.12 reads an f-string as tokens of its own.
_STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_START", tokenize.STRING)}


def _writes_patterns(path: Path) -> bool:
    """Does this source file spell a regular expression (a raw string, as patterns here are)?"""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return any(token.string[:2].lower() in ('r"', "r'", "rf", "fr") for token in tokens
               if token.type in _STRING_TOKENS)


def test_every_module_that_writes_patterns_is_fed_to_an_entry_point():
    # A new table module (a language, a split of the parser) is only safe once its own
    # words are thrown at the entry point that reads them.
    fed = {module.__file__ for _name, modules, _entry in ENTRY_POINTS for module in modules}
    written = [path for app in ("memory", "offline") for path in sorted((ROOT / app).rglob("*.py"))
               if "migrations" not in path.parts and _writes_patterns(path)]
    assert [str(path.relative_to(ROOT)) for path in written if str(path) not in fed] == []


def test_a_thirty_word_run_of_lead_words_is_read_at_once():
    # The message that froze a web process: it is not a request, and reading it is quick.
    for word in ("ok", "okay", "oh", "whizi", "và", "ừ", "dan", "好的", "はい", "네"):
        assert grammar.memory_requests_in(" ".join([word] * 30)) == []
