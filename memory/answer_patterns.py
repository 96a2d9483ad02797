"""What the parser (memory/parse.py) recognises in a memory model's answer
(docs/DESIGN.md §7, "Read leniently, saved strictly"): the tags and marks of a line, and
the words for no change, placeholders, refusals, notes, prose and section headers, in
the languages models answer in. Tables only; the reading is memory.parse.
"""

from __future__ import annotations

import re

from memory.prompts import NO_CHANGE

# Reasoning a model shows before its answer; an unclosed block runs to the end, and a
# close with no open (the provider cut the opening tag) hides what came before it.
THINKING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.IGNORECASE | re.DOTALL)
THINK_CLOSE = re.compile(r"\A.*</(?:think|thinking|reasoning)>", re.IGNORECASE | re.DOTALL)
FENCE = re.compile(r"^[ \t]*(`{3,}+|~{3,}+)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
# Bullets, numbers, checkboxes, quote marks and bold a model puts before a line.
MARK = re.compile(
    r"^\s*(?:(?:[-*•·‣▪●◦–—+]|\d{1,3}[.)]|\(\d{1,3}\)|\[[ xX]?\])\s+|>\s*|\*\*|__(?=\S))+")
MARKED = re.compile(r"^\s*(?:[-*•·‣▪●◦–—+]|\d{1,3}[.)]|\(\d{1,3}\))\s+\S")
QUOTES = "\"'“”‘’„「」『』«»`"
WRAPS = ("**", "__", "*", "_", "`")
TAG = re.compile(
    r"^[*_`]*\[\s*(?:(?P<add>\+|new|add(?:ed)?)|(?P<minus>[-−–—])\s*(?P<removed>\d{1,4})"
    r"|(?:#|L|id\s*|line\s*)?(?P<edited>\d{1,4}))\s*\][*_`]*\s*[:.\-–—=]?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# "NO CHANGE" (also after a note: "NO CHANGE — nothing durable"), and the words a model
# uses for it alone on a line ("EMPTY" was the old answer for "nothing": never a wipe).
NO_CHANGE_WORDS = re.compile(
    rf"^\W*(?:{NO_CHANGE}|no[\s_-]*changes?)\b"
    r"|^\W*(?:nochange|unchanged|empty|no changes? (?:needed|required|necessary)|変更(?:なし|はありません)|"
    r"변경\s*(?:사항\s*)?없음|không (?:có )?thay đổi(?: gì)?|(?:无|没有|沒有)(?:变化|更改|變更|改变)|"
    r"(?:tiada|tidak ada) perubahan)\W*$", re.IGNORECASE)
# What a model writes where a line would be, meaning "nothing here".
PLACEHOLDER = re.compile(
    r"^\W*(?:none|n/?a|nil|null|nothing|không có(?: gì)?(?: mới)?|không|无|沒有|没有|なし|特になし|"
    r"없음|없습니다|tiada|tidak ada|ninguno|aucun|keine|以上(?:です)?|이상입니다|이상이에요|就这些)\W*$"
    r"|^\W*(?:none|n/?a|nil|nothing)(?:\s*[-–—:;,(]|\s+(?:needed|required|found|here|new|else|"
    r"to (?:add|report|change|update)|at this time)\b)"
    r"|^\W*(?:nothing|no)\s+(?:other\s+|new\s+|more\s+|further\s+|additional\s+)*(?:durable\s+)?"
    r"(?:facts?|changes?|updates?|information|details|lines?|to\s+(?:add|remember|change|update))\b"
    r"|^\W*no other\b|^[\W_]*$|^\(.*\)$|^\[.*\]$|^~~.*~~$",
    re.IGNORECASE,
)
# An edit whose text only says "keep it": the saved line stays.
KEEP_WORDS = re.compile(r"^\W*(?:unchanged|keep|kept|same|no change|as is|as before|no edit)\W*$", re.I)
# "(unchanged)", "(new)", "(was: …)", "— the user moved" after a line: notes about it,
# not part of it; and ~~struck-out~~ text, which the model meant as gone.
ANNOTATION = re.compile(
    r"\s*[(\[](?:unchanged|kept|keep|no change|edited|updated|new|added|modified|same|"
    r"(?:was|previously|formerly|before|old|the user|user|per (?:the )?user|because|since|"
    r"as requested|requested|from (?:the )?(?:conversation|chat))\b[^)\]]*)[)\]]\s*$"
    r"|\s+(?:[-–—]+|//)\s*(?:unchanged|kept|new|added|edited|updated|the user|user|because|since|"
    r"as requested|per (?:the )?user|was|previously)\b.*$"
    r"|~~[^~]+~~",
    re.IGNORECASE,
)
ARROW = re.compile(r"\s+(?:→|->|=>|⇒)\s+")
REFUSAL = re.compile(
    r"\b(?:i['’]?m sorry|i am sorry|sorry,? but|i apologi[sz]e|as an ai\b|as a language model"
    r"|i (?:can(?:no|['’])?t|cannot|won['’]t|will not|am unable to|['’]m unable to|am not able to|"
    r"['’]m not able to)\s+(?:\w+\s+){0,3}?(?:store|save|remember|keep|retain|record|"
    r"collect|process|help|assist|comply|provide|do that)\b"
    r"|i (?:do not|don['’]t) (?:store|save|retain|record|collect))"
    r"|抱歉|对不起|對不起|无法(?:存储|保存|记住|记录|处理|帮助|提供)|無法(?:儲存|保存|記住)"
    r"|申し訳|(?:保存|記憶|記録|お手伝い)(?:すること)?(?:は|が)?できません"
    r"|죄송|(?:저장|기억|기록|도와\s*드릴)\S{0,12}\s*수\s*없"
    r"|\bmaaf\b|tidak (?:dapat|boleh) (?:menyimpan|mengingat|membantu)"
    r"|xin lỗi|không thể (?:lưu|ghi nhớ|nhớ|giúp|cung cấp|xử lý)"
    r"|lo siento|no puedo (?:almacenar|guardar|recordar|ayudar)|\bdésolée?\b|je ne peux pas"
    r"|tut mir leid|ich kann (?:keine|nicht)|desculpe|não posso",
    re.IGNORECASE,
)
# A line about the changes rather than a fact: "Updated line 2 because the user moved".
NOTE_LINE = re.compile(
    r"^\W*(?:updated|added|removed|edited|deleted|replaced|changed line|no need)\b"
    r"|^\W*(?:kept|merged|dropped|corrected|modified)\s+(?:line|the|a|an|this|that|it|fact|entry|"
    r"item|[\[\"'“‘]|\d)"
    r"|\b(?:because|since|as) the user\b|\bthe user (?:said|mentioned|stated|asked|told|explained|"
    r"indicated|shared|noted|requested|wants me|only|just|did|didn['’]t)\b"
    r"|^\W*(?:everything|all|the rest) else\b|^\W*kept (?:everything|all|the rest|other)\b"
    r"|\bline \d+\b|\[\s*[-+]?\d*\s*\]|\b(?:this|the|that) (?:conversation|chat|exchange)\b"
    r"|\bdurable\b|\bworth (?:saving|keeping|remembering|storing)\b|\bsaved (?:list|memory)\b"
    r"|</?think|```|~~~",
    re.IGNORECASE,
)
# How chatty prose starts: a preamble, an aside, a closing line.
PROSE = re.compile(
    r"^\W*(?:here(?:['’]s| is| are)|(?:sure|okay|ok|certainly|of course|absolutely|great|got it|"
    r"understood|alright|done)\s*[!,.:]|based on|according to|after (?:review|read|look)|looking at|"
    r"reviewing|i\b|i['’]|we\b|let me|let['’]s|the (?:following|updated|changes?|list|memory|new|"
    r"saved|answer)\b|this (?:is|conversation|chat)\b|these are\b|there (?:is|are|was|were)\b|"
    r"it (?:seems|looks|appears)|as (?:requested|an ai)|(?:below|above)[\s:,]|note\b|hope\b|"
    r"let me know|feel free|thanks?\b)",
    re.IGNORECASE,
)
# Section headers whose lines talk about the answer rather than being it.
EXPLANATION = (
    r"notes?|explanations?|reasoning|reasons?|rationale|why|justifications?|comments?|commentary|"
    r"analysis|thoughts?|observations?|context|remarks?|ghi chú|giải thích|lý do|说明|說明|解释|"
    r"解釋|备注|理由|注意|メモ|備考|설명|참고|이유|nota|notas|catatan|penjelasan|sebab"
)
CHANGE_SUMMARY = r"changes?(?:\s+made)?|summary(?:\s+of\s+changes)?|what changed|change log|changelog"
GONE = r"removed|deleted|forgotten|dropped|removals?|deletions?"
EXPLANATION_HEADER = re.compile(rf"^\W*(?:{EXPLANATION})\b", re.IGNORECASE)
# "Reason: the user moved", "Ghi chú: …": an explanation given on one line.
EXPLANATION_LINE = re.compile(rf"^\W*(?:{EXPLANATION})\s*[:：]", re.IGNORECASE)
SUMMARY_HEADER = re.compile(rf"^\W*(?:{CHANGE_SUMMARY})\W*$", re.IGNORECASE)
GONE_HEADER = re.compile(rf"^\W*(?:lines?\s+)?(?:{GONE})\b", re.IGNORECASE)
ANSWER_TITLE = re.compile(
    r"^\W*(?:updated |final |new |saved )?(?:memory|list|answer|changes?|facts|output|result)\W*$", re.I)
# Where JSON starts: "[" before a string, an object, a list or the end of the line, or
# "{" before a key (never a tag "[2]" or a checkbox "[ ]").
JSON_START = re.compile(r"^[ \t]*(?:\[\s*(?:[\"'{\[]|\]\s*$|$)|\{\s*(?:[\"'}]|$))", re.MULTILINE)
JSON_LIST_KEYS = ("memory", "updated_memory", "facts", "memories", "lines", "list", "items",
                   "updated_list", "memory_list", "saved_memory", "changes", "answer")
JSON_TEXT_KEYS = ("fact", "text", "line", "content", "value", "memory", "new_text", "new")
JSON_ADD_KEYS = ("add", "adds", "added", "new", "additions", "new_facts")
JSON_EDIT_KEYS = ("edit", "edits", "edited", "update", "updates", "updated")
JSON_REMOVE_KEYS = ("remove", "removals", "removed", "delete", "deleted", "deletions")

# "There's nothing new to remember", "the list stays the same".
NO_CHANGE_PROSE = re.compile(
    r"\bno (?:\w+ )?(?:changes?|updates?)\b|\bnothing (?:\w+ )?(?:new|to (?:add|change|update|remember|"
    r"save|store))\b|\bno new (?:\w+ )?(?:facts?|information|details)\b|\bunchanged\b"
    r"|\b(?:stays?|remains?) (?:the same|as it is)\b|\bno durable\b",
    re.IGNORECASE,
)

# A markdown heading, and a bold line that may be one.
HEADING = re.compile(r"#{1,6}\s")
BOLD_LINE = re.compile(r"(\*\*|__)[^*_]{1,60}\1:?")
# A table's columns: the one holding the facts, or a two-column "field | value" table.
FACT_COLUMN = re.compile(r"(?:fact|memory|line|text)")
PAIR_COLUMN = re.compile(r"(?:category|type|field|key|topic|attribute|aspect)")
# A cell marking its row as removed.
GONE_CELL = re.compile(rf"\W*(?:{GONE})\W*", re.IGNORECASE)

