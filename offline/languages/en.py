"""English patterns. Saved lines drop the "I" ("Lives in Hanoi"); values are verbatim."""

from offline.languages.base import Language, Rule
from offline.text import english_about_user

# A name: letters, spaces, hyphens, apostrophes, no digits; looks_like_name checks it.
NAME = r"(?P<value>[^\d,;:!?()]{1,60})"
RELATIONS = (
    r"(?:(?:older|younger|big|little|elder|baby|twin|step|best)[\s-])?(?:wife|husband|partner|spouse"
    r"|boyfriend|girlfriend|fianc[ée]e?|sister|brother|mother|mom|mum|father|dad|son|daughter|kids?"
    r"|children|child|baby|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin|niece|nephew|friend"
    r"|roommate|flatmate|boss|manager|dog|cat|pet|parents|twin)"
)
# Job words: a noun ending like an occupation ("teacher", "dentist", "librarian").
JOB = (
    r"(?:[\w-]+\s+){0,3}(?!vegetarian\b|vegan\b|human\b|american\b|italian\b|asian\b"
    r"|christian\b)[\w-]*(?:er|or|ist|ian|ant|ent|eer|ect|nurse|doctor|chef|cook|pilot|lawyer|clerk|vet"
    r"|surgeon|nanny|barista|scientist|freelancer|dev|developer|engineer|analyst|consultant|attorney"
    r"|officer|agent|artist|architect|historian|secretary|cashier|mechanic|plumber|electrician)"
)
# A capitalised name inside a clause ("my son Jean-Luc turns 7"), whatever the case flag.
PROPER = r"(?-i:[A-Z][\w'’-]+)(?:\s(?-i:[A-Z][\w'’-]+))?"
FAMILY_VERBS = (
    r"(?:is|are)(?!\s+(?!(?:studying|working|living|training|learning)\b)\w+ing\b)|lives|live|works|work|studies|loves|likes|hates|has|was\s+born|goes|plays|teaches|runs|owns"
    r"|turns|turned|just\s+turned|will\s+turn"
)
GOAL_VERBS = (
    r"(?:become|be|learn|move|run|start|open|build|write|finish|visit|travel|study|retire|launch|publish"
    r"|compete|climb|master|speak|work|live|raise|graduate|become)"
)

RULES = [
    # Self-introduction: the name exactly as written.
    Rule("name", rf"(?:{{MY}})?name(?:'s|’s|\s+is|:)\s*{NAME}", "Name: {value}", name=True),
    Rule("name", rf"(?:{{I}})?(?:'m|’m|\s+am|am|is)\s+called\s+{NAME}", "Name: {value}", name=True),
    Rule("nickname", rf"(?:please\s+)?call\s+me\s+{NAME}", "Likes to be called {value}", name=True),
    Rule("nickname", rf"(?:likes|prefers)\s+to\s+be\s+called\s+{NAME}", "Likes to be called {value}",
         name=True),
    # "I'm Anna" only right after a greeting ("Hi, I'm Anna"): "I'm Tired" is no name.
    Rule("name", r"I(?:'m|’m| am)\s+(?P<value>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,2})",
         "Name: {value}", capital=True, greeting=True, name=True),
    Rule("personal", r"(?:{MY})?(?P<attr>birthday|date\s+of\s+birth|birth\s+date)(?:\s+is|:)\s*(?P<value>.+)",
         "{attr} is {value}"),
    Rule("personal", r"(?:{I})?(?:am|'m|’m|is|turned|just\s+turned)\s+(?P<value>\d{1,3}(?:\s+years?\s+old)?)",
         "Is {value}", ),
    Rule("speaks", r"(?:{I})?(?:speak|speaks|can\s+speak)\s+(?P<value>.+)", "Speaks {value}"),
    # Where they live; "I moved to X" is the newer home.
    Rule("home", r"(?:{I})?(?:(?:now|currently|still)\s+)?(?:live|lives|am living|'m living|’m living"
                 r"|have\s+been\s+living|'ve\s+been\s+living|’ve\s+been\s+living|have\s+lived|'ve\s+lived"
                 r"|am based|'m based|’m based|is based|reside|resides)\s+in\s+(?P<value>.+)",
         "Lives in {value}"),
    Rule("home", r"(?:{I})?(?:(?:just|recently)\s+)?(?:moved|have moved|'ve moved|’ve moved"
                 r"|relocated)\s+(?:from\s+.+?\s+)?to\s+(?P<value>.+?)(?:\s+from\s+.+)?",
         "Lives in {value}"),
    Rule("origin", r"(?:{I})?(?:am|'m|’m|is|come|comes|originally come|grew up|was born and raised|was born"
                   r"|am originally|'m originally|’m originally)\s+(?:from|in)\s+(?P<value>.+)",
         "Is from {value}"),
    # Work and study.
    Rule("role", r"(?:{I})?(?:work|works|am working|'m working|’m working)\s+as\s+(?P<value>.+)",
         "Works as {value}"),
    Rule("workplace", r"(?:{I})?(?:work|works|am working|'m working|’m working)\s+(?P<prep>at|for"
                      r"|in)\s+(?P<value>.+)", "Works {prep} {value}"),
    Rule("role", r"(?:{I})?(?:teach|teaches|am teaching|'m teaching|’m teaching)\s+(?P<value>.+)",
         "Teaches {value}"),
    Rule("role", r"(?:{MY})?(?:job|occupation|profession)(?:\s+is|:)\s*(?P<value>.+)", "Job: {value}"),
    Rule("study", r"(?:{I})?(?:am|'m|’m|is)\s+(?P<value>an?\s+(?:[\w-]+\s+){0,2}student(?:\s+(?:at|in"
                  r"|of)\s+.+)?)",
         "Is {value}"),
    Rule("study", r"(?:{I})?(?:study|studies|am studying|'m studying|’m studying)\s+(?P<value>.+)",
         "Studies {value}"),
    Rule("study", r"(?:{I})?(?:go|goes)\s+to\s+(?P<value>.*(?:university|college|school|uni|academy).*)",
         "Goes to {value}"),
    Rule("learning", r"(?:{I})?(?:am|'m|’m|is)\s+learning\s+(?P<value>.+)", "Is learning {value}"),
    Rule("diet", r"(?:{I})?(?:am|'m|’m|is)\s+(?:a\s+)?(?P<value>vegetarian|vegan|pescatarian|teetotal"
                 r"|teetotaller|gluten-free)", "Is {value}"),
    Rule("diet", r"(?:{I})?(?:don't|don’t|do not|doesn't|doesn’t|does not|never)\s+eat\s+(?P<value>.+)",
         "Doesn't eat {value}"),
    Rule("role", rf"(?:{{I}})?(?:am|'m|’m|is)\s+(?P<value>an?\s+{JOB})", "Is {value}"),
    # Family and relationships.
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:'s|’s)\s+name\s+is\s+{NAME}", "{rel}'s name is {value}",
         name=True),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})\s+is\s+(?:called|named)\s+{NAME}",
         "{rel}'s name is {value}", name=True),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:'s|’s)\s+(?P<attr>[\w ]{{2,30}}?)\s+(?P<verb>is|are|was)"
                   r"\s+(?P<value>.+)", "{rel}'s {attr} {verb} {value}"),
    # "My sister lives in Paris", "my son Jean-Luc turns 7 on 14 March".
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:\s+(?P<who>{PROPER}))?\s+"
                   rf"(?P<value>(?P<verb>{FAMILY_VERBS})\b.+)", "{rel} {who} {value}"),
    # "My wife Priya and I …": the clause is split at "and I", leaving "my wife Priya".
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})\s+(?P<value>{PROPER})", "{rel}'s name is {value}",
         name=True),
    Rule("has", rf"(?:{{I}}|we\s+)?(?:have|has|'ve got|’ve got|have got)\s+(?P<value>(?:an?|one|two|three"
                rf"|four|five|six|\d+)\s+(?P<rel>{RELATIONS})s?\b.*)", "Has {value}"),
    Rule("status", r"(?:{I})?(?:am|'m|’m|is|got|just got)\s+(?P<value>(?:married|engaged|divorced|single"
                   r"|widowed)(?:\s+to\s+.+)?)", "Is {value}"),
    # Favourites before likes: "my favourite colour is green" fills one slot per thing.
    Rule("favourite", r"(?:{MY})?(?P<fav>favou?rite|fave)\s+(?P<thing>[\w ]{2,30}?)\s+(?:is"
                      r"|are)\s+(?P<value>.+)",
         "{fav} {thing} is {value}"),
    Rule("preference", r"(?:{I})?(?:prefer|prefers)\s+(?P<value>.+)", "Prefers {value}"),
    Rule("like", r"(?:{I})?(?:(?:really|absolutely|just|also|truly)\s+)?(?P<verb>love|loves|like|likes"
                 r"|enjoy|enjoys|adore|adores)\s+(?P<value>.+)", "{verb3} {value}"),
    Rule("like", r"(?:{I})?(?:am|'m|’m|is)\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+(?P<value>.+)",
         "Is a fan of {value}"),
    Rule("dislike", r"(?:{I})?(?:really\s+)?(?P<verb>hate|hates|dislike|dislikes|can't stand|can’t stand"
                    r"|cannot stand|don't like|don’t like|do not like|doesn't like|doesn’t like"
                    r"|does not like|don't enjoy|don’t enjoy|doesn't enjoy)\s+(?P<value>.+)",
         "{verb3} {value}"),
    # Goals and ongoing plans.
    Rule("goal", r"{MY}(?P<g>goal|dream|plan|ambition|aim)\s+is\s+(?P<value>.+)", "{g} is {value}"),
    Rule("goal", rf"(?:{{I}})?(?P<verb>want|wants|would like|'d like|’d like|hope|hopes|plan|plans"
                 rf"|am planning|'m planning|’m planning|intend|intends|dream|dreams|aim|aims|am hoping"
                 rf"|'m hoping|’m hoping)\s+(?:to\s+)?(?P<value>{GOAL_VERBS}\b.+)",
         "{verb3} to {value}"),
    Rule("goal", r"(?:{I}|we\s+)?(?:am|'m|’m|is|are|'re|’re)\s+(?P<value>(?:training|preparing"
                 r"|studying)\s+for\s+.+)", "Is {value}"),
    Rule("goal", r"(?:{I})?(?:am|'m|’m|is)\s+aiming\s+to\s+(?P<value>.+)", "Is aiming to {value}"),
    Rule("goal", r"(?:{I})?(?:am|'m|’m|is)\s+trying\s+to\s+(?P<value>.+)", "Is trying to {value}"),
]

_VERBS = {
    "love": "Loves", "like": "Likes", "enjoy": "Enjoys", "adore": "Adores", "hate": "Hates",
    "dislike": "Dislikes", "can't stand": "Can't stand", "can’t stand": "Can't stand",
    "cannot stand": "Can't stand", "don't like": "Doesn't like", "don’t like": "Doesn't like",
    "do not like": "Doesn't like", "doesn't like": "Doesn't like", "doesn’t like": "Doesn't like",
    "does not like": "Doesn't like", "don't enjoy": "Doesn't enjoy", "don’t enjoy": "Doesn't enjoy",
    "doesn't enjoy": "Doesn't enjoy",
    "want": "Wants", "would like": "Would like", "'d like": "Would like", "’d like": "Would like",
    "hope": "Hopes", "plan": "Plans", "am planning": "Is planning", "'m planning": "Is planning",
    "’m planning": "Is planning", "intend": "Intends", "dream": "Dreams", "aim": "Aims",
    "am hoping": "Is hoping", "'m hoping": "Is hoping", "’m hoping": "Is hoping",
}


def third_person(verb: str) -> str:
    verb = verb.casefold()
    return _VERBS.get(verb) or _VERBS.get(verb.removesuffix("s")) or verb.capitalize()


def derive(groups: dict[str, str]) -> dict[str, str]:
    if "verb" in groups:
        groups = {**groups, "verb3": third_person(groups["verb"])}
    return groups


ENGLISH = Language(
    code="en",
    script="latin",
    subject=r"I\s+|the\s+user\s+|user\s+|I(?=['’])",
    possessive=r"(?:my|the\s+user's|user's|the\s+user’s|user’s)\s+",
    relations=RELATIONS,
    rules=RULES,
    lead_in=r"^(?:actually|well|oh|so|and|also|plus|btw|by\s+the\s+way|hi|hello|hey|ok|okay|sorry|oops|no"
            r"|nope|yes|yeah|yep|um+|uh+|er+m?|just\s+so\s+you\s+know|fyi|i\s+mean|correction|wait"
            r"|good\s+(?:morning|afternoon|evening)|anyway|fun\s+fact|(?:quick\s+)?update)\b[\s,.:!-]*",
    clause_split=r"\s*;\s*|,\s+(?:so|because|since|which|as)\s+|,?\s+(?:and|but|so)\s+(?=(?:also\s+)?(?:I\b"
                 r"|we\b|I['’]m\b|I['’]ve\b|my\b|work|works|live|lives|study|love|like|enjoy|hate|have"
                 r"|am)\b)|,\s*(?=(?:I\b|I['’]m\b|I['’]ve\b|my\b|(?:please\s+)?(?:remember"
                 r"|don['’]t\s+forget|note|keep\s+in\s+mind|forget)\b))",
    correcting=r"^(?:actually|sorry|i\s+mean|correction|wait|oops|no)\b",
    health=r"\b(?:diabet\w*|allerg\w*|asthma|depress\w*|anxiety|cancer|medicat\w*|medicine|pills?"
           r"|diagnos\w*|surgery|pregnan\w*|blood\s+pressure|therap\w*|adhd|autis\w*|disease|illness"
           r"|disorder|migraines?|insulin|chemo\w*|hiv|epilep\w*|injur\w*|sick|ill|covid|symptoms?"
           r"|prescri\w*|my\s+doctor|lose\s+weight|weight\s+loss|overweight|weigh|bipolar|ptsd|ocd"
           r"|dyslexi\w*|arthritis|cholesterol)\b",
    money=r"\b(?:salary|salaries|income|earn|earns|earning|debts?|loans?|mortgage|savings|saving\s+for"
          r"|bank\s+account|credit\s+card|net\s+worth|invest\w*|stocks?|crypto|bitcoin|rent\s+is|paycheck"
          r"|pay\s*check|owe|owes|budget|broke|taxes|bankrupt\w*|pension)\b|[$€£¥₫]\s?\d|\d\s?(?:k|usd|eur"
          r"|gbp|dollars|euros|pounds|bucks)\b",
    app=r"\b(?:whizi|this\s+app|the\s+app|your\s+app|chatbot|this\s+bot|the\s+bot|chat\s*gpt|gpt-?\d\w*"
        r"|claude|gemini|llama|llm|ai\s+model|language\s+model|chat\s+model|offline\s+model|interface"
        r"|dark\s+mode|light\s+mode|settings\s+page|your\s+(?:answers?|replies|responses?|memory"
        r"|features?))\b",
    style=r"^(?:please\s+)?(?:(?:always|never|from\s+now\s+on|going\s+forward"
          r"|in\s+future)\s*,?\s+)?(?:reply|respond|answer|talk|speak|write|format|use|be|keep|stop|start"
          r"|don['’]t|do\s+not|avoid|call\s+yourself|act|pretend|ignore|end|begin|sign)\b|\byou\s+(?:should"
          r"|must|will|need\s+to|have\s+to|shall|always|never)\b|\b(?:answer|reply|respond|talk|speak"
          r"|write)\w*\s+(?:to\s+)?me\b|\b(?:answers|replies|responses|reply|tone|bullet\s+points?|emojis?"
          r"|pirate|formatting|markdown|in\s+rhyme)\b",
    directive=r"^(?:please\s+)?(?:(?:always|never|from\s+now\s+on|going\s+forward"
              r"|in\s+future)\s*,?\s+)?(?:reply|respond|answer|talk|speak|write|format|use|be|keep|stop"
              r"|start|don['’]t|do\s+not|avoid|call\s+yourself|act|pretend|ignore|end|begin|sign)\b"
              r"|\byou\s+(?:should|must|will|need\s+to|have\s+to|shall|always|never)\b",
    colours=r"red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|grey|gray|gold|silver|hazel"
            r"|amber",
    not_names=r"(?:american|british|english|canadian|australian|vietnamese|chinese|japanese|korean"
              r"|malaysian|malay|indian|french|german|spanish|italian|mexican|brazilian|filipino|indonesian"
              r"|thai|singaporean|christian|muslim|jewish|buddhist|hindu|catholic|irish|scottish|welsh"
              r"|dutch|swedish|russian|polish|african|european|asian|latino|latina|ok|okay|fine|good|great"
              r"|sorry|back|here|home|done|ready|busy|hungry|sick|happy|sad|bored|lost|confused|curious"
              r"|sure|not|so|just|also|still|really|very|in|on|at|tired|new|from|going|looking|trying|glad"
              r"|afraid|single|married|vegan|vegetarian)\b",
    injection=r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,30}\b(?:instructions?|rules|prompts?"
              r"|system|guidelines)\b|\byou\s+are\s+now\b|\bact\s+as\b|\bpretend\s+(?:to\s+be|you)\b"
              r"|\bsystem\s+prompt\b|\bjailbreak\b|\bdeveloper\s+mode\b|^\s*system\s*:"
              r"|\bnew\s+instructions\b",
    standing=r"\b(?:always|from\s+now\s+on|going\s+forward|in\s+(?:every|all|future)\s+(?:chats?"
             r"|conversations?|replies|answers)|every\s+time|by\s+default|henceforth|prefer|prefers"
             r"|permanently|for\s+good|whenever)\b",
    temporary=r"\b(?:today|tonight|right\s+now|at\s+the\s+moment|this\s+(?:morning|afternoon|evening|week"
              r"|weekend)|yesterday|tomorrow|for\s+now|just\s+now|these\s+days|this\s+time"
              r"|next\s+(?:week|weekend|month)|later\s+today|in\s+a\s+few\s+days)\b",
    joke=r"\b(?:just\s+kidding|jk|kidding|lol|lmao|rofl|haha\w*|as\s+a\s+joke|for\s+fun|just\s+testing"
         r"|testing|let['’]s\s+try|let['’]s\s+pretend|hypothetically|just\s+this\s+once"
         r"|for\s+this\s+chat\s+only|only\s+for\s+this\s+chat|pirate|yoda|in\s+rhyme|rhyming|shakespearean"
         r"|uwu)\b",
    hypothetical=r"^(?:if|suppose|imagine|what\s+if|let['’]s\s+say|pretend|say)\b",
    question=r"\?\s*$|^(?:what|where|who|whom|whose|when|why|how|which|do|does|did|is|are|was|were|can"
             r"|could|would|will|should|shall|may|am\s+i|have\s+you|has)\b",
    asked=r"^(?:asked|once\s+asked|has\s+asked|wanted\s+to\s+know|inquired|enquired|was\s+curious)\b",
    passing=r"^(?:it|this|that|these|those|them|you|your\b.*|this\s+\w+|that\s+\w+|the\s+(?:idea|answer"
            r"|reply|suggestion|one|song|movie|joke|story)|it\s+\w+|that\s+a\s+lot|this\s+a\s+lot)$"
            r"|\b(?:you|your|yours)\b|^(?:when|how|that|what)\b",
    scene=r"\b(?:in|for|during)\s+(?:this|the|that|today['’]s|tonight['’]s)\b[\w\s-]{0,30}?\b(?:scene"
          r"|chapter|moment|episode)\b",
    story=r"\b(?:in|for|within)\s+(?:this|that|the|our)\b[\w\s-]{0,40}?\b(?:story|stories|universe|version"
          r"|roleplay|role-play|rp|timeline|world|campaign|game|au|fanfic|fic)\b",
    corrections=[
        # "not blue — green", "no, not blue, green"
        r"\bnot\s+(?P<old>[\w'’-]+(?:\s[\w'’-]+)?)\s*(?:[,;—–-]+|\bbut\b)\s*(?:it['’]s\s+|it\s+is\s+|but\s+"
        r"|rather\s+)?(?P<new>[\w'’-]+(?:\s[\w'’-]+)?)$",
        # "Mira's eyes are green, not blue"
        r"(?P<new>[\w'’-]+)\s*,?\s+(?:and\s+)?not\s+(?P<old>[\w'’-]+)$",
    ],
    instruction=r"^to\s+",
    filler=r"i|i['’]m|me|my|mine|the|a|an|that|this|is|are|was|about|where|what|who|when|how|do|does|did"
           r"|and|of|to|in|at|on|for|please|it|its|have|has|you|your",
    memory_question=r"\bwhat\s+(?:do|did|else\s+do)\s+you\s+(?:remember|know|recall)\b|\bwhat\s+(?:have"
                    r"|did)\s+you\s+(?:remembered|saved|stored|memori[sz]ed|learned)\b"
                    r"|\bwhat['’]?s\s+in\s+your\s+memory|\bwhat\s+is\s+in\s+your\s+memory"
                    r"|\bdo\s+you\s+(?:still\s+)?(?:remember|know)\s+(?:me|anything|who\s+i\s+am"
                    r"|my\s+name)\b|\bwhat['’]?s\s+my\s+name\b|\bwhat\s+is\s+my\s+name\b|\bwho\s+am\s+i\b"
                    r"|\bshow\s+(?:me\s+)?(?:my|your)\s+memory\b",
    greeting=r"^(?:hi|hello|hey|hiya|howdy|greetings|yo|good\s+(?:morning|afternoon|evening))\b",
    thanks=r"\b(?:thanks|thank\s+you|thx|cheers|ty)\b",
    standing_label="Standing preference: ",
    about_user=english_about_user,
    derive=derive,
    trailing=r",?\s+(?:too|as\s+well|now|btw|lol|haha|though|by\s+the\s+way|anymore|actually|last\s+(?:year"
             r"|month|week)|this\s+year|recently|a\s+while\s+ago|(?:a\s+few\s+|\d+\s+|two\s+"
             r"|three\s+)?(?:years?|months?|weeks?)\s+ago)$",
    replies={
        "notice": "I'm Whizi's offline model: no chat model is configured on this server, so I can't "
                  "answer questions or know anything beyond this conversation.",
        "hint": "Ask me “what do you remember about me?” to see what Whizi has saved.",
        "greet": "Hi{name}!",
        "greet_name": ", {name}",
        "nice": "Nice to meet you, {name}!",
        "thanks": "You're welcome!",
        "memory": "Here is what I remember about you:",
        "memory_empty": "I don't have anything remembered about you yet.",
        "request": "Whizi's memory is updated in the background after this reply, so I can't confirm "
                   "here what it keeps. You can check it in Settings under “What Whizi remembers”.",
        "forget": "Whizi's memory is updated in the background after this reply. You can check it, "
                  "or clear it, in Settings under “What Whizi remembers”.",
    },
)
