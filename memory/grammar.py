"""Memory's one grammar of requests: does a clause ask Whizi to remember, or to forget,
something, and what? (docs/DESIGN.md §2.3)

The trigger uses it to run a pass right away; the offline memory model uses it to
read what the request names. One clause at a time, in six languages:

- English, Vietnamese and Malay put the verb first: "(please) remember (that) X",
  "forget (about) X", "save X in your memory", "xóa X đi", "lupakan pasal X".
- Chinese puts it first or uses 把: "记住X", "把X忘了", "X的事别提了".
- Japanese and Korean put it last: "Xを覚えておいて", "X 기억해 줘", "X는 잊어 줘".

A request's content is what to remember or forget, with its complement ("that",
"rằng", "bahawa") and politeness ("please", "nhé", "ya") trimmed. It is empty when the
request points at something said ("remember that", "이거 기억해 줘"): the model then
reads the statement before it, or the one right after it in the same message.

A mere mention does not fire: "I can't remember where I parked", "tôi không nhớ",
"我记不住", "覚えていない", "기억이 안 나", "saya tak ingat", "remember?". A false
positive costs one extra background pass; a false negative delays a fact until the
next multiple of 6 turns, so beyond mentions the patterns lean towards firing.
This module is pure: text in, answer out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum


class MemoryRequest(Enum):
    REMEMBER = "remember"
    FORGET = "forget"


@dataclass(frozen=True)
class RequestFound:
    kind: MemoryRequest
    content: str  # what to remember or forget; "" when it refers to a statement
    language: str
    everything: bool = False  # "forget everything (about me)"


R, F = MemoryRequest.REMEMBER, MemoryRequest.FORGET
_FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class _Words:
    """One language's request words. Each form has a `content` group."""

    forms: list[tuple[MemoryRequest, str]]
    anaphora: str  # a content that points at a statement ("that", "điều đó", "それ")
    names: str  # "my name": points at the name just given (remember only)
    everything: str  # "everything about me": forget the whole list
    topic: str  # "everything about", "pasal", "のこと": trimmed from a content
    tail: str  # politeness and particles trimmed from a content's end
    reason: str = ""  # where a reason given after the content starts ("… because …"): trimmed
    complement: str = ""  # "that", "rằng", "bahawa": the word before a stated content
    self_subject: str = ""  # "저는 … 기억해요" is the user speaking of themselves
    asks: str = ""  # a question that is still a request ("can you remember …?")


def _forms(kind: MemoryRequest, *patterns: str) -> list[tuple[MemoryRequest, str]]:
    return [(kind, pattern) for pattern in patterns]


_C = r"(?P<content>.*?)"  # a content, shortest first so the tail can be trimmed

# ---------------------------------------------------------------- English
_EN_LEAD = (
    r"^(?:(?:hey|hi|ok|okay|so|and|also|oh|btw|by the way|whizi|please|pls|plz|kindly|now|just|but|then"
    r"|actually|yeah|yes|anyway|one more thing)\b[\s,!]*)*+"
    r"(?:(?:can|could|would|will) you(?: please)?\s+|i (?:want|need|would like|'d like) you to\s+"
    r"|make sure (?:you |to )?|be sure to\s+|try to\s+)?(?:(?:please|pls|also|always)\s+)?"
)
_EN_MEMORY = r"(?:your |the |my )?memory"
ENGLISH = _Words(
    forms=_forms(F,
                 _EN_LEAD + r"forget\b(?!\s+(?:about\s+)?it\s*[.!,]*$)(?:\s+about)?[\s:,]*" + _C
                 + rf"(?:\s+(?:from|in) {_EN_MEMORY})?",
                 _EN_LEAD + r"(?:unlearn|stop remembering|don'?t remember|do not remember)\b[\s:,]*" + _C,
                 _EN_LEAD + rf"(?:delete|remove|erase|wipe|drop|clear)\s+{_C}\s+(?:from|in|out of)"
                 rf" {_EN_MEMORY}",
                 _EN_LEAD + r"(?:don'?t|do not|never)\s+(?:bring up|mention|talk about|ask about)\s+"
                 + _C + r"\s+(?:again|anymore|any more|ever again)")
    + _forms(R,
             _EN_LEAD + r"(?:remember|memori[sz]e|(?:don'?t|do not|never) forget)\b"
             r"(?!\s*\?)(?!\s+(?:when|how|what|where|who|whether|if|the time|the day)\b)[\s:,]*" + _C,
             _EN_LEAD + r"(?:note(?: down)?|take (?:a )?note(?: of)?|make a note(?: of)?|write down"
             r"|jot down)(?=[\s:,]|$)[\s:,]*" + _C,
             _EN_LEAD + r"(?:write|jot|put) (?P<content>that|this|it) down\b",
             _EN_LEAD + r"(?:keep|bear) (?:(?P<content>that|this|it) )?in mind\b[\s:,]*(?:that\s+)?"
             r"(?P<rest>.*?)",
             _EN_LEAD + rf"(?:save|keep|store|put|add|commit)\s+{_C}\s+(?:in|to|into) {_EN_MEMORY}"
             r"(?:[\s:,]+(?P<rest>.+))?",
             _EN_LEAD + rf"(?:save|keep|store|put|add) (?:in|to|into) {_EN_MEMORY}[\s:,]*(?:that\s+)?" + _C),
    anaphora=r"(?:that|this|it|that one|this one|what i (?:just )?said|all (?:of )?(?:that|this)"
             r"|everything i (?:just )?said|that about me|(?:those|these|that|this|the) (?:names?|dates?"
             r"|details?|facts?|things?|ones?|points?)|him|her|them|that person)",
    names=r"my (?:name|names|birthday|details)",
    everything=r"(?:everything|all|all of it|everything about me|all about me|everything you know"
               r"(?: about me)?|all my data|anything about me)",
    topic=r"^(?:(?:everything|anything|all|what i said|the (?:fact|part|bit)) (?:about|that|on)|about)\s+",
    tail=r"(?:(?:^|\s+)(?:please|for me|ok|okay|thanks|thank you|for later|for next time|too|as well|down"
         r"|at all|yeah|right|from now on|going forward|in future|for the future))+$",
    reason=r"\s(?:so|because|since|as|for|in case)\b",
    asks=r"^(?:\w+\s+)*?(?:can|could|would|will) you\b",
    complement=r"^(?:that|this)\s*[:,]?\s+|^:\s*",
)

# ---------------------------------------------------------------- Vietnamese
_VI_LEAD = (
    r"^(?:(?:à|ờ|ừ|ok|okay|vậy|và|còn|nhân tiện|nhân đây|này|ê|whizi|bạn|cậu|mày|à mà|mà)\b[\s,]*)*+"
    r"(?:(?:hãy|làm ơn|xin|vui lòng|giúp tôi|giúp mình|giùm tôi|giùm mình|bạn hãy|nhớ là)\s+)*"
)
_VI_HELP = r"(?:\s+(?:giúp|giùm|dùm|hộ)(?:\s+(?:tôi|mình|em|tớ))?)?"
_VI_MEMORY = r"(?:bộ nhớ|trí nhớ)"
VIETNAMESE = _Words(
    forms=_forms(F,
                 _VI_LEAD + r"(?:quên(?=\s+(?:điều|chuyện|việc|cái|thông tin|hết|tất cả|mọi|đi|rằng|là"
                 r"|tên|giúp|giùm|về)\b|.*\bđi$)|đừng nhớ|không cần nhớ)\b" + _VI_HELP
                 + r"(?:\s+(?:đi|chuyện|việc|điều|là|rằng|về)\b)*[\s:,]*" + _C,
                 _VI_LEAD + rf"(?:xóa|xoá|bỏ)\s+{_C}\s+(?:khỏi|trong) {_VI_MEMORY}",
                 _VI_LEAD + rf"(?:xóa|xoá)\s+{_C}\s+đi",
                 _VI_LEAD + rf"đừng\s+(?:nhắc|nhắc lại|nhắc tới|nhắc đến|nói về)\s+{_C}\s+(?:nữa|lại)")
    + _forms(R,
             _VI_LEAD + r"(?:ghi nhớ|nhớ(?=\s+(?:giúp|giùm|dùm|hộ|điều|chuyện|việc|cái|rằng|là|kỹ|kĩ|lấy"
             r"|cho|nhé|nha|nhá|nhe|đấy|đó|này|tên|thông tin)\b|\s*[:,]|$)|đừng quên|chớ quên"
             r"|không được quên|ghi lại|ghi chú|lưu lại|lưu)\b"
             + _VI_HELP + r"(?:\s+(?:rằng|là)\b)?[\s:,]*" + _C,
             _VI_LEAD + rf"(?:lưu|giữ|ghi)\s+{_C}\s+(?:vào|trong) {_VI_MEMORY}"),
    anaphora=r"(?:điều đó|điều này|cái đó|cái này|chuyện đó|chuyện này|việc đó|việc này|nó|đó|này"
             r"|những gì (?:tôi|mình) vừa nói|thông tin này|người đó|anh ấy|cô ấy|ông ấy|bà ấy)",
    names=r"tên (?:tôi|mình|của tôi|của mình)",
    everything=r"(?:tất cả|hết|mọi thứ|mọi điều|tất cả về (?:tôi|mình)|hết mọi thứ|hết đi)",
    topic=r"^(?:chuyện|việc|điều|về|hết chuyện|mọi thứ về)\s+",
    tail=r"(?:\s*\b(?:nhé|nha|nhá|nhe|đi|giùm|giúp|nữa|luôn|bạn|nhé bạn|khỏi bộ nhớ|khỏi trí nhớ))+$",
    complement=r"^(?:rằng|là)\s+",
)

# ---------------------------------------------------------------- Malay
_MS_LEAD = (
    r"^(?:(?:tolong|sila|boleh|awak|kamu|anda|whizi|ok|okey|oh|dan|juga|jadi|eh|hai|mulai sekarang)\b"
    r"[\s,]*)*+"
)
_MS_MEMORY = r"(?:ingatan|memori)(?:\s+(?:awak|anda|kamu))?"
MALAY = _Words(
    forms=_forms(F,
                 _MS_LEAD + r"(?:lupakan(?:lah)?\b(?!\s+(?:saja|sahaja|je|jelah)\s*$)|jangan ingat\b)"
                 r"(?:\s+(?:tentang|pasal|mengenai|bahawa|yang))?[\s:,]*" + _C,
                 _MS_LEAD + rf"(?:padam(?:kan)?|buang(?:kan)?|hapus(?:kan)?)\s+{_C}\s+(?:dari|daripada)"
                 rf"\s+{_MS_MEMORY}",
                 _MS_LEAD + rf"jangan\s+(?:sebut|cakap pasal|ungkit)\s+{_C}\s+(?:lagi)")
    + _forms(R,
             _MS_LEAD + r"(?:ingat(?:lah)?\b(?!\s+(?:tak|tidak|x|ke|kah)\b)|jangan (?:lupa|lupakan"
             r"|sampai lupa)\b|catat(?:kan)?\b|hafal\b|ambil perhatian\b)(?:\s+(?:bahawa|yang|ya|ye"
             r"|tau|ok)\b)*[\s:,]*" + _C,
             _MS_LEAD + rf"simpan(?:kan)?\s+{_C}\s*(?:dalam|dlm|ke dalam)\s+{_MS_MEMORY}",
             _MS_LEAD + rf"simpan(?:kan)?\s+(?:dalam|dlm|ke dalam)\s+{_MS_MEMORY}\b[\s:,]*(?:bahawa\s+)?"
             + _C),
    anaphora=r"(?:itu|ini|perkara itu|perkara ini|hal itu|apa yang saya (?:kata|cakap)|dia|orang itu)",
    names=r"nama (?:saya|aku)",
    everything=r"(?:semua|semuanya|segala-galanya|semua tentang saya|segalanya)",
    topic=r"^(?:tentang|pasal|mengenai|bahawa|yang)\s+",
    tail=r"(?:\s+(?:ya|ye|tau|ok|okey|boleh|tolong|je|lah|dari ingatan|daripada ingatan))+$",
    asks=r"^(?:boleh|bolehkah)\b",
    complement=r"^(?:bahawa|yang)\s+",
)

# ---------------------------------------------------------------- Chinese (simplified)
_ZH_LEAD = (r"^(?:(?:好的|那个|对了|另外|还有|嗯|哦)[，,\s]*)*+(?:从现在(?:开始|起)|以后|今后)?[，,\s]*+"
            r"(?:请你?|麻烦你?|你|帮我|给我|我希望你|我想让你|你要|一定要|要|千万)*+")
_ZH_END = r"(?:吧|哦|啊|哈|呀|一下|好吗|好不好)*"
CHINESE = _Words(
    forms=_forms(F,
                 _ZH_LEAD + r"(?:忘记|忘掉|忘了|别记着|不要记住|别记住|别再记着"
                 r"|从记忆(?:里|中)?(?:删除|删掉|去掉|抹去)|删除|删掉)" + _C + _ZH_END,
                 _ZH_LEAD + r"把" + _C + r"(?:忘了|忘掉|忘记|从记忆(?:里|中)?(?:删除|删掉|去掉)"
                 r"|删掉|删了|删除)" + _ZH_END,
                 r"^" + _C + r"(?:的事情?|的事儿)?(?:以后)?(?:别|不要)再?提(?:了|起)?" + _ZH_END,
                 # "别再提他了": don't bring him up again (not 提醒, remind).
                 _ZH_LEAD + r"(?:别|不要)再?提起?(?!醒)" + _C + r"了?" + _ZH_END)
    + _forms(R,
             _ZH_LEAD + r"(?:记住|记下来|记下|记一下|记好|记着|牢记|记得|别忘了|不要忘了|不要忘记"
             r"|别忘记|千万别忘了?|保存到记忆里?|存到记忆里?|留在记忆里)[：:，,]?\s*" + _C + _ZH_END,
             _ZH_LEAD + r"把" + _C + r"(?:记住|记下来|记下|记好|保存到记忆里?|存到记忆里?|留在记忆里"
             r"|记在心里)" + _ZH_END),
    anaphora=r"(?:这个|这件事|这些|这点|这条|那个|那件事|它|这|那|我说的|我刚才说的(?:话)?|他|她|那个人)",
    names=r"我的名字",
    everything=r"(?:所有(?:的)?(?:事情|内容|东西)?|一切|全部|关于我的一切|所有关于我的(?:事|内容))",
    topic=r"^(?:关于|有关)|(?:的事情?|的事儿)$",
    tail=r"(?:吧|哦|啊|哈|呀|一下|好吗)+$",
)

# ---------------------------------------------------------------- Japanese
_JA_ASKED = r"(?:おいて|おき|いて|て|ください|下さい|ね|よ|ほしい|欲しい|くれ|ちょうだい|もらえる|くれる" \
            r"|もらえますか|くれますか|んだけど|んですけど|です|けど)*"
JAPANESE = _Words(
    forms=_forms(F,
                 r"^(?:" + _C + r"(?:のこと(?:を|は)?|の話(?:は|を)?|って(?:こと)?(?:は|を)?"
                 r"|ことは|を|は)?\s*)?"
                 r"(?:もう)?(?:忘れて|忘れちゃって|(?:メモリー?|記憶)から(?:削除|消)して|削除して|消して)"
                 r"(?:ください|下さい|ね|ほしい|くれ|ちょうだい|おいて)*",
                 r"^" + _C + r"(?:の話|のこと)?(?:は|を)?(?:もう)?(?:触れないで|話さないで|出さないで)"
                 r"(?:ください|ね)*")
    + _forms(R,
             r"^(?:" + _C + r"(?:って(?:こと)?を?|ということを|ことを|のを|と|を|は|、)?\s*)?"
             r"(?:ちゃんと|ずっと|しっかり)?(?:覚えて|覚えとい?て|記憶して|忘れないで|メモして|メモっといて|(?:メモリー?|記憶)に"
             r"(?:保存|残|記録)して|保存して|記録して)" + _JA_ASKED),
    anaphora=r"(?:それ|これ|このこと|そのこと|今の(?:こと|話)|さっきのこと|その人|あの人|彼|彼女)",
    names=r"私の名前",
    everything=r"(?:全部|すべて|全て|私のこと全部|私についてのすべて)",
    topic=r"(?:のこと|の話)$",
    tail=r"(?:よ|ね)+$",
    asks=r"(?:もらえますか|もらえる|くれますか|くれる|いただけますか)$",
)

# ---------------------------------------------------------------- Korean
KOREAN = _Words(
    forms=_forms(F,
                 r"^(?:" + _C + r"(?:이라는\s?걸|라는\s?걸|는\s?걸|을|를|은|는)?\s*)?"
                 r"(?:잊어\s?(?:줘|주세요|버려|버려\s?줘|버리세요)?|잊어버려\s?(?:줘)?|(?:기억|메모리)에서\s?(?:지워|삭제해|빼)\s?(?:줘|주세요)?"
                 r"|지워\s?(?:줘|주세요)|삭제해\s?(?:줘|주세요)|기억하지\s?(?:마|말아\s?줘|마세요))(?:요)?",
                 r"^" + _C + r"(?:\s?얘기|\s?이야기)(?:는|를|은)?\s?(?:꺼내지|하지)"
                 r"\s?(?:마|마세요|말아\s?줘)(?:요)?")
    + _forms(R,
             r"^(?:" + _C + r"(?:이라는\s?(?:걸|것을|것)|(?<![달주])라는\s?(?:걸|것을|것)"
             r"|는\s?(?:걸|것을)|을|를)?\s*)?(?:꼭\s?|잘\s?)?(?:기억해\s?(?:줘|주세요|둬|두세요|줘요|놔|놔줘|주라|줄래)?"
             r"|기억하고\s?있어\s?(?:줘|주세요)|외워\s?(?:둬|줘|주세요|두세요|놔)?|잊지\s?(?:마|마세요"
             r"|말아\s?(?:줘|주세요)|말아요|말고)|잊으면\s?안\s?돼|저장해\s?(?:줘|주세요)?|간직해\s?(?:줘|주세요|둬)?|메모해\s?(?:줘"
             r"|주세요|둬)|(?:기억|메모리)에\s?(?:저장해|남겨|담아)\s?(?:줘|주세요)?)(?:요)?"),
    anaphora=r"(?:그거|그것|이거|이것|그걸|이걸|방금 말한 것|방금 한 말|내가 말한 거|그 얘기|그 사람|걔)",
    names=r"(?:제|내) 이름",
    everything=r"(?:전부|모두|다|모든 것|저에 대한 모든 것|나에 대한 모든 것)",
    topic=r"\s?(?:얘기|이야기)$",
    tail=r"(?:\s?(?:꼭|좀|이제|그냥))+$|(?<=\S)(?:은|는|을|를)$",
    self_subject=r"^(?:나는|난|저는|전|내가|제가)\s",
)

_BY_SCRIPT = {
    "hangul": (("ko", KOREAN),),
    "kana": (("ja", JAPANESE),),
    "han": (("zh-hans", CHINESE), ("ja", JAPANESE)),
    "latin": (("en", ENGLISH), ("vi", VIETNAMESE), ("ms", MALAY)),
}
_SCRIPTS = (("hangul", re.compile(r"[\uac00-\ud7a3]")), ("kana", re.compile(r"[\u3040-\u30ff]")),
            ("han", re.compile(r"[\u4e00-\u9fff]")))
# What ends a clause without saying anything: spaces, punctuation, closing quotes.
_END_CHARS = frozenset(" \t\n\r\f\v.,;:：!。，、！~…\"'“”‘’)]）」』\u3000\xa0")
_TRIM_CHARS = " \t,:：，"
# Politeness and particles are short: the tail is read in windows of this many characters
# from the end, so trimming a clause costs the same per character however long it is.
TAIL_WINDOW = 80


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text or "")
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("‘", "'")).strip()


def _script(text: str) -> str:
    return next((name for name, pattern in _SCRIPTS if pattern.search(text)), "latin")


def _compiled(pattern: str) -> re.Pattern[str]:
    if pattern not in _CACHE:
        _CACHE[pattern] = re.compile(pattern, _FLAGS)
    return _CACHE[pattern]


# Filled without a lock: two worker threads racing on a pattern only compile it twice.
_CACHE: dict[str, re.Pattern[str]] = {}


def _end_stripped(text: str, end: int) -> int:
    while end > 0 and (text[end - 1] in _END_CHARS or text[end - 1].isspace()):
        end -= 1
    return end


def _tail_trimmed(words: _Words, text: str) -> str:
    """`text` without the spaces, punctuation, politeness and particles it ends with."""
    tail = _compiled(words.tail)
    end = _end_stripped(text, len(text))
    while end > 0:
        start = max(0, end - TAIL_WINDOW)
        if start > 0:  # begin the window at a word, so "^" in a tail means a word's start
            space = text.find(" ", start, end)
            start = space if space >= 0 else start
        window = text[start:end]
        trimmed = start + len(tail.sub("", window, count=1))
        trimmed = _end_stripped(text, trimmed)
        if trimmed == end:
            break
        end = trimmed
    return text[:end]


def _content(words: _Words, kind: MemoryRequest, match: re.Match[str]) -> tuple[str, bool]:
    """The content with its topic words and tail trimmed; ("", True) for "everything"."""
    groups = match.groupdict()
    content = groups.get("rest") or groups.get("content") or ""
    if words.reason:
        reason = _compiled(words.reason).search(content)
        if reason:
            content = content[: reason.start()]
    content = _tail_trimmed(words, content).lstrip(_TRIM_CHARS).rstrip(_TRIM_CHARS)
    if kind is F and _compiled(f"^{words.everything}$").match(content):
        return "", True
    content = _compiled(words.topic).sub("", content).strip()
    anaphora = _compiled(rf"^(?:{words.anaphora}" + (f"|{words.names}" if kind is R else "") + ")$")
    if anaphora.match(content):
        return "", False
    # "this: X", "cái này nha: X": the pointer announces the content after the colon.
    announced = _compiled(rf"^(?:{words.anaphora})(?:\s*\S{{1,4}})?\s*[:：]\s*(?P<said>.+)$").match(content)
    if announced:
        return announced.group("said"), False
    if words.complement:
        content = _compiled(words.complement).sub("", content, count=1)
    return content, False


def _is_question(clause: str) -> bool:
    return clause.rstrip().endswith(("?", "？"))


def memory_request_in(clause: str) -> RequestFound | None:
    """The request one clause makes, if it makes one: its kind and what it names."""
    clause = _clean(clause)
    question = _is_question(clause)
    unasked = clause.rstrip().rstrip("?？")
    body = unasked[: _end_stripped(unasked, len(unasked))].strip()
    if not body:
        return None
    for code, words in _BY_SCRIPT[_script(clause)]:
        if question and not (words.asks and _compiled(words.asks).search(body)):
            continue
        trimmed = _tail_trimmed(words, body)
        for kind, pattern in words.forms:
            match = _compiled(pattern + r"$").match(body) or _compiled(pattern + r"$").match(trimmed)
            if not match:
                continue
            content, everything = _content(words, kind, match)
            if words.self_subject and _compiled(words.self_subject).match(content) and not re.search(
                    r"(?:줘|주세요|둬|두세요|놔|마|말아)", body):
                continue  # "저는 그 날을 기억해요": the user remembers, nobody is asked
            return RequestFound(kind=kind, content=content, language=code, everything=everything)
    return None


# The trigger reads a message as sentences cut at their commas and dashes; only the
# last clause of a question keeps its question mark.
_SENTENCES = re.compile(r"[^.!?;。！？；\n]+[.!?;。！？；]*")
_CLAUSES = re.compile(r"[,，、]\s*|(?<!\s)\s*[—–]\s+")


def memory_requests_in(text: str) -> list[RequestFound]:
    """Every request a message makes, clause by clause, in order."""
    found = []
    for sentence in _SENTENCES.findall(_clean(text)):
        for clause in _CLAUSES.split(sentence):
            request = memory_request_in(clause)
            if request:
                found.append(request)
    return found


def memory_request_kind(text: str) -> MemoryRequest | None:
    """FORGET when the message asks Whizi to forget something, REMEMBER when it asks
    it to remember something, else None. A message that does both counts as FORGET,
    because forgetting is what the pass must not hold back."""
    kinds = {request.kind for request in memory_requests_in(text)}
    if F in kinds:
        return F
    return R if R in kinds else None


def is_memory_request(text: str) -> bool:
    """Does this user message ask Whizi to remember (or forget) something?"""
    return memory_request_kind(text) is not None


def is_forget_request(text: str) -> bool:
    """Does this user message ask Whizi to forget something?"""
    return memory_request_kind(text) is F


# Words of forgetting, dropping or no longer mentioning, in the six languages. Not a grammar:
# whether the user asks, and for what, is the memory model's reading (docs/DESIGN.md §3);
# this only tells whether the user's own words speak of forgetting at all (memory.apply).
_FORGET_WORDS = re.compile(
    r"\b(?:forget|forgetting|unlearn|delete|remove|erase|wipe|drop|clear|scrap|get rid of"
    r"|take (?:that|it|this) out|stop (?:remembering|mentioning|bringing)"
    r"|(?:don'?t|do not|never) (?:mention|bring|remember|keep|store|save)|no need to (?:remember|keep)"
    r"|rather (?:you didn'?t|that wasn'?t|you not)|not something you know"
    r"|quên|xóa|xoá|bỏ|gỡ|đừng (?:nhớ|lưu|nhắc|giữ)|không cần (?:nhớ|lưu)|khỏi (?:nhớ|lưu)"
    r"|lupa\w*|buang\w*|padam\w*|hapus\w*|keluarkan|(?:tak|tidak|x) (?:payah|perlu) (?:ingat|simpan)"
    r"|jangan (?:ingat|simpan|sebut))\b"
    r"|(?:don'?t|do not|no) need to (?:remember|keep|know)|(?:don'?t|do not) want (?:it|that|this|you) "
    r"(?:popping up|coming up|brought up|mentioned|remembered|to (?:remember|know|keep))"
    r"|忘|删|别记|不用记|不用再记|不要记|不要再记|不必记|别再记|别再提|不要再提|别提|去掉|抹掉|清除|移除"
    r"|\b(?:enough about|let'?s drop|done talking about|không muốn nhắc|thôi đừng"
    r"|tak nak (?:cakap|sebut|ingat))\b"
    r"|不想再提|不想提|忘れ|消して|消しと|削除|外して|覚えなくて|覚えないで|記憶しないで|触れないで"
    r"|(?:その|この|あの)話は(?:もう)?いい|もういいです"
    r"|잊어|잊으|잊지 않아도|지워|지우|삭제|빼|기억 안 해도|기억하지 마|기억 안 해|꺼내지 마"
    r"|얘기는 그만|얘기 그만",
    re.IGNORECASE,
)


def forget_asked(text: str) -> bool:
    """Do these words (the user's own) speak of forgetting, dropping or no longer mentioning
    something, however phrased? (A remember request never removes a line: this only lets a
    removal the model made for "forgotten" stand when the words name no saved line.)"""
    return bool(_FORGET_WORDS.search(unicodedata.normalize("NFC", text or "")))
