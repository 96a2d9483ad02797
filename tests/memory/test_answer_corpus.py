"""The answer-shape corpus through the whole pass (memory.compute.pass_compute).

Every case of tests/memory/answer_corpus.py is answered by the scripted model; a subset
also comes back from the OpenAI-protocol provider on loopback, through litellm's real
HTTP path (`openai/…`), as a deployment would see it. Each must save exactly the list
the case names, and across the corpus two things never happen: a junk line saved (a
header, a note, a placeholder, a refusal, markup) and a saved fact lost without an
explicit, allowed removal.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.compute import PassResult, pass_compute
from memory.models import MemoryPass
from memory.parse import MAX_LINE_CHARS, AnswerError, parse_answer
from memory.prompts import REMOVAL_REASONS
from memory.sources import Turn
from tests.memory.answer_corpus import AROUND, CARRIERS, CASES, PIECE_FACTS, Case
from whizi.llm.scripted import Script

Outcome = MemoryPass.Outcome
TODAY = date(2026, 12, 1)
PROVIDER_MODEL = "memory-corpus"
SHAPES = {
    "exact", "no change", "fence", "preamble", "numbered/bulleted", "bold/quoted", "headers/nested",
    "notes section", "placeholder", "refusal", "json", "table", "old whole list", "EMPTY",
    "only the new fact", "empty", "truncated", "think", "ids", "removal reason", "edit to placeholder",
    "long line", "mixed prose",
}

# What a saved line must never be, written apart from the parser's own patterns.
JUNK = {
    "tag": re.compile(r"\[\s*(?:[+\-−]?\s*\d{1,4}|\+|new)\s*\]", re.I),
    "markup": re.compile(r"\*\*|```|~~|^\s*(?:[-*•>#]|\d+[.)])\s|</?think|^\s*\|", re.I),
    "header": re.compile(r"[:：]\s*$"),
    "placeholder": re.compile(
        r"^\W*(?:none|n/?a|nil|null|nothing|empty|no change|no changes|unchanged|无|なし|없음|không có)\b"
        r"|^\(.*\)$|^\[.*\]$|\bno (?:other |new )+(?:durable )?facts?\b", re.I),
    "note": re.compile(
        r"\b(?:changes made|explanation|notes?:|the user (?:said|mentioned|asked|only|moved)|updated because|"
        r"line \d|per user|in this conversation|added the|updated the)\b", re.I),
    "refusal": re.compile(
        r"\bsorry\b|can['’]?t store|cannot store|unable to|\bas an ai\b|don['’]t store|抱歉|无法存储|申し訳|"
        r"できません|죄송|저장할 수 없|\bmaaf\b|xin lỗi|không thể lưu|lo siento", re.I),
    "wrapped": re.compile(r"^[\"“'`«「].*[\"”'`»」]$"),
    "json": re.compile(r"^\s*[\[{\"]"),
}


def junk_reasons(line: str) -> list[str]:
    reasons = [name for name, pattern in JUNK.items() if pattern.search(line)]
    return reasons + (["long"] if len(line) > MAX_LINE_CHARS else [])


def as_params(cases: list[Case]) -> list:
    return [pytest.param(case, id=case.name, marks=[pytest.mark.xfail(strict=True, reason=case.bug)]
                         if case.bug else []) for case in cases]


def turns_of(case: Case) -> list[Turn]:
    return [Turn(role, text) for role, text in case.turns]


def assert_pass_outcome(case: Case, result: PassResult) -> None:
    """The exact list, the outcome and the counts the case names; then the invariants."""
    if case.failure:
        assert (result.outcome, result.error) == (Outcome.FAILED, f"answer:{case.failure}")
        assert result.lines == case.existing
        assert result.retryable is (case.failure in ("empty_answer", "refused"))
        return
    assert result.lines == case.saved
    assert result.outcome == (Outcome.UNCHANGED if case.saved == case.existing else Outcome.UPDATED)
    counts = {"kept": result.kept, "edited": result.edited, "added": result.added,
              "removed": result.removed, "refused": result.refused}
    expected = {"kept": 0, "edited": 0, "added": 0, "removed": {}, "refused": 0, **case.counts}
    if case.counts:
        assert counts == expected
    assert_nothing_junk_nothing_lost(case, result)


def assert_nothing_junk_nothing_lost(case: Case, result: PassResult) -> None:
    junk = {line: junk_reasons(line) for line in result.lines if line not in case.existing}
    assert {line: reasons for line, reasons in junk.items() if reasons} == {}
    lost = [line for line in case.existing
            if line not in result.lines and line not in case.removed and line not in case.edited]
    assert lost == []
    assert set(result.removed) <= set(REMOVAL_REASONS)
    assert sum(result.removed.values()) == len([line for line in case.removed if line not in result.lines])
    assert result.kept + result.edited + sum(result.removed.values()) == len(case.existing)


@pytest.mark.parametrize("case", as_params([case for case in CASES if not case.truncated]))
def test_each_answer_shape_through_the_scripted_model(case):
    script = Script("answer-corpus").reset().reply(case.answer)

    result = pass_compute(existing=case.existing, turns=turns_of(case), model=script.model, today=TODAY)

    assert script.remaining() == 0 and result.model_calls == 1
    assert_pass_outcome(case, result)


@pytest.mark.parametrize("case", as_params([case for case in CASES if case.provider or case.truncated]))
def test_answer_shapes_through_the_openai_protocol_provider(case, fake_provider):
    fake_provider.reply(PROVIDER_MODEL, case.answer, finish_reason="length" if case.truncated else "stop")

    result = pass_compute(existing=case.existing, turns=turns_of(case), model=f"openai/{PROVIDER_MODEL}",
                          today=TODAY)

    (request,) = fake_provider.requests(PROVIDER_MODEL)
    assert request["temperature"] == 0
    assert_pass_outcome(case, result)


def test_the_corpus_covers_every_shape_with_realistic_cases():
    shapes = Counter(case.shape for case in CASES)
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)
    assert SHAPES <= set(shapes), SHAPES - set(shapes)
    assert sum(1 for case in CASES if case.provider) >= 15
    for case in CASES:  # every expected list is itself free of junk
        assert not [line for line in case.saved if junk_reasons(line)], case.name


fact_piece = st.builds(str.format, st.sampled_from(CARRIERS), st.sampled_from(PIECE_FACTS))
piece = st.one_of(st.sampled_from(AROUND), fact_piece)


@given(st.lists(piece, min_size=1, max_size=10))
def test_an_answer_made_of_real_pieces_yields_only_its_facts(pieces):
    try:
        answer = parse_answer("\n".join(pieces))
    except AnswerError:
        return
    assert set(answer.edits.values()) | set(answer.adds) | set(answer.retyped or []) <= set(PIECE_FACTS)
