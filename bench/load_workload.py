"""The load benchmark's workload: what each guest says and does, decided up front from
a seed so that a run is repeatable (bench/load.py runs it, bench/load_driver.py sends it).

Each guest talks in one of six languages: small talk and one fact per conversation
("My name is …" + "Remember that.", where it lives, a birthday, a liking), and every
--clear-every'th guest clears its memory once, after its second conversation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# ---------------------------------------------------------------- what guests say

SMALL_TALK = {
    "en": ["What should I cook tonight?", "Can you suggest a weekend plan?",
           "How do I say thank you in Japanese?", "Give me a short poem about rain."],
    "vi": ["Hôm nay nấu gì nhỉ?", "Gợi ý cho tôi kế hoạch cuối tuần nhé.",
           "Viết một bài thơ ngắn về mưa.", "Cách pha trà ngon là gì?"],
    "zh-hans": ["今晚吃什么好？", "周末有什么好玩的计划？", "写一首关于雨的短诗。", "怎么泡好一杯茶？"],
    "ja": ["今夜は何を作ろうかな？", "週末のおすすめの過ごし方は？", "雨についての短い詩を書いて。",
           "おいしいお茶の入れ方は？"],
    "ko": ["오늘 저녁 뭐 먹지?", "주말 계획 좀 추천해 줘.", "비에 관한 짧은 시를 써 줘.",
           "녹차를 맛있게 우리는 법은?"],
    "ms": ["Nak masak apa malam ini?", "Cadangkan rancangan hujung minggu.",
           "Tulis puisi pendek tentang hujan.", "Bagaimana nak bancuh teh yang sedap?"],
}

VALUES = {
    "en": {"name": ["Anna Lee", "Tom Baker", "Priya Nair", "Lucas Silva"],
           "city": ["Hanoi", "Melbourne", "Toronto", "Lisbon"],
           "like": ["hiking", "jazz", "green tea", "chess"]},
    "vi": {"name": ["Nguyễn Thị Mai", "Trần Văn Nam", "Lê Thu Hà", "Phạm Minh Tuấn"],
           "city": ["Đà Nẵng", "Hà Nội", "Huế", "Cần Thơ"],
           "like": ["cà phê sữa đá", "phở bò", "đọc sách", "bơi lội"]},
    "zh-hans": {"name": ["王小明", "李华", "张伟", "陈静"],
                "city": ["北京", "上海", "成都", "杭州"],
                "like": ["猫", "绿茶", "爬山", "京剧"]},
    "ja": {"name": ["田中花子", "佐藤健", "鈴木一郎", "高橋美咲"],
           "city": ["東京", "大阪", "京都", "札幌"],
           "like": ["猫", "緑茶", "登山", "将棋"]},
    # Korean likes end in a vowel, so the object particle is always 를.
    "ko": {"name": ["김민준", "이서연", "박지훈", "최유나"],
           "city": ["서울", "부산", "대구", "인천"],
           "like": ["고양이", "녹차", "커피", "요가"]},
    "ms": {"name": ["Siti Aminah", "Ahmad Faizal", "Nurul Huda", "Lim Wei Ling"],
           "city": ["Shah Alam", "Ipoh", "Kuching", "Johor Bahru"],
           "like": ["nasi lemak", "badminton", "teh tarik", "kopi"]},
}

# Per language and kind of fact: what the guest says (one or two messages) and the
# text that must then be in one of its saved lines (names, places and dates verbatim).
FACT_TEMPLATES = {
    "en": {"name": (["My name is {name}.", "Remember that."], "{name}"),
           "home": (["Remember that I live in {city}."], "{city}"),
           "birthday": (["Please remember that my sister's birthday is {day} March."], "{day} March"),
           "like": (["I love {like}. Remember that."], "{like}")},
    "vi": {"name": (["Tên tôi là {name}.", "Nhớ điều đó nhé."], "{name}"),
           "home": (["Nhớ là tôi sống ở {city} nhé."], "{city}"),
           "birthday": (["Nhớ là sinh nhật em gái tôi là {day}/3 nhé."], "{day}/3"),
           "like": (["Tôi rất thích {like}. Nhớ nhé."], "{like}")},
    "zh-hans": {"name": (["我叫{name}。", "记住这个。"], "{name}"),
                "home": (["记住我住在{city}。"], "{city}"),
                "birthday": (["记住我妹妹的生日是3月{day}日。"], "3月{day}日"),
                "like": (["我很喜欢{like}。记住这个。"], "{like}")},
    "ja": {"name": (["私の名前は{name}です。", "それを覚えて。"], "{name}"),
           "home": (["{city}に住んでいると覚えておいて。"], "{city}"),
           "birthday": (["妹の誕生日は3月{day}日だと覚えておいて。"], "3月{day}日"),
           "like": (["{like}が大好きです。覚えて。"], "{like}")},
    "ko": {"name": (["제 이름은 {name}입니다.", "그거 기억해."], "{name}"),
           "home": (["제가 {city}에 산다는 걸 기억해 줘."], "{city}"),
           "birthday": (["여동생 생일이 3월 {day}일이라는 걸 기억해 줘."], "3월 {day}일"),
           "like": (["{like}를 정말 좋아해요. 기억해 줘."], "{like}")},
    "ms": {"name": (["Nama saya {name}.", "Ingat itu."], "{name}"),
           "home": (["Ingat bahawa saya tinggal di {city}."], "{city}"),
           "birthday": (["Ingat bahawa hari jadi adik saya ialah {day} Mac."], "{day} Mac"),
           "like": (["Saya suka {like}. Ingat itu."], "{like}")},
}
FACT_KINDS = ("name", "home", "birthday", "like")
LANGUAGES = tuple(SMALL_TALK)
MESSAGES_PER_CONVERSATION = 4
# The guest that clears does it after this many iterations (so it has facts to lose,
# and passes of its last conversation may still be running when the clear lands).
CLEAR_AFTER_ITERATION = 2


@dataclass(frozen=True)
class Fact:
    kind: str
    needle: str
    iteration: int


@dataclass(frozen=True)
class ConversationPlan:
    messages: tuple[str, ...]
    fact: Fact


@dataclass(frozen=True)
class GuestPlan:
    """Everything one guest will say, decided up front (seeded), so a run is repeatable.

    Iteration i states the fact FACT_KINDS[i % 4] (always with the same value, so a
    later iteration never contradicts an earlier one) between small-talk messages.
    """

    index: int
    language: str
    conversations: tuple[ConversationPlan, ...]
    clears: bool

    @classmethod
    def for_guest(cls, index: int, *, iterations: int, clear_every: int, seed: int) -> GuestPlan:
        rng = random.Random(seed * 100_003 + index)
        language = LANGUAGES[index % len(LANGUAGES)]
        values = {
            "name": rng.choice(VALUES[language]["name"]),
            "city": rng.choice(VALUES[language]["city"]),
            "like": rng.choice(VALUES[language]["like"]),
            "day": str(rng.randint(1, 28)),
        }
        conversations = []
        for iteration in range(iterations):
            kind = FACT_KINDS[iteration % len(FACT_KINDS)]
            said, needle = FACT_TEMPLATES[language][kind]
            said = [text.format(**values) for text in said]
            talk = rng.sample(SMALL_TALK[language], MESSAGES_PER_CONVERSATION - len(said))
            messages = [talk[0], *said, *talk[1:]]
            conversations.append(ConversationPlan(
                messages=tuple(messages),
                fact=Fact(kind=kind, needle=needle.format(**values), iteration=iteration),
            ))
        clears = clear_every > 0 and index % clear_every == clear_every - 1
        return cls(index=index, language=language, conversations=tuple(conversations), clears=clears)

    def all_facts(self) -> list[Fact]:
        return [conversation.fact for conversation in self.conversations]


# ---------------------------------------------------------------- what guests do

# The requests a guest makes, by the name its samples are recorded under, in the
# order the report lists them.
ENDPOINTS = (
    "GET /",
    "POST /api/conversations/",
    "POST /api/conversations/<id>/messages/",
    "GET /settings/",
    "GET /api/memory/",
    "DELETE /api/memory/",
)
CHAT = "POST /api/conversations/<id>/messages/"
