"""Reading the memory model's answer (memory.parse): the changes it names by id, read
leniently and saved strictly. A saved line the answer does not mention is kept, so no
shape of answer can delete anything by leaving it out; an answer with nothing usable is
a no-change or an AnswerError, never an empty list. The whole pass over realistic
answers is in test_answer_corpus.py."""

import pytest

from memory.parse import MAX_LINE_CHARS, Answer, AnswerError, clean_line, parse_answer


def changes(answer: Answer) -> tuple:
    return answer.edits, answer.adds, answer.removals


def failure(text, **options) -> str:
    with pytest.raises(AnswerError) as error:
        parse_answer(text, **options)
    return error.value.kind


# ---------------------------------------------------------------- the id format

def test_it_reads_edits_additions_and_removals_by_id():
    answer = parse_answer("[2] Lives in York\n[+] Works at Aviva\n[-3] forgotten")
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {3: "forgotten"})
    assert not answer.no_change and answer.retyped is None


@pytest.mark.parametrize("answer", [
    "- [2] Lives in York\n- [+] Works at Aviva",
    "1. [2] Lives in York\n2. [+] Works at Aviva",
    "* [2] Lives in York\n• [+] Works at Aviva",
    "**[2]** Lives in York\n**[+]** Works at Aviva",
    "**[2] Lives in York**\n**[+] Works at Aviva**",
    '"[2] Lives in York"\n"[+] Works at Aviva"',
    '[2] "Lives in York"\n[+] “Works at Aviva”',
    "> [2] Lives in York\n> [+] Works at Aviva",
    "`[2] Lives in York`\n*[+]* Works at Aviva",
    "[ 2 ] Lives in York\n[ + ] Works at Aviva",
    "[2]: Lives in York\n[new] Works at Aviva",
    "```\n[2] Lives in York\n[+] Works at Aviva\n```",
    "```text\n[2] Lives in York\n[+] Works at Aviva\n```",
    "~~~\n[2] Lives in York\n[+] Works at Aviva\n~~~",
    "| Change | Text |\n|---|---|\n| [2] | Lives in York |\n| [+] | Works at Aviva |",
    "Here are the changes:\n\n[2] Lives in York\n[+] Works at Aviva\n\nLet me know if anything else changed!",
    "<think>York replaces Leeds; [-1] rule?</think>\n[2] Lives in York\n[+] Works at Aviva",
    "The user moved.\n</think>\n[2] Lives in York\n[+] Works at Aviva",
    "[2] Lives in Leeds → Lives in York\n[+] Works at Aviva",
    "[2] ~~Lives in Leeds~~ Lives in York\n[+] Works at Aviva",
    "[2] Lives in York — the user moved last month\n[+] Works at Aviva (per user)",
    "[2] Lives in York (updated)\n[+] Works at Aviva (new)\n[1] Name: Sam (unchanged)",
])
def test_tags_are_read_behind_marks_wrapping_and_notes(answer):
    parsed = parse_answer(answer)
    assert parsed.edits.get(2) == "Lives in York" and parsed.adds == ["Works at Aviva"]
    assert parsed.removals == {}


@pytest.mark.parametrize("line,reason", [
    ("[-3] forgotten", "forgotten"), ("[-3] Superseded", "superseded"), ("[−3] rule", "rule"),
    ("[- 3]: merged", "merged"), ("[-3] reason: forgotten", "forgotten"),
    ("[-3] Has a cat named Tom (superseded)", "superseded"), ("[-3] (rule)", "rule"),
    ("[-3] breaks the rules", "rule"), ("[-3] outdated", "outdated"), ("[-3]", ""),
])
def test_a_removal_keeps_the_reason_it_names(line, reason):
    # An unknown or missing reason is passed on as it is: memory.apply refuses it.
    assert parse_answer(line).removals == {3: reason}


def test_an_edit_outranks_a_removal_of_the_same_line_whatever_the_order():
    for answer in ("[2] Lives in York\n[-2] superseded", "[-2] superseded\n[2] Lives in York"):
        assert changes(parse_answer(answer)) == ({2: "Lives in York"}, [], {})


def test_a_second_edit_of_a_line_is_read_as_a_new_line_not_a_replacement():
    answer = parse_answer("[2] Lives in York\n[2] Works at Aviva\n[2] Lives in York")
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {})


def test_a_repeated_addition_is_read_once():
    assert parse_answer("[+] Works at Aviva\n[+] works at  Aviva").adds == ["Works at Aviva"]


@pytest.mark.parametrize("text", ["None", "(unchanged)", "unchanged", "N/A", "[deleted]", "-", "",
                                  "~~Lives in Leeds~~", "(no change)", "keep", "Same"])
def test_an_edit_to_placeholder_text_keeps_the_line(text):
    answer = parse_answer(f"[3] {text}\n[+] Works at Aviva")
    assert changes(answer) == ({}, ["Works at Aviva"], {})


def test_prose_among_the_tags_is_ignored_not_saved():
    answer = parse_answer("The user moved, so I'll update line 2.\n[2] Lives in York\n"
                          "They also have a new job.\n[+] Works at Aviva\nEverything else stays the same.")
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {})
    assert answer.ignored == 3


@pytest.mark.parametrize("notes", [
    "Changes made:\n- [2] updated because the user moved to York\n- [+] added the new job",
    "Explanation:\n[2] The user said they moved.\n[+] New employer.",
    "**Notes**\n[2] stays accurate",
    "## Reasoning\n- [3] is still true",
    "**Giải thích:** [2] người dùng đã chuyển nhà.",
])
def test_a_notes_section_after_the_changes_is_not_read_as_changes(notes):
    answer = parse_answer(f"[2] Lives in York\n[+] Works at Aviva\n\n{notes}")
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {})


def test_headers_that_group_the_changes_are_read_through():
    answer = parse_answer("### Edits\n[2] Lives in York\n### Additions\n[+] Works at Aviva\n"
                          "Removed:\n[-3] forgotten")
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {3: "forgotten"})


def test_reasoning_before_an_answer_header_is_left_out():
    answer = parse_answer("Reasoning:\n[2] Leeds is outdated\n\nAnswer:\n[2] Lives in York")
    assert changes(answer) == ({2: "Lives in York"}, [], {})


def test_a_line_over_the_limit_is_left_out_and_the_rest_read():
    answer = parse_answer(f"[+] {'x' * (MAX_LINE_CHARS + 1)}\n[2] Lives in York")
    assert changes(answer) == ({2: "Lives in York"}, [], {})


# ---------------------------------------------------------------- no change, never "empty"

@pytest.mark.parametrize("answer", [
    "NO CHANGE", " no change\n", "NO CHANGE.", "**NO CHANGE**", "```\nNO CHANGE\n```", "No changes.",
    "NO CHANGE — nothing durable in this conversation.",
    "NO CHANGE\n\nThe user only talked about the weather.",
    "The user mentions rain; that is temporary.\n\nNO CHANGE",
    "変更なし", "변경 사항 없음", "Không có thay đổi.", "没有变化", "Tiada perubahan",
])
def test_no_change_in_its_forms(answer):
    assert parse_answer(answer) == Answer(no_change=True, ignored=parse_answer(answer).ignored)


@pytest.mark.parametrize("answer", ["EMPTY", " EMPTY\n", "empty", "- EMPTY", "**EMPTY**", "EMPTY.",
                                    "```\nEMPTY\n```", "[]", '{"facts": []}', '{"memory": []}',
                                    "Here is the updated list:\n\n- EMPTY"])
def test_the_old_word_empty_and_an_empty_list_mean_no_change_never_a_wipe(answer):
    parsed = parse_answer(answer)
    assert parsed.no_change and changes(parsed) == ({}, [], {}) and parsed.retyped is None


@pytest.mark.parametrize("answer", [
    "- None", "N/A", "None.", "(No other new durable facts in this conversation.)", "Nothing new to add.",
    "No new facts.", "- \n- \n-", "Không có gì mới.", "无", "なし", "없음", "Tiada",
    "Sure! Based on the conversation, nothing needs to change.", "N/A - no new info", "None needed.",
    "Everything else stays the same.", "以上です。", "이상입니다.",
])
def test_a_placeholder_answer_is_no_change(answer):
    assert parse_answer(answer).no_change


# ---------------------------------------------------------------- faults

@pytest.mark.parametrize("answer", [None, "", "   ", "\n\n", "<think>only thinking</think>",
                                    "<think>The user moved to York, so line 2"])
def test_an_empty_reply_is_a_fault_not_an_empty_list(answer):
    assert failure(answer) == "empty_answer"


@pytest.mark.parametrize("answer", [
    "I'm sorry, but I can't help with that.",
    "I'm sorry, but I can't store personal information.",
    "- I'm sorry, but I can't store personal information.",
    "As an AI, I don't store personal data about users.",
    "Xin lỗi, tôi không thể lưu thông tin cá nhân.",
    "抱歉，我无法存储个人信息。",
    "申し訳ありませんが、個人情報を保存することはできません。",
    "죄송하지만 개인 정보를 저장할 수 없습니다.",
    "Maaf, saya tidak dapat menyimpan maklumat peribadi.",
    "Lo siento, no puedo almacenar información personal.",
])
def test_a_refusal_is_recognised_in_several_languages(answer):
    assert failure(answer) == "refused"


def test_a_fact_that_says_cannot_is_not_a_refusal():
    answer = parse_answer("- Can't eat peanuts\n- 无法吃辣\n- Không thể ăn cay\n- Tidak dapat makan pedas")
    assert answer.retyped == ["Can't eat peanuts", "无法吃辣", "Không thể ăn cay", "Tidak dapat makan pedas"]


def test_a_refusal_among_the_changes_leaves_the_changes():
    answer = parse_answer("I can't store health details, but here is the rest:\n[+] Works at Aviva")
    assert changes(answer) == ({}, ["Works at Aviva"], {})


@pytest.mark.parametrize("answer", [
    "Sure! The user's name is Sam.",
    '{"name": "Sam"}',
    '[["nested"]]',
    "The user just chatted about the weather.",
    "I think the user might live in York?",
])
def test_an_answer_with_no_change_and_no_list_is_unparseable(answer):
    assert failure(answer) == "unparseable"


# ---------------------------------------------------------------- a cut answer

def test_a_cut_answer_loses_only_its_last_line():
    answer = parse_answer("[2] Lives in York\n[+] Works at Av", truncated=True)
    assert changes(answer) == ({2: "Lives in York"}, [], {})


def test_a_cut_after_a_line_break_keeps_every_line():
    answer = parse_answer("[2] Lives in York\n[+] Works at Aviva\n", truncated=True)
    assert changes(answer) == ({2: "Lives in York"}, ["Works at Aviva"], {})


def test_a_cut_inside_an_open_fence_loses_only_its_last_line():
    answer = parse_answer("```\n[2] Lives in York\n[+] Works at Av", truncated=True)
    assert changes(answer) == ({2: "Lives in York"}, [], {})


def test_a_cut_one_line_answer_is_asked_again():
    assert failure("[+] Works at Av", truncated=True) == "empty_answer"


@pytest.mark.parametrize("truncated", [True, False])
def test_cut_json_keeps_the_values_that_were_complete(truncated):
    answer = parse_answer('{\n  "memory": [\n    "Name: Sam",\n    "Lives in York",\n    "Works at Av',
                          truncated=truncated)
    assert answer.retyped == ["Name: Sam", "Lives in York"]


# ---------------------------------------------------------------- a whole list re-typed (old format)

def test_it_reads_dash_bullets_as_a_list_re_typed():
    answer = parse_answer("- Name is Sam\n- Lives in Leeds")
    assert answer.retyped == ["Name is Sam", "Lives in Leeds"]
    assert changes(answer) == ({}, [], {}) and not answer.no_change


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
        "Updated memory:\n- Name is Sam\n- Lives in Leeds",
        '["Name is Sam", "Lives in Leeds"]',
        '```json\n["Name is Sam", "Lives in Leeds"]\n```',
        '{"memory": ["Name is Sam", "Lives in Leeds"]}',
        '{"updated_memory": ["Name is Sam", "Lives in Leeds"]}',
        '[{"fact": "Name is Sam"}, {"fact": "Lives in Leeds", "category": "home"}]',
        '["Name is Sam", "Lives in Leeds",]',
        "['Name is Sam', 'Lives in Leeds']",
        "Here you go:\n[\n  \"Name is Sam\",\n  \"Lives in Leeds\"\n]",
        "<think>the user said their name</think>\n- Name is Sam\n- Lives in Leeds",
        "```\nName is Sam\nLives in Leeds\n```",
        "Name is Sam\nLives in Leeds",
        "| Fact |\n|---|\n| Name is Sam |\n| Lives in Leeds |",
        "| Fact | Status |\n|---|---|\n| Name is Sam | kept |\n| Lives in Leeds | new |\n"
        "| Lives in York | removed |",
        "About the user:\n- Name is Sam\n  - Lives in Leeds",
        "**Personal**\n- Name is Sam\n\n**Home:**\n- Lives in Leeds",
        "- Name is Sam\n- Lives in Leeds\n\nChanges made:\n- Added the city\n- Removed: Lives in York",
        "- Name is Sam\n- Lives in Leeds\n\nRemoved:\n- Lives in York",
        "- Name is Sam\n- Lives in Leeds\n- None\n- (no other facts)\n"
        "- I'm sorry, I can't store health details",
        "- Name is Sam\n- Lives in Leeds\n- Everything else stays the same.\n- Reason: the user moved",
    ],
)
def test_it_reads_a_list_re_typed_in_the_shapes_models_answer_in(answer):
    assert parse_answer(answer).retyped == ["Name is Sam", "Lives in Leeds"]


def test_a_table_of_fields_and_values_reads_as_field_value_lines():
    answer = parse_answer("| Field | Value |\n|---|---|\n| Name | Sam |\n| City | Leeds |")
    assert answer.retyped == ["Name: Sam", "City: Leeds"]


@pytest.mark.parametrize("answer", ["Sure! Here is what I found.\nThe user is Sam.\nLet me know!",
                                    "Name is Sam\nLives in Leeds\nNone needed.\nKept everything else as is.",
                                    "Nothing new to add.\nThe weather chat was small talk."])
def test_plain_lines_with_prose_among_them_are_not_read_as_facts(answer):
    # Without marks, only an answer whose every line reads like a fact is a list: prose
    # that no pattern knows must never be saved because the lines around it were recognised.
    assert failure(answer) == "unparseable"


def test_a_line_wrapped_onto_an_indented_next_line_is_one_fact():
    answer = "- Works at FPT Software in Hanoi,\n  as a data engineer\n- Has a cat"
    assert parse_answer(answer).retyped == ["Works at FPT Software in Hanoi, as a data engineer", "Has a cat"]


def test_exact_duplicates_are_dropped_and_the_first_kept():
    answer = "- Name is Sam\n- name is  sam\n- Lives in Leeds\n-   Name is Sam"
    assert parse_answer(answer).retyped == ["Name is Sam", "Lives in Leeds"]


@pytest.mark.parametrize("answer", ['["Name is Sam", 42]', '["Name is Sam", null]',
                                    f"- {'x' * (MAX_LINE_CHARS + 1)}\n- Name is Sam"])
def test_a_line_that_breaks_the_schema_is_left_out_and_the_rest_read(answer):
    assert parse_answer(answer).retyped == ["Name is Sam"]


def test_lines_keep_their_language_and_script():
    answer = "- Tên là Nguyễn Thị Mai\n- 住在成都\n- 서울에 살아요"
    assert parse_answer(answer).retyped == ["Tên là Nguyễn Thị Mai", "住在成都", "서울에 살아요"]


def test_control_characters_that_the_database_cannot_store_are_removed():
    answer = parse_answer('["Name\\u0000 is Sam\\ud800", "Likes\\ttea"]')
    assert answer.retyped == ["Name is Sam", "Likes tea"]


def test_markdown_emphasis_is_not_saved_as_part_of_a_fact():
    assert parse_answer("- **Name:** Sam\n- Writes __init__.py files").retyped == [
        "Name: Sam", "Writes __init__.py files"]


# ---------------------------------------------------------------- JSON in the id format

@pytest.mark.parametrize("answer", [
    '{"edit": {"2": "Lives in York"}, "add": ["Works at Aviva"], "remove": {"3": "forgotten"}}',
    '{"edits": [{"id": 2, "text": "Lives in York"}], "adds": ["Works at Aviva"], "removals": [{"id": 3, '
    '"reason": "forgotten"}]}',
    '[{"action": "edit", "id": 2, "text": "Lives in York"}, {"action": "add", "text": "Works at Aviva"}, '
    '{"action": "remove", "id": 3, "reason": "forgotten"}]',
    '["[2] Lives in York", "[+] Works at Aviva", "[-3] forgotten"]',
    '{"changes": ["[2] Lives in York", "[+] Works at Aviva", "[-3] forgotten"]}',
])
def test_changes_given_in_json_are_read_as_changes(answer):
    assert changes(parse_answer(answer)) == ({2: "Lives in York"}, ["Works at Aviva"], {3: "forgotten"})


@pytest.mark.parametrize("answer", ['{"no_change": true}', '{"result": "NO CHANGE"}',
                                    '{"add": [], "edit": {}, "remove": []}', '{"changes": []}'])
def test_json_saying_nothing_changes_is_no_change(answer):
    assert parse_answer(answer).no_change


# ---------------------------------------------------------------- one line

@pytest.mark.parametrize("raw,saved", [
    ("- Name: Sam", "Name: Sam"),
    ("  1.  Lives   in\tLeeds ", "Lives in Leeds"),
    ('"Lives in Leeds"', "Lives in Leeds"),
    ("“Lives in Leeds”", "Lives in Leeds"),
    ("- **Name:** Sam", "Name: Sam"),
    ("**Lives in Leeds**", "Lives in Leeds"),
    ("`Lives in Leeds`", "Lives in Leeds"),
    ("> Lives in Leeds", "Lives in Leeds"),
    ('- "Lives in Leeds" (unchanged)', "Lives in Leeds"),
    ("Lives in York (was: Lives in Leeds)", "Lives in York"),
    ("Lives in York (previously Leeds)", "Lives in York"),
    ("~~Lives in Leeds~~ Lives in York", "Lives in York"),
    ("Has a daughter, Ana (7)", "Has a daughter, Ana (7)"),
    ("Writes __init__.py files", "Writes __init__.py files"),
    ("Name\x00 is Sam\ud800", "Name is Sam"),
    ("Tên là Mai\nSống ở Huế", "Tên là Mai Sống ở Huế"),
    ("Commute: Leeds → York by train", "Commute: Leeds → York by train"),
])
def test_clean_line_is_the_line_as_saved(raw, saved):
    assert clean_line(raw) == saved
    assert clean_line(saved) == saved
