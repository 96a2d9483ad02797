"""Korean patterns. Lines drop "저는" and end in the plain memo form ("서울에 살고 있음")."""

import re

from offline.languages.base import Language, Rule
from offline.text import tidy

# The copula and polite endings a value may carry ("김민준입니다", "지아예요").
END = r"(?:입니다|이에요|예요|이야|야|이고요|고요|이다|에요|요)?"
NAME = r"(?P<value>[^\s,，.!?]{1,12}?|[^\s,，.!?]{1,6}\s[^\s,，.!?]{1,6}?)"
RELATIONS = (
    r"아내|와이프|남편|남자친구|여자친구|남친|여친|약혼자|약혼녀|누나|언니|오빠|형|여동생|남동생|동생|엄마"
    r"|어머니|아빠|아버지|아들|딸|아이들|아이|애들|할머니|할아버지|제일\s친한\s친구|친한\s친구|친구|베프"
    r"|상사|강아지|고양이|반려견|반려묘|개"
)
JOBS = (
    r"개발자|엔지니어|디자이너|교사|선생님|의사|간호사|변호사|회사원|공무원|작가|기자|연구원|요리사|셰프"
    r"|주부|사장|매니저|약사|경찰관|프로그래머|프리랜서|통역사|번역가|직장인"
)

# The endings of a 하다 verb: "일해요", "공부하고 있어요", "일하는데".
HA = r"(?:해요|해|합니다|함|하고\s?있(?:어요|습니다|어|음|는데|고)|하는데|하고|하며)"

RULES = [
    # Self-introduction: "제 이름은 김민준입니다" → "이름은 김민준".
    Rule("name", rf"(?:{{MY}})?이름은\s*{NAME}(?:이라고\s?합니다|라고\s?합니다|이라고\s?해요"
                 rf"|라고\s?해요)?{END}",
         "이름은 {value}", name=True),
    Rule("name", rf"(?:{{I}})?{NAME}(?:이라고|라고)\s?(?:합니다|해요|해)", "이름은 {value}", name=True),
    Rule("nickname", rf"{NAME}(?:이라고|라고)\s?불러\s?(?:주세요|줘|줘요|요)?", "호칭: {value}", name=True),
    Rule("nickname", rf"호칭:\s*{NAME}", "호칭: {value}", name=True),
    Rule("personal", r"(?:{MY})?(?P<attr>생일|생년월일)(?:은|는)\s(?P<value>.+?)" + END, "{attr}은 {value}"),
    Rule("personal", r"(?:{I})?(?P<value>\d{1,3}\s?(?:살|세))" + END, "{value}"),
    # Where they live.
    Rule("home", r"(?:{I})?(?:지금은\s|현재\s)?(?P<value>.+?)에(?:서)?\s(?:살아요|살고\s있어요"
                 r"|살고\s있습니다|삽니다|살아|살고\s있어|살고\s있다|살고\s있음|살고요|살고\s있고요"
                 r"|삶)", "{value}에 살고 있음"),
    Rule("home", r"(?:{I})?(?:.*?\s)?(?P<value>[^\s]+?)(?:으로|로)\s이사\s?(?:했어요|했습니다|했어|왔어요"
                 r"|왔습니다|왔어|했는데|왔는데)",
         "{value}에 살고 있음"),
    Rule("origin", r"(?:{I})?(?P<value>.+?)\s출신" + END, "{value} 출신"),
    Rule("origin", r"(?:{I})?(?P<value>.+?)에서\s왔(?:어요|습니다|어)", "{value} 출신"),
    # Work and study.
    Rule("workplace", r"(?:{I})?(?P<value>.+?)에서\s(?:(?P<as>.+?(?:으로|로))\s)?(?:일|근무)" + HA,
         "{value}에서 {as} 일함"),
    # "방송대에서 컴퓨터과학 공부하고 있어요": where, then what.
    Rule("study", r"(?:{I})?(?P<value>.*?\S에서\s.+?)\s(?P<verb>전공|공부)" + HA, "{value} {verb}하고 있음"),
    Rule("role", r"(?:{MY})?직업은\s*(?P<value>.+?)" + END, "직업은 {value}"),
    Rule("study", r"(?:{I})?(?P<value>.*?(?:학생|대학생|대학원생|고등학생|중학생))" + END, "{value}"),
    Rule("role", rf"(?:{{I}})?(?P<value>\S*\s?(?:{JOBS}))" + END, "직업은 {value}"),
    Rule("learning", r"(?:{I})?(?P<value>.+?)(?P<p>을|를)\s(?:공부하고\s있어요|공부해요|공부합니다"
                     r"|배우고\s있어요|배워요|공부하고\s있습니다|배우고\s있습니다"
                     r"|공부하고\s있음)", "{value}{p} 공부하고 있음"),
    Rule("diet", r"(?:{I})?(?P<value>채식주의자|비건|채식)" + END, "{value}"),
    # Family: "제 여동생 생일은 3월 12일이에요" → "여동생 생일은 3월 12일".
    Rule("family", rf"(?:{{MY}})?(?P<rel>{RELATIONS})(?:의)?\s(?P<attr>이름|생일|직업|나이)(?P<pa>은|는|이"
                   rf"|가)\s(?P<value>.+?){END}", "{rel} {attr}{pa} {value}"),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?P<pa>은|는|이|가)\s(?P<value>.+)", "{rel}{pa} {value}"),
    Rule("has", rf"(?:{{I}})?(?P<value>(?P<rel>{RELATIONS})(?:가|이)\s(?:(?:한|두|세|네|\d+)\s?(?:명"
                rf"|마리)\s)?"
                r"있(?:어요|습니다|어|고요|음))", "{value}"),
    # Something under way: "이직 준비 중이에요".
    Rule("ongoing", r"(?:{I})?(?P<value>.+?\s?(?:준비|공사|리모델링|치료|구직|이직)\s?중)" + END, "{value}"),
    Rule("ongoing", r"(?:{I})?(?P<value>.*?결혼)(?:해요|합니다|해|할\s?예정이에요|할\s?거예요)",
         "{value} 예정"),
    Rule("status", r"(?:{I})?(?P<value>결혼했(?:어요|습니다|어)|기혼|미혼|싱글|약혼했(?:어요|습니다)"
                   r"|결혼함)" + END,
         "{value}"),
    # Tastes.
    Rule("favourite", r"(?:{MY})?(?:제일\s|가장\s)?좋아하는\s(?P<thing>.+?)(?P<pa>은"
                      r"|는)\s(?P<value>.+?)" + END,
         "좋아하는 {thing}{pa} {value}"),
    Rule("preference", r"(?:{I})?(?P<value>.+?보다\s.+?(?:을|를|이|가)\s더\s좋아(?:해요|합니다|해|함))",
         "{value}"),
    Rule("dislike", r"(?:{I})?(?P<value>.+?)(?P<p>을|를|이|가)\s(?:정말\s|너무\s|진짜\s)?(?:싫어해요"
                    r"|싫어합니다|싫어해|싫어요|싫어|싫습니다|싫어함)", "{value}{p} 싫어함"),
    Rule("dislike", r"(?:{I})?(?P<value>.+?)(?P<p>을|를)\s(?:안\s좋아해요|좋아하지\s않아요|좋아하지\s않음)",
         "{value}{p} 좋아하지 않음"),
    Rule("like", r"(?:{I})?(?P<value>.+?)(?P<p>을|를|이|가)\s(?:정말\s|너무\s|아주\s|진짜\s"
                 r"|제일\s)?(?:좋아해요|좋아합니다|좋아해|좋아요|좋아|좋아하고\s있어요|좋습니다"
                 r"|좋아함)", "{value}{p} 좋아함"),
    Rule("like", r"(?:{I})?(?P<value>.+?)에\s?빠졌(?:어요|어|습니다)", "{value}에 빠져 있음"),
    Rule("role", r"(?:{I})?(?P<value>\S+?)(?:으로|로)\s(?:일|근무)" + HA, "{value}로 일함"),
    Rule("workplace", r"(?:{I})?(?:.*?\s)?(?P<value>\S+?)(?:으로|로)\s?(?:이직|입사|취직)"
                      r"(?:했어요|했습니다|했어|함)",
         "{value}에서 일함"),
    Rule("like", r"(?:{I})?(?P<value>.+?)(?P<p>을|를)\s(?:사랑해요|사랑합니다|사랑해"
                 r"|사랑함)", "{value}{p} 사랑함"),
    # Goals.
    Rule("goal", r"(?:{MY})?(?P<g>목표|꿈)(?:는|은)\s(?P<value>.+?)" + END, "{g}는 {value}"),
    Rule("goal", r"(?:{I})?(?P<value>.+?)(?P<p>이|가)\s되고\s싶(?:어요|습니다|어"
                 r"|음)", "{value}{p} 되고 싶음"),
    Rule("goal", r"(?:{I})?(?P<value>.+?)\s(?:계획이에요|계획입니다|계획|예정이에요"
                 r"|예정입니다)", "{value} 계획"),
    # "저는 김민준입니다" only after a greeting ("안녕하세요, 저는 김민준입니다").
    Rule("name", rf"{{I}}{NAME}(?:입니다|이에요|예요|이야|야)", "이름은 {value}", greeting=True, name=True),
]


_MEMO = [(r"있(?:어요|습니다|어)$", "있음"), (r"없(?:어요|습니다|어)$", "없음"),
         (r"했(?:어요|습니다|어)$", "했음"), (r"놨(?:어요|습니다|어)$", "놨음"),
         (r"(?:해요|합니다)$", "함"), (r"(?:이에요|예요|입니다|이야)$", "")]


def about_user(text: str) -> str:
    """A statement as a memo line: no "저는", and the plain memo ending ("있음", "함")."""
    text = tidy(text)
    text = re.sub(r"^(?:저는|나는|전|난|제가|내가|저|나)\s+|^(?:저는|나는)", "", text)
    text = re.sub(r"^(?:제|내)\s+", "", text)
    for ending, memo in _MEMO:
        text = re.sub(ending, memo, text)
    return text


def prefers(order: str) -> str:
    """"앞으로 짧게 대답해 줘" → "짧게 대답해 주기를 원함"; a reported wish stays as it is."""
    text = tidy(re.sub(r"앞으로|항상|언제나|지금부터", "", order))
    if re.search(r"(?:달라|원함|싶어)$", text):
        return ""
    text = re.sub(r"\s?(?:줘요|줘|주세요)$", "", text)
    return f"{text} 주기를 원함" if text else ""


KOREAN = Language(
    code="ko",
    script="hangul",
    subject=r"(?:저는|나는|전|난|제가|내가|저희는|우리는)\s*|(?:저|나|저희|우리)\s+",
    possessive=r"(?:제|내|저의|나의|우리)\s*",
    relations=RELATIONS,
    rules=RULES,
    # Short lead-ins ("아", "음") need a separator after them, or "아이가" would lose its "아".
    lead_in=r"^(?:(?:사실은|실은|안녕하세요|처음\s뵙겠습니다|반갑습니다|반가워요|죄송해요"
            r"|정정할게요)[\s,，!.]*|(?:사실|안녕|그리고|아|음|저기|아니)[\s,，!.]+)",
    clause_split=r"[;；]\s*|,\s*|(?<=고요)\s+|(?:(?<=는데)|(?<=은데)|(?<=지만)|(?<=니까)|(?<=어서)|(?<=아서))\s+|,\s*(?=(?:저는|나는|제|내|그거|이거)?\s*(?:기억|잊|외워|저장|간직))"
                 r"|,\s*(?=(?:저는|나는|전|난|제가|내가|제|내)\s)",
    correcting=r"^(?:사실은|사실|실은|죄송해요|정정할게요|아니)",
    health=r"병(?!원)|당뇨|알레르기|천식|우울증|불안장애|암\b|약을|약\s먹|진단|수술|임신|혈압|치료|체중|다이어트",
    money=r"월급|연봉|수입|저축|빚|대출|투자|주식|은행|신용카드|예산|\d+\s*(?:만\s*)?원",
    app=r"whizi|이\s앱|앱|어플|챗봇|봇|어시스턴트|인터페이스|화면|모델|기능|너의\s(?:답변|대답)"
        r"|당신의\s(?:답변|대답)|chatgpt|gpt|claude",
    style=r"대답|답변|답해|말해|말투|존댓말|반말|해적|형식|글머리|목록으로|짧게\s답|이모지",
    directive=r"^(?:항상|언제나|앞으로|지금부터)|(?:대답해|답해|말해|써|사용해)(?:\s?줘|\s?주세요|요)?$",
    asked=r"(?:물어봄|물어본\s적|질문함|질문한\s적)",
    colours=r"빨간색|주황색|노란색|초록색|파란색|보라색|분홍색|갈색|검은색|흰색|회색|빨간|노란|파란|검은",
    injection=r"이전\s(?:지시|명령|지침|규칙).{0,8}(?:무시|잊)|지금부터\s너는|역할을\s해|시스템\s프롬프트"
              r"|탈옥|개발자\s모드|^\s*system\s*:",
    standing=r"항상|언제나|앞으로|지금부터|매번|모든\s(?:대화|채팅)|기본으로|더\s좋아",
    temporary=r"(?:오늘|이번\s?주|어제|내일|방금|아까)(?:에|은|는)?",
    joke=r"농담|장난|ㅋㅋ|ㅎㅎ|테스트|이번만|해적",
    hypothetical=r"^(?:만약|만일|혹시|가령)",
    question=r"[?？]\s*$|(?:까|나요|니|어때|뭐야|뭐예요)$|^(?:뭐|무엇|어디|누구|언제|왜|어떻게)",
    passing=r"^(?:이거|그거|저거|이것|그것|저것|당신|너|이\s|그\s)|당신|너의",
    scene=r"이\s(?:장면|씬|챕터)에서(?:는)?",
    story=r"이\s(?:이야기|스토리|버전|평행\s?세계|세계관|롤플레이|설정)에서(?:는)?|평행\s?(?:우주"
          r"|세계)(?:\s이야기)?에서(?:는)?",
    corrections=[
        r"(?P<old>.{1,20}?)(?:이|가)?\s아니(?:라|고)[,\s]*(?P<new>.{1,20}?)(?:이에요|예요|입니다"
        r"|이야|야|이다|이요|요)?$",
        r"(?P<old>[^,\s]{1,10}?)\s말고\s(?P<new>[^,\s]{1,10}?)(?:이에요|예요|입니다|으로|로|요)?$",
    ],
    filler=r"곳|어디|제|내|저|나|저의|나의|것|거|그|이",
    memory_question=r"(?:나|저)에\s대해\s(?:뭘|무엇을|뭐|무얼)\s(?:기억|알)|뭘\s기억하고|무엇을\s기억하고"
                    r"|(?:내|제)\s이름(?:이|은)\s뭐|나를\s기억해|저를\s기억하|기억하는\s(?:게|것이)\s뭐",
    greeting=r"^(?:안녕하세요|안녕|반가워요|반갑습니다|처음\s뵙겠습니다)",
    thanks=r"고마워|감사합니다|감사해요|고맙습니다",
    standing_label="지속적인 선호: ",
    about_user=about_user,
    trailing=r"(?:입니다|이에요|예요|이야|에요|요)$",
    change=r"됐|되었|시작|이사|입사|졸업|결혼했|입학",
    kidding=r"농담|장난",
    when=r"요즘|최근에?|이번에|올해(?:\s?안에)?|작년에?|지난\s?(?:달|주|해)에?|이번\s?달에?|지금은?(?!부터)\s|현재"
         r"|(?:\d+|한|두|세)\s?(?:년|달|개월)\s?(?:째|동안|전에?)",
    ended=[r"(?P<who>[^\s,]+?)(?:이랑|랑|와|과|하고)\s?(?:\S+\s)?(?:헤어졌|이혼했|헤어짐).*",
           r"(?:(?:저|나)\s)?(?P<who>[^\s,]+?)(?:을|를)?\s?(?:그만두고|그만뒀|퇴사했|관뒀).*"],
    fillers=r"음+|어+|그(?=\s*…)|저기(?=\s*…)",
    repair=r"아니(?=[,\s])|잘못\s?말했",
    noise=r"지지직|치직|소리가\s?이상|마이크|뭐라는\s?거|잘\s?안\s?들|잡음",
    slots={
        "home": r"살(?:아|고|며|았)|삶|이사|거주",
        "work": r"일하|일해|취직|입사|근무|다니|회사",
        "study": r"학교|대학|유치원|학년|졸업|학생|입학|공부",
        "age": r"\d+\s?(?:살|세)",
        "status": r"결혼|이혼|약혼|미혼|싱글|사귀",
        "like": r"좋아|싫어",
    },
    prefers=prefers,
    meat=r"고기|생선|해산물|닭|돼지",
    vegetarian=r"채식|비건",
    named=r"이름|라는",
    dated=r"\d+\s?월|연말|내년|다음\s?달",
    replies={
        "notice": "저는 Whizi의 오프라인 모델입니다. 이 서버에는 채팅 모델이 설정되어 있지 않아서 질문에 답"
                  "하거나 "
                  "이 대화 밖의 내용을 알 수 없습니다.",
        "hint": "“나에 대해 뭘 기억해?”라고 물어보면 Whizi가 저장한 내용을 볼 수 있어요.",
        "greet": "안녕하세요{name}!",
        "greet_name": ", {name}님",
        "nice": "만나서 반가워요, {name}님!",
        "thanks": "천만에요!",
        "memory": "제가 기억하는 당신에 대한 내용입니다:",
        "memory_empty": "아직 당신에 대해 기억하는 것이 없습니다.",
        "request": "Whizi의 메모리는 이 답변 후에 백그라운드에서 업데이트되므로, 무엇이 저장될지 여기서 확"
                   "인해 드릴 수 "
                   "없습니다. 설정의 “Whizi가 기억하는 것”에서 확인할 수 있습니다.",
        "forget": "Whizi의 메모리는 이 답변 후에 백그라운드에서 업데이트됩니다. 설정의 “Whizi가 기억하는 것"
                  "”에서 "
                  "확인하거나 지울 수 있습니다.",
    },
)
