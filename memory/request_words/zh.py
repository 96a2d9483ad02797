"""Chinese (simplified): how a remember or forget request is worded (memory/grammar.py reads it)."""

from __future__ import annotations

from memory.request_words.base import CONTENT, F, R, RequestWords, forms

_ZH_LEAD = (r"^(?:(?:好的|那个|对了|另外|还有|嗯|哦)[，,\s]*)*+(?:从现在(?:开始|起)|以后|今后)?[，,\s]*+"
            r"(?:请你?|麻烦你?|你|帮我|给我|我希望你|我想让你|你要|一定要|要|千万)*+")
_ZH_END = r"(?:吧|哦|啊|哈|呀|一下|好吗|好不好)*"
CHINESE = RequestWords(
    forms=forms(F,
                _ZH_LEAD + r"(?:忘记|忘掉|忘了|别记着|不要记住|别记住|别再记着"
                r"|从记忆(?:里|中)?(?:删除|删掉|去掉|抹去)|删除|删掉)" + CONTENT + _ZH_END,
                _ZH_LEAD + r"把" + CONTENT + r"(?:忘了|忘掉|忘记|从记忆(?:里|中)?(?:删除|删掉|去掉)"
                r"|删掉|删了|删除)" + _ZH_END,
                r"^" + CONTENT + r"(?:的事情?|的事儿)?(?:以后)?(?:别|不要)再?提(?:了|起)?" + _ZH_END,
                # "别再提他了": don't bring him up again (not 提醒, remind).
                _ZH_LEAD + r"(?:别|不要)再?提起?(?!醒)" + CONTENT + r"了?" + _ZH_END)
    + forms(R,
            _ZH_LEAD + r"(?:记住|记下来|记下|记一下|记好|记着|牢记|记得|别忘了|不要忘了|不要忘记"
            r"|别忘记|千万别忘了?|保存到记忆里?|存到记忆里?|留在记忆里)[：:，,]?\s*" + CONTENT + _ZH_END,
            _ZH_LEAD + r"把" + CONTENT + r"(?:记住|记下来|记下|记好|保存到记忆里?|存到记忆里?|留在记忆里"
            r"|记在心里)" + _ZH_END),
    anaphora=r"(?:这个|这件事|这些|这点|这条|那个|那件事|它|这|那|我说的|我刚才说的(?:话)?|他|她|那个人)",
    names=r"我的名字",
    everything=r"(?:所有(?:的)?(?:事情|内容|东西)?|一切|全部|关于我的一切|所有关于我的(?:事|内容))",
    topic=r"^(?:关于|有关)|(?:的事情?|的事儿)$",
    tail=r"(?:吧|哦|啊|哈|呀|一下|好吗)+$",
)
