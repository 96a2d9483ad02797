"""The offline memory pass keeps durable facts the user shares, in six languages
(docs/DESIGN.md §2.2 "Kept"), worded as the user worded them, with names and dates verbatim."""

import pytest

from tests.offline.cases import FAMILY_CASES
from tests.offline.passes import memory_pass


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


def test_where_they_moved_from_is_not_part_of_the_new_home():
    saved = memory_pass("I just moved to Lisbon from Berlin.", existing=["Lives in Berlin"])
    assert saved == ["Lives in Lisbon"]


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


@pytest.mark.parametrize(("says", "saved"), [
    ("Hello, I'm Anna.", ["Name: Anna"]),
    ("I'm Sam.", ["Name: Sam"]),
    ("I'm Tired.", []),
    ("I'm American.", []),
    ("Tôi là Lan.", ["Tên là Lan"]),
    ("Saya Aisyah.", ["Nama: Aisyah"]),
    ("Saya Melayu.", []),
    ("你好，我是王小明。", ["名字是王小明"]),
    ("我是中国人。", ["是中国人"]),
    ("はじめまして、私は田中花子です。", ["名前は田中花子"]),
    ("私は元気です。", []),
    ("안녕하세요, 저는 김민준입니다.", ["이름은 김민준"]),
])
def test_i_am_plus_a_name_is_a_name_but_not_a_nationality_or_a_mood(says, saved):
    assert memory_pass(says) == saved


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


@pytest.mark.parametrize(("says", "saved"), [
    ("My birthday is 3 May. I'm 34 years old.", ["Birthday is 3 May", "Is 34 years old"]),
    ("Sinh nhật của tôi là 3/5. Năm nay tôi 25 tuổi.", ["Sinh nhật là 3/5", "25 tuổi"]),
    ("我的生日是5月3日。我今年28岁。", ["生日是5月3日", "28岁"]),
    ("誕生日は5月3日です。28歳です。", ["誕生日は5月3日", "28歳"]),
    ("제 생일은 5월 3일이에요. 28살이에요.", ["생일은 5월 3일", "28살"]),
    ("Hari jadi saya ialah 3 Mei. Saya berumur 28 tahun.", ["Hari jadi: 3 Mei", "Berumur 28 tahun"]),
], ids=["en", "vi", "zh-hans", "ja", "ko", "ms"])
def test_the_users_own_birthday_and_age_are_kept_verbatim(says, saved):
    assert memory_pass(says) == saved


@pytest.mark.parametrize(("says", "saved"), [
    ("I speak French and Spanish.", ["Speaks French and Spanish"]),
    ("I've been living in Berlin for 5 years.", ["Lives in Berlin for 5 years"]),
    ("我在上海做程序员。", ["在上海做程序员"]),
    ("大阪でエンジニアをしています。", ["大阪でエンジニアをしている"]),
    ("저는 서울에서 개발자로 일하고 있어요.", ["서울에서 개발자로 일함"]),
])
def test_more_ways_of_saying_where_and_what(says, saved):
    assert memory_pass(says) == saved


@pytest.mark.parametrize(("says", "saved"), [
    ("I live in Hanoi — any good cafés nearby?", ["Lives in Hanoi"]),
    ("My name is Anna, what's yours?", ["Name: Anna"]),
    ("我住在北京，附近有什么好吃的？", ["住在北京"]),
    ("Remember that I like tea, okay?", ["Likes tea"]),
    ("Do you think I live in the right city, or should I move?", []),
    ("If I move to Berlin, will I like it?", []),
])
def test_a_statement_before_a_question_is_read_and_the_question_is_not(says, saved):
    assert memory_pass(says) == saved


def test_saved_lines_about_one_relative_are_all_kept():
    existing = ["Sister is a nurse", "Sister is married to Tom"]
    assert memory_pass("ok", existing=existing) == existing


def test_a_newer_fact_about_a_relative_replaces_only_the_same_fact():
    saved = memory_pass("My sister is a nurse.", "My sister is married to Tom.",
                        "Actually my sister is a doctor.")
    assert saved == ["Sister is a doctor", "Sister is married to Tom"]
