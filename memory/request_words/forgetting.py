"""The words of forgetting, dropping or no longer mentioning something, in the six
languages (memory.grammar.forget_asked reads them)."""

from __future__ import annotations

import re

# Words of forgetting, dropping or no longer mentioning, in the six languages. Not a grammar:
# whether the user asks, and for what, is the memory model's reading (docs/DESIGN.md §3);
# this only tells whether the user's own words speak of forgetting at all (memory.apply).
FORGET_WORDS = re.compile(
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
