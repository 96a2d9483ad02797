"""English: how a remember or forget request is worded (memory/grammar.py reads it)."""

from __future__ import annotations

from memory.request_words.base import CONTENT, F, R, RequestWords, forms

_EN_LEAD = (
    r"^(?:(?:hey|hi|ok|okay|so|and|also|oh|btw|by the way|whizi|please|pls|plz|kindly|now|just|but|then"
    r"|actually|yeah|yes|anyway|one more thing)\b[\s,!]*)*+"
    r"(?:(?:can|could|would|will) you(?: please)?\s+|i (?:want|need|would like|'d like) you to\s+"
    r"|make sure (?:you |to )?|be sure to\s+|try to\s+)?(?:(?:please|pls|also|always)\s+)?"
)
_EN_MEMORY = r"(?:your |the |my )?memory"
ENGLISH = RequestWords(
    forms=forms(F,
                _EN_LEAD + r"forget\b(?!\s+(?:about\s+)?it\s*[.!,]*$)(?:\s+about)?[\s:,]*" + CONTENT
                + rf"(?:\s+(?:from|in) {_EN_MEMORY})?",
                _EN_LEAD + r"(?:unlearn|stop remembering|don'?t remember|do not remember)\b[\s:,]*" + CONTENT,
                _EN_LEAD + rf"(?:delete|remove|erase|wipe|drop|clear)\s+{CONTENT}\s+(?:from|in|out of)"
                rf" {_EN_MEMORY}",
                _EN_LEAD + r"(?:don'?t|do not|never)\s+(?:bring up|mention|talk about|ask about)\s+"
                + CONTENT + r"\s+(?:again|anymore|any more|ever again)")
    + forms(R,
            _EN_LEAD + r"(?:remember|memori[sz]e|(?:don'?t|do not|never) forget)\b"
            r"(?!\s*\?)(?!\s+(?:when|how|what|where|who|whether|if|the time|the day)\b)[\s:,]*" + CONTENT,
            _EN_LEAD + r"(?:note(?: down)?|take (?:a )?note(?: of)?|make a note(?: of)?|write down"
            r"|jot down)(?=[\s:,]|$)[\s:,]*" + CONTENT,
            _EN_LEAD + r"(?:write|jot|put) (?P<content>that|this|it) down\b",
            _EN_LEAD + r"(?:keep|bear) (?:(?P<content>that|this|it) )?in mind\b[\s:,]*(?:that\s+)?"
            r"(?P<rest>.*?)",
            _EN_LEAD + rf"(?:save|keep|store|put|add|commit)\s+{CONTENT}\s+(?:in|to|into) {_EN_MEMORY}"
            r"(?:[\s:,]+(?P<rest>.+))?",
            _EN_LEAD + rf"(?:save|keep|store|put|add) (?:in|to|into) {_EN_MEMORY}[\s:,]*(?:that\s+)?"
            + CONTENT),
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
