"""A message that asks Whizi to remember or forget something runs a pass right away,
in all six languages; a message that only mentions remembering does not."""

import pytest

from memory.grammar import (
    MemoryRequest,
    is_forget_request,
    is_memory_request,
    memory_request_in,
    memory_request_kind,
)

REMEMBER = {
    "en": [
        "remember that",
        "Remember that.",
        "Please remember my name is Sam.",
        "My name is Sam, remember that!",
        "remember: I'm allergic to peanuts",
        "Can you remember that I live in Leeds?",
        "Could you please remember I prefer metric units",
        "I want you to remember that my sister is Ana.",
        "Don't forget that I'm vegetarian.",
        "dont forget my birthday is 3 May",
        "Note that I work night shifts.",
        "Write that down, please.",
        "Save this in your memory: I teach piano.",
        "Keep this in memory — I use a wheelchair.",
        "OK, keep in mind that I'm left-handed.",
        "Also, please remember I moved to Lisbon.",
        "Never forget: my cat is called Miso.",
        "Remember, I'm a night owl.",
    ],
    "vi": [
        "nhớ điều đó nhé",
        "Tên tôi là Mai, nhớ nhé!",
        "Hãy nhớ rằng tôi ăn chay.",
        "Bạn nhớ giúp tôi là tôi dị ứng tôm nhé.",
        "Ghi nhớ: tôi sống ở Đà Nẵng.",
        "Ghi nhớ điều này giúp mình.",
        "Đừng quên sinh nhật tôi là 14/3.",
        "Làm ơn lưu điều này vào bộ nhớ.",
        "Giữ thông tin này trong bộ nhớ nhé.",
        "Nhớ là tôi làm ca đêm.",
    ],
    "zh-hans": [
        "记住这个",
        "我叫小明，记住这个。",
        "请记住我对花生过敏。",
        "帮我记下来：我住在成都。",
        "别忘了我是素食者。",
        "不要忘记我的生日是三月三日。",
        "把这个保存到记忆里。",
        "请把它留在记忆里。",
        "我希望你记住我喜欢猫。",
    ],
    "ja": [
        "それを覚えて",
        "私の名前は健太です。それを覚えてください。",
        "覚えておいてね、私はベジタリアンです。",
        "これを記憶して。",
        "記憶しておいてください。",
        "忘れないでね、猫アレルギーなの。",
        "この情報を保存して。",
        "メモリに保存しておいて。",
        "覚えといて！",
    ],
    "ko": [
        "그거 기억해",
        "제 이름은 민준이에요. 그거 기억해 줘.",
        "기억해 주세요, 저는 채식주의자예요.",
        "이거 외워둬.",
        "잊지 마, 내 생일은 5월 3일이야.",
        "잊지 말아 주세요.",
        "이 내용 저장해 줘.",
        "메모리에 저장해 주세요.",
        "간직해 줘.",
        "내가 말한 거 기억해 줘.",
    ],
    "ms": [
        "ingat itu",
        "Nama saya Aisyah, ingat itu ya.",
        "Tolong ingat bahawa saya alah kepada kacang.",
        "Ingatlah, saya tinggal di Johor Bahru.",
        "Jangan lupa saya vegetarian.",
        "Jangan lupakan nama saya.",
        "Simpan ini dalam ingatan awak.",
        "Sila simpan maklumat ini dalam memori.",
    ],
}

FORGET = {
    "en": [
        "Forget that I said I live in Paris.",
        "Please forget my old phone number.",
        "forget everything about my job",
        "Delete that from your memory.",
        "Remove my address from memory please",
        "Don't remember that, it was a joke.",
    ],
    "vi": [
        "Quên điều đó đi.",
        "Hãy quên chuyện tôi sống ở Huế.",
        "Xóa tên tôi khỏi bộ nhớ.",
        "Đừng nhớ chuyện đó nữa.",
    ],
    "zh-hans": [
        "忘掉这个。",
        "请忘记我刚才说的话。",
        "把我的地址忘了吧。",
        "从记忆中删除这条。",
        "不要记住这个。",
    ],
    "ja": [
        "それは忘れてください。",
        "さっきのことは忘れて。",
        "記憶から消して。",
    ],
    "ko": [
        "그거 잊어 줘.",
        "그 얘기는 잊어버려.",
        "기억에서 지워 줘.",
        "그건 기억하지 마.",
    ],
    "ms": [
        "Lupakan itu.",
        "Tolong lupakan alamat lama saya.",
        "Padam nama saya dari ingatan.",
    ],
}

MENTIONS = {
    "en": [
        "I can't remember where I parked.",
        "I don't remember his name.",
        "Do you remember my name?",
        "Remember when we talked about Rome?",
        "I forgot my keys again.",
        "Forget it, let's talk about something else.",
        "I always forget birthdays.",
        "I'll never forget that trip.",
        "My memory is terrible these days.",
        "remember?",
        "The song 'Remember Me' is sad.",
    ],
    "vi": [
        "Tôi không nhớ chỗ đỗ xe.",
        "tôi không nhớ",
        "Tôi nhớ mẹ quá.",
        "Bạn có nhớ tên tôi không?",
        "Tôi quên mất chìa khóa rồi.",
        "Anh nhớ em.",
    ],
    "zh-hans": [
        "我记不住",
        "我记不住车停在哪儿了。",
        "我不记得他的名字。",
        "你还记得我吗？",
        "我忘了带钥匙。",
        "我记住了你的建议。",
        "我的记忆力不好。",
    ],
    "ja": [
        "駐車した場所を覚えていない。",
        "彼の名前を覚えてない。",
        "私の名前を覚えてる？",
        "鍵を忘れてしまった。",
        "昨日のことは覚えています。",
        "宿題を忘れてた。",
    ],
    "ko": [
        "주차한 곳이 기억이 안 나.",
        "그 사람 이름이 기억 안 나요.",
        "내 이름 기억해?",
        "저는 그 날을 기억해요.",
        "열쇠를 잊어버렸어.",
        "기억나?",
    ],
    "ms": [
        "Saya tak ingat di mana saya letak kereta.",
        "Saya tidak ingat namanya.",
        "Awak ingat tak nama saya?",
        "Saya terlupa kunci.",
        "Lupakan saja, tak penting.",
        "Ingatkan saya esok pukul 8.",
    ],
}


def _cases(table):
    return [pytest.param(text, id=f"{lang}:{text}") for lang, texts in table.items() for text in texts]


@pytest.mark.parametrize("text", _cases(REMEMBER))
def test_a_remember_request_runs_a_pass_right_away(text):
    assert memory_request_kind(text) is MemoryRequest.REMEMBER
    assert is_memory_request(text)


@pytest.mark.parametrize("text", _cases(FORGET))
def test_a_forget_request_runs_a_pass_right_away(text):
    assert memory_request_kind(text) is MemoryRequest.FORGET
    assert is_memory_request(text)
    assert is_forget_request(text)


@pytest.mark.parametrize("text", _cases(MENTIONS))
def test_a_mere_mention_is_not_a_request(text):
    assert memory_request_kind(text) is None
    assert not is_memory_request(text)


def test_every_language_is_covered():
    languages = {"en", "vi", "zh-hans", "ja", "ko", "ms"}
    assert set(REMEMBER) == set(FORGET) == set(MENTIONS) == languages


@pytest.mark.parametrize("text", ["", "   ", "Hello!", "What's the weather in Hanoi?"])
def test_ordinary_messages_are_not_requests(text):
    assert not is_memory_request(text)


@pytest.mark.parametrize(("text", "kind"), [
    ("keep that in mind", MemoryRequest.REMEMBER),
    ("I'm deaf in my left ear, keep that in mind", MemoryRequest.REMEMBER),
    ("从现在开始记得回答简短一点", MemoryRequest.REMEMBER),
    ("从现在开始记得…", MemoryRequest.REMEMBER),
    ("これ覚えてて", MemoryRequest.REMEMBER),
    ("xóa cái đó đi", MemoryRequest.FORGET),
    ("don't bring up my ex again", MemoryRequest.FORGET),
    ("阿杰的事以后别提了", MemoryRequest.FORGET),
    ("我和李明分手了，别再提他了。", MemoryRequest.FORGET),
    ("不要再提起我前任了", MemoryRequest.FORGET),
    ("도윤이랑 헤어졌어. 그 사람 얘기는 기억에서 지워줘", MemoryRequest.FORGET),
])
def test_everyday_requests_run_a_pass_right_away(text, kind):
    assert memory_request_kind(text) is kind


@pytest.mark.parametrize("text", [
    "I keep forgetting to drink water.",
    "Don't bring it up in the meeting.",
    "Can't keep that in my head, too many numbers.",
    "我记得他叫小王。",
    "记得吗？",
    "これ覚えてる？",
    "tôi xóa ảnh cũ rồi",
    "Nhớ mẹ quá!",
    "Okay, um, before I— before I forget.",
    "그 사람 얘기 들었어?",
    "别再提醒我喝水了",
])
def test_these_mentions_do_not_fire(text):
    assert memory_request_kind(text) is None


@pytest.mark.parametrize(("clause", "kind", "content"), [
    ("remember that I hate the voice mode", MemoryRequest.REMEMBER, "I hate the voice mode"),
    ("please remember that", MemoryRequest.REMEMBER, ""),
    ("can you forget everything about Mark please", MemoryRequest.FORGET, "Mark"),
    ("Save this in your memory: I teach piano.", MemoryRequest.REMEMBER, "I teach piano"),
    ("nhớ giùm mình cái này nha: lúc nào cũng trả lời mình bằng tiếng Việt", MemoryRequest.REMEMBER,
     "lúc nào cũng trả lời mình bằng tiếng Việt"),
    ("Quên sinh nhật em gái tôi đi.", MemoryRequest.FORGET, "sinh nhật em gái tôi"),
    ("记一下：我每个月房贷8500", MemoryRequest.REMEMBER, "我每个月房贷8500"),
    ("把我的地址忘了吧。", MemoryRequest.FORGET, "我的地址"),
    ("妹の誕生日は3月12日だと覚えておいて。", MemoryRequest.REMEMBER, "妹の誕生日は3月12日だ"),
    ("覚えておいてほしいんだけど", MemoryRequest.REMEMBER, ""),
    ("여동생 생일을 잊어 줘.", MemoryRequest.FORGET, "여동생 생일"),
    ("이거 기억해 줘.", MemoryRequest.REMEMBER, ""),
    ("Tolong lupakan pasal Oyen ya", MemoryRequest.FORGET, "Oyen"),
    ("Tolong ingat ya", MemoryRequest.REMEMBER, ""),
], ids=lambda value: value if isinstance(value, str) else None)
def test_a_request_names_what_to_remember_or_forget(clause, kind, content):
    found = memory_request_in(clause)
    assert found is not None and (found.kind, found.content) == (kind, content)


@pytest.mark.parametrize("clause", ["Forget everything about me.", "Quên hết đi", "全部忘れて",
                                    "모두 잊어 줘"])
def test_forget_everything_is_told_apart(clause):
    found = memory_request_in(clause)
    assert found is not None and found.kind is MemoryRequest.FORGET and found.everything
