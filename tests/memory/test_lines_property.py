"""Properties of the line normaliser and of the answer parser, for any text at all.

The normaliser decides what a saved line looks like and when two lines are the same
fact (memory.lines); the parser turns any model answer into changes, clean lines only,
or refuses it (memory.parse). Example-based tests of both are in test_parse.py and test_merge.py.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from memory.lines import line_key, normalise_line
from memory.parse import MAX_LINE_CHARS, Answer, AnswerError, clean_line, parse_answer

MARKS = ["- ", "* ", "• ", "1. ", "2) ", "(3) ", "[ ] ", "[x] ", "— ", "  -  "]
any_text = st.text(max_size=120)
# Words people write facts in: Latin with diacritics, CJK, Hangul, digits, spaces.
FACT_LETTERS = "abcxyzABCXYZ ăâđêôơưĂÂĐÊÔƠƯàáạảãéèỳ名字我猫김민수 0123456789,'"
fact_text = st.text(alphabet=st.sampled_from(list(FACT_LETTERS)), max_size=60)
line_text = st.text(
    alphabet=st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters="`\x85"),
    max_size=200,
)


def compact(text: str) -> str:
    return "".join(text.split())


@given(any_text)
def test_normalising_twice_changes_nothing(line):
    once = normalise_line(line)
    assert normalise_line(once) == once


@given(any_text)
def test_a_normalised_line_has_single_spaces_and_no_edges(line):
    result = normalise_line(line)
    assert result == result.strip()
    assert "  " not in result and "\n" not in result and "\t" not in result


@given(any_text)
def test_normalising_keeps_the_wording_only_dropping_leading_marks_and_spacing(line):
    # The words are the user's: what remains is the line's own text, minus the list
    # marks in front and the spacing between.
    assert compact(unicodedata.normalize("NFC", line)).endswith(compact(normalise_line(line)))


@given(any_text, st.sampled_from(MARKS))
def test_a_bullet_or_number_in_front_is_the_same_fact(line, mark):
    assert line_key(mark + line) == line_key(line)


@given(any_text)
def test_a_line_and_its_normal_form_are_the_same_fact(line):
    assert line_key(normalise_line(line)) == line_key(line)


@given(any_text)
def test_composed_and_decomposed_accents_are_the_same_fact(line):
    assert line_key(unicodedata.normalize("NFD", line)) == line_key(unicodedata.normalize("NFC", line))


@given(fact_text)
def test_case_and_spacing_do_not_make_a_new_fact(line):
    assert line_key(f"  {line.upper()}  ") == line_key(line.lower().replace(" ", "   "))


def answer_lines(answer: Answer) -> list[str]:
    """Every line an answer would have saved: its edits, additions and list re-typed."""
    return [*answer.edits.values(), *answer.adds, *(answer.retyped or [])]


@given(st.text(max_size=2000))
def test_whatever_the_model_answers_the_lines_are_clean_or_the_answer_is_refused(text):
    try:
        answer = parse_answer(text)
    except AnswerError:
        return
    for group in (answer.adds, answer.retyped or []):
        keys = [line_key(line) for line in group]
        assert len(keys) == len(set(keys))
    for line in answer_lines(answer):
        assert line and line == clean_line(line) == normalise_line(line)
        assert len(line) <= MAX_LINE_CHARS
        assert not any(unicodedata.category(char) in ("Cc", "Cs") for char in line)
    if answer.no_change:
        assert not (answer_lines(answer) or answer.removals)


@given(st.text(max_size=2000))
def test_only_an_explicit_tag_removes_a_line(text):
    # Omission never deletes: without a removal tag (or a JSON removal) nothing goes.
    try:
        answer = parse_answer(text)
    except AnswerError:
        return
    if not re.search(r"\[\s*[-−–—]\s*\d|remov|delet|\"id\"|'id'|\"op\"|\"type\"", text, re.IGNORECASE):
        assert answer.removals == {}


@given(st.lists(line_text, min_size=1, max_size=30))
def test_a_bulleted_list_reads_back_as_its_lines_or_leaves_some_out(lines):
    # Any text at all: what is read back is the lines as saved, in order, and nothing else
    # (headers, notes and placeholders among them are left out).
    cleaned = [clean_line(line) for line in lines]
    try:
        answer = parse_answer("\n".join(f"- {line}" for line in lines))
    except AnswerError:
        return
    remaining = iter(cleaned)
    assert all(any(line == candidate for candidate in remaining) for line in answer.retyped or [])


fact_line = st.tuples(st.sampled_from(list("abcxyzăâđêôơư名字我猫김민수")), fact_text).map("".join)


@given(st.lists(fact_line, min_size=1, max_size=30))
def test_a_bulleted_list_of_facts_reads_back_as_its_lines(lines):
    expected: list[str] = []
    seen: set[str] = set()
    for line in lines:
        cleaned = clean_line(line)
        if line_key(cleaned) not in seen:
            seen.add(line_key(cleaned))
            expected.append(cleaned)
    answer = "\n".join(f"- {line}" for line in lines)
    assert parse_answer(answer).retyped == expected
