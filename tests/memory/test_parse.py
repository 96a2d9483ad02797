"""The memory model's answer is read robustly, and never guessed at: an answer with no
usable list leaves the saved list untouched."""

import pytest

from memory.parse import MAX_LINE_CHARS, AnswerError, parse_answer


def test_it_reads_dash_bullets():
    assert parse_answer("- Name is Sam\n- Lives in Leeds") == ["Name is Sam", "Lives in Leeds"]


@pytest.mark.parametrize(
    "answer",
    [
        "* Name is Sam\n* Lives in Leeds",
        "• Name is Sam\n• Lives in Leeds",
        "1. Name is Sam\n2. Lives in Leeds",
        "1) Name is Sam\n2) Lives in Leeds",
        "- Name is Sam\n\n\n- Lives in Leeds\n",
        "  - Name is Sam\n  - Lives in Leeds  ",
        "```\n- Name is Sam\n- Lives in Leeds\n```",
        "```markdown\n- Name is Sam\n- Lives in Leeds\n```",
        "Here is the updated list:\n\n- Name is Sam\n- Lives in Leeds\n\nI removed nothing.",
        '["Name is Sam", "Lives in Leeds"]',
        '```json\n["Name is Sam", "Lives in Leeds"]\n```',
        '{"memory": ["Name is Sam", "Lives in Leeds"]}',
        "<think>the user said their name</think>\n- Name is Sam\n- Lives in Leeds",
        "```\nName is Sam\nLives in Leeds\n```",
    ],
)
def test_it_reads_the_list_in_the_shapes_models_answer_in(answer):
    assert parse_answer(answer) == ["Name is Sam", "Lives in Leeds"]


def test_a_line_wrapped_onto_an_indented_next_line_is_one_fact():
    answer = "- Works at FPT Software in Hanoi,\n  as a data engineer\n- Has a cat"
    assert parse_answer(answer) == ["Works at FPT Software in Hanoi, as a data engineer", "Has a cat"]


@pytest.mark.parametrize("answer", ["EMPTY", " EMPTY\n", "empty", "- EMPTY", "**EMPTY**", "EMPTY.",
                                    "```\nEMPTY\n```", "[]", '{"facts": []}'])
def test_the_word_empty_means_an_empty_list(answer):
    assert parse_answer(answer) == []


@pytest.mark.parametrize("answer", [None, "", "   ", "\n\n"])
def test_an_empty_reply_is_a_fault_not_an_empty_list(answer):
    with pytest.raises(AnswerError) as error:
        parse_answer(answer)
    assert error.value.kind == "empty_answer"


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, but I can't help with that.",
        "Sure! The user's name is Sam.",
        '{"name": "Sam"}',
        "- \n- \n-",
        "<think>only thinking</think>",
    ],
)
def test_an_answer_with_no_list_is_unparseable(answer):
    with pytest.raises(AnswerError) as error:
        parse_answer(answer)
    assert error.value.kind in ("unparseable", "empty_answer")


@pytest.mark.parametrize("answer", ['["Name is Sam", 42]', '[["nested"]]', '["ok", null]',
                                    f"- {'x' * (MAX_LINE_CHARS + 1)}\n- Name is Sam"])
def test_lines_that_break_the_schema_reject_the_whole_answer(answer):
    with pytest.raises(AnswerError) as error:
        parse_answer(answer)
    assert error.value.kind == "schema"


def test_exact_duplicates_are_dropped_and_the_first_kept():
    answer = "- Name is Sam\n- name is  sam\n- Lives in Leeds\n-   Name is Sam"
    assert parse_answer(answer) == ["Name is Sam", "Lives in Leeds"]


def test_lines_keep_their_language_and_script():
    answer = "- Tên là Nguyễn Thị Mai\n- 住在成都\n- 서울에 살아요"
    assert parse_answer(answer) == ["Tên là Nguyễn Thị Mai", "住在成都", "서울에 살아요"]


def test_control_characters_that_the_database_cannot_store_are_removed():
    assert parse_answer('["Name\\u0000 is Sam\\ud800", "Likes\\ttea"]') == ["Name is Sam", "Likes tea"]


def test_markdown_emphasis_is_not_saved_as_part_of_a_fact():
    assert parse_answer("- **Name:** Sam\n- Writes __init__.py files") == [
        "Name: Sam", "Writes __init__.py files"]
