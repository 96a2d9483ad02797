"""Plain-text helpers the offline model shares: language, sentences, names, noise."""

from __future__ import annotations

import re
import unicodedata

from memory.own_words import quotations_set_aside

LANGUAGES = ("en", "vi", "zh-hans", "ja", "ko", "ms")

# A fact is a short sentence (a saved value is at most 80 characters). Longer text is
# never read for facts: it cannot hold one, and the pattern search on it would grow
# with the square of its length (a 100,000-character word took minutes).
MAX_SENTENCE_CHARS = 500

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
# Letters only Vietnamese uses among the Latin scripts Whizi meets (French and
# Portuguese share the plain accents, so those are left out).
_VIETNAMESE = re.compile(
    r"[ăđơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]|\b(?:tôi|không|của|là|và|chào|được|những|người|nhớ)\b",
    re.IGNORECASE,
)
# Everyday Malay words that are not English words; two of them make a message Malay.
_MALAY_WORDS = frozenset(
    """saya aku awak anda kamu apa tidak tak boleh ingat nama terima kasih selamat tinggal
    suka dengan untuk yang ini itu ada bukan tentang sudah dan di ke dari ialah adalah
    lupakan jangan sangat bekerja kerja mahu nak hendak ingin sebagai seorang tolong
    berasal hari jadi adik kakak abang isteri suami anak emak ibu ayah bapa kegemaran
    matlamat pelajar belajar sedang juga lagi sini sana mana siapa bila kenapa mengapa
    bagaimana macam simpan dalam ingatan berwarna bermata mata sebenarnya cerita hai helo
    pagi petang malam kawan kucing hijau biru merah apakah adakah bolehkah negara bandar
    rumah makan minum tahu tiada perlu cuaca esok semalam rambut hitam perang putih lah je kat dah nak
    ni tu tengah sebab pindah bulan lepas dekat baru kahwin tunang anak cikgu sekolah kerana tapi
    tetapi""".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def detect_language(text: str) -> str:
    """The language of one message: script first (Hangul, kana, Han), then Vietnamese
    letters, then Malay words; English when nothing else is clear."""
    hangul = len(_HANGUL.findall(text))
    kana = len(_KANA.findall(text))
    han = len(_HAN.findall(text))
    if hangul and hangul >= kana:
        return "ko"
    if kana:
        return "ja"
    if han:
        return "zh-hans"
    if _VIETNAMESE.search(text):
        return "vi"
    words = {w.casefold() for w in _WORD.findall(text)}
    if "terima" in words and "kasih" in words:
        return "ms"
    if len(words & _MALAY_WORDS) >= 2:
        return "ms"
    return "en"


def script_of(text: str) -> str:
    """"hangul", "kana", "han" or "latin": which pattern tables can apply to a text."""
    if _HANGUL.search(text):
        return "hangul"
    if _KANA.search(text):
        return "kana"
    if _HAN.search(text):
        return "han"
    return "latin"


# A sentence ends at . ! ? (followed by a space or the end) or at CJK full stops; a dot
# inside a word or number ("whizi.app", "12.5") does not end it.
_SENTENCE = re.compile(r"(?:[^.!?。！？\n\U0001F300-\U0001FAFF\u2600-\u27BF]|[.](?=[\w\d]))+"
                       r"[.!?。！？\U0001F300-\U0001FAFF\u2600-\u27BF]*|[.!?。！？]+")


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip(" \t.!?。！？")]


# Trimmed around a clause or value (a character loop: a long run of marks is read once).
_TRAILING_MARKS = frozenset(".,;:!。，、！~…\"'“”‘’»)]）」』")
_LEADING_MARKS = re.compile(r"^[\s,;:\-–—\"'“”‘’«(\[（「『、，]+")


def tidy(text: str) -> str:
    """Trim punctuation and quotes around a clause or value; keep the words exactly."""
    text = unicodedata.normalize("NFC", text)
    text = _LEADING_MARKS.sub("", text)
    end = len(text)
    while end and (text[end - 1] in _TRAILING_MARKS or text[end - 1].isspace()):
        end -= 1
    return re.sub(r"\s+", " ", text[:end]).strip()


def is_question(text: str) -> bool:
    return text.rstrip().endswith(("?", "？"))


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


_NAME_WORD = re.compile(r"^[^\W\d_][\w.'’-]*$")


def looks_like_name(value: str, *, cased: bool = False) -> bool:
    """A person's name: one to five words, no digits; in Latin script each word starts
    with a capital when `cased` (voice transcripts, "I'm Anna")."""
    value = value.strip()
    if not value or any(ch.isdigit() for ch in value) or len(value) > 60:
        return False
    if script_of(value) != "latin":
        # CJK names are short and written without spaces (Korean may have one).
        return len(value.replace(" ", "")) <= 12 and value.count(" ") <= 1
    words = value.split()
    if not 1 <= len(words) <= 5 or not all(_NAME_WORD.match(w) for w in words):
        return False
    # "Ludwig van Beethoven": the first and last words carry the capitals.
    return not cased or (words[0][:1].isupper() and words[-1][:1].isupper())


# Speech recognition noise: markers the recogniser writes, a word repeated three times,
# a cut-off word ("Jo- Joanna"), or a long Latin "word" with no vowel in it.
_GARBLED = re.compile(
    r"\[(?:inaudible|unintelligible|crosstalk|noise|music|unclear|\?+)\]|\((?:inaudible|unintelligible)\)"
    r"|<unk>|\*\*\*|\?\?\?|\ufffd|\b(\w+)(?:\s+\1\b){2,}|\w-(?:\s|$)",
    re.IGNORECASE,
)
_NO_VOWEL_WORD = re.compile(r"\b[b-df-hj-np-tv-xz]{5,}\b", re.IGNORECASE)


def looks_garbled(text: str) -> bool:
    return bool(_GARBLED.search(text) or _NO_VOWEL_WORD.search(text))


def own_words(text: str) -> str:
    """The user's own words: a passage pasted after "…:" (an email, a newsletter) or a
    long quotation is material to work on, never what the user says about themselves."""
    if re.search(r"[<‹]/?\s*(?:existing_memory|conversation|memory|memory_to_compact)\b", text):
        return ""  # the pass prompt's own markup: an attempt to speak as the prompt
    pasted = re.search(r"[:：]\s*\n", text)
    if pasted and text[pasted.end():].strip():
        text = text[: pasted.start()]
    return quotations_set_aside(text, [], minimum=12)
