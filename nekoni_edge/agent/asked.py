"""What a question asks for, read from its words alone: the kind of answer (a time, a day,
money, a name, an identifier...) from its asking words, one table from question kind to what
a sentence holding the answer says (``answer_kind``, ``can_answer``); its names and its
subject. English only: the asking words and the patterns are English. Pure text logic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from nekoni_edge.rag.structure import ABBREVIATIONS
from nekoni_edge.words import STEM, STOPWORDS, content_words, covered, fold, numbers, stems, words

# A capitalised word opening neither the text nor a sentence in it ("Morning! How's it going?");
# after a title's or an initial's full stop it is inside one ("Mr. Dunn", "M. J. O'Brien").
NAME_INSIDE = re.compile(r"(?<!^)(?:(?<![.!?] )" + "".join(
    rf"|(?<=\b{re.escape(a)}\. )" for a in ABBREVIATIONS) + r"|(?<=\b[A-Z]\. ))\b[A-Z][a-z]+")


def name_stems(question: str) -> set[str]:
    """The names in a question (capitalised words after its first), as stems."""
    return {w.lower()[:STEM] for w in NAME_INSIDE.findall(question.strip())}


def names(question: str) -> set[str]:
    """The question's names: capitalised words after its first, not days, months or titles."""
    return {fold(w.lower()) for w in NAME_INSIDE.findall(question.strip())} - CALENDAR - _TITLES


# Titles before a surname: "Nurse Patel" and "Sensei Kato" are one name each, like "Mr Pike".
HONORIFICS = frozenset({"mr", "mrs", "ms", "dr", "miss", "nurse", "sensei", "prof",
                         "professor", "rev", "reverend", "sister", "father", "coach"})
_TITLES = HONORIFICS | {fold(h) for h in HONORIFICS}  # as the words are folded ("miss": "mi")
CAPITALISED = re.compile(r"\b[A-Z][a-z]+")
# A place: after a determiner ("in the cellar"), or a name that is no day or month ("at
# Hartwell Manor", not "on Saturday").
PLACE = re.compile(r"\b(in|at|under|behind|on|by|near|beside|inside|next to|above|below)\s+"
                   r"(?:(the|a|an|our|my|his|her|their|\w+'s)\s+|(?!(?:monday|tuesday|wednesday|"
                   r"thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
                   r"august|september|october|november|december|easter|christmas)\b)"
                   r"(?-i:[A-Z]))(?!(morning|afternoon|evening|night|day|week|month|year|"
                   r"summer|winter|spring|autumn|weekend)s?\b)", re.IGNORECASE)
# What kind of words an answer to each kind of question contains.
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_WHEN = re.compile(rf"\b(\d{{1,2}}([:.]\d\d)?\s?(am|pm)|\d{{1,2}}[:.]\d\d\b|"
                   rf"\d{{1,2}}(st|nd|rd|th)\b|{_DAYS}|weekday|weekend|"
                   rf"{_MONTHS}|daily|"
                   r"morning|evening|night|dusk|dawn|sunset|sunrise|every|each|monthly|weekly|year|month|"
                   r"week|day|"
                   r"spring|summer|autumn|winter|(?<!\d )(?:1[89]|20)\d\d(?! \d)|"
                   r"first|second|twice|once|noon|easter|"
                   r"christmas|half[- ]term|holidays?|weekends?|new year|bank holiday|"
                   r"breakfast|lunch|dinner|supper|bedtime|before|after)s?\b",
                   re.IGNORECASE)  # (whole words: "Maya" holds no May, "daylight" no day;
# a year, not a group of a phone or membership number: "0800 048 3319" says no when)
# A question for when something starts, and a clock time said as when it ends. English only.
_ASKS_A_START = re.compile(r"\b(open|opens|start|starts|begin|begins|leave|leaves|depart|"
                           r"departs)\b")
# (A journey's end too: "her train gets into Brampton at 14.52" is no answer to when it leaves.)
_UNTIL = re.compile(r"\b(until|till|til|(?:closes?|closing|finish(?:es)?|ends?|arrives?|"
                    r"arriving|lands?|gets? in(?:to)?)(?: (?:the )?(?-i:[A-Z])\w+)*(?: at)?)\s*$",
                    re.IGNORECASE)
# ...and the same the other way: "what time does it close?" is not answered by "opens at 9".
_ASKS_AN_END = re.compile(r"\b(close|closes|shut|shuts|finish|finishes|end|ends|arrive|"
                          r"arrives|land|lands|get in|gets in)\b")
_FROM = re.compile(r"\b(from|(?:opens?|opening|starts?|begins?|leaves?|departs?|sets? off)"
                   r"(?: (?:the )?(?-i:[A-Z])\w+)*(?: at)?)\s*$", re.IGNORECASE)
_CLOCK = re.compile(r"\b\d{1,2}(:\d\d)?\s?(am|pm)\b|\b\d{1,2}[:.]\d\d\b|\b(noon|midday|midnight|"
                    r"o'clock)\b", re.IGNORECASE)
_DATE = re.compile(rf"\b(1[89]|20)\d\d\b|\b\d{{1,2}}(st|nd|rd|th)?\s+({_MONTHS})\b|"
                   rf"\b({_MONTHS})\s+\d{{1,2}}\b|"
                   # (a log's "18/03/27", a form's "18.03.2027")
                   r"\b\d{1,2}([/.-])\d{1,2}\5(?:\d\d){1,2}\b", re.IGNORECASE)
# An age, or a birth year it follows from; a birthday (a day and a month) says nothing of it.
_AGE = re.compile(r"\b\d+\s*(years?|months?)\s*old\b|\baged?\s*\d+|\bborn\b.*\b(1[89]|20)\d\d\b",
                  re.IGNORECASE)
# A sentence telling of the past: "was", "did", "ago", a year, a deed done.
_TOLD_PAST = re.compile(r"\b(was|were|did|had|ago|yesterday|\w{3,}ed|(1[89]|20)\d\d)\b",
                        re.IGNORECASE)
_LAST_TIME = re.compile(r"\blast (?:time|year|month|week)\b", re.IGNORECASE)
_AT_A_PLACE = re.compile(r"\b(?:in|at|on|by|under|behind|beside|inside|near|next to) "
                         r"(?:the |our |a |an )?([\w-]+)", re.IGNORECASE)
_HEAT_QUESTIONS = ("how hot", "how warm", "how cold", "what temperature")
_TEMPERATURE = re.compile(r"\d\s*(°|degrees?\b|[cf]\b)", re.IGNORECASE)
# A number with no unit, where a temperature is what the sentence or its heading is about:
# "set the hot water temperature; we keep ours at 55", "19 in the day" under the thermostat's
# question. Not a time, a price, a share or a measure of anything else.
_BARE_NUMBER = re.compile(r"(?<![£$€\d.:])\b\d{1,3}(?:\.\d)?\b(?![.:]\d|\s*(?:am|pm|%|h|hrs?|"
                          r"hours?|mins?|minutes?|seconds?|days?|weeks?|months?|years?|bar|"
                          r"psi|ml|l|litres?|kg|g|cm|mm|m|km|miles?|times?)\b)", re.IGNORECASE)
_TEMPERATURE_NAMED = re.compile(r"\btemperature", re.IGNORECASE)
# "What can't go in the green bin?", "which foods mustn't the dog have?": what is not allowed,
# told by a sentence that rules something out ("no soil or food", "never give grapes").
_NOT_ALLOWED = re.compile(r"^(?:what|which)\b.*\b(?:can't|cannot|can not|mustn't|must not|"
                          r"shouldn't|should not|may not|not allowed)\b")
_RULED_OUT = re.compile(r"n't\b|\b(?:no|not|never|only|cannot|nothing|none|avoid|without|except)"
                        r"\b", re.IGNORECASE)
_SIZE_QUESTIONS = ("how big", "how large", "how tall", "how wide", "how heavy", "how deep")
_WEIGHING = frozenset({"weigh", "weighs", "weight"})
_WEIGHT = re.compile(r"\d\s*(kg|kilos?|kilograms?|g|grams?|lbs?|pounds?|oz|ounces?|stones?|st|"
                     r"tonnes?)\b|\b(heavy|light)\b", re.IGNORECASE)
_SIZE = re.compile(r"\d\s*(mm|cm|m|km|in|inch(es)?|ft|feet|foot|litres?|liters?|l|gallons?|kg|g|"
                   r"tonnes?|metres?|meters?|kwh|kw|w|watts?|mah|ah|gb|tb|mb|seats?|berths?)\b|"
                   r"\b(small|large|big|tall|wide|heavy|deep)\b",
                   re.IGNORECASE)
# A street address ("14 Elm Road", "Church Street"): "the Okafors drive" is not one.
_ADDRESS = re.compile(r"\b\d+[a-z]?,? [A-Z][a-z]+(?: [A-Z][a-z]+)? (?:Road|Street|Lane|Avenue|"
                      r"Close|Drive|Way|Gardens|Place|Crescent|Terrace|Court|Row)\b|\b[A-Z][a-z]+ "
                      r"(?:Road|Street|Lane|Avenue|Close|Way|Gardens|Place|Crescent|Terrace)\b")
# "What day is bin day?", "what evening is choir?": a when, asked by the part of it wanted.
_WHICH_PART = re.compile(r"\b(what|which) (day|days|evening|morning|afternoon|night|week|month|"
                         r"season)\b")
_DAY_PARTS = frozenset("day days evening morning afternoon night".split())
_DAY = re.compile(rf"\b(({_DAYS})s?|weekdays?|weekends?|daily|tonight|tomorrow)\b|\bevery day\b|"
                  r"\b\d{1,2}(st|nd|rd|th)\b|\b(first|second|third|fourth|last)\b", re.IGNORECASE)
# "When was the chimney swept?": "in October" says it, "every two weeks" does not.
_PAST_WHEN = re.compile(rf"\b(in|last|since|during|on) ({_MONTHS}|spring|summer|autumn|"
                        rf"winter)\b|\bago\b|\byesterday\b", re.IGNORECASE)
_FULL_NAMES = f"{_DAYS}|{_MONTHS}".split("|")
# Days and months as lists and forms shorten them ("Tues 12 Jan", "every other Wed"): read
# as the whole word where they are capitalised ("the cat sat" stays a cat's).
_SHORT = {short: full for full in _FULL_NAMES for short in (
    full[:3], full[:4] if full.startswith(("tue", "sep")) else "",
    full[:4] if full.startswith("thu") else "", full[:5] if full.startswith("thu") else "")
    if short and short != full}
_SHORTENED = re.compile(r"\b(" + "|".join(s.capitalize() for s in sorted(_SHORT, key=len,
                        reverse=True)) + r")\b")
# (A feast names a time as a month does: "after Easter" is no one's.)
_FEASTS = ("easter", "christmas", "halloween")
CALENDAR = frozenset(_FULL_NAMES) | {fold(s) for s in _SHORT} | set(_SHORT) | set(_FEASTS) | {
    fold(f) for f in _FEASTS}


def spelled_out(text: str) -> str:
    """The text with its shortened days and months written whole ("Tues 12 Jan" is "tuesday
    12 january")."""
    return _SHORTENED.sub(lambda m: _SHORT[m.group(1).lower()], text)
# Numbers in words, as a household writes them ("thirty minutes", "twenty-five pounds").
_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                 "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
                 "fifty|sixty|seventy|eighty|ninety|hundred")
_AMOUNT = re.compile(rf"\d|\b({_NUMBER_WORDS}|half|dozen)\b", re.IGNORECASE)


_MEASURES = frozenset({"mileage", "size"})
# A measure is also said by its unit ("due at 60,200 miles" gives a mileage).
_MEASURE_UNITS = {"mileage": frozenset({"mile", "miles"})}
# "three working days", "two full weeks": a word may stand between the number and its unit.
_DURATION = re.compile(rf"\b(\d+|a|an|(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?|"
                       r"few|several|half an?)\s*-?\s*(?:[a-z]+\s+)?(years?|months?|weeks?|days?|"
                       r"hours?|hrs?|minutes?|mins?|seconds?|nights?)\b|\buntil\b|\bovernight\b",
                       re.I)
# "How long can the pieces be?": a length answers "how long" as a length of time does.
_LENGTH_OR_TIME = re.compile(_DURATION.pattern + r"|\d\s*(?:mm|cm|m|km|metres?|meters?|"
                             r"in|inch(?:es)?|ft|feet|foot|yards?|miles?)\b", re.IGNORECASE)
# "last month's book" is not "this month's book": a period named with another qualifier.
_PERIOD = re.compile(r"\b(last|next|this|previous|coming|following|current)\s+(week|month|"
                     r"year|weekend|term|season|time)\b", re.I)
_SAME_QUALIFIER = {"previous": "last", "coming": "next", "following": "next",
                   "current": "this"}
_KEPT_SOMEWHERE = frozenset({"code", "pin", "password"})  # a secret may be told by where it is
# The words a note may name a secret by ("the combination for the padlock" is its code).
_SECRET_NAMES = {"code": frozenset({"code", "combination", "pin", "passcode"}),
                 "pin": frozenset({"pin", "code"}),
                 "password": frozenset({"password", "passcode", "passphrase"})}
_IDENTIFIERS = frozenset({"number", "code", "pin", "password"}) | _MEASURES
_GENERIC_HEADS = _IDENTIFIERS | {"name", "time", "date", "day", "age", "address", "phone"}
# (folded as the words are: 'addres')
GENERIC_HEADS = frozenset(fold(h) for h in _GENERIC_HEADS)
# An identifier's value: letters and digits together, dash-joined, or five digits or more.
# Code-like: letters and digits mixed, dashed groups, or a long number; not an ordinal
# ("12th") or a measure ("10am" is a time).
_CODE = re.compile(r"(?!\d+(?:st|nd|rd|th|am|pm)\b)(?=[\w-]*\d)(?:[\w]*[a-z][\w]*\d[\w-]*|"
                   r"[\w]*\d[\w]*[a-z][\w-]*|[\w]+-[\w-]+|\d{5,})", re.IGNORECASE)
# A price paid once ("it cost 950 pounds", "we paid"), not a charge paid each time ("the fee
# is paid every March").
_PAID = re.compile(r"\b(cost|(?<!is )(?<!are )paid|charged|spent|was|were|came to)\b",
                   re.IGNORECASE)
_IRREGULAR_PAST = "gave|made|sold|built|bought|brought|took|sent|put|got|found|paid|left|lent|wrote"
# "When was the pond dug?", "when were the panels installed?": the deed asked about, last.
_DONE_LAST = re.compile(rf"\b(\w+ed|{_IRREGULAR_PAST}|dug|swept|done|made|born|laid|hung|"
                        r"grown|sewn|fixed|cut|set|shut|taken|given|written|shown|seen|"
                        r"chosen|stolen|broken|won|begun)\W*$")
# "What breed are our hens?", "what make is the van?", "what colour is it?": a kind of thing.
_KIND_ASKED = re.compile(r"^(?:what|which) (breed|make|model|brand|kind|type|sort|variety|"
                         r"species|colour|color) (?:is|are|was|were)\b")
# Things whose own kinds of answer are checked above ("what date is the party?": a date).
_TOLD_ELSEWHERE = frozenset("date time day days year month week evening morning afternoon "
                            "night season hour".split())
_WHICH_THING = re.compile(r"^(?:what|which) ([a-z]+) (?:is|are|was|were) (.*)$")
_COLOUR = re.compile(r"\b(red|orange|yellow|green|blue|purple|pink|brown|black|white|grey|gray|"
                     r"silver|gold|cream|beige|navy|turquoise|teal|lilac|magenta|maroon)\b",
                     re.IGNORECASE)
_IS_A = re.compile(r"\b(is|are) (a|an)\b", re.IGNORECASE)
_APPOSITION = re.compile(r"\b([A-Z][a-z]+),? the ([a-z]+)")  # "Pepper the spaniel"
# Kinds of personal fact a note may lack: "what's the Okafors' address?".
_PERSONAL = frozenset("date name surname called address email phone".split())
# "Ben's middle name", "Rosa's surname": said with the rest of the name beside it.
_PART_OF_NAME = re.compile(r"\b([A-Z][a-z]+)['’]s (?:(?:first|middle|last|full|maiden) name|"
                           r"surname)\b")
_EVERY = re.compile(r"\bevery\s+[\d,.]+\s*\w+", re.IGNORECASE)
# A telephone number written in groups ("0800 111 999", "+44 20 7946 0018"): seven digits or more.
_DIGIT_GROUPS = re.compile(r"(?<![\w-])\+?\d{2,5}(?:[ -]\d{2,5}){1,3}(?![\w-])")
# Words of a question that only ask (not what about): left out when a sentence must hold the
# rest.
_ASKING = frozenset("name called kind type sort".split())


# Words saying an identifier is a number to ring ("the vet's phone number", "what number do I
# call?"): its form is checked (``_has_phone``), and a sentence need not say them ("call the
# practice on 01632 960 447").
_PHONING = frozenset("phone telephone mobile ring call".split())
# A number another word names: "membership number 0192 8834", "account no. 4471 2290".
_NAMED_NUMBER = re.compile(rf"\b(?!(?:{'|'.join(_PHONING)})\b)[a-z]+ (?:number|no\.)[:\s]+"
                           rf"{_DIGIT_GROUPS.pattern}", re.IGNORECASE)


def _has_phone(sentence: str) -> bool:
    return any(len(re.sub(r"\D", "", m)) >= 7 for m in _DIGIT_GROUPS.findall(sentence))


def _plain_stems(question: str) -> set[str]:
    """The question's words less names and asking words, as stems."""
    return {w[:STEM] for w in content_words(question) - _ASKING
            if not w.isdigit()} - name_stems(question)
_PRICE = frozenset({"cost", "costs", "price", "paid", "pay", "charge", "charged", "spend",
                    "spent"})
# Money, or none: "free of charge" is what a thing costs too; pence after their number
# ("53.21p per day", "20p coins").
_CURRENCY = re.compile(r"[£$€]|\b(pounds?|pence|euros?|dollars?|cents?|quid|gbp|eur|usd|free)\b"
                       r"|\b\d+(?:\.\d+)?p\b", re.IGNORECASE)
# "what's", "it's" and the like are "… is", never a possession (any case: "How's it going?").
NOT_A_POSSESSIVE = r"(?!(?i:what|who|where|when|how|that|it|there|here|he|she)['’]s\b)"
# "Maya's best friend", "Leo's birthday": what the question is about, at its end.
_POSSESSED = re.compile(rf"\b{NOT_A_POSSESSIVE}"
                        r"(\w+)(?:'s|’s)\s+((?:[\w-]+\s+){0,4}[\w-]+)\W*$", re.IGNORECASE)
# "What time does Priya's choir start?": after "does" the phrase's last word is the verb.
_AUXILIARY = re.compile(r"\b(do|does|did)\b", re.IGNORECASE)
# "When is Pepper's flea treatment due?": after "is" a last word saying a state (an adjective
# of time or a participle) is the predicate, not the thing.
# ("What's" is "what is": "What's Jen's cat called?" asks the cat's name.)
_COPULA = re.compile(r"\b(is|are|was|were)\b|\b(?:what|who|where|when|how)['’]s\b",
                     re.IGNORECASE)
_PREDICATE = re.compile(r"due|open|closed|ready|done|over|\w+ed", re.IGNORECASE)
# Where a possessed phrase's head ends: "key worker at nursery" is about a worker.
_PREPOSITIONS = frozenset("at in on for of with from to by per about during after before near "
                           "into over under without between than".split())


_PAST_SUBJECT = re.compile(r"\bdid (?:the|our|my) ([\w-]+)", re.IGNORECASE)
_EVENT_SUBJECT = re.compile(r"^(?:when|what time|what day|what date) (?:is|are|was|were) "
                            r"(?:the|our|my) ((?:[\w-]+\s+){0,5}[\w-]+)\W*$", re.IGNORECASE)


def subject(question: str) -> tuple[str, list[str]] | None:
    """What the question is about: its owner as written ("Leo" of "Leo's birthday"; '' for
    "what did the plumber charge") and the thing's words, folded, its head last; None when
    the question says neither way."""
    text = question.strip()
    found = _POSSESSED.search(text)
    past = _PAST_SUBJECT.search(text)
    event = _EVENT_SUBJECT.search(text)
    if found is None and past is None and event is not None:
        # "When is the PTA summer fair?", "what time is the nativity on Friday?": an event
        # named, up to a preposition, whose time is asked. Not a thing's place ("the fuse
        # box" may be "the consumer unit"), nor what is done to a thing ("the rubbish
        # collected": the bins) or by someone ("the plumber coming": Dave, who wrote from
        # his plumbing firm's address): those are named otherwise too often.
        said = words(event.group(1))
        cut = next((i for i, w in enumerate(said) if i and w in _PREPOSITIONS), len(said))
        if any(w.endswith("ing") or _PREDICATE.fullmatch(w) or _DONE_LAST.fullmatch(w)
               for w in said[1:cut]):
            return None
        phrase = " ".join(said[:cut])
    elif found is not None:
        said = words(found.group(2))
        cut = next((i for i, w in enumerate(said) if w in _PREPOSITIONS and i), len(said))
        if cut > 1 and (_AUXILIARY.search(text[:found.start()]) or _PREDICATE.fullmatch(
                said[cut - 1]) and _COPULA.search(text[:found.start()])):
            cut -= 1
        phrase = " ".join(said[:cut])
    elif past is not None:
        phrase = past.group(1)
    else:
        return None
    wanted = [fold(w) for w in words(phrase) if w not in STOPWORDS and not w.isdigit()]
    if not wanted or found is not None and len(wanted) == 1 and wanted[0].endswith("ing") \
            and not (_AUXILIARY.search(text[:found.start()])
                     or _COPULA.search(text[:found.start()])):
        # "what's Maya reading for book club": "Maya is", not a possession; after a verb of
        # its own the question's "'s" is one ("what time does Finn's swimming start?").
        return None
    return (found.group(1) if found is not None else ""), wanted


def missing_subject(question: str, document: str) -> bool:
    """Whether the thing the question is about ("Leo's birthday", "what did the plumber
    charge") is nowhere in the document: then the document, however close, cannot answer."""
    about = subject(question)
    if about is None:
        return False
    owner, wanted = about
    if wanted[-1] in GENERIC_HEADS:
        # "the choir conductor's name": what kind of answer; the subject is whose it is, when
        # that is a thing, not a name (a name says which document, judged by the show).
        return bool(owner) and owner.islower() and fold(owner.lower())[:STEM] not in stems(
            document)
    return wanted[-1][:STEM] not in stems(document)


def lacks(question: str, document: str) -> bool:
    """Whether the document lacks what the question is about, however close it is: its
    subject, a numbered thing it numbers only otherwise, or a proper name it never writes."""
    return missing_subject(question, document) or numbered_otherwise(question, document) or \
        unnamed(question, document)


# "Year 6", "Room 12", "under-15s", "E9": a word and its number, apart, dashed or joined.
_NUMBERED = re.compile(r"\b([A-Z][a-z]+) (\d+)\b|\b([a-z]+)-(\d+)|\b([A-Za-z]{1,3})(\d+)(?:s\b|\b)")


def numbered_names(question: str) -> list[tuple[str, str]]:
    """The numbered things a question names, each as its word and its number ("Year 5":
    ('Year', '5'); "the under-15s": ('under', '15'); "E21": ('E', '21'))."""
    named = []
    for found in _NUMBERED.finditer(question.strip()):
        groups = found.groups()
        named.append(next((w, n) for w, n in zip(groups[::2], groups[1::2], strict=True) if w))
    return named


def writes_numbered(word: str, number: str, text: str) -> bool:
    """Whether a text writes a numbered thing ("Year 5", "year-5", "E21"; not "Year 51")."""
    return re.search(rf"\b{word}[ -]?{number}(?!\d)", text, re.IGNORECASE) is not None


def numbered_otherwise(question: str, document: str) -> bool:
    """Whether the question names a numbered thing ("the Year 6 trip", "the under-15s", error
    E9) that the document numbers only otherwise ("Year 4", "under-13s", E1 and E7): then it is
    about another one."""
    for word, number in numbered_names(question):
        if not writes_numbered(word, number, document) and \
                re.search(rf"\b{word}[ -]?\d+", document, re.IGNORECASE):
            return True
    return False


def unnamed(question: str, document: str) -> bool:
    """Whether the question names something by a proper name ("the Easter party", "dinner on
    Saturday", "Noah's match") that the document never writes: a proper name is written one
    way, so the document is about another thing (the Christmas party, the week's other days).
    Capitals inside a word or all through it ("Wi-Fi", "OK", "MOT") are written many ways
    ("wifi", "okay") and do not count, nor do titles ("Mr")."""
    text = question.strip()
    held = spelled_out(document).lower()
    said = {fold(m.group().lower()) for m in NAME_INSIDE.finditer(text)
            if not re.match(r"[\w-]", text[m.end():m.end() + 1])
            and text[m.start() - 1:m.start()] != "-"} - _TITLES
    # (Folded as the question's are: "Brownies" is "browny" in both.)
    folded = {fold(w) for w in re.findall(r"[\w']+", held)}
    return any(w not in folded and not re.search(rf"\b{w}", held) for w in said)


# "What does the notice say?", "tell me about Grandma's visit": what a note says, in the model's
# words, rather than one sentence's fact. English only.
_GIST = re.compile(r"\b(says?|said|summari[sz]e|summary|overview|tell me about|what(?:'s| is) in)"
                   r"\b", re.IGNORECASE)


def asks_gist(question: str) -> bool:
    """Whether the question asks what a note says as a whole, not for a fact in a sentence."""
    return _GIST.search(question) is not None


def specific(question: str) -> bool:
    """Whether the question asks for a kind of thing a sentence may lack (a time, an amount,
    a name, an identifier), rather than for what a note says."""
    return bool(answer_kind(question)) or bool(
        set(words(question.strip().lower())) & (_IDENTIFIERS | _PERSONAL))


def only_where_kept(question: str, sentence: str) -> bool:
    """Whether the sentence answers a question for a code, PIN or password only by where it is
    kept (no value of its own): a note holding the value is the better answer."""
    asked = set(words(question.lower())) & _KEPT_SOMEWHERE
    return bool(asked) and not (numbers(sentence) - numbers(question)) and not any(
        _CODE.fullmatch(t) for t in re.findall(r"[\w-]+", sentence))


_DATED = frozenset(_FULL_NAMES) - {"may"}  # "may" is more often the verb
_EVERY_DAY = re.compile(r"\bevery day\b|\bdaily\b|\bweek(?:day|end)s?\b", re.IGNORECASE)


def _periods(text: str) -> dict[str, str]:
    return {m.group(2).lower(): _SAME_QUALIFIER.get(m.group(1).lower(), m.group(1).lower())
            for m in _PERIOD.finditer(text)}


def _identifiers(q: str) -> set[str]:
    asked = set(words(q)) & _IDENTIFIERS
    if re.search(r"\bnumber \d", q):
        asked.discard("number")  # "who lives at number 16?" gives the number
    return asked


def answer_kind(question: str) -> str:
    """The kind of answer a question asks for ('' for whatever a note says), decided by its
    asking words before its verb: "on which day is the rent paid?" asks for a day, not for
    money. English only: the asking words are English ones."""
    q = question.strip().lower()
    asked = set(words(q))
    # "Who", "where" and "when" say the kind whatever the words after them: "who do I pay the
    # rent to?" asks for a name, "where is the charge cable?" for a place, not for money.
    opening = q.split(maxsplit=1)[0] if q else ""
    if opening in ("who", "whose"):
        return "name"
    if opening == "where":
        return ""  # what a note says of where it is (a place phrase is scored, not required)
    if opening == "when":
        return "past date" if q.startswith("when did") else "past when" if q.startswith(
            ("when was", "when were")) else "when"
    part = _WHICH_PART.search(q)
    # Each kind with whether the question asks for it; the first that does wins.
    for kind, asks in (
            ("identifier", bool(_identifiers(q))),
            ("date of", "date" in asked and "what date" not in q),
            ("season", bool(re.search(r"what time of (the )?(year|month|week|day)", q))),
            ("clock", "what time" in q),
            ("day", part is not None and part.group(2) in _DAY_PARTS),
            ("money paid", bool(asked & _PRICE) and q.startswith("how much did")),
            # "how much is/are …?" asks a price ("how much are the lessons for the term?");
            # "how much rice …?" an amount.
            ("money", bool(asked & _PRICE) or bool(re.match(r"how much (is|are|was|were)\b",
                                                            q))),
            ("email", bool(asked & {"email", "e-mail"})),  # an address, not a street's
            ("address", "address" in asked),
            ("when", part is not None),
            ("age", q.startswith("how old")),
            # "How much does the dog weigh?" asks a weight, not an amount.
            ("weight", q.startswith("how heavy") or bool(asked & _WEIGHING)),
            ("size", q.startswith(_SIZE_QUESTIONS)),
            ("temperature", q.startswith(_HEAT_QUESTIONS)),
            ("count", q.startswith("how many")),
            ("amount", q.startswith("how much")),
            ("duration", q.startswith("how long")),
            ("frequency", q.startswith("how often")),
            ("kind", _KIND_ASKED.match(q) is not None),
            ("named thing", bool(_which_thing(q))),
            ("part of a name", _PART_OF_NAME.search(question) is not None),
            ("name", q.startswith(("who", "whose")) or bool(asked & {"name", "called"})),
            ("not allowed", _NOT_ALLOWED.search(q) is not None),
    ):
        if asks:
            return kind
    return ""


def _before(sentence: str, time: re.Match[str]) -> str:
    """The words before a clock time ("9.30am" is found as its "30am")."""
    return sentence[:time.start()].rstrip("0123456789.:")


# What a sentence holding each kind of answer says, where a pattern tells it: a clock time
# for "what time", money for a cost, a day for "which day" (a month says none of them).
_SAYS: dict[str, re.Pattern[str]] = {
    "season": _WHEN, "clock": _CLOCK, "day": _DAY, "money": _CURRENCY, "address": _ADDRESS,
    "email": re.compile(r"[\w.+-]@[\w-]+\.\w"),
    "past date": _DATE,  # "when did": a year or a date, not a habit
    "when": _WHEN, "age": _AGE, "temperature": _TEMPERATURE,  # "how hot?": not 3 hours 40
    "weight": _WEIGHT,  # "how much does he weigh?": not "a four-year-old spaniel"
    "amount": _AMOUNT, "duration": _LENGTH_OR_TIME,  # not a day of the week
    "not allowed": _RULED_OUT,  # "what can't go in it?": not the day it is collected
}


def holds_kind(kind: str, text: str) -> bool | None:
    """Whether a text says a value of an answer kind that one pattern tells (a length of
    time, a day, a price); None for a kind no pattern tells."""
    pattern = _SAYS.get(kind)
    return None if pattern is None else pattern.search(text) is not None


def can_answer(question: str, sentence: str, context: str = "", *, close: bool = False,
               about: str = "") -> bool:
    """Whether a sentence has the kind of thing the question asks for (``answer_kind``).
    (A document about the van does not hold its mileage just because it is about the van.)
    ``context``: what establishes the sentence's subject (its document's name and first
    sentence: "the next is due at 60,200" is the Skoda's). ``close``: the sentence is as close
    to the question by meaning as a note shown for its meaning alone; ``about``: the sentence
    after the one its opening pronoun stands for."""
    question, sentence = spelled_out(question), spelled_out(sentence)
    q = question.strip().lower()
    said_periods = _periods(sentence)
    asked_periods = _periods(q)
    if any(said_periods.get(period, qualifier) != qualifier
           for period, qualifier in asked_periods.items()):
        return False  # asked for last month's, the sentence is about this month's
    if "last" in asked_periods.values() and not said_periods and not (
            _TOLD_PAST.search(sentence) or _PAST_WHEN.search(sentence)):
        return False  # last month's book: what the club does each month says nothing of it
    asked_days = {fold(w) for w in words(q)} & _DATED
    said_days = {fold(w) for w in words(sentence.lower())} & _DATED
    if asked_days and said_days and not asked_days & said_days and not _EVERY_DAY.search(
            sentence):
        return False  # "who picks up on Saturdays?": Monday's row says nothing of it
    kind = answer_kind(question)
    if kind == "identifier":
        return _holds_identifier(question, sentence, context, close)
    if kind == "name":
        # "He came on Tuesday and replaced the seal": the name is what "he" stands for.
        return _holds_name(question, about or sentence, context)
    if kind == "clock" and _ASKS_AN_END.search(q) and not _ASKS_A_START.search(q):
        return any(not _FROM.search(_before(sentence, m)) for m in _CLOCK.finditer(sentence))
    if kind == "clock" and _ASKS_A_START.search(q):
        # "What time does the shop open?": a time the sentence says it lasts until ("open
        # until 9pm") is when it ends, no answer to when it starts.
        return any(not _UNTIL.search(_before(sentence, m)) for m in _CLOCK.finditer(sentence))
    if kind == "temperature" and not _TEMPERATURE.search(sentence):
        return _BARE_NUMBER.search(sentence) is not None and \
            _TEMPERATURE_NAMED.search(f"{context} {sentence}") is not None
    for word, number in numbered_names(question):
        # The question's own numbered thing is what it asks about, no value of the asked
        # kind: "Year 5 residential trip" says no when ("year"), "Stage 6 group" no count.
        sentence = re.sub(rf"\b{word}[ -]?{number}(?!\d)", "", sentence, flags=re.IGNORECASE)
    held = holds_kind(kind, sentence)
    if held is not None:
        return held
    check = _CHECKS.get(kind)
    return check(question, sentence, context) if check is not None else True


# Identifiers that are never a code or a PIN to key in: a value one names is that one.
_OTHER_IDENTIFIER = re.compile(r"\b(?:reference|account|membership|policy|serial|booking|"
                               r"customer|registration)\b", re.IGNORECASE)


def _holds_identifier(question: str, sentence: str, context: str, close: bool) -> bool:
    """An identifier or a measure: a value of its own, in a sentence holding every other word
    of the question ("policy" for "the policy number", but "national" too for "my national
    insurance number"), and code-like unless the sentence names it. Where a secret is kept
    answers it ("the password is on the card stuck to the fridge"); which document is about
    which secret, the show decision has judged."""
    q = question.strip().lower()
    identifiers = _identifiers(q)
    # "The dress code is summer formal": the sentence names the asked thing, qualifier and
    # all, and says what it is; a value need not be a code.
    for qualifier, identifier in re.findall(rf"(\w+) ({'|'.join(identifiers) or '$^'})\b", q):
        if qualifier not in STOPWORDS and re.search(
                rf"\b{qualifier} {identifier} (?:is|are) (?!{_NOT_A_VALUE})\w", sentence,
                re.IGNORECASE):
            return True
    named_as = {n[:STEM] for w in identifiers & _KEPT_SOMEWHERE for n in _SECRET_NAMES[w]}
    if named_as & stems(sentence) and PLACE.search(sentence):
        return True
    if not numbers(sentence) - numbers(question):
        return False
    said = stems(sentence)
    phoned = "number" in identifiers and bool(set(words(q)) & _PHONING)
    others = _plain_stems(question) - {w[:STEM] for w in identifiers | (
        _PHONING if phoned else set())}
    held = covered(others, said | stems(context))
    # A sentence close by meaning may say the rest in other words ("the guest network" for
    # "the guest Wi-Fi"): half of them is enough there. Any other needs them all ("my
    # national insurance number" is not the home insurance's claims line).
    if held != others and not (close and 2 * len(held) >= len(others)
                               and not named_otherwise(question, f"{context} {sentence}")):
        return False
    # "every 6,000 miles" is how often, not a mileage.
    measured = set(words(_EVERY.sub("", sentence)))
    named = bool({w[:STEM] for w in identifiers} & said) or any(
        measured & _MEASURE_UNITS.get(w, frozenset()) for w in identifiers)
    if identifiers & _MEASURES:
        return named  # a measure is said with its name ("a mileage of"), not a code
    if phoned:
        # "The plumber's phone number": a number to ring, not one another word names
        # ("membership number 0192 8834" is the breakdown cover's, whoever it is with).
        return _has_phone(_NAMED_NUMBER.sub(" ", sentence))
    # "the plot number" is said as "plot 17", "the room number" as "room 12".
    counted = [m.group(1) for m in re.finditer(r"([a-z]+) number\b", q)
               if m.group(1) not in STOPWORDS]
    if not named and _OTHER_IDENTIFIER.search(sentence) and not _OTHER_IDENTIFIER.search(q):
        return False  # "Permit reference: ZK-20417" is no PIN, however code-like
    return named or _has_phone(sentence) or any(
        _CODE.fullmatch(t) for t in re.findall(r"[\w-]+", sentence)) or any(
        re.search(rf"\b{re.escape(c[:STEM])}\w*\s+\d", sentence, re.IGNORECASE)
        for c in counted)


# What follows "the door code is" when it is not the value: where it is, or that it changes.
_NOT_A_VALUE = r"(?:on|in|at|under|behind|by|with|kept|written|stuck|the same|\w+ing)\b"
# Words before a thing that say which one without naming a kind of it ("whose password").
_PICKING = frozenset("whose every each".split())


# The thing a question ends by naming after a determiner.
# (Each word whole, "(?![\w-])": a word that may end anywhere inside it split "allotment
# committee" every way before failing, 12 s for one question with the event loop blocked.)
_DETERMINED_LAST = re.compile(r"^(.*?\b(?:do|does|did|is|are|was|were)?)\s*\b"
                              r"(?:(?:the|a|an|our|my|your|his|her|their)\s+|(?<=do )|(?<=does )|"
                              r"(?<=did )|(?<=is )|(?<=are )|(?<=was )|(?<=were ))((?:(?!(?:"
                              + "|".join(sorted(STOPWORDS)) + r")\b)[a-z][\w-]*(?![\w-])\s*)+)"
                              r"[?.!]*$")
_ASKING_AUXILIARY = re.compile(r"\b(?:do|does|did|can|could|will|would|should|must|shall)\b")
_PARTICLES = frozenset("off up out down away back over on in".split())


_TIMED_DOER = re.compile(r"^(?:when|what time|what day|at what time) (?:does|do|did|will) "
                         r"(?:the|our|my|your) ([a-z][\w -]*?)\W*$")


def timed_doer(question: str) -> set[str]:
    """What a question asks the time of something doing, folded: the head of the thing named
    before its verb, or the word before that when the verb cannot be told ("what time does the
    shop near the cottage open?": shop; "when does the bike shop close on Saturdays?": close or
    shop); none when it asks in another form or of a placeholder ("the things"). A sentence
    about another doer's time does not answer it ("check-in is from 4pm")."""
    found = _TIMED_DOER.match(question.strip().lower())
    if found is None:
        return set()
    said = found.group(1).split()
    cut = next((i for i, w in enumerate(said) if w in STOPWORDS or w in _PREPOSITIONS), None)
    if cut is None:  # the question ends with the verb, and its particle
        said = _without_particle(said)
        cut = len(said) - 1
    while cut > 0 and said[cut - 1] in _PARTICLES:
        cut -= 1  # "get back from the trip"
    heads = {fold(w) for w in said[max(cut - 2, 0):cut]}
    return set() if heads & _PLACEHOLDERS else heads


_PLACEHOLDERS = frozenset({"thing", "stuff", "one"})


def _without_particle(said: list[str]) -> list[str]:
    """The words without the particles ending them ("go off", "get back")."""
    while said and said[-1] in _PARTICLES:
        said = said[:-1]
    return said


def _last_thing(question: str) -> list[str]:
    """The words of the thing a question ends by naming after a determiner, when two or three
    ("what is the car insurance excess?": car insurance excess); its verb and particle left
    out after an auxiliary ("when does the motorbike insurance renew?", "when does the
    heating go off?"); [] when it names none so."""
    found = _DETERMINED_LAST.match(question.strip().lower())
    if found is None:
        return []
    said = found.group(2).split()
    # A participle says what is done to it, not which kind: "the tablets kept now", "the
    # tree being taken down", "the raked leaves".
    said = said[:next((i for i, w in enumerate(said) if w.endswith(("ed", "ing"))), len(said))]
    said = _without_particle(said)
    if _ASKING_AUXILIARY.search(found.group(1)):
        said = said[:-1]
    return said if 2 <= len(said) <= 3 else []  # longer runs hold a verb


def named_otherwise(question: str, text: str, document: str = "") -> bool:
    """Whether ``text`` names one of the question's things with a qualifier of its own where the
    question's is missing (from ``document`` too, when given): "the home insurance" is not "my
    national insurance", nor "the car insurance" a home insurance schedule's."""
    asked = [fold(w) for w in words(question.lower())]
    parts = [re.findall(r"[\w'’-]+", part) for part in re.split(r"[›:;.,!?()]", text)]
    held = {fold(w.lower())[:STEM] for part in parts for w in part} | stems(document)
    if document:
        # Against a whole document, only the thing the question ends by naming after a
        # determiner ("what is the car insurance excess?", "for a quarter plot?"): words
        # before a verb are no kind of a thing ("the tomatoes need watering").
        pairs = list(pairwise(fold(w) for w in _last_thing(question)))
    else:
        pairs = list(pairwise(asked))
    for qualifier, head in pairs:
        if qualifier in STOPWORDS or qualifier[:STEM] in held or head[:STEM] not in held:
            continue
        for said in parts:
            for before, word in pairwise(said):
                other = fold(before.lower())
                if fold(word.lower())[:STEM] == head[:STEM] and other not in STOPWORDS | \
                        _PICKING and other not in asked:
                    # (In a name too: "Hartfield Home Insurance" is home insurance.)
                    return True
    return False


def _holds_date_of(question: str, sentence: str, context: str) -> bool:
    # "Priya's date of birth": a date, of that ("expires in 2029" is another's).
    return bool(_DATE.search(sentence)) and _plain_stems(question.lower()) - {"date"} <= stems(
        sentence) | stems(context)


def _holds_money_paid(question: str, sentence: str, context: str) -> bool:
    # What it cost then, not what it costs each time: said paid, or said in the past ("two
    # new tyres, £236 fitted", "serviced every spring (last time £65)").
    return bool(_CURRENCY.search(sentence) and (
        _PAID.search(sentence) or _TOLD_PAST.search(sentence) or _LAST_TIME.search(sentence)))


def _holds_past_when(question: str, sentence: str, context: str) -> bool:
    done = _DONE_LAST.search(question.lower())
    if done is not None and fold(done.group(1))[:STEM] not in stems(f"{sentence} {context}"):
        return False  # "when was the pond dug?": October is when its net goes on
    return bool(_DATE.search(sentence) or _PAST_WHEN.search(sentence))


def _holds_size(question: str, sentence: str, context: str) -> bool:
    # "The starter lives in the fridge and is fed 50 g of flour": the fridge is where, not
    # what is measured.
    thing = next((fold(w) for w in reversed(words(question.lower())) if w not in STOPWORDS), "")
    where = sum(fold(m.group(1).lower()) == thing for m in _AT_A_PLACE.finditer(sentence))
    mentions = sum(fold(w) == thing for w in words(sentence))
    if mentions and where == mentions:
        return False
    return bool(_SIZE.search(sentence))


def _holds_frequency(question: str, sentence: str, context: str) -> bool:
    # ("The big fig is the thirsty one.": "one" standing for a thing, no noun after it, says
    # no number.)
    return bool(_WHEN.search(sentence)) or any(
        m.group(0).lower() != "one" or re.match(r" [a-z]", sentence[m.end():])
        for m in _AMOUNT.finditer(sentence))


def _holds_kind(question: str, sentence: str, context: str) -> bool:
    # "What breed are our hens?": a kind is said by name ("a TP-Link", "Farrow & Ball
    # Skimming Stone"), as what something is ("Pepper the spaniel", "is a VW"), or by the
    # kind's own word; where the hens live says none of it.
    q = question.strip().lower()
    kind = _KIND_ASKED.match(q)
    assert kind is not None
    if kind.group(1) in ("colour", "color"):
        return bool(_COLOUR.search(sentence) or _new_name(q, sentence))
    return bool(_IS_A.search(sentence) or _new_name(q, sentence)
                or fold(kind.group(1))[:STEM] in stems(sentence)
                or any(m.group(1).lower() not in STOPWORDS
                       for m in _APPOSITION.finditer(sentence)))


def _holds_named_thing(question: str, sentence: str, context: str) -> bool:
    # "What belt is Leo?", "which rack is the canoe on?": the thing asked for is named where
    # it is told (the karate class's day says nothing of a belt); or the document is about
    # that thing and the sentence names one ("Dr Lindgren" in the dentist's letter).
    q = question.strip().lower()
    thing = fold(_which_thing(q))[:STEM]
    return thing in stems(sentence) or (thing in stems(context) and _new_name(q, sentence))


def _holds_part_of_name(question: str, sentence: str, context: str) -> bool:
    # "Ben Hale", "Hale, Ben": the person's name beside another ("Mr Pike" is one name).
    part = _PART_OF_NAME.search(question)
    assert part is not None
    person = part.group(1)
    beside = re.findall(rf"\b([A-Z][a-z]+),? {person}\b", sentence) + re.findall(
        rf"\b{person},? ([A-Z][a-z]+)", sentence)
    return any(w.lower() not in HONORIFICS | STOPWORDS and fold(w.lower()) not in CALENDAR
               for w in beside)


# Numbers that count nothing: a clock time, a date, a price, a label ("under-11s", "Year 5").
_NOT_A_COUNT = re.compile(rf"{_CLOCK.pattern}|{_DATE.pattern}|[£$€]\s?\d[\d,.]*|"
                          r"\b[A-Za-z]+-\d+\w*|\b(?-i:[A-Z])[a-z]+ \d+\w*", re.IGNORECASE)


def _holds_count(question: str, sentence: str, context: str) -> bool:
    # "How many players are on a team?": a number that counts, not the 16:00 a session is
    # called off by, the 4 June of a party, or the under-11s.
    # The question's own verb opening the sentence, capitalised only by opening it, names
    # nothing numbered ("Serves 6." for how many the dish serves; "Class 4B" stays a name).
    opening = re.match(r"\s*([A-Z][a-z]+)\b", sentence)
    verb = re.search(r"\b(?:do|does|did)\b.*\b([a-z]+)\W*$", question.lower())
    if opening is not None and verb is not None and \
            fold(opening.group(1).lower())[:STEM] == fold(verb.group(1))[:STEM]:
        sentence = opening.group(1).lower() + sentence[opening.end():]
    counting = _NOT_A_COUNT.sub(" ", sentence)
    if _AMOUNT.search(counting) is None:
        return False
    # A number right before a word counts that ("12 lasagne sheets", "700 ml passata"): a
    # sentence naming none of the asked things, whose every number counts another, says
    # nothing of how many of it ("how many eggs"). A bare number ("the whole class, so 28"),
    # one before a stopword ("30 a year") or a time for a time ("48 hours" for how many days)
    # may count it.
    thing = re.match(r"how many ((?:[a-z]+ )*?[a-z]+) (?:do|does|did|is|are|was|were|should|"
                     r"can|could|will|would|go|goes|have|has|need)\b", question.strip().lower())
    if thing is None or stems(thing.group(1)) & stems(sentence):
        return True
    timed = bool(stems(thing.group(1)) & _TIME_UNITS)
    for number in _A_NUMBER.finditer(counting):
        after = re.match(r"\s*([a-z]+)", counting[number.end():].lower())
        if after is None or after.group(1) in STOPWORDS or timed and \
                fold(after.group(1))[:STEM] in _TIME_UNITS:
            return True
    return False


_TIME_UNITS = frozenset(w[:STEM] for w in (
    "second minute hour day night week fortnight month year".split()))
_A_NUMBER = re.compile(rf"\b(?:\d[\d,.]*|(?:{_NUMBER_WORDS}|dozen))\b", re.IGNORECASE)


_NOT_DOERS = "This|That|There|It|He|She|They|We|You|I|Here|What|Which|Who|The|Everything"


def _holds_name(question: str, sentence: str, context: str) -> bool:
    # A name: a capitalised word that is not a day or a month, nor a name the question
    # already says ("Mr Pike's first name" is not "Mr Pike").
    q = question.strip().lower()
    done = re.match(rf"who (\w+ed|{_IRREGULAR_PAST})\b", q)
    if done is not None and fold(done.group(1))[:STEM] not in stems(f"{sentence} {context}"):
        return False  # "who fitted the battery?": a sentence that says nothing of fitting
    does = re.match(r"who (\w+s)\b", q)  # "who compares", "who is allergic"
    # (Words in lower case may stand before a verb of doing: "Gwen next door at number 12
    # has a key"; not before "is", which follows any noun: "Sports day is on the field".)
    # (Nor before a bracketed role: "Steve (handyman, does gutters)", "Wendy next door (has
    # our spare key)".)
    gap = "(?:,? \\(?[a-z0-9][\\w']*){0,5}" if does is not None and does.group(1) != "is" else ""
    doer = re.search(rf"(?:^|[.!?] )(?!(?:{_NOT_DOERS})\b)([A-Z][a-z]+){gap},? \(?"
                     rf"{does.group(1)}\b", sentence) if does is not None else None
    if doer is not None and not re.search(rf"\b{doer.group(1)}\b", question, re.IGNORECASE):
        # "Dev compares prices", "Noah is allergic to nuts": the doer, opening the sentence,
        # is the name (not "This is", nor "Rolo is our rabbit" for who Rolo's vet is).
        return True
    if _WHO_TO_RING.match(q) and _NUMBER_TO_RING.search(sentence):
        return True  # "who do I ring for advice at night?": "call 111" is whom
    # A name opening the sentence before the asked thing, as the subject of a verb ("Biscuit
    # the dog is friendly" for what the dog is called; not "Walk the dog at 7").
    apposed = _NAMED_SUBJECT.match(sentence)
    if apposed is not None and fold(apposed.group(2)) in {fold(w) for w in words(q)} and \
            fold(apposed.group(1).lower()) not in CALENDAR | STOPWORDS:
        return True
    return _new_name(q, sentence)


# (Before an auxiliary verb, a closed class: an imperative's object is followed by anything.)
_NAMED_SUBJECT = re.compile(r"([A-Z][a-z]+),? the ([a-z]+),? (?:is|was|has|had|will|would|can|"
                            r"could|may|might|must|should|does|did)\b")


# "Who do I ring/call/phone …?" and a number said to be rung ("call 111", "ring 0800 …").
_WHO_TO_RING = re.compile(r"who (?:do|should|can|shall|would) (?:i|we|you) (?:ring|call|phone|"
                          r"contact|text)\b")
_NUMBER_TO_RING = re.compile(r"\b(?:call|ring|phone|dial|text|on)\s+(?:\w+\s+){0,2}?\+?\d{3}",
                             re.IGNORECASE)


_CHECKS: dict[str, Callable[[str, str, str], bool]] = {
    "date of": _holds_date_of,
    "money paid": _holds_money_paid, "past when": _holds_past_when, "size": _holds_size,
    "frequency": _holds_frequency, "kind": _holds_kind, "named thing": _holds_named_thing,
    "part of a name": _holds_part_of_name, "count": _holds_count,
}


def _which_thing(question: str) -> str:
    """The thing a short "what X is Y?" asks for ('belt' of "what belt is Leo?"); '' when
    the question is not one."""
    which = _WHICH_THING.match(question.strip().lower())
    if which is None or which.group(1) in STOPWORDS | _TOLD_ELSEWHERE or which.group(
            1).endswith("ly") or len(content_words(which.group(2))) > 2:
        return ""
    return which.group(1)


# A name in a sentence: a capitalised word, or a firm's letters after "with", "from" or "by"
# ("cover is with the RAC"; not "the PDF is in the drawer").
_A_NAME = re.compile(r"\b[A-Z][a-z]+|(?:(?<=\bwith )|(?<=\bwith the )|(?<=\bfrom )|"
                     r"(?<=\bfrom the )|(?<=\bby ))[A-Z]{2,5}(?![\w-])")


def _new_name(question: str, sentence: str) -> bool:
    """Whether the sentence says a name (a capitalised word after its first that is not a
    day or a month, or a firm's letters) the question does not already say ("Mr Pike's first
    name" is not "Mr Pike")."""
    said = {fold(w) for w in words(question.lower())} | HONORIFICS
    speaker = _SPEAKER.match(sentence)
    return any(fold(w.lower()) not in CALENDAR | said for w in _A_NAME.findall(sentence[1:])
               ) or (speaker is not None and fold(speaker.group(1).lower()) not in said)


# A chat line's speaker label: a name, perhaps with a house number ("Priya (no. 11): ").
SPEAKER_LABEL = r"([A-Z][a-z]+)(?: [\w'’().]+){0,3}: "
# A line's speaker, who says "I" ("Omar: I'll pick him up"): the name that opens a sentence
# where it is a speaker's label and not a field's ("Item: Pitch fee").
_SPEAKER = re.compile(rf"{SPEAKER_LABEL}(?:I|we)\b")
