"""The offline pass reads the way people write: a fact inside a longer message, in
everyday verbs and forms, code-switched, spoken with hesitations and self-repairs; a
newer fact replaces the older, a break-up or a move retracts, a forget request names
a person; and every saved line is a clean fact in the user's language."""

import pytest

from tests.offline.passes import memory_pass

SIX = ["en", "vi", "zh-hans", "ja", "ko", "ms"]


# -- durable facts said in passing ---------------------------------------------------

def test_a_study_said_with_a_time_word_and_no_topic_marker_is_read():
    saved = memory_pass("저 요즘 카이스트 대학원에서 데이터사이언스 전공하고 있어요")
    assert saved == ["카이스트 대학원에서 데이터사이언스 전공하고 있음"]


def test_a_fact_inside_a_rant_is_read_and_the_rant_is_not():
    saved = memory_pass("Ugh, the office printer jammed AGAIN and traffic on the ring road was a nightmare. "
                        "I'm doing an MBA at Warwick on top of work so I really don't have time for this. "
                        "Anyway, how do I fix a paper jam?")
    assert saved == ["Is doing an MBA at Warwick on top of work"]


def test_a_code_switched_job_is_read():
    assert memory_pass("mình làm data analyst ở Grab") == ["Làm data analyst ở Grab"]


@pytest.mark.parametrize(("says", "saved"), [
    ("そばアレルギーがあるので、覚えておいてください。", ["そばアレルギーがある"]),
    ("Please remember I'm lactose intolerant.", ["Is lactose intolerant"]),
    ("I have asthma, please remember that.", ["Has asthma"]),
    ("I'm deaf in my left ear, keep that in mind", ["Is deaf in their left ear"]),
    ("이거 기억해 줘. 나 페니실린 알레르기 있어.", ["페니실린 알레르기 있음"]),
    ("Tolong ingat ya, saya ada diabetes jenis 2.", ["Ada diabetes jenis 2"]),
])
def test_a_health_detail_the_user_asks_to_remember_is_kept(says, saved):
    assert memory_pass(says) == saved


def test_birthdays_written_as_dates_are_kept_with_the_names_not_the_request():
    saved = memory_pass("ok so my son Cillian was born 14/02/2019 and my daughter Saoirse was born "
                        "03/11/2021… pls remember their bdays")
    assert saved == ["Son Cillian was born 14/02/2019", "Daughter Saoirse was born 03/11/2021"]


def test_a_new_detail_about_someone_a_line_names_is_folded_into_that_line():
    saved = memory_pass("my husband's name is Takuya", existing=["Married; husband works at Sony"])
    assert saved == ["Married; husband works at Sony; husband's name is Takuya"]


# -- voice -----------------------------------------------------------------------------

@pytest.mark.parametrize(("says", "saved"), [
    ("so, uh, yeah, I'm— I'm a paramedic, um… in Cardiff", ["Is a paramedic in Cardiff"]),
    ("えーと、あの、仕事は…看護師…じゃなくて、あ、薬剤師です。", ["仕事は薬剤師"]),
    ("어… 안녕하세요. 저는… 저는 박서준… 아니, 박서윤이에요.", ["이름은 박서윤"]),
    ("Erm… saya kerja… kerja sebagai jururawat kat Hospital Kuala Lumpur, em, dah lima tahun.",
     ["Bekerja sebagai jururawat kat Hospital Kuala Lumpur"]),
], ids=["en", "ja", "ko", "ms"])
def test_hesitations_and_self_repairs_are_removed_before_reading(says, saved):
    assert memory_pass(says, source="voice") == saved


@pytest.mark.parametrize("says", [
    "うちの猫の名前は…ザザッ…ミョルニルポンチョ…ガガッ…すいません、電波が。",
    "我儿子叫…呃…嗞嗞…欧巴拉拉…刚才信号断了。",
    "My wife's— my wife Shlrrmna— sorry, the car's really loud.",
    "Ketua saya, nama dia… apa tu… Puan Sotong Goreng… eh, bukan, line tak clear.",
])
def test_a_misheard_phrase_is_not_saved(says):
    assert memory_pass(says, existing=["Name: Okada"], source="voice") == ["Name: Okada"]


# -- line shape ---------------------------------------------------------------------------

def test_a_correction_with_a_particle_rewrites_only_the_value():
    assert memory_pass("Rambut Aryan hitam la, bukan perang", existing=["Aryan berambut perang"]) == [
        "Aryan berambut hitam"]


def test_a_standing_preference_is_a_fact_about_the_user_not_an_order():
    saved = memory_pass("can you keep your answers short from now on? please remember that",
                        existing=["Name: Dev"])
    assert saved == ["Name: Dev", "Prefers short answers"]


# -- the newer fact replaces the older ------------------------------------------------

@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Lives in Austin"], "we moved to Denver last month, still unpacking", ["Lives in Denver"]),
    (["Sống ở Đà Nẵng"], "Tháng trước mình dọn ra Hà Nội rồi", ["Sống ở Hà Nội"]),
    (["住在北京"], "我们家上个月搬到杭州了", ["住在杭州"]),
    (["札幌に住んでいる"], "先月、札幌から仙台に引っ越しました！", ["仙台に住んでいる"]),
    (["서울에 살고 있음"], "저 지난주에 제주도로 이사 왔어요", ["제주도에 살고 있음"]),
    (["Tinggal di Ipoh"], "Bulan lepas saya dah pindah ke Penang", ["Tinggal di Penang"]),
], ids=SIX)
def test_a_move_with_a_time_word_replaces_the_old_home(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved


def test_a_birthday_replaces_the_age_in_the_line_that_names_the_child():
    assert memory_pass("Leo turned 7 on saturday", existing=["Son Leo, 6 years old"]) == [
        "Son Leo, 7 years old"]


@pytest.mark.parametrize(("existing", "says", "saved"), [
    (["Has a girlfriend, Priya", "Lives in Bristol"], "Priya and I broke up. it was mutual",
     ["Lives in Bristol"]),
    (["Has a girlfriend, Priya", "Lives in Bristol"], "Priya and I got married last weekend!",
     ["Is married to Priya", "Lives in Bristol"]),
    (["Lives in Leeds", "Name: Anna"], "I no longer live in Leeds.", ["Name: Anna"]),
    (["Tinggal di Johor Bahru", "Bekerja di Singapura"], "saya dah tak kerja kat Singapura",
     ["Tinggal di Johor Bahru"]),
    (["横浜に住んでいる", "彼氏の名前は健太"], "健太とは別れました。", ["横浜に住んでいる"]),
])
def test_a_retraction_removes_the_line_it_ends(existing, says, saved):
    assert memory_pass(says, existing=existing) == saved


def test_a_forget_request_that_names_a_person_by_pronoun_removes_them():
    saved = memory_pass("도윤이랑 헤어졌어. 그 사람 얘기는 기억에서 지워줘",
                        existing=["남자친구 이름은 도윤", "부산에 삶"])
    assert saved == ["부산에 삶"]


# -- lines the rules exclude ------------------------------------------------------------

@pytest.mark.parametrize(("existing", "says"), [
    (["Name: Jo"], "remember that I hate the voice mode"),
    (["Vegetarian"], "I don't eat any meat or fish"),
])
def test_an_app_opinion_or_an_implied_fact_is_not_added(existing, says):
    assert memory_pass(says, existing=existing) == existing


def test_a_bare_introduction_is_a_name():
    assert memory_pass("Anna here") == ["Name: Anna"]


def test_make_her_eyes_green_recolours_the_one_line_with_a_colour():
    assert memory_pass("make her eyes green from now on", existing=["Mira has blue eyes", "Name: Anna"]) == [
        "Mira has green eyes", "Name: Anna"]
