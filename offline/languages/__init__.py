"""The six pattern tables, and which of them can read a given text."""

from __future__ import annotations

from offline.languages.base import IDENTITY_KINDS, Fact, Language, Rule
from offline.languages.en import ENGLISH
from offline.languages.ja import JAPANESE
from offline.languages.ko import KOREAN
from offline.languages.ms import MALAY
from offline.languages.vi import VIETNAMESE
from offline.languages.zh import CHINESE
from offline.text import detect_language, script_of

LANGUAGES: dict[str, Language] = {
    language.code: language for language in (ENGLISH, VIETNAMESE, CHINESE, JAPANESE, KOREAN, MALAY)
}

# Which tables can read a script: Han text may be Chinese or kanji-only Japanese.
_BY_SCRIPT = {
    "hangul": ("ko",),
    "kana": ("ja",),
    "han": ("zh-hans", "ja"),
    "latin": ("en", "vi", "ms"),
}


def language_for(text: str) -> Language:
    return LANGUAGES[detect_language(text)]


def candidates_for(text: str) -> list[Language]:
    """The detected language first, then the others sharing its script."""
    first = detect_language(text)
    codes = [first] + [code for code in _BY_SCRIPT[script_of(text)] if code != first]
    return [LANGUAGES[code] for code in codes]


__all__ = ["IDENTITY_KINDS", "LANGUAGES", "Fact", "Language", "Rule", "candidates_for", "language_for"]
