"""Whatever the memory model answers, the saved list is within WHIZI_MEMORY_MAX_TOKENS."""

import json

import pytest
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memory.budget import trim_to_budget
from memory.compute import pass_compute
from memory.parse import AnswerError, parse_answer
from memory.sources import Turn
from memory.tokens import count_list_tokens

pytestmark = pytest.mark.slow

MAX = 2000

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=600)
bulleted = st.lists(words, max_size=250).map(lambda lines: "\n".join(f"- {line}" for line in lines))
repeated = st.tuples(st.sampled_from(["Tên tôi là Mai ", "我叫小明", "word ", "🙂", "x"]),
                     st.integers(1, 12000)).map(lambda pair: "- " + pair[0] * pair[1])
answers = st.one_of(st.text(max_size=3000), bulleted, repeated,
                    st.lists(words, max_size=100).map(json.dumps))


def test_the_cap_setting_is_the_seed_value():
    assert settings.WHIZI_MEMORY_MAX_TOKENS == MAX


@given(answer=answers)
@hypothesis_settings(max_examples=300, deadline=None)
def test_any_parsed_answer_fits_after_the_trim(answer):
    try:
        parsed = parse_answer(answer)
    except AnswerError:
        return
    lines = [*parsed.edits.values(), *parsed.adds, *(parsed.retyped or [])]
    assert count_list_tokens(trim_to_budget(lines)) <= MAX


@given(lines=st.lists(words, max_size=300), budget=st.integers(0, 3000))
@hypothesis_settings(max_examples=200, deadline=None)
def test_the_trim_holds_for_any_list_and_budget(lines, budget):
    assert count_list_tokens(trim_to_budget(lines, max_tokens=budget)) <= budget


@pytest.fixture
def scripted(settings):
    from whizi.llm.scripted import Script

    settings.WHIZI_MEMORY_MODEL = "scripted/memory-property"
    return Script("memory-property")


outcomes = st.one_of(answers.map(lambda text: {"reply": text}),
                     st.sampled_from([{"error": "timeout"}, {"error": "error"}]))


@given(rewrite=answers, compaction=outcomes, existing=st.lists(words, max_size=20))
@hypothesis_settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_whatever_the_model_answers_the_pass_result_is_within_budget(scripted, rewrite, compaction, existing):
    scripted.reset().reply(rewrite).push(compaction)
    existing = trim_to_budget([line for line in existing if line.strip()])
    result = pass_compute(existing=existing, turns=[Turn("user", "Remember that I'm Sam.")])
    assert count_list_tokens(list(result.lines)) <= MAX


facts = st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                         min_size=1, max_size=120).map(str.strip).filter(bool), max_size=80)


@given(lines=facts, budget=st.integers(0, 600))
@hypothesis_settings(max_examples=200, deadline=None)
def test_the_one_trim_keeps_in_order_every_line_that_still_fits(lines, budget):
    kept = trim_to_budget(lines, max_tokens=budget)
    assert count_list_tokens(kept) <= budget
    if kept and kept[0] not in lines:
        return  # not even one line fitted: the start of the first one is kept
    position = 0
    before: list[str] = []
    for line in lines:
        if position < len(kept) and line == kept[position]:
            before.append(line)
            position += 1
        else:  # skipped: it did not fit after the lines kept before it
            assert count_list_tokens([*before, line]) > budget
    assert position == len(kept)
