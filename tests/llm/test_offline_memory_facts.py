"""The offline memory pass keeps durable facts the user shares, in six languages
(DESIGN 2.2 "Kept"), worded as the user worded them, with names and dates verbatim."""

import pytest

from tests.llm.cases import FAMILY_CASES
from tests.llm.passes import memory_pass


@pytest.mark.parametrize(("language", "family", "says", "saved"), FAMILY_CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(FAMILY_CASES)])
def test_it_keeps_each_kind_of_fact_in_each_language(language, family, says, saved):
    assert memory_pass(*says) == saved


@pytest.mark.parametrize(("language", "family", "says", "saved"), FAMILY_CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(FAMILY_CASES)])
def test_a_second_pass_over_the_same_turns_changes_nothing(language, family, says, saved):
    assert memory_pass(*says, existing=saved) == saved


def test_it_returns_the_whole_list_with_new_facts_after_the_saved_ones():
    assert memory_pass("I live in Hanoi.", existing=["Name: Anna", "Likes cats"]) == [
        "Name: Anna", "Likes cats", "Lives in Hanoi"]


def test_it_reads_several_facts_from_one_message():
    assert memory_pass("Hi, I'm Anna. I live in Hanoi and work at Google.") == [
        "Name: Anna", "Lives in Hanoi", "Works at Google"]


@pytest.mark.parametrize("says", [
    "Tôi tên là Nguyễn Thị Mai, sống ở Hà Nội.",
    "我叫王小明，住在北京。",
])
def test_it_reads_a_clause_that_continues_without_the_pronoun(says):
    assert len(memory_pass(says)) == 2


def test_a_list_that_needs_no_change_comes_back_exactly():
    existing = ["Name: Anna", "thích cà phê sữa đá", "Works at Google"]
    assert memory_pass("What's the weather like in Paris?", existing=existing) == existing


def test_it_reads_only_the_users_turns():
    assert memory_pass("Tell me about Paris.", assistant="I live in Paris and my name is Whizbot.") == []


def test_a_new_home_replaces_the_old_one_where_it_stood():
    existing = ["Name: Anna", "Lives in Hanoi", "Likes tea"]
    saved = memory_pass("I moved to Lisbon last year.", existing=existing)
    assert saved == ["Name: Anna", "Lives in Lisbon", "Likes tea"]


@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Sống ở Hà Nội"], "Tôi mới chuyển đến Đà Nẵng.", ["Sống ở Đà Nẵng"]),
    (["住在北京"], "我搬到了上海。", ["住在上海"]),
    (["東京に住んでいる"], "大阪に引っ越しました。", ["大阪に住んでいる"]),
    (["서울에 살고 있음"], "부산으로 이사했어요.", ["부산에 살고 있음"]),
    (["Tinggal di Shah Alam"], "Saya sudah pindah ke Johor Bahru.", ["Tinggal di Johor Bahru"]),
])
def test_a_move_folds_into_the_home_line_in_every_language(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved


def test_a_line_a_real_model_wrote_is_recognised_and_replaced():
    assert memory_pass("I live in Berlin now.", existing=["User lives in Hanoi"]) == ["Lives in Berlin"]


def test_a_newer_taste_replaces_the_opposite_one():
    assert memory_pass("Actually I hate cilantro.", existing=["Loves cilantro"]) == ["Hates cilantro"]


def test_a_name_from_a_greeting_needs_the_greeting():
    assert memory_pass("I'm Tired.") == []
    assert memory_pass("Hello, I'm Anna.") == ["Name: Anna"]


def test_a_saved_line_that_already_says_it_keeps_its_own_wording():
    existing = ["The user's name is Anna.", "User lives in Hanoi, Vietnam"]
    assert memory_pass("My name is Anna and I live in Hanoi.", existing=existing) == existing


def test_a_correction_close_to_the_old_value_still_replaces_it():
    assert memory_pass("Actually my name is Ann.", existing=["Name: Anna"]) == ["Name: Ann"]


def test_a_relatives_name_given_in_passing_is_kept_with_the_dates():
    saved = memory_pass("My wife Priya and I are training for the Berlin Marathon on 21 September 2025.")
    assert saved == ["Wife's name is Priya", "Is training for the Berlin Marathon on 21 September 2025"]
    saved = memory_pass("My son Jean-Luc turns 7 on 14 March, and my partner is Siobhán.")
    assert saved == ["Son Jean-Luc turns 7 on 14 March", "Partner is Siobhán"]


def test_news_about_someone_a_line_names_folds_into_that_line():
    saved = memory_pass("Zoë just turned 5 and she loves dinosaurs.", existing=["Has a daughter named Zoë"])
    assert saved == ["Has a daughter named Zoë; Zoë just turned 5 and she loves dinosaurs"]


def test_a_passing_state_of_someone_named_is_not_folded():
    assert memory_pass("Mira is at the station.", existing=["Mira has blue eyes"]) == ["Mira has blue eyes"]


def test_a_reason_after_the_fact_does_not_hide_it():
    assert memory_pass("I'm vegetarian, so please leave meat out of any recipe ideas.") == ["Is vegetarian"]
    saved = memory_pass("I teach high school chemistry in Porto.")
    assert saved == ["Teaches high school chemistry in Porto"]


@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Lives in Manchester"], "Quick update: I moved from Manchester to Bristol last month.",
     ["Lives in Bristol"]),
    (["Sống ở Hà Nội"], "Tôi mới chuyển từ Hà Nội vào Đà Nẵng sống rồi.", ["Sống ở Đà Nẵng"]),
    (["住在北京"], "我从北京搬到了上海。", ["住在上海"]),
    (["東京に住んでいる"], "東京から大阪に引っ越しました。", ["大阪に住んでいる"]),
    (["부산에 삶"], "이번 달에 부산에서 서울로 이사했어요.", ["서울에 살고 있음"]),
    (["Tinggal di Shah Alam"], "Saya pindah dari Shah Alam ke Johor Bahru.",
     ["Tinggal di Johor Bahru"]),
])
def test_a_move_from_one_place_to_another_keeps_only_the_new_home(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved
