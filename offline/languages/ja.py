"""Japanese patterns. Lines drop "私は" and the polite ending ("東京に住んでいる")."""

import re

from offline.languages.base import Language, Rule
from offline.text import tidy

NAME = r"(?P<value>[^\s、。！？!?,，]{1,20}?)"
END = r"(?:です|だ|でございます|だよ|ですよ|ですね|なんです|なんだ|なので|ので)?"
RELATIONS = (
    r"お母さん|お父さん|お姉さん|お兄さん|母親|父親|婚約者|おばあちゃん|おじいちゃん|子供|子ども|息子|娘"
    r"|祖母|祖父|親友|友達|友人|上司|ペット|主人|旦那|彼氏|彼女|妻|夫|嫁|姉|妹|兄|弟|母|父|犬|猫"
)
JOBS = (
    r"エンジニア|デザイナー|プログラマー|教師|先生|医者|医師|看護師|弁護士|会社員|公務員|店員|作家|記者"
    r"|研究者|シェフ|料理人|主婦|主夫|社長|マネージャー|薬剤師|警察官|保育士|美容師|営業|経営者|通訳|翻訳家"
    r"|フリーランス"
)

RULES = [
    # Self-introduction: "私の名前は田中花子です" → "名前は田中花子".
    Rule("name", rf"(?:{{MY}})?名前は{NAME}{END}", "名前は{value}", name=True),
    Rule("name", rf"(?:{{I}})?{NAME}(?:と申します|といいます|と言います|って言います"
                 rf"|っていいます)", "名前は{value}",
         name=True),
    Rule("nickname", rf"{NAME}(?:と|って)呼んで(?:ください|ね|ほしい(?:です)?"
                     rf"|下さい)?", "{value}と呼ばれたい",
         name=True),
    Rule("nickname", rf"{NAME}と呼ばれたい", "{value}と呼ばれたい", name=True),
    Rule("personal", r"(?:{MY})?(?P<attr>誕生日|生年月日)は(?P<value>.+?)" + END, "{attr}は{value}"),
    Rule("personal", r"(?:{I})?(?P<value>\d{1,3})歳" + END, "{value}歳"),
    # Where they live.
    Rule("home", r"(?:{I})?(?:今は|現在)?(?P<value>.+?)に住んで(?:います|いる|る|いて|おります|ます|て)",
         "{value}に住んでいる"),
    Rule("home", r"(?:{I})?(?P<value>.+?)在住" + END, "{value}在住"),
    Rule("home", r"(?:{I})?(?:.+?から)?(?P<value>.+?)に引っ越(?:しました|した|してきました"
                 r"|してきた)", "{value}に住んでいる"),
    Rule("origin", r"(?:{I})?(?P<value>.+?)(?:の)?出身" + END, "{value}出身"),
    Rule("origin", r"(?:{I})?(?P<value>.+?)から来(?:ました|た)", "{value}出身"),
    # Work and study.
    Rule("workplace", r"(?:{I})?(?P<value>.+?)で(?:働いて|勤めて|勤務して)(?:います|いる|る|いて|おります"
                      r"|ます|て)",
         "{value}で働いている"),
    Rule("role", rf"(?:{{I}})?(?P<place>.+?)で(?P<value>{JOBS})(?:を)?(?:しています|しているんです"
                 rf"|やっています)",
         "{place}で{value}をしている"),
    Rule("role", r"(?:{I})?(?P<value>.+?)として働いて(?:います|いる|る|おります|ます|て)",
         "{value}として働いている"),
    Rule("role", r"(?:{MY})?(?:仕事|職業)は(?P<value>.+?)" + END, "仕事は{value}"),
    # No particle before the noun: "私の妻は医者です" is about the wife, read below.
    Rule("study", r"(?:{I})?(?P<value>[^のはがをにでと]*?(?:学生|大学生|大学院生|高校生|中学生"
                  r"|院生))" + END, "{value}"),
    Rule("role", rf"(?:{{I}})?(?P<value>[^のはがをにでと]{{0,10}}?(?:{JOBS}))"
                 rf"(?:です|だ|をして(?:います|いる|ます|まして|て))",
         "仕事は{value}"),
    Rule("learning", r"(?:{I})?(?P<value>.+?)を(?:勉強して|学んで|習って)(?:います|いる|る|おります)",
         "{value}を勉強している"),
    Rule("learning", r"(?:{I})?(?P<value>.+?)を勉強中" + END, "{value}を勉強している"),
    Rule("diet", r"(?:{I})?(?P<value>ベジタリアン|ヴィーガン|菜食主義者)" + END, "{value}"),
    # Family: "妹の誕生日は3月12日です" → "妹の誕生日は3月12日".
    Rule("family", rf"(?:{{MY}})?(?P<rel>{RELATIONS})の(?P<attr>名前|誕生日|仕事|職業"
                   rf"|年齢)は(?P<value>.+?){END}",
         "{rel}の{attr}は{value}"),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})は(?P<value>.+?){END}", "{rel}は{value}"),
    Rule("has", rf"(?:{{I}})?(?P<rel>{RELATIONS})が(?P<value>一人|二人|三人|\d+人|一匹|二匹|\d+匹)?"
                r"(?:います|いる|いて|いまして)", "{rel}が{value}いる"),
    # Who they live with: "うちは夫と柴犬のこてつと暮らしてます".
    Rule("household", r"(?:{I})?(?P<value>.+?)と(?:一緒に)?(?:暮らして|住んで)(?:います|いる|る|ます|て)",
         "{value}と暮らしている"),
    # Something under way: "転職活動中", "家を探しているところ".
    Rule("ongoing", r"(?:{I})?(?P<value>[^、。]+?(?:活動|準備|勉強|治療|婚活|就活|工事"
                    r"|リフォーム)中)(?:です|でして|だ"
                    r"|なんです)?", "{value}"),
    Rule("status", r"(?:{I})?(?P<value>結婚して(?:います|いる)|独身|婚約して(?:います|いる)"
                   r"|離婚しました)" + END,
         "{value}"),
    # Tastes: favourites and comparisons before plain 好き.
    Rule("favourite", r"(?:{MY})?(?:一番)?好きな(?P<thing>.+?)は(?P<value>.+?)" + END,
         "好きな{thing}は{value}"),
    Rule("preference", r"(?:{I})?(?P<value>.+?より.+?(?:の)?(?:ほう|方)が好き)" + END, "{value}"),
    Rule("dislike", r"(?:{I})?(?P<value>.+?)[がは](?P<verb>大嫌い|嫌い|苦手)" + END, "{value}が{verb}"),
    Rule("dislike", r"(?:{I})?(?P<value>.+?)が好きじゃ(?:ない|ありません)" + END, "{value}が好きではない"),
    Rule("like", r"(?:{I})?(?P<value>.+?)が(?:とても|すごく|本当に)?(?P<verb>大好き"
                 r"|好き)" + END, "{value}が{verb}"),
    Rule("like", r"(?:{I})?(?P<value>.+?)を愛して(?:います|いる)", "{value}を愛している"),
    # Goals.
    Rule("goal", r"(?:{MY})?(?P<g>目標|夢)は(?P<value>.+?)" + END, "{g}は{value}"),
    Rule("goal", r"(?:{I})?(?P<value>.+?)(?:の|こと)が(?:私の)?(?P<g>目標|夢)" + END, "{g}は{value}こと"),
    Rule("goal", r"(?:{I})?(?P<value>.+?)に(?:なりたい)(?:です|と思っています)?", "{value}になりたい"),
    Rule("goal", r"(?:{I})?(?P<value>.+?)を目指して(?:います|いる)", "{value}を目指している"),
    # "私は田中花子です" only after a greeting ("はじめまして、私は田中花子です").
    Rule("name", rf"{{I}}{NAME}{END}", "名前は{value}", greeting=True, name=True),
    Rule("name", rf"{NAME}(?:です|と申します)", "名前は{value}", greeting=True, name=True),
]


def prefers(order: str) -> str:
    """"これからは箇条書きで答えて" → "箇条書きで答えてほしい"; a wish stays as it is."""
    text = tidy(re.sub(r"これからは|今後は|いつも|常に|ずっと", "", order))
    if re.search(r"(?:ほしい|たい)$", text):
        return ""
    text = re.sub(r"てください$|て下さい$", "て", text)
    return f"{text}ほしい" if text.endswith("て") else ""


def about_user(text: str) -> str:
    text = tidy(text)
    text = re.sub(r"^(?:私|わたし|僕|ぼく|俺|あたし)(?:は|の|、)\s*", "", text)
    text = re.sub(r"(?:なので|ので|から|けど|し)$", "", text)
    text = re.sub(r"(?:なんです|なの|なんだ)$", "", text)
    # The plain form reads as a note: "停めています" → "停めている", "医者です" → "医者".
    for polite, plain in (("ています", "ている"), ("りました", "った"), ("いました", "った"),
                          ("ちました", "った"),
                          ("きました", "いた"), ("みました", "んだ"), ("びました", "んだ"), ("ました", "た"),
                          ("です", ""), ("でした", "だった")):
        if text.endswith(polite) and len(text) > len(polite):
            return text[: -len(polite)] + plain
    return text


JAPANESE = Language(
    code="ja",
    script="kana",
    subject=r"(?:私|わたし|僕|ぼく|俺|おれ|あたし|うち|自分)(?:は|、)?\s*",
    possessive=r"(?:私|わたし|僕|ぼく|俺|おれ|あたし|うち)の",
    relations=RELATIONS,
    rules=RULES,
    # Short lead-ins ("あの", "また") need a separator after them, or "あの人" would lose its "あの".
    lead_in=r"^(?:(?:実は|実際は|本当は|ちなみに|こんにちは|こんばんは|おはようございます|はじめまして"
            r"|初めまして|訂正します)[\s、,！!。]*|(?:おはよう|どうも|ええと|えっと|あの|すみません|訂正"
            r"|いや|あと|それと|それから|また)[\s、,！!。]+)",
    clause_split=r"[；;]|(?<=[てでしりくけどがらに])、|、(?=(?:それ|これ)?(?:を)?(?:覚え|忘れ|記憶|メモ))",
    correcting=r"^(?:実は|実際は|本当は|すみません|訂正|いや)",
    health=r"病(?!院)|糖尿|アレルギー|喘息|うつ|鬱|不安障害|がん|癌|薬(?!剤師|局|学)|診断|手術|妊娠|血圧|治療|通院|体重"
           r"|ダイエット|症",
    money=r"給料|年収|月収|収入|貯金|借金|ローン|投資|株|銀行|クレジットカード|予算|\d+\s*(?:万)?円"
          r"|[¥￥]\s?\d",
    app=r"whizi|このアプリ|アプリ|チャットボット|ボット|アシスタント|画面|インターフェース|モデル|機能"
        r"|あなたの(?:回答|返事|答え)|chatgpt|gpt|claude",
    style=r"答えて|返信|回答|返事|話して|口調|箇条書き|敬語|タメ口|海賊|形式|フォーマット|短く答え|絵文字",
    directive=r"^(?:いつも|常に|これからは|今後は)|(?:答えて|返信して|話して|書いて|使って)(?:ください)?$",
    asked=r"(?:について|を)(?:質問した|聞いた|尋ねた)$",
    colours=r"赤|オレンジ|黄色|緑|青|紫|ピンク|茶色|黒|白|灰色|グレー",
    injection=r"(?:以前|前|これまで|上記)の(?:指示|命令|ルール).{0,6}(?:無視|忘れ)|あなたは今から"
              r"|ふりをして|システムプロンプト|脱獄|開発者モード|^\s*system\s*:",
    standing=r"いつも|常に|これから(?:は|ずっと)?|今後|毎回|すべての(?:会話|チャット)|デフォルト|ほうが好き"
             r"|方が好き",
    temporary=r"今日|今夜|今朝|今晩|今週|昨日|明日|さっき|今のところ",
    joke=r"冗談|（笑）|\(笑\)|笑$|試しに|今回だけ|ふざけ|海賊",
    hypothetical=r"^(?:もし|仮に|例えば)",
    question=r"[?？]\s*$|か$|^(?:何|どこ|誰|いつ(?!も)|なぜ|どうして|どうやって|どう(?=[?？]|$))",
    passing=r"^(?:これ|それ|あれ|この|その|あの|あなた|君)|あなた",
    scene=r"この(?:場面|シーン|章)(?:では|で)?",
    story=r"この(?:話|物語|ストーリー|世界線|パラレルワールド|バージョン|ロールプレイ|設定)(?:では|で)?"
          r"|パラレルワールド(?:の話)?では",
    corrections=[
        r"(?P<old>[^、。]+?)(?:って|と)言った(?:けど|が)[、,\s]*(?P<new>[^、。\s]+?)(?:の間違い|が正しい)(?:でした|です|だ)?$",
        r"(?P<old>[^、。\sのはがをにでと]{1,10}?)(?:じゃなくて|ではなくて|ではなく"
        r"|じゃなく)[、,\s]*(?P<new>[^、。\s]{1,10}?)(?:です|だ|だよ|ですよ)?$",
        r"(?P<new>[^、。\sのはがをにでと]{1,10}?)(?:です"
        r"|だ)?[、,]\s*(?P<old>[^、。\s]{1,10}?)(?:ではありません|じゃありません|じゃない)$",
    ],
    filler=r"どこ|場所|私|わたし|僕|の|は|が|を|に|で|と|こと|について",
    memory_question=r"私について何を(?:覚えて|知って|記憶して)|私のこと(?:を)?(?:何か)?覚えて"
                    r"|何を覚えて(?:いる|る|ます)|私の名前は(?:何|なん)|私について(?:何か)?(?:覚えて"
                    r"|知って)|何を記憶して",
    greeting=r"^(?:こんにちは|こんばんは|おはよう|はじめまして|初めまして|やあ|どうも)",
    thanks=r"ありがとう|感謝",
    standing_label="継続的な希望：",
    joiner="、",
    about_user=about_user,
    trailing=r"(?:です|だ|でした|ですね|だよ|ですよ|よ|ね|なんです|なんだ|でございます)$",
    change=r"始め|引っ越|入社|卒業|結婚し|入学|歳になり|転職し",
    kidding=r"冗談",
    when=r"(?:今月|先月|先週|去年|昨年|今年|最近|この間|現在)(?:から|に|は)?|^今(?:は|、)|(?<=[はが])今(?:は|、)?"
         r"|(?:\d+|[一二三四五六七八九十]+)(?:年|ヶ月|か月)(?:間|前|目)",
    ended=[r"(?P<who>[^、。]+?)(?:とは|と)(?:もう)?(?:別れ|離婚し)(?:ました|た|て).*",
           r"(?P<who>[^、。]+?)を(?:辞め|退職し)(?:ました|た).*"],
    fillers=r"えーと|えっと|えー|あの(?=\s*[、…])|あ(?=\s*、)|その(?=\s*…)|まあ(?=\s*、)",
    bound=r"[のをにへとで]",
    repair=r"じゃなくて|ではなくて|いや(?=、)",
    noise=r"ザザッ|ガガッ|ザー|ピー|電波|聞こえ(?:ない|にくい)|なんでもない|まあいいや",
    slots={
        "home": r"住|暮らし|引っ越",
        "work": r"働|勤め|勤務|就職|入社|仕事",
        "study": r"学校|大学|幼稚園|保育園|小学|中学|高校|年生|卒業|入学|勉強",
        "age": r"\d+歳",
        "status": r"結婚|離婚|婚約|独身|付き合",
        "like": r"好き|嫌い|苦手|ハマ",
    },
    prefers=prefers,
    meat=r"肉|魚|シーフード|鶏|牛|豚",
    vegetarian=r"ベジタリアン|ヴィーガン|菜食",
    named=r"名前|という",
    dated=r"\d+月|年末|来月|来年",
    replies={
        "notice": "私はWhiziのオフラインモデルです。このサーバーにはチャットモデルが設定されていないため、"
                  "質問に答えたり、この会話以外のことを知ったりすることはできません。",
        "hint": "「私について何を覚えてる？」と聞くと、Whiziが保存した内容を確認できます。",
        "greet": "こんにちは{name}！",
        "greet_name": "、{name}さん",
        "nice": "はじめまして、{name}さん！",
        "thanks": "どういたしまして！",
        "memory": "あなたについて覚えていることはこちらです：",
        "memory_empty": "あなたについて記憶していることはまだありません。",
        "request": "Whiziのメモリはこの返信の後にバックグラウンドで更新されるため、何が保存されるかはここで"
                   "は確認できません。"
                   "設定の「Whiziが記憶している内容」で確認できます。",
        "forget": "Whiziのメモリはこの返信の後にバックグラウンドで更新されます。設定の「Whiziが記憶している"
                  "内容」"
                  "で確認や消去ができます。",
    },
)
