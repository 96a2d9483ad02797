"""Malay: how a remember or forget request is worded (memory/grammar.py reads it)."""

from __future__ import annotations

from memory.request_words.base import CONTENT, F, R, RequestWords, forms

_MS_LEAD = (
    r"^(?:(?:tolong|sila|boleh|awak|kamu|anda|whizi|ok|okey|oh|dan|juga|jadi|eh|hai|mulai sekarang)\b"
    r"[\s,]*)*+"
)
_MS_MEMORY = r"(?:ingatan|memori)(?:\s+(?:awak|anda|kamu))?"
MALAY = RequestWords(
    forms=forms(F,
                _MS_LEAD + r"(?:lupakan(?:lah)?\b(?!\s+(?:saja|sahaja|je|jelah)\s*$)|jangan ingat\b)"
                r"(?:\s+(?:tentang|pasal|mengenai|bahawa|yang))?[\s:,]*" + CONTENT,
                _MS_LEAD + rf"(?:padam(?:kan)?|buang(?:kan)?|hapus(?:kan)?)\s+{CONTENT}\s+(?:dari|daripada)"
                rf"\s+{_MS_MEMORY}",
                _MS_LEAD + rf"jangan\s+(?:sebut|cakap pasal|ungkit)\s+{CONTENT}\s+(?:lagi)")
    + forms(R,
            _MS_LEAD + r"(?:ingat(?:lah)?\b(?!\s+(?:tak|tidak|x|ke|kah)\b)|jangan (?:lupa|lupakan"
            r"|sampai lupa)\b|catat(?:kan)?\b|hafal\b|ambil perhatian\b)(?:\s+(?:bahawa|yang|ya|ye"
            r"|tau|ok)\b)*[\s:,]*" + CONTENT,
            _MS_LEAD + rf"simpan(?:kan)?\s+{CONTENT}\s*(?:dalam|dlm|ke dalam)\s+{_MS_MEMORY}",
            _MS_LEAD + rf"simpan(?:kan)?\s+(?:dalam|dlm|ke dalam)\s+{_MS_MEMORY}\b[\s:,]*(?:bahawa\s+)?"
            + CONTENT),
    anaphora=r"(?:itu|ini|perkara itu|perkara ini|hal itu|apa yang saya (?:kata|cakap)|dia|orang itu)",
    names=r"nama (?:saya|aku)",
    everything=r"(?:semua|semuanya|segala-galanya|semua tentang saya|segalanya)",
    topic=r"^(?:tentang|pasal|mengenai|bahawa|yang)\s+",
    tail=r"(?:\s+(?:ya|ye|tau|ok|okey|boleh|tolong|je|lah|dari ingatan|daripada ingatan))+$",
    asks=r"^(?:boleh|bolehkah)\b",
    complement=r"^(?:bahawa|yang)\s+",
)
