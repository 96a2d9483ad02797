"""Does a user message ask Whizi to remember, or to forget, something? (docs/DESIGN.md §2.3)

The seeds name the phrases per language (docs/STRINGS.md); these patterns catch their
natural variants — politeness forms, "please …", "can you …", a trailing "…, remember
that" — while a mere mention does not fire: "I can't remember where I parked",
"tôi không nhớ", "我记不住", "覚えていない", "기억이 안 나", "saya tak ingat".

Languages with spaces are matched at the start of a clause (after optional fillers
such as "ok", "please", "can you"), because the same verbs also appear in plain
statements whose subject is the user ("I remember…", "tôi nhớ…"). Chinese, Japanese
and Korean are matched by the request forms of the verb itself (覚えて+ください,
기억해+줘), with the first-person statements screened out.

A false positive costs one extra background pass; a false negative delays a fact
until the next multiple of 6 turns. Mentions must not fire; beyond that the patterns
lean towards firing.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum


class MemoryRequest(Enum):
    REMEMBER = "remember"
    FORGET = "forget"


# A clause starts at the start of the message or after sentence punctuation or a comma.
_CLAUSE = r"(?:^|(?<=[.!?;:。！？；：\n,，、()\"“”«»]))\s*"

# ---------------------------------------------------------------- English
_EN_LEAD = (
    r"(?:(?:hey|hi|ok|okay|so|and|also|oh|btw|by the way|whizi|please|pls|plz|kindly|now|"
    r"just|but|then|actually|and also)\b[\s,!]*)*"
    r"(?:(?:can|could|would|will) you(?: please)?\s+|i (?:want|need|would like|'d like) you to\s+|"
    r"make sure (?:you |to )?|be sure to\s+|try to\s+)?"
    r"(?:(?:please|pls|also|always)\s+)?"
)
_EN_REMEMBER = (
    r"(?:remember\b(?!\s*\?)(?!\s+(?:when|how|what|where|who|whether|if|the time|the day)\b)"
    r"|(?:don'?t|do not|never) forget\b"
    r"|note (?:that|this|down)\b|take (?:a )?note\b|make a note\b|keep in mind\b|bear in mind\b"
    r"|(?:write|jot|put) (?:that|this|it) down\b|memori[sz]e\b"
    r"|(?:save|keep|store|put|add|commit)\b[^.!?\n]{0,40}?\b(?:in|to|into) (?:your |the )?memory\b)"
)
_EN_FORGET = (
    r"(?:forget\b(?!\s+(?:about\s+)?it\s*(?:[.!,]|$))"
    r"|(?:delete|remove|erase|wipe|drop|clear)\b[^.!?\n]{0,40}?\b(?:from|in|out of) "
    r"(?:your |the )?memory\b"
    r"|(?:don'?t|do not|stop) remember(?:ing)?\b)"
)

# ---------------------------------------------------------------- Vietnamese
_VI_LEAD = (
    r"(?:(?:à|ờ|ừ|ok|okay|vậy|và|còn|nhân tiện|nhân đây|này|ê|whizi|bạn|cậu|mày)"
    r"\b\s*,?\s*)*"
    r"(?:(?:hãy|làm ơn|xin|vui lòng|nhớ là|giúp tôi|giúp mình|giùm tôi|giùm mình)\s+)*"
)
_VI_REMEMBER = (
    r"(?:(?:ghi nhớ|nhớ)\s+(?:giúp|giùm|dùm|hộ|điều|chuyện|việc|cái|rằng|là|kỹ|kĩ|lấy|cho|"
    r"nhé|nha|nhá|nhe|đấy|đó|này|tên|thông tin)\b"
    r"|ghi nhớ\b|(?:đừng|chớ|không được) quên\b"
    r"|(?:lưu|giữ|ghi)\b[^.!?\n]{0,40}?(?:vào|trong) (?:bộ nhớ|trí nhớ)"
    r"|(?:ghi|lưu) lại\b)"
)
# A trailing request particle is a request wherever it stands: "…, nhớ nhé".
_VI_REMEMBER_ANYWHERE = r"\bnhớ (?:nhé|nha|nhá|nhe|giùm|giúp|hộ|dùm)\b|\bđừng quên\b"
_VI_FORGET = (
    r"(?:quên\s+(?:điều|chuyện|việc|cái|thông tin|hết|tất cả|mọi|đi|rằng|là|tên|giúp|giùm)\b"
    r"|quên\b[^.!?\n]{0,40}?\bđi\b"
    r"|(?:xóa|xoá)\b[^.!?\n]{0,40}?(?:khỏi|trong) (?:bộ nhớ|trí nhớ)"
    r"|(?:đừng|không cần) nhớ\b)"
)

# ---------------------------------------------------------------- Malay
_MS_LEAD = (
    r"(?:(?:tolong|sila|boleh|awak|kamu|anda|whizi|ok|okey|oh|dan|juga|jadi|eh|hai|"
    r"mulai sekarang)\b\s*,?\s*)*"
)
_MS_REMEMBER = (
    r"(?:ingat(?:lah)?\b(?!\s+(?:tak|tidak|x|ke|kah)\b)(?!\s*\?)"
    r"|jangan (?:lupa|lupakan|sampai lupa)\b"
    r"|simpan\b[^.!?\n]{0,40}?dalam (?:ingatan|memori)"
    r"|(?:catat|catatkan)\b|ambil perhatian\b)"
)
_MS_FORGET = (
    r"(?:lupakan\b(?!\s+(?:saja|sahaja|je|jelah)\s*(?:[.!,]|$))"
    r"|(?:padam|padamkan|buang|hapus|hapuskan)\b[^.!?\n]{0,40}?(?:dari|daripada) "
    r"(?:ingatan|memori)"
    r"|jangan ingat\b)"
)

# ---------------------------------------------------------------- Chinese (simplified)
_ZH_REMEMBER = re.compile(
    r"记住|记下来|记下|记一下|记好|牢记|别忘|不要忘|千万别忘|请记得|要记得|一定记得"
    r"|(?:保存|存|放|留|记)(?:到|在|进)?[^。！？\n]{0,10}?记忆"
)
_ZH_FORGET = re.compile(
    r"忘掉|(?<!别)(?<!要)(?<!不)(?<!没)忘(?:了|记)吧"
    r"|(?<!别)(?<!要)(?<!不)(?<!没)忘记(?:这|那|我|刚才|之前|掉)"
    r"|把[^。！？\n]{0,20}?忘(?:掉|了|记)"
    r"|(?:别|不要|别再)记(?:住|着|下)"
    r"|记忆(?:里|中)?(?:删除|删掉|去掉|抹去)|删除[^。！？\n]{0,10}?记忆"
)
# "我记住了" / "我忘掉了" are the user talking about themselves, not asking Whizi.
_ZH_SELF = re.compile(r"^\s*我们?(?!.*(?:你|您|帮|替|给|请))")
_ZH_CLAUSE_END = re.compile(r"[。！？；，,.!?;\n]")

# ---------------------------------------------------------------- Japanese
_JA_REMEMBER = re.compile(
    r"覚えて(?:おいて|ください|下さい|くれ|ほしい|欲しい|ね|よ|いて|[。！!、,.\s]|$)"
    r"|覚えとい?て|記憶(?:して|しておいて)(?:ください|下さい|くれ|ね|ほしい|[。！!、,.\s]|$)?"
    r"|忘れないで|忘れるな|メモして|メモっといて"
    r"|(?:これ|それ|このこと|そのこと|この情報)を?(?:保存|記録)して"
    r"|(?:記憶|メモリー?)に(?:保存|記録|残)"
)
_JA_FORGET = re.compile(
    r"忘れて(?:ください|下さい|くれ|ほしい|欲しい|ね|よ|[。！!、,.\s]|$)|忘れちゃって"
    r"|(?:記憶|メモリー?)から(?:消|削除)"
)

# ---------------------------------------------------------------- Korean
_KO_REMEMBER_ASKED = re.compile(
    r"기억해\s*(?:줘|주세요|주라|줄래|둬|두세요|두어|놔|놓아|놔줘)"
    r"|기억하고\s*있어\s*(?:줘|주세요)|외워\s*(?:둬|줘|두세요|주세요|놔)"
    r"|잊지\s*(?:마|말아|말고|마세요|마요|말아요)|잊으면\s*안\s*돼"
    r"|(?:이거|그거|이걸|그걸|이것|그것|이 내용|그 내용)\s*(?:을|를)?\s*저장해"
    r"|(?:기억|메모리)에\s*(?:저장|남겨|담아)|간직해\s*(?:줘|주세요|둬)|메모해\s*(?:줘|주세요|둬)"
)
# Bare "기억해." is a request too, unless the user says it of themselves ("저는 기억해요").
_KO_REMEMBER_BARE = re.compile(r"(?:기억해|기억해요|기억하세요|간직해)\s*(?:[.!~]|$)")
_KO_SELF = re.compile(r"(?:나는|난|저는|전|내가|제가)\s")
_KO_FORGET = re.compile(
    r"잊어\s*(?:줘|주세요|버려|버리세요|[.!]|$)|잊어버려\s*(?:줘|[.!]|$)"
    r"|(?:기억|메모리)에서\s*(?:지워|삭제|빼)|기억하지\s*(?:마|말아)"
)
_KO_CLAUSE_END = re.compile(r"[.!?;,\n]")


def _anchored(lead: str, verb: str) -> re.Pattern[str]:
    return re.compile(_CLAUSE + lead + verb, re.IGNORECASE | re.MULTILINE)


_SPACED = {
    MemoryRequest.FORGET: [
        _anchored(_EN_LEAD, _EN_FORGET),
        _anchored(_VI_LEAD, _VI_FORGET),
        _anchored(_MS_LEAD, _MS_FORGET),
    ],
    MemoryRequest.REMEMBER: [
        _anchored(_EN_LEAD, _EN_REMEMBER),
        _anchored(_VI_LEAD, _VI_REMEMBER),
        re.compile(_VI_REMEMBER_ANYWHERE, re.IGNORECASE),
        _anchored(_MS_LEAD, _MS_REMEMBER),
    ],
}


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text or "")
    return text.replace("’", "'").replace("‘", "'")


def _clause_before(text: str, start: int, ends: re.Pattern[str]) -> str:
    """The clause's text up to a match (for the first-person screens)."""
    cut = max((m.end() for m in ends.finditer(text, 0, start)), default=0)
    return text[cut:start]


def _zh(pattern: re.Pattern[str], text: str) -> bool:
    return any(
        not _ZH_SELF.match(_clause_before(text, m.start(), _ZH_CLAUSE_END))
        for m in pattern.finditer(text)
    )


def _ko_remember(text: str) -> bool:
    if _KO_REMEMBER_ASKED.search(text):
        return True
    return any(
        not _KO_SELF.search(_clause_before(text, m.start(), _KO_CLAUSE_END))
        for m in _KO_REMEMBER_BARE.finditer(text)
    )


def _ko_forget(text: str) -> bool:
    return any(
        not _KO_SELF.search(_clause_before(text, m.start(), _KO_CLAUSE_END))
        for m in _KO_FORGET.finditer(text)
    )


def memory_request_kind(text: str) -> MemoryRequest | None:
    """FORGET when the message asks Whizi to forget something, REMEMBER when it asks
    it to remember something, else None. A message that does both counts as FORGET,
    because forgetting is what the pass must not hold back."""
    text = _clean(text)
    if not text.strip():
        return None
    if (
        any(p.search(text) for p in _SPACED[MemoryRequest.FORGET])
        or _zh(_ZH_FORGET, text)
        or _JA_FORGET.search(text)
        or _ko_forget(text)
    ):
        return MemoryRequest.FORGET
    if (
        any(p.search(text) for p in _SPACED[MemoryRequest.REMEMBER])
        or _zh(_ZH_REMEMBER, text)
        or _JA_REMEMBER.search(text)
        or _ko_remember(text)
    ):
        return MemoryRequest.REMEMBER
    return None


def is_memory_request(text: str) -> bool:
    """Does this user message ask Whizi to remember (or forget) something?"""
    return memory_request_kind(text) is not None


def is_forget_request(text: str) -> bool:
    """Does this user message ask Whizi to forget something?"""
    return memory_request_kind(text) is MemoryRequest.FORGET
