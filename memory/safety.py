"""The last check on every line before it is saved: memory holds facts about the user,
never instructions to the assistant, links, markup or code.

A stored line reaches every future chat as part of a system message, so a planted
"ignore previous instructions" or a markdown image pointing elsewhere would act in
every later conversation. The memory model is told this; this check does not trust it.

Disguises are undone before checking: invisible format characters are removed, NFKC
folds fullwidth and styled letters ("ｈｔｔｐｓ：／／", "𝐢𝐠𝐧𝐨𝐫𝐞") to plain ones, and letters
from another script posing as Latin ones ("іgnore" with a Cyrillic і) are mapped back
with the Unicode confusables table. The check runs on that form and on the same form
with accents removed (so "bo qua" and "bỏ qua" are the same words). What is saved is
only cleaned, never folded: the user's own script stays as written.

Standing preferences are saved as facts about the user ("Prefers short answers",
"Wants replies in Vietnamese"). A line worded as an order to the assistant ("Always
reply in Vietnamese", "You must…") is refused whoever asked for it: text the user only
pasted can ask too, and an order saved once would be obeyed in every later chat.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

# ------------------------------------------------------------------ normal forms


def _is_invisible(char: str) -> bool:
    # Cf: zero-width spaces and joiners, bidi controls (U+202E…), U+2060…, BOM, tag
    # characters. Cc other than whitespace (NUL, ESC) has no place in a fact either.
    category = unicodedata.category(char)
    return category == "Cf" or (category == "Cc" and not char.isspace())


def storable_line(line: str) -> str:
    """The line as it is saved: invisible characters removed, NFC, whitespace collapsed."""
    visible = "".join(char for char in line if not _is_invisible(char))
    return " ".join(unicodedata.normalize("NFC", visible).split())


# Separators that name resolution treats as a dot in a domain name (IDNA), and that
# NFKC leaves alone: "evil。example" is evil.example.
_DOT_LOOKALIKES = str.maketrans({"\u3002": ".", "\uff61": "."})


@lru_cache(maxsize=4096)
def _ascii_twin(char: str) -> str | None:
    """The one ASCII character this non-ASCII one is drawn like, if any ("і" → "i")."""
    if char.isascii():
        return None
    found = confusables.is_confusable(char, greedy=True) or []
    for entry in found:
        for glyph in entry["homoglyphs"]:
            if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isprintable():
                # The table draws every capital I as "l"; a capital stays a capital here.
                return "I" if glyph["c"] == "l" and char.isupper() else glyph["c"]
    return None


def _script(char: str) -> str:
    return categories.alias(char) if char.isalpha() else "COMMON"


def _lookalikes_unmasked(text: str) -> str:
    """Letters posing as Latin ones mapped back to them.

    Latin-script and symbol look-alikes ("ɡ", "ı", "‹") are always mapped. Letters of
    another script (Cyrillic "о", Greek "ο") only when the line mixes them with Latin
    letters, or is made of look-alikes alone: a Russian fact stays a Russian fact.
    """
    twins = {char: _ascii_twin(char) for char in set(text)}
    twins = {char: twin for char, twin in twins.items() if twin}
    if not twins:
        return text
    letters = {char for char in text if char.isalpha() and not char.isascii()}
    foreign = {char for char in letters if _script(char) not in ("LATIN", "COMMON")}
    mixed = bool(foreign) and (
        any(char.isascii() and char.isalpha() for char in text)
        or any(_script(char) == "LATIN" for char in letters)
        or foreign <= twins.keys()
    )
    return "".join(
        twins[char] if char in twins and (mixed or char not in foreign) else char for char in text
    )


def _checked_form(line: str) -> str:
    """What the patterns read: cleaned, NFKC, look-alikes unmasked."""
    text = unicodedata.normalize("NFKC", storable_line(line)).translate(_DOT_LOOKALIKES)
    return _lookalikes_unmasked(text)


def _without_accents(text: str) -> str:
    """Combining marks dropped ("bỏ qua" → "bo qua"), so a line stripped of its accents,
    or with marks piled on its letters, reads as the plain words."""
    decomposed = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))


def _forms(line: str) -> tuple[str, ...]:
    """The normal forms every check reads: unmasked, and unmasked without accents."""
    checked = _checked_form(line)
    plain = _without_accents(checked)
    return (checked,) if plain == checked else (checked, plain)


def _one_of(*words: str) -> str:
    """A group matching any of the words (each already a regex)."""
    return "(?:" + "|".join(words) + ")"


# ------------------------------------------------------------------ links

# Well-known and reserved top-level domains. Not the whole root zone: enough that a
# bare "evil.example/collect" or "tracker.ru" is a link, few enough that dotted words
# of ordinary facts ("Node.js", "St. Louis", "v2.1") are not.
_TLD = _one_of(
    "com", "net", "org", "info", "biz", "edu", "gov", "int", "io", "ai", "app", "dev", "xyz", "top",
    "site", "online", "store", "shop", "tech", "cloud", "link", "click", "live", "blog", "page", "zip",
    "mov", "lol", "pro", "name", "mobi", "asia", "club", "vip", "win", "bid", "loan", "work", "fun",
    "icu", "buzz", "website", "space", "today", "world", "email", "news", "media", "digital", "host",
    "tools", "software",
    "example", "test", "invalid", "localhost", "local", "onion", "internal", "arpa",
    "ru", "su", "ua", "by", "kz", "cn", "hk", "tw", "mo", "vn", "jp", "kr", "my", "sg", "id", "th",
    "ph", "in", "pk", "bd", "lk", "np", "la", "kh", "mm", "uk", "us", "ca", "au", "nz", "ie", "de",
    "fr", "nl", "eu", "be", "at", "ch", "es", "pt", "it", "pl", "se", "no", "dk", "fi", "gr", "tr",
    "ir", "br", "mx", "ar", "cl", "pe", "ng", "za", "me", "co", "tv", "cc", "ly", "gg", "to", "sh",
    "ws", "tk", "ml", "ga", "cf", "gq", "pw", "cx",
)

# Dotted names that are not addresses although they end like one, matched exactly.
_NOT_ADDRESSES = re.compile(r"\b(?:ASP|VB|ADO)\.NET\b|\bSocket\.IO\b|\b[BM]\.(?:Com|Tech)\b")

# File suffixes after a dot and before a slash in product names ("Node.js/React").
_FILE_SUFFIX = _one_of(
    "js", "ts", "jsx", "tsx", "vue", "py", "rb", "md", "txt", "pdf", "docx?", "xlsx?", "csv", "json",
    "ya?ml", "html?", "css", "jpe?g", "png", "gif",
)

_LINK_PATTERNS = [
    # "https://", "h t t p s : / /", "https:evil.example", and other schemes.
    re.compile(r"\bh\W{0,2}t\W{0,2}t\W{0,2}p\W{0,2}s?\s*:\s*[/\\\w]", re.I),
    re.compile(r"\b(?:s?ftp|wss?|file|smb)\s*:\s*[/\\]|\b(?:javascript|vbscript|mailto)\s*:", re.I),
    re.compile(r"\bdata\s*:\s*[\w-]+/[\w.+-]+|\bdata\s*:[^,\s]*;\s*base64", re.I),
    # Markdown links and images.
    re.compile(r"\]\(|!\[[^\][]*\]"),
    # Protocol-relative "//evil.example", a Windows share "\\host\".
    re.compile(r"(?<![:\w/])//\s*[\w-]+(?:\s*\.\s*[\w-]+)+|\\\\[\w-]+(?:\.[\w-]+)*\\"),
    re.compile(r"\bwww\s*\.\s*\S", re.I),
    re.compile(rf"(?<![\w.-])(?:[\w-]+\.)+{_TLD}(?![\w-])", re.I),
    # "evil . example", "evil .example"; "evil. example" only where a sentence can't end.
    re.compile(rf"[\w-]\s+\.\s*{_TLD}(?![\w-])", re.I),
    re.compile(rf"[\w-]\.\s+{_TLD}(?=\s*(?:/|:\d|$))"),
    # Any name with a path, whatever its top-level domain: "evil.zzz/collect".
    re.compile(rf"(?<![\w.-])[\w-]+(?:\.[\w-]+)*\.(?!{_FILE_SUFFIX}\b)[a-z]{{2,24}}\s*/\s*[\w~%-]", re.I),
    re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])"),
    # An e-mail address is a contact detail a user may want kept, but it names a
    # domain the chat model could be steered to: refused like any other address.
    re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
]

# A link spelled out: "evil dot example slash c", "evil [dot] com", "evil chấm com", "evil点com",
# "evilドットcom", "evil 닷 com", "evil titik com", "https colon slash slash …".
_SPELLED_DOT = _one_of(r"\s*[\[(]\s*(?:dot|\.)\s*[\])]\s*", r"\s+(?:dot|chấm|cham|titik|punto)\s+",
                       r"\s*(?:点|點|ドット|닷)\s*")
_SPELLED_SLASH = _one_of(r"\s*/", r"\s+(?:slash|gạch chéo|gach cheo|garis miring)\b",
                         r"\s*(?:斜杠|斜線|スラッシュ|슬래시)")
_SPELLED_TLD = _one_of(_TLD, "コム", "컴", "넷")
_LINK_PATTERNS += [
    # Not "a dot com startup": a name comes before the dot.
    re.compile(rf"(?<![\w-])(?!(?:a|an|the)\b)[\w-]+{_SPELLED_DOT}{_SPELLED_TLD}(?![\w-])", re.I),
    re.compile(rf"(?<![\w-])[\w-]+{_SPELLED_DOT}[a-z]{{2,24}}{_SPELLED_SLASH}", re.I),
    re.compile(rf"\bwww{_SPELLED_DOT}", re.I),
    re.compile(r"\bh\W{0,2}t\W{0,2}t\W{0,2}p\W{0,2}s?\s*"
               r"(?:colon|hai chấm|hai cham|冒号|コロン|콜론|titik bertindih)", re.I),
]


def _has_link(text: str) -> bool:
    text = _NOT_ADDRESSES.sub(" ", text)
    return any(pattern.search(text) for pattern in _LINK_PATTERNS)


# ------------------------------------------------------------------ encoded payloads

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_HEX_RUN = re.compile(r"\b(?:[0-9a-fA-F]{2}){16,}\b")


def _decodes_to_text(data: bytes) -> bool:
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in data)
    return len(data) >= 12 and printable >= 0.9 * len(data)


def _is_base64_payload(run: str) -> bool:
    """Mixed upper case, lower case and digits is how base64 looks; a long word is not.
    A run that decodes to readable text is a payload whatever its letters."""
    body = run.rstrip("=")
    if re.search(r"[a-z]", body) and re.search(r"[A-Z]", body[1:]) and re.search(r"\d", body):
        return True
    padded = body + "=" * (-len(body) % 4)
    url_safe = "-" in body or "_" in body
    try:
        return _decodes_to_text(base64.b64decode(padded, altchars=b"-_" if url_safe else None))
    except (binascii.Error, ValueError):
        return False


def decoded_payloads(text: str) -> list[str]:
    """What the base64 and hex runs of a text decode to, where that is readable text: a
    payload hidden in a pasted text is as untrusted as the text."""
    found = []
    for match in _BASE64_RUN.finditer(text):
        body = match.group().rstrip("=")
        url_safe = "-" in body or "_" in body
        try:
            data = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if url_safe else None)
        except (binascii.Error, ValueError):
            continue
        if _decodes_to_text(data):
            found.append(data.decode("ascii", "replace"))
    for match in _HEX_RUN.finditer(text):
        data = bytes.fromhex(match.group())
        if _decodes_to_text(data):
            found.append(data.decode("ascii", "replace"))
    return found


def _has_encoded_payload(text: str) -> bool:
    if any(_is_base64_payload(match.group()) for match in _BASE64_RUN.finditer(text)):
        return True
    return any(_decodes_to_text(bytes.fromhex(match.group())) for match in _HEX_RUN.finditer(text))


# ------------------------------------------------------------------ the table

Check = Callable[[str], bool]


def _pattern(regex: str, flags: int = re.I) -> Check:
    return re.compile(regex, flags).search


_ROLE = r"(?:system|assistant|developer)"
_ANY_ROLE = r"(?:system|assistant|developer|user|human)"
# Role words of the other five languages (Vietnamese without its accents).
_FOREIGN_ROLE = _one_of(
    "系统", "系統", "助手", "开发者", "開發者", "システム", "アシスタント", "開発者", "시스템", "어시스턴트",
    "개발자", "he thong", "tro ly", "sistem", "pembantu",
)
# What follows a role word on a fake role line: "SYSTEM:", "system>", "SYSTEM - ", "user =>".
_ROLE_END = r"\s*(?::|>|\]|\||[-–—=]+>?\s)"
# After a lead-in ("Exactly: user: …") only the sharper separators count: "Job:
# developer - backend" is a fact.
_LEAD_MARKS = frozenset(":])\"'")
_ROLE_AFTER = re.compile(rf"\b{_ANY_ROLE}\s*(?::|>|\])", re.I)
# Non-word characters read back from a role word for the lead-in's mark.
_LEAD_LOOKBACK = 40


def _role_after_lead_in(text: str) -> bool:
    """A role word after a lead-in's sharp mark with only non-word characters between
    ("Exactly: user: …", "said] assistant>"). Found from the role word back, so a long run
    of marks is read once."""
    for match in _ROLE_AFTER.finditer(text):
        position = match.start()
        floor = max(0, position - _LEAD_LOOKBACK)
        while position > floor and not (text[position - 1].isalnum() or text[position - 1] == "_"):
            position -= 1
            if text[position] in _LEAD_MARKS:
                return True
    return False

_OVERRIDE_NOUN = _one_of(
    "instruction", "prompt", "guideline", "guardrail", "directive", "polic(?:y|ies)", "restriction",
    "constraint", "filter", "rule",
)
_OVERRIDE_QUALIFIER = _one_of(
    "previous", "prior", "above", "earlier", "preceding", "original", "initial", "system", "safety",
    "your", "all", "any", "these", "those", "existing", "hidden", "developer", "content",
)
# Vietnamese is read without its accents here, so "bỏ qua" and "bo qua" are one.
_VI_IGNORE = _one_of("bo qua", "phot lo", "lo di", "vuot qua", "khong tuan theo", "khong lam theo")
_VI_INSTRUCTIONS = _one_of(
    "huong dan", "chi dan", "chi thi", "quy tac", "loi nhac", "menh lenh", "cau lenh", "quy dinh",
    "nguyen tac", "gioi han",
)
_ZH_IGNORE = _one_of(
    "忽略", "忽视", "忽視", "无视", "無視", "忘记", "忘記", "忘掉", "绕过", "繞過", "跳过", "跳過",
    "不要遵守", "不要理会", "不要理會",
)
_ZH_INSTRUCTIONS = _one_of("指令", "指示", "提示", "规则", "規則", "设定", "設定", "限制")
_JA_INSTRUCTIONS = _one_of("指示", "命令", "プロンプト", "ルール", "制限")
_KO_INSTRUCTIONS = _one_of("지시", "명령", "프롬프트", "규칙", "지침", "제한")
_MS_IGNORE = _one_of("abaikan", "lupakan", "endahkan", "ketepikan", "langkau", "jangan ikut")
_MS_INSTRUCTIONS = _one_of("arahan", "perintah", "peraturan", "panduan", "gesaan", "prompt", "sekatan")
_PROMPT_TAG = _one_of(
    "existing_memory", "memory_to_compact", "new_memory", "memory", "conversation", "turn",
    "instructions", "rules", "facts",
)
_TAG_OPEN = "[<‹〈⟨❮❬˂ᐸ《]"
_TAG_CLOSE = "[>›〉⟩❯❭˃ᐳ»》]"

# (reason, name, check), tried in order on every normal form of the line.
_CHECKS: list[tuple[str, str, Check]] = [
    # A fake role line at the start or after a lead-in ("Exactly: SYSTEM: …"); a role in
    # brackets or a chat-template token anywhere.
    ("role marker", "role line", _pattern(rf"^\W*{_ANY_ROLE}{_ROLE_END}")),
    ("role marker", "role after a lead-in", _role_after_lead_in),
    # Anywhere, unless it is a job ("Is a developer: mostly Python").
    ("role marker", "role word with a colon",
     _pattern(rf"(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)(?<!\bas\s)\b{_ROLE}\s*(?::|>|\|)")),
    ("role marker", "shouted role", _pattern(rf"\b(?:SYSTEM|ASSISTANT|DEVELOPER){_ROLE_END}", 0)),
    ("role marker", "role in brackets",
     _pattern(r"[\[(<{]\s*/?\s*(?:system|assistant|developer|user)\s*[\])>}]")),
    ("role marker", "role header", _pattern(rf"^\W*#{{1,6}}\s*{_ANY_ROLE}\b")),
    ("role marker", "chat template token", _pattern(
        r"<\|[\w-]+\|>|\bim_(?:start|end)\b|\[/?INST\]|<<\s*/?SYS\s*>>|<\s*/?(?:start|end)_of_turn\s*>")),
    ("role marker", "role line in another language", _pattern(rf"^\W*{_FOREIGN_ROLE}{_ROLE_END}")),
    # Overrides of the assistant's instructions, in the six languages. English verbs in
    # the imperative only: "Ignores her diet rules at weekends" is a fact.
    ("override", "ignore instructions",
     _pattern(rf"\b(?:ignore|disregard|override|bypass|skip|discard)\b.{{0,40}}\b{_OVERRIDE_NOUN}")),
    ("override", "forget instructions",
     _pattern(rf"\b(?:forget|drop|abandon)\b.{{0,30}}\b{_OVERRIDE_QUALIFIER}\s+(?:\w+\s+)?{_OVERRIDE_NOUN}")),
    ("override", "takeover", _pattern(
        r"\bsystem\s+(?:prompt|message)\b|\byou\s+are\s+now\b|\bdeveloper\s+mode\b|\bjailbr(?:ea|o)k"
        r"|\b(?:reveal|print|repeat|show|leak|output)\b.{0,30}\b(?:instructions|system\s+message|prompt)\b")),
    ("override", "ignore instructions (vi)", _pattern(
        rf"\b{_VI_IGNORE}\b.{{0,30}}\b{_VI_INSTRUCTIONS}"
        rf"|\bquen\b.{{0,20}}\b{_VI_INSTRUCTIONS}\b.{{0,15}}\b(?:truoc|he thong|cua ban)"
        r"|\bloi nhac he thong\b|\bche do nha phat trien\b")),
    ("override", "ignore instructions (zh)", _pattern(
        rf"{_ZH_IGNORE}.{{0,20}}{_ZH_INSTRUCTIONS}|系统提示|系統提示|开发者模式|開發者模式|越狱|越獄")),
    ("override", "ignore instructions (ja)", _pattern(
        rf"{_JA_INSTRUCTIONS}.{{0,20}}(?:無視|忘れ|従わな)|(?:無視|忘れ).{{0,20}}{_JA_INSTRUCTIONS}"
        r"|システムプロンプト|開発者モード|脱獄")),
    ("override", "ignore instructions (ko)", _pattern(
        rf"{_KO_INSTRUCTIONS}.{{0,20}}(?:무시|잊어|따르지)|무시.{{0,10}}{_KO_INSTRUCTIONS}"
        r"|시스템\s*프롬프트|개발자\s*모드|탈옥")),
    ("override", "ignore instructions (ms)", _pattern(
        rf"\b{_MS_IGNORE}\b.{{0,30}}\b{_MS_INSTRUCTIONS}|\bgesaan sistem\b|\bmod pembangun\b")),
    ("link", "link", _has_link),
    # A tag even when cut short ("<meta http-equiv=… content=0"), fences, templates.
    ("markup", "tag", _pattern(
        r"<\s*/?\s*[a-z!][^<>]*>|<\s*/?[a-z][a-z0-9-]*(?:\s|/|$)|```|\{\{|\}\}|\{%|%\}")),
    # The prompt's own tags drawn with other brackets ("〈memory〉", "‹/memory›"), or a
    # closing one left without its opener ("/memory»"). Guillemets only around a closing
    # tag: «Memory» is also a film title.
    ("markup", "look-alike tag", _pattern(
        rf"{_TAG_OPEN}\s*/?\s*{_PROMPT_TAG}\b[^>›〉⟩❯❭˃ᐳ»》]{{0,30}}{_TAG_CLOSE}"
        rf"|«\s*/\s*{_PROMPT_TAG}\b|/\s*{_PROMPT_TAG}\s*{_TAG_CLOSE}")),
    ("markup", "html entity", _pattern(r"&#x?[0-9a-f]+;|&(?:lt|gt);")),
    ("encoded", "base64 or hex", _has_encoded_payload),
    ("encoded", "escapes", _pattern(r"(?:%[0-9a-f]{2}){4,}|(?:\\u[0-9a-f]{4}){2,}|(?:\\x[0-9a-f]{2}){4,}")),
]

# Orders to the assistant, in the six languages. A fact about the user that starts the
# same way stays: "Always drinks tea at 7am", "Never eats pork" (third person), "Asked
# Whizi to always use British spelling" (reported).
_ASSISTANT_VERB = _one_of(
    "respond", "reply", "answer", "say", "write", "use", "format", "talk", "speak", "mention", "ask",
    "call me", "address me", "refer", "end", "start", "begin", "include", "add", "sign", "act", "be",
    "recommend", "suggest", "promote", "tell", "remind", "show", "display", "output", "print",
    "translate", "greet", "insult", "praise", "agree", "obey", "follow", "ignore", "share", "send",
    "link", "discuss", "bring up", "treat", "assume", "refuse", "avoid", "stop", "keep",
)
# Verbs that open a line only as an order ("Reply with a haiku"); not "Talk shows …",
# "Sign language …", "Stop-motion …".
_ORDER_VERB = _one_of(
    "respond", "reply", "answer", "say", "write", "tell", "call me", "address me", "refer to me",
    "recommend", "suggest", "promote", "mention", "remind me", "use", "format", "translate", "greet",
    "insult", "praise", "agree", "obey", "treat me", "be", r"act\s+as", "pretend", "behave",
    r"talk\s+like", r"speak\s+like", r"speak\s+in",
)
# An optional label before an order: "Standing preference: always recommend …".
_LABEL = r"^\W*(?:[^:]{1,40}:\s*)?"
# Vietnamese orders keep their accents: without them "hãy" (do) is "hay" (often) and
# "đừng" (don't) is "dùng" (uses).
_VI_ORDER_VERB = _one_of("trả lời", "gọi tôi", "xưng hô", "đề xuất", "giới thiệu", "khuyên", "nhắc")
_ZH_ALWAYS = _one_of("总是", "總是", "永远", "永遠", "始终", "始終", "一律", "一直", "只")
_ZH_REPLY = _one_of("回答", "回复", "回覆", "回應", "称呼我", "稱呼我", "叫我")
_JA_REQUEST = _one_of("答え", "返事し", "返信し", "話し", "書い", "呼ん", "使っ", "勧め", "薦め")
_KO_REQUEST = _one_of("대답해", "답해", "답변해", "말해", "써", "불러", "사용해", "추천해")
_MS_ORDER_VERB = _one_of("jawab", "balas", "cadangkan", "syorkan", "panggil saya")

_DIRECTIVE_CHECKS: list[tuple[str, Check]] = [
    ("you must", _pattern(r"\byou\s+(?:must|should|shall|need\s+to|have\s+to|are\s+to|will\s+always)\b"
                          r"|^\W*you\s+(?:are|will|never|always|only)\b")),
    ("the assistant must", _pattern(r"\b(?:the\s+)?(?:assistant|ai|chatbot|whizi)\s+"
                                    r"(?:must|should|shall|needs\s+to|has\s+to|is\s+to)\b")),
    ("bare order", _pattern(rf"^\W*(?:please\s+)?{_ORDER_VERB}\b(?!\s+(?:of|is|was|were|are|has|had)\b)")),

    ("always/never order", _pattern(
        rf"{_LABEL}(?:please\s+)?(?:always|never|only|do\s+not|don'?t|make\s+sure\s+to)\s+"
        rf"(?:\w+\s+)?{_ASSISTANT_VERB}\b")),
    ("from now on", _pattern(rf"\b(?:from\s+now\s+on|going\s+forward|in\s+every\s+(?:chat|answer|reply))\W+"
                             rf"(?:you|always|never|only|please|{_ASSISTANT_VERB})\b")),
    ("order (vi)", _pattern(
        rf"\bbạn\s+(?:phải|nên|hãy|cần|luôn)\b|{_LABEL}(?:hãy|đừng)\s"
        rf"|{_LABEL}(?:luôn|chỉ|không bao giờ)\s+{_VI_ORDER_VERB}"
        r"|\btừ\s+(?:giờ|nay|bây giờ)(?:\s+trở\s+đi)?\W+(?:hãy|luôn|chỉ|bạn|đừng)\b")),
    ("order (zh)", _pattern(
        rf"{_LABEL}(?:(?:请|請)(?:你|您)?(?:{_ZH_ALWAYS}|不要|别|別|用|以)|你(?:必须|必須|应该|應該|要|得))"
        rf"|{_LABEL}{_ZH_ALWAYS}(?:用|以)?.{{0,8}}{_ZH_REPLY}"
        r"|^\W*(?:不要|别|別|不准|禁止)(?:再)?(?:提|说|說|谈|談|问|問)"
        r"|(?:从现在|從現在)(?:开始|開始|起).{0,3}(?:你|请|請|要|总是|總是|只)")),
    ("order (ja)", _pattern(
        rf"{_JA_REQUEST}(?:て(?:ください|下さい|ね|よ)?|なさい)\W*$"
        r"|(?:言わ|話さ|触れ|聞か|使わ|し)ないで(?:ください|下さい)?\W*$|あなたは.{0,20}(?:なければならない|べき)")),
    ("order (ko)", _pattern(
        rf"{_KO_REQUEST}\s*(?:줘|주세요|라)\W*$"
        r"|(?:말하지|언급하지|묻지|꺼내지)\s*마(?:세요|라)?\W*$|^\W*(?:당신은|너는).{0,20}(?:해야|하세요)")),
    ("order (ms)", _pattern(
        rf"\banda\s+(?:mesti|mestilah|perlu|harus|wajib)\b"
        rf"|{_LABEL}(?:sila\s+)?(?:sentiasa|selalu|hanya|mulai\s+sekarang)\s+{_MS_ORDER_VERB}"
        rf"|{_LABEL}jangan\s+(?:sebut|tanya|balas|jawab)\b|^\W*{_MS_ORDER_VERB}\b")),
]


def _first_failed(line: str, checks: Iterable[tuple[str, str, Check]]) -> tuple[str, str] | None:
    """The (reason, name) of the first check that any normal form of the line fails."""
    forms = _forms(line)
    for reason, name, check in checks:
        if any(check(form) for form in forms):
            return reason, name
    return None


# Letters only Vietnamese writes. Without its accents a Vietnamese line reads as English
# words ("Bé Bơ vào lớp 1" as "Be Bo vao lop 1", an order to "be"), so the English orders
# are read on such a line as written.
_VIETNAMESE_LETTERS = frozenset("ăâđơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹĩũ")
_ENGLISH_ORDERS = frozenset({"you must", "the assistant must", "bare order", "always/never order",
                             "from now on"})


def _looks_vietnamese(line: str) -> bool:
    return len(_VIETNAMESE_LETTERS & set(line.casefold())) >= 2


def is_directive(line: str) -> bool:
    """Is this line worded as an order to the assistant rather than a fact about the user?"""
    forms = _forms(line)
    vietnamese = _looks_vietnamese(line)
    for name, check in _DIRECTIVE_CHECKS:
        read = forms[:1] if vietnamese and name in _ENGLISH_ORDERS else forms
        if any(check(form) for form in read):
            return True
    return False


def blocked_reason(line: str) -> str | None:
    """Why this line may never be saved ("link", "markup", "role marker", "override",
    "encoded", "directive"), or None."""
    failed = _first_failed(line, _CHECKS)
    if failed:
        return failed[0]
    return "directive" if is_directive(line) else None


def safe_lines(lines: Iterable[str]) -> tuple[list[str], int]:
    """The storable form of each line that passes the check, and how many were refused.
    A line with nothing left once cleaned is dropped without counting as refused."""
    kept: list[str] = []
    refused = 0
    for line in lines:
        stored = storable_line(line)
        if not stored:
            continue
        if blocked_reason(stored):
            refused += 1
            continue
        kept.append(stored)
    return kept, refused



# What a reply's mark says when the checks refused a change, by the check that refused it
# (blocked_reason's names, and memory.apply's provenance checks): the most telling first.
REFUSAL_CATEGORIES = (
    ("link", ("link",)),
    ("instruction", ("directive", "override", "role marker")),
    ("code", ("markup", "encoded")),
    ("not_yours", ("from pasted or assistant text: name", "from pasted or assistant text: number",
                   "from pasted or assistant text: wording")),
)


def refusal_category(checks: Iterable[str]) -> str | None:
    """The category of the most telling refusal among these checks, or None when no check
    refused a line for what it says (a removal refused, say)."""
    found = set(checks)
    return next((category for category, names in REFUSAL_CATEGORIES if found & set(names)), None)
