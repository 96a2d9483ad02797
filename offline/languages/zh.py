"""Simplified Chinese patterns. Lines drop "我" ("住在北京", "喜欢猫")."""

import re

from offline.languages.base import Language, Rule
from offline.text import tidy

NAME = r"(?P<value>[^\s，,。！？!?、；;：:]{1,20})"
RELATIONS = (
    r"妻子|老婆|太太|丈夫|老公|先生|爱人|男朋友|女朋友|男友|女友|未婚夫|未婚妻|妹妹|姐姐|哥哥|弟弟|妈妈"
    r"|母亲|爸爸|父亲|儿子|女儿|孩子|爷爷|奶奶|外公|外婆|最好的朋友|好朋友|朋友|室友|老板|上司|狗|猫|宠物"
)
# Occupation words end like these (工程师, 程序员, 医生, 作家 …).
JOB = (r"[\u4e00-\u9fff]{0,6}(?:师|员|医生|家|工|手|者|警察|官|护士|老板|经理|会计|司机|记者|演员|歌手|厨师"
       r"|律师|主妇)")

RULES = [
    # Self-introduction: "我叫王小明", "我的名字是王小明" → "名字是王小明".
    Rule("name", rf"(?:{{MY}})?名字(?:是|叫|：|:)\s*{NAME}", "名字是{value}", name=True),
    Rule("name", rf"{{I}}叫{NAME}", "名字是{value}", name=True),
    Rule("nickname", rf"(?:你)?(?:可以|就)?叫我{NAME}(?:就行|就好|吧)?", "希望被称为{value}", name=True),
    Rule("nickname", rf"希望被称为{NAME}", "希望被称为{value}", name=True),
    Rule("personal", r"(?:{MY})?(?P<attr>生日|出生日期)(?:是|在|：|:)\s*(?P<value>.+)", "{attr}是{value}"),
    Rule("personal", r"(?:{I})?(?:今年)?(?P<value>\d{1,3})岁(?:了)?", "{value}岁"),
    # Where they live.
    Rule("home", r"(?:{I})?(?:现在|目前)?(?:住在|生活在)(?P<value>.+)", "住在{value}"),
    Rule("home", r"(?:{I})?(?:现在|目前)?在(?P<value>.+?)(?:生活|居住)", "住在{value}"),
    Rule("home", r"(?:{I})?家在(?P<value>.+)", "家在{value}"),
    Rule("home", r"(?:{I})?(?:已经|最近)?(?:从.+?)?搬(?:到|去|回|进)了?(?P<value>.+?)了?", "住在{value}"),
    Rule("origin", r"(?:{I})?来自(?P<value>.+)", "来自{value}"),
    Rule("origin", r"(?:{I})?是(?P<value>(?!一个|一名|个)[\u4e00-\u9fff]{1,8})人", "是{value}人"),
    # Work and study.
    Rule("workplace", r"(?:{I})?在(?P<value>.+?)(?:工作|上班|任职)", "在{value}工作"),
    Rule("workplace", r"(?:{I})?(?:已经|刚)?(?:跳槽到|跳槽去|入职|加入)了?(?P<value>.+?)了?",
         "在{value}工作"),
    Rule("role", r"(?:{MY})?(?:工作|职业)(?:是|：|:)\s*(?P<value>.+)", "工作是{value}"),
    Rule("role", r"(?:{I})?从事(?P<value>.+)", "从事{value}"),
    Rule("role", r"(?:{I})?是(?:做|搞|干)(?P<value>.+?)的", "做{value}"),
    Rule("role", r"(?:{I})?在(?P<place>[^做当]+?)(?:做|当)(?P<value>.+)", "在{place}做{value}"),
    Rule("study", r"(?:{I})?是(?P<value>.{0,12}?(?:学生|研究生|大学生|博士生|留学生|中学生|高中生))",
         "是{value}"),
    Rule("study", r"(?:{I})?在(?P<value>.+?)(?P<verb>上学|读书|念书|读大学|读研|读博|留学|上大学)",
         "在{value}{verb}"),
    Rule("role", rf"(?:{{I}})?(?:是|当)(?:一名|一个|一位|名|个)?(?P<value>{JOB})", "是{value}"),
    Rule("learning", r"(?:{I})?(?:正在|在)?学(?:习)?(?!到|会|了|生)(?P<value>.+)", "在学{value}"),
    Rule("diet", r"(?:{I})?(?:是)?(?P<value>素食者|吃素|纯素食者)", "{value}"),
    Rule("diet", r"(?:{I})?不吃(?P<value>.+)", "不吃{value}"),
    # Family: "我妹妹叫小红" → "妹妹叫小红"; "我妹妹的生日是3月12日".
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})的(?P<attr>[^是叫在]{{1,6}})(?P<verb>是|叫)(?P<value>.+)",
         "{rel}的{attr}{verb}{value}"),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?P<value>.{{0,4}}?(?:满|快)?"
                   r"(?:\d+|[一二两三四五六七八九十]+)岁.*)", "{rel}{value}"),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?P<verb>叫|名叫|是|在|住在|喜欢|今年|有|也)(?P<value>.+)",
         "{rel}{verb}{value}"),
    Rule("has", rf"(?:{{I}})?有(?P<value>(?:一|两|二|三|四|五|\d+)(?:个|只|条|位)(?P<rel>{RELATIONS}).*)",
         "有{value}"),
    Rule("status", r"(?:{I})?(?:已经)?(?P<value>结婚了|已婚|订婚了|离婚了|单身)", "{value}"),
    # Tastes: favourites and preferences before plain "喜欢".
    Rule("favourite", r"(?:{MY})?最喜欢的(?P<thing>[^是]{1,8})是(?P<value>.+)", "最喜欢的{thing}是{value}"),
    Rule("preference", r"(?:{I})?(?:更喜欢|比较喜欢)(?P<value>.+)", "更喜欢{value}"),
    Rule("dislike", r"(?:{I})?(?:很|非常|特别|真的|最)?(?P<verb>不喜欢|讨厌|不爱|受不了|怕)(?P<value>.+)",
         "{verb}{value}"),
    Rule("like", r"(?:{I})?(?:很|非常|特别|超|真的|也|超级)?(?P<verb>喜欢|爱|热爱|喜爱)(?P<value>.+)",
         "{verb}{value}"),
    # Something under way: "我们在装修新房".
    Rule("ongoing", r"(?:{I})?(?:正在|在|正)(?P<value>(?:装修|筹备|准备|备考|考研|找工作|找房|创业|申请|办"
                    r"|攒钱).+)",
         "在{value}"),
    # Goals.
    Rule("goal", r"{MY}(?P<g>目标|梦想|计划)(?:是|：|:)(?P<value>.+)", "{g}是{value}"),
    Rule("goal", r"(?:{I})?(?P<verb>想成为|想当|希望成为|打算|计划|准备|梦想成为)(?P<value>.+)",
         "{verb}{value}"),
    # "我是王小明" only after a greeting ("你好，我是王小明"), after the 是-rules above.
    Rule("name", rf"{{I}}是{NAME}", "名字是{value}", greeting=True, name=True),
]


def prefers(order: str) -> str:
    """"以后回答我都用简体中文" → "希望回答用简体中文"."""
    text = re.sub(r"以后|从现在(?:开始|起)|今后|总是|一直|永远|每次|都|请|你|给我", "", order)
    text = tidy(re.sub(r"(?<=[答复说写])我", "", text))
    return f"希望{text}" if text else ""


def about_user(text: str) -> str:
    text = re.sub(r"(?:啦|呀|哦|呢|吧|嘛)$", "", tidy(text))
    return re.sub(r"^(?:我们家|我家|我们|我的|我)(?=.)", "", text)


CHINESE = Language(
    code="zh-hans",
    script="han",
    subject=r"我们家|我家|我们|咱们|我",
    possessive=r"我的?",
    relations=RELATIONS,
    rules=RULES,
    lead_in=r"^(?:其实|实际上|事实上|对了|顺便说一下|顺便说|你好|您好|嗨|哈喽|大家好|嗯|哦|那个|不对|抱歉"
            r"|更正一下|纠正一下|另外|还有|而且|我想说)[\s，,！!。：:]*",
    clause_split=r"[，,；;]\s*",
    correcting=r"^(?:其实|实际上|不对|抱歉|更正一下|纠正一下)",
    health=r"病|糖尿|过敏|哮喘|抑郁|焦虑|癌|吃药|药物|诊断|手术|怀孕|血压|治疗|医生说|体重|减肥|症",
    money=r"工资|薪水|薪资|收入|月薪|年薪|存款|贷款|房贷|欠|债|投资|股票|银行|信用卡|预算|\d+\s*(?:元|块"
          r"|万)|[¥￥]\s?\d",
    app=r"whizi|这个应用|这个app|应用程序|聊天机器人|机器人|助手|界面|模型|功能|你的回答|你的回复|chatgpt"
        r"|gpt|claude",
    style=r"回答|回复|答复|说话|格式|项目符号|要点|语气|海盗|表情符号|用.{1,6}(?:语|文)(?:说|回)",
    directive=r"^(?:总是|永远|以后|从现在(?:开始|起)|用|请|回答|回复|不要|别|你要|你必须)",
    asked=r"^(?:问过|曾经问|询问过)",
    colours=r"红色|橙色|黄色|绿色|蓝色|紫色|粉色|棕色|黑色|白色|灰色|红|橙|黄|绿|蓝|紫|棕|黑|白|灰",
    injection=r"(?:忽略|无视|忘记).{0,10}(?:指令|指示|规则|提示)|你现在是|扮演|系统提示|越狱|开发者模式"
              r"|^\s*system\s*:",
    standing=r"总是|一直|以后|从现在(?:开始|起)|每次|所有(?:对话|聊天)|默认|更喜欢|偏好|永远",
    temporary=r"今天|今晚|此刻|刚才|这周|这个周末|昨天|明天|今早|今天早上|这几天",
    joke=r"开玩笑|哈哈|试试|就这一次|闹着玩|逗你|海盗",
    hypothetical=r"^(?:如果|假如|要是|假设|想象)",
    question=r"[?？]\s*$|[吗呢]$|^(?:什么|哪|谁|怎么|为什么|是不是)|什么|哪里|怎么样|多少",
    passing=r"^(?:你|您|它|这|那|这个|那个|这些|那些)|你|您",
    scene=r"在?这(?:个|一)?(?:场景|一幕|幕|章|回合)(?:里|中)?",
    story=r"在?这个(?:故事|平行宇宙|平行世界|版本|世界|剧情|角色扮演)(?:里|中)?|在?(?:平行宇宙"
          r"|另一个宇宙)(?:的故事)?(?:里|中)",
    corrections=[
        r"不是(?P<old>[^，,。—\-\s是]{1,8})[，,—\-\s]*(?:而)?是(?P<new>[^，,。\s]{1,8}?)(?:的)?"
        r"(?:[，,]\s*(?P<more>[^，,。]+))?$",
        r"是?(?P<new>[^，,。\s是]{1,8}?)(?:的)?[，,]\s*(?:而)?不是(?P<old>[^，,。\s]{1,8}?)(?:的)?$",
    ],
    filler=r"我|我的|的|了|是|在|和|这个|那个|关于",
    memory_question=r"你记得我(?:什么|哪些)|关于我你记得|你记住了(?:我)?(?:什么|哪些)|你(?:对我)?(?:知道"
                    r"|了解)(?:我)?(?:什么|多少|哪些)|你还记得我吗|我叫什么(?:名字)?|你记得关于我的"
                    r"|你都记得什么",
    greeting=r"^(?:你好|您好|嗨|哈喽|早上好|晚上好|大家好)",
    thanks=r"谢谢|多谢|感谢",
    standing_label="长期偏好：",
    joiner="、",
    about_user=about_user,
    trailing=r"(?:了|的|哦|啊|呀|吧|呢|啦|嘛|哈)$",
    change=r"开始|搬|入职|毕业|结婚|满\d+岁|上了",
    kidding=r"开玩笑|逗你|闹着玩",
    when=r"上个?(?:月|星期|周|礼拜)|(?:去|前|今)年(?:年底|年初|底)?|最近|这几年|(?<!从)现在|目前"
         r"|(?:快|已经|都)?(?:\d+|[一二两三四五六七八九十几半]+)(?:个)?(?:年|月|星期)(?:多)?了",
    ended=[r"(?:我)?(?:和|跟|与)(?P<who>.+?)(?:已经)?(?:分手|离婚|分开)了?.*",
           r"(?:我)?(?:已经)?(?:从)(?P<who>.+?)(?:辞职|离职)了?.*"],
    no_longer=r"不再|已经不",
    negators=r"不再|已经不|了$",
    fillers=r"呃|嗯|那个(?=\s*[…，、])|就是(?=\s*[…，、])",
    repair=r"不对|说错了|哦不",
    noise=r"滋滋|嗞嗞|沙沙|信号|听不清|断了|卡了",
    slots={
        "home": r"住|搬|生活在",
        "work": r"工作|上班|入职|工程师|做|当",
        "study": r"学|幼儿园|小学|中学|初中|高中|大学|年级|毕业|读",
        "age": r"\d+岁",
        "status": r"结婚|离婚|订婚|单身|恋爱",
        "like": r"喜欢|爱|讨厌",
    },
    prefers=prefers,
    meat=r"肉|鱼|海鲜|鸡|牛|猪",
    vegetarian=r"素",
    named=r"叫|名字",
    dated=r"\d+月|年底|年初|月底|下个月|明年",
    replies={
        "notice": "我是Whizi的离线模型：这台服务器没有配置聊天模型，所以我无法回答问题，也不知道这段对话以"
                  "外的任何事情。",
        "hint": "你可以问我“你记得我什么？”来查看Whizi保存的内容。",
        "greet": "你好{name}！",
        "greet_name": "，{name}",
        "nice": "很高兴认识你，{name}！",
        "thanks": "不客气！",
        "memory": "这是我记得的关于你的内容：",
        "memory_empty": "我还没有记住关于你的任何内容。",
        "request": "Whizi的记忆会在这条回复之后于后台更新，所以我无法在这里确认会保存什么。你可以在设置的“W"
                   "hizi记住的内容”中查看。",
        "forget": "Whizi的记忆会在这条回复之后于后台更新。你可以在设置的“Whizi记住的内容”中查看或清除。",
    },
)
