"""Corrections (docs/DESIGN.md §2.2 and seed 004): a clear correction replaces the conflicting
line, keeps the scope the user gave it, and touches no unrelated line."""

import pytest

from tests.offline.passes import memory_pass

SIX = ["en", "vi", "zh-hans", "ja", "ko", "ms"]


def test_actually_my_name_is_replaces_the_name_line():
    assert memory_pass("Actually my name is Hannah.", existing=["Name: Anna", "Lives in Hanoi"]) == [
        "Name: Hannah", "Lives in Hanoi"]


def test_a_name_correction_that_names_the_old_value_replaces_it():
    assert memory_pass("Sorry, my name is Hannah, not Anna.", existing=["Name: Anna", "Lives in Hanoi"]) == [
        "Name: Hannah", "Lives in Hanoi"]


@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Mira has blue eyes"], "Not blue — green.", ["Mira has green eyes"]),
    (["Mắt Mira màu xanh dương"], "Không phải xanh dương mà là xanh lá.", ["Mắt Mira màu xanh lá"]),
    (["米拉的眼睛是蓝色的"], "不是蓝色，是绿色。", ["米拉的眼睛是绿色的"]),
    (["ミラの目は青"], "青じゃなくて緑です。", ["ミラの目は緑"]),
    (["미라의 눈은 파란색"], "파란색이 아니라 초록색이에요.", ["미라의 눈은 초록색"]),
    (["Mira bermata biru"], "bukan biru—hijau", ["Mira bermata hijau"]),
], ids=SIX)
def test_not_blue_green_replaces_the_old_value(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved


def test_the_seed_correction_in_malay_replaces_the_old_line():
    assert memory_pass("Mata Mira berwarna hijau, bukan biru.", existing=["Mira bermata biru"]) == [
        "Mira bermata hijau"]


def test_a_correction_touches_no_unrelated_line():
    existing = ["Mira has blue eyes", "Mira is 19", "Prefers short dialogue for Mira"]
    assert memory_pass("Mira's eyes are green, not blue.", existing=existing) == [
        "Mira has green eyes", "Mira is 19", "Prefers short dialogue for Mira"]


def test_a_correction_goes_to_the_line_about_the_subject_named():
    existing = ["Mira has blue eyes", "Tom has blue eyes"]
    assert memory_pass("Mira's eyes: not blue — green.", existing=existing) == [
        "Mira has green eyes", "Tom has blue eyes"]


def test_an_ambiguous_correction_changes_nothing():
    existing = ["Mira has blue eyes", "Tom has blue eyes"]
    assert memory_pass("Not blue — green.", existing=existing) == existing


def test_a_correction_of_something_said_earlier_in_the_same_conversation():
    saved = memory_pass("My favourite colour is blue.", "Sorry, not blue, green.")
    assert saved == ["Favourite colour is green"]


@pytest.mark.parametrize(("existing", "says"), [
    (["Mira has blue eyes"], "In this alternate-universe story, Mira's eyes are green."),
    (["Mắt Mira màu xanh dương"], "Trong câu chuyện vũ trụ song song này, mắt Mira màu xanh lá."),
    (["米拉的眼睛是蓝色的"], "在这个平行宇宙的故事里，米拉的眼睛是绿色的。"),
    (["ミラの目は青"], "このパラレルワールドでは、ミラの目は緑です。"),
    (["미라의 눈은 파란색"], "이 평행 세계 이야기에서는 미라의 눈이 초록색이에요."),
    (["Mira bermata biru"], "Untuk cerita alam semesta alternatif ini, Mira bermata hijau."),
], ids=SIX)
def test_a_story_scoped_statement_is_kept_beside_the_default_never_over_it(existing, says):
    assert memory_pass(says, existing=existing) == existing + [says.rstrip("。.")]


@pytest.mark.parametrize(("existing", "says"), [
    (["Mira has blue eyes"], "In the winter dance scene, Mira wears a green robe."),
    (["Mira bermata biru"], "Dalam adegan pesta tari musim sejuk, Mira memakai jubah hijau."),
    (["Mira has blue eyes"], "In this scene Mira's eyes are green."),
])
def test_a_scene_detail_never_becomes_a_permanent_trait(existing, says):
    assert memory_pass(says, existing=existing) == existing


def test_a_story_detail_about_nothing_remembered_is_not_kept():
    assert memory_pass("In this story, the dragon is red.", existing=["Name: Anna"]) == ["Name: Anna"]


@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Mira (watak fiksyen saya) bermata biru", "Mira berumur 24 tahun"],
     "Sebenarnya, jadikan hijau warna mata Mira mulai sekarang, dalam semua cerita.",
     ["Mira (watak fiksyen saya) bermata hijau", "Mira berumur 24 tahun"]),
    (["Mira has blue eyes", "Mira is 24"], "Actually, make Mira's eyes green from now on.",
     ["Mira has green eyes", "Mira is 24"]),
])
def test_from_now_on_updates_the_default_colour(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved


def test_a_colour_in_passing_changes_no_saved_line():
    saved = memory_pass("I love green tea, actually.", existing=["Mira has blue eyes"])
    assert saved == ["Mira has blue eyes", "Loves green tea"]


def test_a_home_left_behind_is_saved_as_it_was_said_and_a_move_replaces_it():
    # "I used to live in Boston" is where they lived; "I moved to Denver" is the newer home.
    boston = memory_pass("I used to live in Boston. Remember that.")
    assert boston == ["Used to live in Boston"]
    assert memory_pass("I moved to Denver, remember that", existing=boston + ["Likes jazz"]) == [
        "Lives in Denver", "Likes jazz"]
