"""Word lists for the heuristic extractor: function words, verbs, time words, type cues.

Written by hand for this project (no downloaded word lists). They are deliberately small: the
extractor only needs to tell *ordinary* words apart from names and to recognise the handful of
cue words that decide an entity's type or end a clause. Everything is lower case.
"""

from __future__ import annotations

import re

__all__ = [
    "ADJ_SKIP",
    "AUX",
    "BE_FORMS",
    "CLAUSE_BREAKERS",
    "COMMON_WORDS",
    "DETERMINERS",
    "GENERIC_NOUNS",
    "INTERJECTIONS",
    "NATIONALITIES_LOWER",
    "NEGATIONS",
    "NOT_VERBS",
    "PREPOSITIONS",
    "PRONOUNS",
    "QUANTIFIERS",
    "RELATIVE_TIME",
    "STOPWORDS",
    "VERB_LEMMAS",
    "word_set",
]


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (how every word list here is written)."""
    return frozenset(text.split())


_words = word_set


#: Determiners and possessives that open a noun phrase.
DETERMINERS = _words(
    "a an the my your his her our their its this that these those some any every each another no"
)

#: Prepositions (and verb particles that behave like them in "verb + prep" relation names).
PREPOSITIONS = _words(
    "in on at to from into onto with without for of by about near across around through "
    "throughout toward towards via over under after before since until till during against "
    "between among along behind beside inside outside within upon off up down out as like "
    "beyond past"
)

#: Forms of "be": with a past participle they make the passive ("was born").
BE_FORMS = _words("be am is are was were been being 's 're m")

#: Auxiliaries and modals; skipped when looking for the main verb.
AUX = BE_FORMS | _words(
    "have has had having do does did will would shall should can could may might must 've 'll "
    "'d gonna wanna gotta to"
)

NEGATIONS = _words("not never n't no nothing nobody neither nor")

#: Subject and object pronouns (the speaker pronouns are resolved to the speaker when known).
PRONOUNS = _words(
    "i me we us you he him she her it they them myself yourself himself herself itself "
    "ourselves themselves one someone somebody everyone everybody anyone anybody nobody "
    "something everything anything nothing who whom whose which what this that these those "
    "i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll he's she's it's "
    "they're they've they'd they'll that's there's here's what's who's let's"
)

#: Nationalities and languages that may open a sentence as a name ("Russian is hard").
NATIONALITIES_LOWER = _words(
    "english french german spanish italian russian chinese japanese korean arabic hindi "
    "portuguese dutch greek turkish polish swedish hebrew latin mandarin"
)

#: Words that end a clause; a clause without its own subject inherits the previous one's.
CLAUSE_BREAKERS = _words(
    "but while whereas although though because so yet however and_then ; : — – if unless "
    "when whenever where wherever which who whom that after before once"
)

#: Greetings and reactions that open chat lines ("Hey Mel!", "Wow, ...").
INTERJECTIONS = _words(
    "hey hi hello hiya yo oh ooh ah aah aw aww awww wow whoa yay yeah yep yup yes no nope ok "
    "okay lol haha hahaha hehe omg ugh hmm hm um uh huh sure thanks thank congrats "
    "congratulations cheers bye goodbye welcome please sorry oops well alright dear wow"
)

#: Quantity words allowed between a verb and a number or money amount ("spent more than $5").
QUANTIFIERS = _words(
    "more than less fewer about around nearly almost over under roughly approximately some "
    "up to at least most just only an extra another additional"
)

#: Adjectives stripped from the front of a concept phrase ("my own dance studio" → "dance
#: studio"): evaluative or generic words that would split one concept into many nodes.
ADJ_SKIP = _words(
    "own new old first last next other same such very really so big little small large huge "
    "great good bad nice best better worst whole entire main favorite favourite lovely amazing "
    "awesome cool real true few many several much more most less least certain particular "
    "special different similar whole latest recent current former local few couple lot bit "
    "kind sort type beautiful wonderful fantastic incredible super quite pretty total full "
    "single only long short high low huge tiny major minor important actual overall"
)

#: Heads too generic to become CONCEPT nodes (they would connect everything to everything).
GENERIC_NOUNS = _words(
    "thing things time times lot lots way ways bit kind sort part parts one ones day days week "
    "weeks month months year years moment moments something anything everything nothing stuff "
    "people person guy guys place places end rest fact point number reason type side top bottom "
    "while others other question questions answer idea ideas problem problems matter matters "
    "case cases story stories result results news life world man woman men women kid kids "
    "child children friend friends family yesterday today tomorrow tonight night morning "
    "evening afternoon weekend minute minutes hour hours second seconds lot chance level "
    "amount area areas group groups member members set use way help thanks word words "
    "experience feeling feelings fun look touch sense start beginning half house home"
)

#: Relative time expressions: never DATE entities ("yesterday", "last week", "two days ago")
#: because without the conversation's date they name no fixed point in time.
RELATIVE_TIME = _words(
    "yesterday today tomorrow tonight now recently lately currently soon earlier later ago "
    "last next this past coming previous following the a an few couple of several some "
    "day days week weeks weekend weekends month months year years decade decades century "
    "morning mornings afternoon evening evenings night nights time moment while hour hours "
    "minute minutes second seconds summer winter spring autumn fall season holidays "
    "one two three four five six seven eight nine ten twelve fifteen twenty thirty hundred "
    "every each other early late mid end beginning start middle same that these those then "
    "ages forever long since before after"
)

#: Tokens that look like verbs by their suffix but are not ("red", "hundred", "wedding").
NOT_VERBS = _words(
    "red bed shed sled fed wed hundred thousand kindred sacred naked wicked wretched rugged "
    "ragged jagged beloved crooked learned aged bred speed need seed weed feed deed reed "
    "greed breed indeed embed united limited wedding thing things nothing something anything "
    "everything king ring sing spring string wing morning evening during ceiling clothing "
    "pudding darling sibling duckling ping bling sterling shilling viking boring "
    "interesting amazing"
)

#: Base forms of common verbs: inflections are generated in ``_inflect`` below. A trailing
#: "+" doubles the final consonant ("stop+" → stopped, stopping).
_REGULAR_VERBS = """
    accept achieve acquire act add admire admit adopt advise affect afford agree aim allow
    announce answer apologize appear apply appoint appreciate approach approve argue arrange
    arrest arrive ask assist attach attack attempt attend attract avoid bake bark base
    bathe beg+ behave believe belong blame bless boil book borrow bounce bow box brake
    breathe brush bump burn call camp care carry celebrate change charge chase chat+ cheat
    check cheer chew choke clap+ clean clear climb close coach collect combine comfort
    complain complete compose concern confess confirm connect consider consist contain
    continue convert cook copy correct cough count cover crash crawl create cross crush
    cry cure cycle damage dance decide declare decorate defend delay deliver depend describe
    deserve design destroy detect develop die direct disagree disappear discover discuss
    dislike divide donate double doubt drag+ dream dress drop+ dry earn educate embrace
    employ enable encourage end enjoy enter entertain escape establish examine excite excuse
    exercise exist expand expect experience explain explore express extend face fail fancy
    fasten fear fetch file fill film finish fire fix flash float flood flow fold follow
    force form found frame frighten fry gather gaze glow glue grab+ graduate greet grin+ guard
    guess guide hammer hand handle hang happen harm hate head heal heat help hike hire hope
    host hug+ hunt hurry identify ignore imagine impress improve include increase influence
    inform inject injure inspire instruct intend interest interrupt introduce invent invite
    involve iron jail jam+ jog+ join joke judge jump kick kill kiss kneel knock label land
    laugh launch learn lick lie lift like limit list listen live load locate lock long
    look love manage march mark marry match matter measure melt memorize mention milk miss
    mix moan move murder nail name need nest nod+ note notice obey object observe obtain
    occur offend offer open order organize organise own pack paddle paint park part pass
    pause perform permit+ phone pick picture pinch place plan+ plant play please plug+ point
    poke polish pop+ possess post pour practice practise pray preach precede prefer+ prepare
    present preserve press pretend prevent print produce program promise protect protest
    provide publish pull pump punch puncture punish purchase push question queue race
    rain raise reach realize realise receive recognize recommend record recover reduce
    refer+ reflect refuse regret+ reign reject rejoice relax release rely remain remember
    remind remove renew rent repair repeat replace reply report request rescue reside
    respect respond rest retire return reveal review rhyme rinse risk rob+ rock roll rot+
    rub+ ruin rule rush sail satisfy save scare scatter scream screw scrub+ seal search
    separate serve settle shade share shave shelter shiver shock shop+ shrug+ sigh sign
    signal sin+ sip+ ski skip+ slap+ slip+ slow smash smell smile smoke snatch sneeze sniff
    snore snow soak solve soothe sound spare spark sparkle spell spill spoil spot+ spray
    sprout squash squeak squeal squeeze stamp stare start stay steer step+ stir+ stitch stop+
    store strap+ strengthen stretch strip+ stroke stuff subtract succeed suck suffer suggest
    suit supply support suppose surprise surround survive suspect suspend switch talk tame
    tap+ taste tease telephone tempt terrify test thank thaw tick tickle tie time tip+ tire
    touch tour tow trace trade train transport trap+ travel treat tremble trick trip+ trot+
    trouble trust try tug+ tumble turn twist type undress unfasten unite unlock unpack
    untidy use vanish visit volunteer vote wail wait walk wander want warm warn wash waste
    watch water wave weigh welcome whip+ whirl whisper whistle wink wipe wish wobble wonder
    work worry wrap+ wreck wrestle wriggle yawn yell zip+ zoom headquarter retire relocate
    immigrate emigrate commute study graduate reside tweet text email post stream record
    podcast blog+ vlog+ garden knit+ sculpt craft skate surf hike camp fish paddle kayak
    skydive scuba snorkel bike jog+ wed+ divorce date adopt foster mentor counsel intern
    lecture tutor research sponsor fund invest found co-found chair captain star+ premiere
    debut release compose direct produce perform tour sing record paint draw sketch volunteer
    postpone cancel+ complete finish sign headline attend compete qualify retire resign
    elect nominate award rank score defeat beat win lose honor honour celebrate mourn
    protest march strike rally campaign lobby vote govern rule reign serve represent
"""

#: Irregular verbs: "base past participle" (participle omitted when equal to the past).
_IRREGULAR_VERBS = """
    arise arose arisen|awake awoke awoken|be was been|bear bore born|beat beat beaten|
    become became become|begin began begun|bend bent|bet bet|bind bound|bite bit bitten|
    bleed bled|blow blew blown|break broke broken|breed bred|bring brought|build built|
    burn burnt|burst burst|buy bought|catch caught|choose chose chosen|cling clung|
    come came come|cost cost|creep crept|cut cut|deal dealt|dig dug|do did done|
    draw drew drawn|dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|
    fall fell fallen|feed fed|feel felt|fight fought|find found|flee fled|fling flung|
    fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|
    freeze froze frozen|get got gotten|give gave given|go went gone|grind ground|
    grow grew grown|hang hung|have had|hear heard|hide hid hidden|hit hit|hold held|
    hurt hurt|keep kept|kneel knelt|know knew known|lay laid|lead led|lean leant|leap leapt|
    learn learnt|leave left|lend lent|let let|lie lay lain|light lit|lose lost|make made|
    mean meant|meet met|pay paid|put put|quit quit|read read|ride rode ridden|ring rang rung|
    rise rose risen|run ran run|say said|see saw seen|seek sought|sell sold|send sent|
    set set|sew sewed sewn|shake shook shaken|shine shone|shoot shot|show showed shown|
    shrink shrank shrunk|shut shut|sing sang sung|sink sank sunk|sit sat|sleep slept|
    slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spit spat|split split|
    spread spread|spring sprang sprung|stand stood|steal stole stolen|stick stuck|
    sting stung|stink stank stunk|strike struck|swear swore sworn|sweep swept|
    swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|
    think thought|throw threw thrown|understand understood|wake woke woken|wear wore worn|
    weave wove woven|weep wept|win won|wind wound|withdraw withdrew withdrawn|write wrote written|
    overcome overcame overcome|undergo underwent undergone|undertake undertook undertaken|
    rebuild rebuilt|retell retold|outgrow outgrew outgrown|upset upset|broadcast broadcast|
    forecast forecast|mislead misled|misunderstand misunderstood|oversee oversaw overseen|
    withstand withstood|lie lay lain|wed wed
"""

_VOWELS = frozenset("aeiou")


def _inflect(base: str, double: bool) -> tuple[str, str, str]:
    """The 3rd-person, past and -ing forms of a regular verb (simple English spelling rules)."""
    stem = base + base[-1] if double else base
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        past, ing = base + "d", base[:-1] + "ing"
    elif base.endswith("ie"):
        past, ing = base + "d", base[:-2] + "ying"
    elif base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        past, ing = base[:-1] + "ied", base + "ing"
    else:
        past, ing = stem + "ed", stem + "ing"
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        third = base + "es"
    elif base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        third = base[:-1] + "ies"
    else:
        third = base + "s"
    return third, past, ing


_DOUBLING = re.compile(r"^(?:[^aeiou]*|qu)[aeiou][bdgklmnprt]$")


def _doubles(base: str) -> bool:
    """Whether an irregular verb doubles its last consonant before -ing ("put" → "putting",
    "begin" → "beginning")."""
    return bool(_DOUBLING.match(base)) or base in ("begin", "forget", "upset", "forbid")


def _build_lemmas() -> tuple[dict[str, str], frozenset[str]]:
    lemmas: dict[str, str] = {}
    participles: set[str] = set()
    for word in _REGULAR_VERBS.split():
        double = word.endswith("+")
        base = word.rstrip("+")
        third, past, ing = _inflect(base, double)
        for form in (base, third, past, ing):
            lemmas.setdefault(form, base)
        participles.add(past)
    for entry in _IRREGULAR_VERBS.split("|"):
        parts = entry.split()
        if not parts:
            continue
        base, past = parts[0], parts[1]
        participle = parts[2] if len(parts) > 2 else past
        third, _, ing = _inflect(base, _doubles(base))
        # Irregular forms win over a regular spelling of the same word ("found" → find, while
        # "founded" stays with found).
        for form in (base, third, ing):
            lemmas.setdefault(form, base)
        lemmas[past] = base
        lemmas[participle] = base
        participles.add(participle)
    for form in ("is", "am", "are", "was", "were", "'s", "'re"):
        lemmas[form] = "be"
    lemmas["has"], lemmas["does"] = "have", "do"
    return lemmas, frozenset(participles)


#: Every known verb form → its base form ("moved" → "move", "went" → "go").
VERB_LEMMAS, PARTICIPLES = _build_lemmas()

#: Ordinary words a capitalised token at the start of a sentence is not a name for. Verb
#: forms are added, so "Lost my job" or "Gonna go" are not taken for names.
STOPWORDS = (
    DETERMINERS
    | PREPOSITIONS
    | AUX
    | NEGATIONS
    | PRONOUNS
    | INTERJECTIONS
    | _words(
        "and or nor but so yet if then than because while although though whereas unless "
        "also too very really just only even still already always often sometimes usually "
        "never ever again once twice maybe perhaps probably definitely certainly actually "
        "basically literally honestly seriously totally absolutely anyway anyways besides "
        "meanwhile otherwise therefore thus hence instead indeed however moreover furthermore "
        "here there where when why how what which who whom whose whatever whoever whichever "
        "all both either neither each few many much more most other such same own several "
        "yesterday today tomorrow tonight now later soon recently finally lately currently "
        "first second third last next then earlier ago afterwards eventually together alone "
        "abroad overseas instead nearby"
    )
)

COMMON_WORDS = (
    STOPWORDS
    | frozenset(VERB_LEMMAS)
    | _words(
        "good great nice cool awesome amazing wonderful beautiful lovely fantastic incredible "
        "happy glad sad sorry excited proud grateful thankful fun funny cute sweet crazy busy "
        "new old big small little long short high low hard easy best better worse worst right "
        "wrong true false sure fine important interesting exciting inspiring perfect special "
        "people everyone everybody someone somebody nobody family friends friend kids kid life "
        "work job home school time day night morning evening week weekend month year things "
        "thing stuff something nothing anything everything lots lot wish luck love hope "
        "sounds sound looks look seems seem glad definitely absolutely totally exactly "
        "officials police shares every reports report "
        "according sources experts researchers scientists studies study data news update "
        "meanwhile overall together speaking talking thinking looking going getting making "
        "being having doing trying feeling pictures picture photo photos one two three four "
        "five six seven eight nine ten"
    )
)
