"""Vietnamese: how a remember or forget request is worded (memory/grammar.py reads it)."""

from __future__ import annotations

from memory.request_words.base import CONTENT, F, R, RequestWords, forms

_VI_LEAD = (
    r"^(?:(?:à|ờ|ừ|ok|okay|vậy|và|còn|nhân tiện|nhân đây|này|ê|whizi|bạn|cậu|mày|à mà|mà)\b[\s,]*)*+"
    r"(?:(?:hãy|làm ơn|xin|vui lòng|giúp tôi|giúp mình|giùm tôi|giùm mình|bạn hãy|nhớ là)\s+)*"
)
_VI_HELP = r"(?:\s+(?:giúp|giùm|dùm|hộ)(?:\s+(?:tôi|mình|em|tớ))?)?"
_VI_MEMORY = r"(?:bộ nhớ|trí nhớ)"
VIETNAMESE = RequestWords(
    forms=forms(F,
                _VI_LEAD + r"(?:quên(?=\s+(?:điều|chuyện|việc|cái|thông tin|hết|tất cả|mọi|đi|rằng|là"
                r"|tên|giúp|giùm|về)\b|.*\bđi$)|đừng nhớ|không cần nhớ)\b" + _VI_HELP
                + r"(?:\s+(?:đi|chuyện|việc|điều|là|rằng|về)\b)*[\s:,]*" + CONTENT,
                _VI_LEAD + rf"(?:xóa|xoá|bỏ)\s+{CONTENT}\s+(?:khỏi|trong) {_VI_MEMORY}",
                _VI_LEAD + rf"(?:xóa|xoá)\s+{CONTENT}\s+đi",
                _VI_LEAD + rf"đừng\s+(?:nhắc|nhắc lại|nhắc tới|nhắc đến|nói về)\s+{CONTENT}\s+(?:nữa|lại)")
    + forms(R,
            _VI_LEAD + r"(?:ghi nhớ|nhớ(?=\s+(?:giúp|giùm|dùm|hộ|điều|chuyện|việc|cái|rằng|là|kỹ|kĩ|lấy"
            r"|cho|nhé|nha|nhá|nhe|đấy|đó|này|tên|thông tin)\b|\s*[:,]|$)|đừng quên|chớ quên"
            r"|không được quên|ghi lại|ghi chú|lưu lại|lưu)\b"
            + _VI_HELP + r"(?:\s+(?:rằng|là)\b)?[\s:,]*" + CONTENT,
            _VI_LEAD + rf"(?:lưu|giữ|ghi)\s+{CONTENT}\s+(?:vào|trong) {_VI_MEMORY}"),
    anaphora=r"(?:điều đó|điều này|cái đó|cái này|chuyện đó|chuyện này|việc đó|việc này|nó|đó|này"
             r"|những gì (?:tôi|mình) vừa nói|thông tin này|người đó|anh ấy|cô ấy|ông ấy|bà ấy)",
    names=r"tên (?:tôi|mình|của tôi|của mình)",
    everything=r"(?:tất cả|hết|mọi thứ|mọi điều|tất cả về (?:tôi|mình)|hết mọi thứ|hết đi)",
    topic=r"^(?:chuyện|việc|điều|về|hết chuyện|mọi thứ về)\s+",
    tail=r"(?:\s*\b(?:nhé|nha|nhá|nhe|đi|giùm|giúp|nữa|luôn|bạn|nhé bạn|khỏi bộ nhớ|khỏi trí nhớ))+$",
    complement=r"^(?:rằng|là)\s+",
)
