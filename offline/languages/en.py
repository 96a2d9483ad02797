"""English patterns. Saved lines drop the "I" ("Lives in Hanoi"); values are verbatim."""

import re

from offline.languages.base import Language, Rule
from offline.text import capitalise, tidy

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
    r"|officer|agent|artist|architect|historian|secretary|cashier|mechanic|plumber|electrician|medic)"
    r"(?:,?\s+(?:in|at|for|with)\s+.+)?"
)
# Degrees and courses: "I'm doing a part-time master's in public health".
DEGREE = (r"(?:degree|master['’]?s|masters|mba|phd|doctorate|diploma|course|ba|bsc|msc|ma|llm|apprenticeship"
          r"|bootcamp|a-levels|gcses)")
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
    Rule("nickname", rf"(?:.*\bcalls?\s+me\s+that[,;]?\s+|(?:everyone|everybody|people|friends)\s+calls?\s+me"
                     rf"\s+|(?:{{I}})?go(?:es)?\s+by\s+)(?:it['’]s\s+|just\s+)?{NAME}", "Goes by {value}",
         name=True),
    Rule("name", r"(?:it['’]s\s+|this\s+is\s+)?(?P<value>(?-i:[A-Z][\w'’-]+))\s+here", "Name: {value}",
         capital=True, name=True),
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
    # "I used to live in Boston": a home that a later move replaces.
    Rule("home", r"(?:{I})?used\s+to\s+live\s+in\s+(?P<value>.+)", "Used to live in {value}"),
    Rule("home", r"(?:{I})?(?:(?:just|recently|finally|also)\s+)*(?:moved|have moved|'ve moved|’ve moved"
                 r"|relocated)\s+(?:from\s+.+?\s+)?to\s+(?P<value>.+?)(?:\s+from\s+.+)?(?:\s+(?:in|on)\s+(?-i:[A-Z])\w+)?",
         "Lives in {value}"),
    Rule("home", r"(?:{I})?(?:(?:just|recently|finally)\s+)*(?:bought|rented|got)\s+(?:a|our|my)\s+"
                 r"(?:house|flat"
                 r"|apartment|place|home)\s+in\s+(?P<value>.+)", "Lives in {value}"),
    Rule("origin", r"(?:{I})?(?:am|'m|’m|is|come|comes|originally come|grew up|was born and raised|was born"
                   r"|am originally|'m originally|’m originally)\s+(?:from|in)\s+(?P<value>.+)",
         "Is from {value}"),
    # Work and study.
    Rule("role", r"(?:{I})?(?:work|works|am working|'m working|’m working)(?:\s+(?:nights|days|full[- ]time"
                 r"|part[- ]time|remotely|freelance|mostly))?\s+as\s+(?P<value>.+)",
         "Works as {value}"),
    Rule("workplace", r"(?:{I})?(?:work|works|am working|'m working|’m working)\s+(?P<prep>at|for"
                      r"|in)\s+(?P<value>.+)", "Works {prep} {value}"),
    Rule("role", r"(?:{I})?(?:teach|teaches|am teaching|'m teaching|’m teaching)\s+(?P<value>.+)",
         "Teaches {value}"),
    Rule("role", r"(?:{MY})?(?:job|occupation|profession)(?:\s+is|:)\s*(?P<value>.+)", "Job: {value}"),
    Rule("study", r"(?:{I})?(?:am|'m|’m|is|are|'re"
                  r"|’re)\s+(?P<value>an?\s+(?:[\w-]+\s+){0,2}student(?:\s+(?:at|in"
                  r"|of)\s+.+)?)",
         "Is {value}"),
    Rule("study", rf"(?:{{I}})?{{BE}}\s+(?P<verb>doing|taking|pursuing|studying\s+for"
                  rf"|halfway\s+through|in\s+the\s+\w+\s+year\s+of)\s+(?P<value>(?:an?|my|the)\s+(?:[\w'’-]+\s+)"
                  rf"{{0,3}}?{DEGREE}\b.*)", "Is {verb} {value}"),
    Rule("study", r"(?:{I})?(?:study|studies|am studying|'m studying|’m studying)\s+(?P<value>.+)",
         "Studies {value}"),
    Rule("study", r"(?:{I})?(?:go|goes)\s+to\s+(?P<value>.*(?:university|college|school|uni|academy).*)",
         "Goes to {value}"),
    Rule("learning", r"(?:{I})?{BE}\s+learning\s+(?P<value>.+)", "Is learning {value}"),
    Rule("diet", r"(?:{I})?{BE}\s+(?:a\s+)?(?P<value>vegetarian|vegan|pescatarian"
                 r"|teetotal"
                 r"|teetotaller|gluten-free)(?:\s+for\s+.+)?", "Is {value}"),
    Rule("diet", r"(?:{I})?(?:don't|don’t|do not|doesn't|doesn’t|does not|never)\s+eat\s+(?P<value>.+)",
         "Doesn't eat {value}"),
    Rule("role", rf"(?:{{I}})?{{BE}}\s+(?P<value>an?\s+{JOB})", "Is {value}"),
    Rule("role", r"(?:{I})?(?:run|runs|own|owns|manage|manages)\s+(?P<value>(?:a|an|my|our|the)\s+"
                 r"(?:[\w'’-]+\s+){0,3}"
                 r"(?:business|bakery|shop|store|company|caf[eé]|restaurant|salon|studio|agency|startup|practice"
                 r"|clinic|firm|farm|bar|pub|roastery)\b.*)", "Runs {value}"),
    # Family and relationships.
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:'s|’s)\s+name\s+is\s+{NAME}", "{rel}'s name is {value}",
         name=True),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:\s+is|['’]s)\s+(?:called|named)\s+{NAME}",
         "{rel}'s name is {value}", name=True),
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:'s|’s)\s+(?P<attr>[\w ]{{2,30}}?)\s+(?P<verb>is|are|was)"
                   r"\s+(?P<value>.+)", "{rel}'s {attr} {verb} {value}"),
    # "My sister lives in Paris", "my son Jean-Luc turns 7 on 14 March".
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})(?:\s+(?P<who>{PROPER}))?\s+"
                   rf"(?P<value>(?P<verb>{FAMILY_VERBS})\b.+)", "{rel} {who} {value}"),
    # "My wife Priya and I …": the clause is split at "and I", leaving "my wife Priya".
    Rule("family", rf"{{MY}}(?P<rel>{RELATIONS})\s+(?P<value>{PROPER})", "{rel}'s name is {value}",
         name=True),
    Rule("status", r"(?:{I})?(?:have|has|'ve got|’ve got|have got)\s+(?P<value>an?\s+(?:girlfriend|boyfriend"
                   r"|partner|fianc[ée]e?)\b.*)", "Has {value}"),
    Rule("has", r"(?:{I})?(?:just\s+)?(?:adopted|got|rescued)\s+(?P<value>an?\s+(?:[\w-]+\s+){0,3}?(?:dog|cat"
                r"|puppy|kitten|rabbit|bunny|hamster|parrot|greyhound|labrador|terrier|spaniel|retriever)\b.*)",
         "Has {value}"),
    Rule("has", rf"(?:{{I}}|we\s+)?(?:have|has|'ve got|’ve got|have got)\s+(?P<value>(?:an?|one|two|three"
                rf"|four|five|six|\d+)\s+(?P<rel>{RELATIONS})s?\b.*)", "Has {value}"),
    Rule("status", r"(?:{I})?(?:am|'m|’m|is|are|'re|’re|got|just got)\s+(?P<value>(?:married|engaged|divorced"
                   r"|single|widowed)(?:\s+to\s+.+)?)", "Is {value}"),
    Rule("status", rf"(?P<who>{PROPER})\s+and\s+I\s+(?:just\s+|finally\s+)?(?:got|are|are\s+getting)\s+"
                   r"(?P<value>married|engaged)", "Is {value} to {who}"),
    # Favourites before likes: "my favourite colour is green" fills one slot per thing.
    Rule("favourite", r"(?:{MY})?(?P<fav>favou?rite|fave)\s+(?P<thing>[\w ]{2,30}?)\s+(?:is"
                      r"|are)\s+(?P<value>.+)",
         "{fav} {thing} is {value}"),
    Rule("preference", r"(?:{I})?(?:prefer|prefers)\s+(?P<value>.+)", "Prefers {value}"),
    Rule("like", r"(?:{I})?(?:(?:really|absolutely|just|also|truly)\s+)?(?P<verb>love|loves|like|likes"
                 r"|enjoy|enjoys|adore|adores)\s+(?P<value>.+)", "{verb3} {value}"),
    Rule("like", r"(?:{I})?{BE}\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+(?P<value>.+)",
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
    # Something under way: "we're expecting our first baby", "I'm writing a novel".
    Rule("ongoing", r"(?:{I})?{BE}\s+(?:currently\s+|now\s+)?(?P<value>(?:expecting|renovating|building"
                    r"|writing|organi[sz]ing|saving\s+for|applying\s+for|house\s+hunting|job\s+hunting)\b.+)",
         "Is {value}"),
    Rule("goal", r"(?:{I}|we\s+)?{BE}\s+(?P<value>(?:training|preparing"
                 r"|studying)\s+for\s+.+)", "Is {value}"),
    Rule("goal", r"(?:{I})?{BE}\s+aiming\s+to\s+(?P<value>.+)", "Is aiming to {value}"),
    Rule("goal", r"(?:{I})?{BE}\s+trying\s+to\s+(?P<value>.+)", "Is trying to {value}"),
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


_SUBJECT_FORMS = [
    (re.compile(r"^I(?:'|’)m\b|^I am\b", re.IGNORECASE), "is"),
    (re.compile(r"^I(?:'|’)ve\b|^I have\b", re.IGNORECASE), "has"),
    (re.compile(r"^I(?:'|’)d\b|^I would\b", re.IGNORECASE), "would"),
    (re.compile(r"^I(?:'|’)ll\b|^I will\b", re.IGNORECASE), "will"),
    (re.compile(r"^I was\b", re.IGNORECASE), "was"),
    (re.compile(r"^I (?:don(?:'|’)t|do not)\b", re.IGNORECASE), "doesn't"),
    (re.compile(r"^I (?:can(?:'|’)t|cannot)\b", re.IGNORECASE), "can't"),
    (re.compile(r"^I can\b", re.IGNORECASE), "can"),
]
_ADVERBS = r"(?:always|never|usually|often|really|also|still|just|only|sometimes|mostly|generally)"
_VERB = re.compile(rf"^I\s+(?P<adv>{_ADVERBS}\s+)?(?P<verb>[a-z]+)\b", re.IGNORECASE)


def _third_person_of(verb: str) -> str:
    lower = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is"}
    if lower in irregular:
        return irregular[lower]
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def about_user(text: str) -> str:
    """"I always want X" / "my sister's …" as a memory line: "Always wants X",
    "Sister's …". Only the person changes; the rest is the user's wording."""
    text = tidy(text)
    text = re.sub(r"(?<=\s)my\s+", "their ", text, flags=re.IGNORECASE)
    for pattern, replacement in _SUBJECT_FORMS:
        if pattern.match(text):
            return capitalise(pattern.sub(replacement, text, count=1))
    match = _VERB.match(text)
    if match:
        adverb = match.group("adv") or ""
        return capitalise(f"{adverb}{_third_person_of(match.group('verb'))}{text[match.end():]}")
    return capitalise(re.sub(r"^my\s+", "", text, flags=re.IGNORECASE))


_REPLIES = r"(?:answers?|replies|reply|responses?)"


def prefers(order: str) -> str:
    """"keep your answers short from now on" → "Prefers short answers"."""
    text = tidy(re.sub(r"\b(?:please|from\s+now\s+on|going\s+forward|in\s+future|always|every\s+time"
                       r"|(?:to\s+)?me)\b,?", " ", order, flags=re.IGNORECASE))
    text = re.sub(r"\s+", " ", re.sub(r"\byour\b", "", text, flags=re.IGNORECASE)).strip()
    shaped = [
        (rf"^(?:keep|make)\s+(?:the\s+)?(?P<what>{_REPLIES}|it|them)\s+(?P<how>\w+)$", "{how} answers"),
        (rf"^(?:keep|make)\s+(?:the\s+)?(?P<what>{_REPLIES}|it|them)\s+(?P<how>.+)$", "answers {how}"),
        (r"^(?:reply|answer|respond|write|talk|speak)\s+(?P<how>.+)$", "answers {how}"),
        (r"^(?:use|give)\s+(?P<how>.+)$", "{how}"),
        (r"^be\s+(?P<how>.+)$", "{how} answers"),
        (r"^(?:don['’]t|do\s+not|never|stop)\s+(?:using\s+|use\s+)?(?P<how>.+)$", "no {how}"),
    ]
    for pattern, shape in shaped:
        match = re.match(pattern, text, re.IGNORECASE)
        if match:
            return "Prefers " + shape.format(**match.groupdict())
    return ""


def derive(groups: dict[str, str]) -> dict[str, str]:
    if "value" in groups:
        # The value speaks of the user: "my first novel" → "their first novel"; a comma
        # before where ("a data engineer, at Ocado") is only a pause.
        value = re.sub(r"\b(?:my|our)\b", "their", groups["value"])
        groups = {**groups, "value": re.sub(r",\s+(?=(?:in|at|for|with)\b)", " ", value)}
    if "verb" in groups:
        groups = {**groups, "verb3": third_person(groups["verb"])}
    return groups


ENGLISH = Language(
    code="en",
    script="latin",
    be=r"(?:\b(?:am|is|are)\b|['’](?:m|re)\b|(?:['’]ve|\bhave|\bhas)\s+been\b)",
    subject=r"I\s+|we\s+|the\s+user\s+|user\s+|I(?=['’])|we(?=['’])",
    possessive=r"(?:my|the\s+user's|user's|the\s+user’s|user’s)\s+",
    relations=RELATIONS,
    rules=RULES,
    lead_in=r"^(?:actually|well|oh|so|and|also|plus|btw|by\s+the\s+way|hi|hello|hey|ok|okay|sorry|oops|no"
            r"|nope|yes|yeah|yep|um+|uh+|er+m?|just\s+so\s+you\s+know|fyi|i\s+mean|correction|wait"
            r"|good\s+(?:morning|afternoon|evening)|anyway|fun\s+fact|(?:quick\s+)?(?:update|intro)|about\s+me"
            r"|(?:some\s+)?context)\b[\s,.:!-]*",
    clause_split=r"\s*;\s*|,\s+(?:so|because|since|which|as)\s+|,?\s+but\s+|,?\s+(?:and|so)\s+(?=(?:also\s+)?(?:I\b"
                 r"|we\b|I['’]m\b|I['’]ve\b|my\b|work|works|live|lives|study|love|like|enjoy|hate|have"
                 r"|am|moved|honestly|it|it['’]s|he['’]s|she['’]s|they['’]re|there)\b)|\s+[—–]\s+|,\s*(?=(?:I\b|I['’]m\b|I['’]ve\b|we\b|my\b|(?:please\s+)?(?:remember"
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
    app=r"\b(?:whizi|this\s+app|the\s+app|your\s+app|voice\s+mode|(?:this|your|the)\s+voice|chatbot|this\s+bot|the\s+bot|chat\s*gpt|gpt-?\d\w*"
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
    temporary=r"\b(?:today|tonight|last\s+night|right\s+now|at\s+the\s+moment|this\s+(?:morning|afternoon|evening|week"
              r"|weekend)|yesterday|tomorrow|for\s+now|just\s+now|this\s+time"
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
        r"(?P<new>[\w'’-]+)(?:\s+(?:now|actually|then))?\s*,?\s+(?:and\s+)?not\s+(?:an?\s+|the\s+)?"
        r"(?P<old>[\w'’-]+)$",
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
    about_user=about_user,
    prefers=prefers,
    change=r"\b(?:started|starts|moved|joined|graduated|turned|turns|began|got\s+(?:married|engaged|a\s+job)"
           r"|switched|quit|left)\b",
    kidding=r"\b(?:just\s+kidding|jk|kidding|i['’]m\s+joking|only\s+joking)\b",
    when=r"\b(?:(?:last|this|in\s+the)\s+(?:spring|summer|autumn|fall|winter)|last\s+(?:week(?:end)?|month|year)|(?:a\s+(?:few|couple\s+of)"
         r"\s+|\d+\s+|two\s+|three\s+)?(?:days?|weeks?|months?|years?)\s+ago|a\s+while\s+ago|recently"
         r"|these\s+days|nowadays|currently|this\s+year)\b",
    ended=[
        rf"(?P<who>{PROPER})\s+and\s+I\s+(?:have\s+|had\s+|just\s+|finally\s+)?(?:broke\s+up|split(?:\s+up)?"
        r"|separated|divorced|got\s+divorced|are\s+(?:getting\s+divorced|separating|over|done))\b.*",
        rf"(?:{{I}})?(?:just\s+|finally\s+)?(?:broke\s+up|split\s+up|separated)\s+with\s+(?P<who>{PROPER})\b.*",
        rf"(?:{{I}})?(?:quit|left)\s+(?:my\s+job\s+(?:at|with)\s+)?(?P<who>{PROPER})\b.*",
    ],
    no_longer=r"\b(?:no\s+longer|anymore|any\s+more)\b",
    negators=r"\b(?:no\s+longer|don['’]t|do\s+not|doesn['’]t|does\s+not|not|anymore|any\s+more)\b",
    fillers=r"uh+|um+|erm+|er|hmm+|ah+",
    bound=r"\b(?:at|in|on|to|for|with|of|from|a|an|the|and)",
    repair=r"no|sorry|I\s+mean|wait|or\s+rather",
    noise=r"\b(?:it\s+cut\s+out|cutting\s+out|bad\s+line|(?:line|signal|connection|mic)\s+(?:is\s+|was\s+|['’]s\s+)?"
          r"(?:bad|breaking\s+up|terrible)|(?:car|traffic|wind)(?:['’]s|\s+is)\s+(?:really\s+|so\s+)?loud"
          r"|can['’]t\s+hear|didn['’]t\s+catch|misheard|sorry,\s+(?:the|it)\b)",
    particles=r"btw|lol|tbh|honestly|though|haha|lmao|now",
    aside=r",\s+(?!(?:in|at|for|with|from|near|on)\b)(?-i:[a-z])",
    carry=r"I['’]m\s+|I\s+am\s+",
    carried=r"(?:an?|\d+|based|originally|from|married|single|vegan|vegetarian)\b",
    polite=r"^(?:(?:hey|so|ok|okay)\s*,?\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?",
    slots={
        "home": r"\b(?:lives?|living|moved|moving|based|relocat\w*)\b",
        "work": r"\b(?:works?|working|job|hired|employed|joined)\b",
        "study": r"\b(?:stud(?:y|ies|ying)|school|university|uni|college|kindergarten|nursery|preschool|grade"
                 r"|graduat\w*)\b",
        "age": r"\b(?:turn(?:s|ed)?\s+\d+|\d+\s+(?:years?\s+old|yo)|is\s+\d+)\b|^\d{1,3}$",
        "status": r"\b(?:married|engaged|divorced|single)\b",
        "like": r"\b(?:loves?|likes?|hates?|adores?|enjoys?|plays?)\b",
    },
    meat=r"\b(?:meat|fish|chicken|beef|pork|seafood|poultry|lamb)\b",
    vegetarian=r"\b(?:vegetarian|vegan|pescatarian)\b",
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
