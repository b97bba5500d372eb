"""The evidence a grounded answer is held to: the sentence of a shown document that answers the
question (picked by meaning and words, its kind checked by ``asked``), what is told when the
model misses it, and whether the model's words state it. Pure text logic.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from itertools import pairwise

from nekoni_edge.agent.asked import (
    CALENDAR,
    CAPITALISED,
    GENERIC_HEADS,
    HONORIFICS,
    PLACE,
    SPEAKER_LABEL,
    answer_kind,
    can_answer,
    holds_kind,
    name_stems,
    named_otherwise,
    names,
    numbered_names,
    subject,
    timed_doer,
    writes_numbered,
)
from nekoni_edge.agent.trust import RELATIVES, SHOW_SEMANTIC, fragment
from nekoni_edge.rag.structure import (
    ABBREVIATIONS,
    HEADING_SEPARATOR,
    document_title,
    is_row,
    row_cells,
    split_sentences,
)
from nekoni_edge.words import (
    STEM,
    STOPWORDS,
    content_words,
    covered,
    fold,
    numbers,
    stems,
    word_pairs,
    words,
)


def unsupported_numbers(answer: str, *sources: str) -> set[str]:
    """Numbers the answer states that none of ``sources`` does: invented or contradicting."""
    allowed: set[str] = set()
    for source in sources:
        allowed |= numbers(source)
    return {n for n in numbers(answer) if n not in allowed and not _inside(n, allowed)}


def _inside(number: str, allowed: set[str]) -> bool:
    # '8' of '8 am' against '0800'? No: only a time's hour ('5' of '530', '17' of '1700').
    return any(len(a) in (3, 4) and a.startswith(number) and a[len(number):] == "00"
               for a in allowed)


# --- What the answer must say -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Evidence:
    """The sentence (or tool value) that answers the question, where it came from, and what
    an answer stating it must contain."""

    sentence: str
    source: str
    key_words: frozenset[str]  # what an answer stating it must mention (most of them)
    exact: str | None = None  # a value that must appear as it is (a tool's time)
    document: bool = True  # False: a tool's fact, told as it is
    told: str = ""  # what is told when the model's words miss it (the sentence, or two)
    every_name: bool = False  # a 'who' question: each of its names is the answer, not one
    # Each clause's words, when the question does not say which clause answers: an answer says
    # something of each ("it takes unleaded petrol, and the spare blade is on the shelf").
    parts: tuple[frozenset[str], ...] = ()
    place: str = ""  # for "where": the place phrase's last word, which an answer must say
    kind: str = ""  # the kind of answer asked for (``answer_kind``): an answer must say one
    # How well it answers, comparable across documents: whether it holds one of the
    # question's words, then meaning and words together, its document's name's words too
    # (they are no sign within one document, so picking leaves them out).
    score: tuple[bool, float] = (False, 0.0)

    def as_answer(self) -> str:
        """The evidence told as the answer, with its source."""
        if not self.document:
            return self.sentence
        sentence = (self.told or self.sentence).rstrip(";,: ")
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        return f"{sentence[:1].upper()}{sentence[1:]} (from {self.source})"


# A full stop after these is not a sentence's end ("Mr. Hendry").
sentences = split_sentences  # the unit evidence is picked from (``rag.structure``)
_END = re.compile("".join(rf"(?<!\b{re.escape(a)})" for a in ABBREVIATIONS)
                  + r"(?<!\b[A-Z])[.!?](?=\s)|[.!?]$")


def sentence_ends(text: str) -> list[int]:
    """Where each complete sentence of an answer ends ('.', '!', '?'; not after 'Mr')."""
    return [m.end() for m in _END.finditer(text)]


_NEGATION = re.compile(r"\b(not|no|never|none|nobody|nothing)\b|n't\b", re.IGNORECASE)
EVIDENCE_WORD_WEIGHT = 0.1  # each of the question's words a sentence holds, against cosine
EVIDENCE_PAIR_MARGIN = 0.05  # a second sentence this close is told with the first
# A sentence holding none of the question's words answers it only this close by meaning: a
# paraphrase ("who exercises the dog" / "the dog walker"), not the nearest line with a time
# ("Back by 17:00" for an away match's kick-off). Fitted on the calibration sets' picks: every
# right one sharing no word was 0.42 or closer; 4 of the 5 wrong ones 0.31-0.40.
EVIDENCE_FLOOR_WITHOUT_WORDS = 0.41
_WHICH_ONE = frozenset("first second third fourth last other alternate".split())
_CLAUSE = re.compile(r",\s+(?:and|but|while|whereas)\s+", re.IGNORECASE)


def pick_evidence(question: str, candidates: Sequence[str], cosines: Sequence[float],
                  source: str, heading: str = "", headings: Sequence[str] = (),
                  not_about: frozenset[str] = frozenset(), kept: str = "",
                  labels: Sequence[str] = ()) -> Evidence | None:
    """The candidate that can answer the question and is closest to it by meaning and
    shared words, with what it adds to the question; None when none can. ``headings``: each
    candidate's section heading, which answers with it when the sentence alone cannot ("Fitted
    the outside light in Oct." under "Electrician - M. J. O'Brien"). ``not_about``: names a
    sentence must not be about (a follow-up asking of the last turn's subject's sister is not
    answered by the subject's own sentence). ``kept``: the question a follow-up leans on,
    whose words are asked too: its subject is what the pronoun or the fragment is about ("and
    what time does it start?" after "where is football training?").
    ``labels``: each candidate's line's label (``rag.structure.line_labels``)."""
    candidates = list(candidates)
    relative = _NAMES_RELATIVE.search(question)
    if relative and fold(relative.group(1).lower())[:STEM] not in stems(
            f"{document_title(source)} {' '.join(headings)} {' '.join(candidates)}"):
        # "Amara's sister's party" in a document naming no sister: Amara's own party is
        # not hers.
        return None
    if asks_the_writer(question) and (signature := _signature(candidates)[1]):
        # "Who signed the council's letter?": "Yours faithfully, Helen Marsh", in no word
        # of the question.
        told = " ".join(candidates[i] for i in signature)
        return Evidence(told, source, frozenset(content_words(candidates[signature[-1]])),
                        told=told, every_name=True, kind="name", score=(True, max(
                            cosines[i] for i in signature) + EVIDENCE_WORD_WEIGHT))
    # Names and the document's own name say which document, not which of its sentences; a
    # day or a month says which sentence, as a number does ("who hosts in January?").
    asked = stems(question) - stems(document_title(source)) - (
        name_stems(question) - {c[:STEM] for c in CALENDAR})
    if kept and (fragment(question) or not any(covered(asked, stems(c)) for c in candidates)):
        # A follow-up's subject is the last question's: a fragment has none of its own, and
        # one whose own words no sentence holds ("and what time does it start?") is picked
        # by what its pronoun stands for; otherwise its own words pick ("and what should I
        # bring?" is not the blood test's sentence again).
        asked |= stems(kept) - stems(document_title(source)) - name_stems(kept)
    referred = _referred(question, kept, candidates, headings, source)
    asked |= referred  # what the pronoun stands for is asked about too
    where = question.strip().lower().startswith("where")
    scored: list[tuple[bool, float, int, str]] = []
    opening = f"{document_title(source)} {heading} {candidates[0] if candidates else ''}"
    pairs = [word_pairs(c) for c in candidates]
    named = Counter(p for own in pairs for p in own)
    # The names the document uses (capitalised after a sentence's start), and the question's.
    known = set().union(*(names(c) for c in candidates)) - STOPWORDS
    # (A name may open every sentence it is in: "Oskar has swimming on Tuesdays", "Elsa's
    # netball is on Saturdays".)
    opening_words = {fold(m.group("word").lower()): m.group("owned") for c in candidates
                     if (m := _CAPITALISED_OPENING.match(c))}
    asked_names = names(question)
    known |= {w for w, owned in opening_words.items() if owned or w in asked_names} - \
        CALENDAR - STOPWORDS
    whose = asked_names & known
    said = {fold(w) for w in words(question)}  # (in any case: "metformin")
    anothers = _anothers_parts(question, candidates, headings, labels)
    thing = subject(question)
    # A table whose columns are people is read for the asked one: the others' cells left
    # out, a row whose asked cell is empty answering nothing ("Day: Wednesday, Mia: -").
    whole_rows = candidates
    candidates = [_own_cells(c, whose, known) for c in candidates]
    if whose and thing is not None and thing[1][-1] not in GENERIC_HEADS:
        # The asked thing is said only of another of the document's names: "her flea
        # treatment is due on the 1st" after "Mochi is insured" says nothing of Shelby's,
        # "Mia: Squad trial, 8am" nothing of Jonah's.
        head = thing[1][-1][:STEM]
        holding = [i for i in range(len(candidates))
                   if head in stems(with_antecedent(whole_rows, i, headings))]
        if holding and all(head not in stems(candidates[i]) or _someone_elses(
                whose, with_antecedent(candidates, i, headings), candidates[i], known, said)
                for i in holding):
            return None
    # A number the question states says which sentence, when one holds it ("heated to 60
    # degrees" is the Sunday sentence's 60°C, not the daily 50°C's).
    # (Not the number of a numbered thing the document opens with, "Year 5" of the Year 5
    # trip's letter: that says which document, as a name does, and no sentence repeats it.)
    stated = numbers(question) - {number for word, number in numbered_names(question)
                                  if writes_numbered(word, number, opening)}
    holds_stated = [bool(stated) and stated <= numbers(_in_section(candidates, i, headings))
                    for i in range(len(candidates))]
    numbered = any(holds_stated)
    kind = answer_kind(question)
    title = document_title(source)
    whole = f"{title} {' '.join(candidates)}"
    doer = {d for d in timed_doer(question) if d[:STEM] in stems(whole)}
    author = _signature(candidates)[0] if kind == "name" else ""
    signed: set[int] = set()  # the sentences whose "I" is the author's
    # A message's header lines (by its "From:" line) say when it was sent and to whom: no
    # answer about what it says, and close to any question by its subject alone ("Date: 3
    # Feb" for when the plumber is coming).
    headers = {i for i, c in enumerate(candidates) if _MESSAGE_HEADER.match(c) and any(
        _FROM_LINE.match(near) for near in candidates[max(0, i - 3):i + 4])}
    continued: set[int] = set()  # the later sentences of a labelled line
    identifier = kind == "identifier"
    older = _older_message(candidates, headings)
    for index, (sentence, cosine) in enumerate(zip(candidates, cosines, strict=True)):
        # What the sentence is about: the document's opening, and the sentence before it
        # when it opens with a pronoun ("its code is 5170" is the key safe's).
        about = with_antecedent(candidates, index, headings)
        if about == sentence and index < len(labels) and labels[index]:
            # A labelled line's later sentence goes on with its message ("Priya: Anya's party
            # is sorted!! Saturday 16th January, 2 till 4").
            about = f"{candidates[index - 1]} {sentence}"
            continued.add(index)
            if not _clause_before(candidates, index):
                # ... and is as close as its message, as a sentence of its own: "Sunday 18
                # April, 2 till 4, at Jumpzone" alone is far from where Leo's party is. (A
                # clause is its sentence's already: "F37 Low water pressure; top up as in
                # 2.2" says nothing of how far.)
                cosine = max(cosine, cosines[index - 1])
        if numbered and not holds_stated[index] or index in headers or not sentence:
            continue
        if author and _IN_FIRST_PERSON.search(sentence) and \
                author.split()[0] not in about:
            # A letter's "I" is whoever signed it: "I'm happy to split the cost" answers who
            # is splitting it with the name of Graham, who wrote the email.
            about = f"{author}: {about}"
            signed.add(index)
        # A clause's sentence says what it is about too: "Keys are in the key box by the
        # door; the code is 2580".
        clause_of = _clause_before(candidates, index) if about == sentence else ""
        context = f"{opening} {clause_of} {about}"
        close = cosine >= SHOW_SEMANTIC
        if not can_answer(question, sentence, context, close=close, about=about):
            # The heading must hold the name the sentence lacks ("Electrician - M. J.
            # O'Brien" for who fitted the light; not "Renewal" before "Dev compares prices").
            # Only a name: a heading's year or day is the whole section's, no answer to when.
            above = _last_heading(headings[index] if index < len(headings) else "", sentence)
            if not above or kind != "name" or not can_answer(
                    question, above, context, close=close, about=above):
                continue
            candidates[index] = sentence = about = f"{above}: {sentence}"
        own = headings[index] if index < len(headings) else heading
        if not content_words(sentence) - \
                content_words(question) or _another_of_the_kind(
                    question, about, named - Counter(pairs[index])) or \
                _someone_elses(whose, about, sentence, known, said) or \
                _not_of_the_asked(_names_in(about), not_about, asked_names) or \
                anothers(index, about) or \
                named_otherwise(question, f"{title}: {own}: {clause_of} {about}", whole):
            # (Another kind of the asked thing, by a qualifier the document never says: "the
            # car insurance" is not the home insurance schedule's excess.)
            continue
        # A pronoun's sentence holds its antecedent's words ("take it to the bottle bank"
        # after "glass is not collected here"), a clause its sentence's ("an engineer will
        # arrive between 8am and 1pm; someone must be home for the visit, about three
        # hours"), and a sentence its own section's heading ("Check-up"): the heading
        # tells sections apart, as the document's name tells documents apart.
        worded = f"{clause_of} {about}" if clause_of else about
        held = covered(asked, stems(f"{own} {worded}"))  # 'head' in 'Headteacher' too
        label = labels[index] if index < len(labels) else ""
        if referred and not covered(referred, stems(f"{own} {worded} {label}")):
            continue
        if doer and not {d[:STEM] for d in doer} & stems(f"{title} {own} {worded} {label}") \
                and not _WRITERS.search(sentence):
            # Another's time: "check-in is from 4pm" for when the shop opens, in a document
            # naming the shop elsewhere (one never naming it may name it otherwise: "the bus"
            # for "the coach"). The writer's may be the asked thing's: the bike shop's
            # letter says "we're open until 6pm".
            continue
        if held and label:
            # A list item's label tells its sentences apart from their siblings' ("Half term
            # is 15 to 19 February" under "Spring term:"), as a heading does; it makes no
            # sentence holding none of the asked words an answer.
            held |= covered(asked, stems(label))
        # A number the question states is a word it shares ("what's in bed 4?" under "Veg
        # beds", whose name holds the question's only other word).
        shared = len(held) + numbered
        if not shared and cosine < EVIDENCE_FLOOR_WITHOUT_WORDS and not identifier and asked:
            # (An identifier's sentence has passed a stricter test: a value of the asked
            # form, with every other word of the question said around it. A question whose
            # every word is a name or the document's has none to share: "When is Amara's
            # party?" in "party invite", whose sentence says "a pirate party on Saturday".)
            continue
        score = cosine + EVIDENCE_WORD_WEIGHT * shared
        if where and PLACE.search(sentence):
            score += EVIDENCE_WORD_WEIGHT  # "where" is answered by a place
        # A sentence holding one of the question's own words comes before any holding none:
        # a name the question asks about draws every sentence naming it close by meaning
        # ("Picked up Pickle at 8, … by the river" for where Pickle's lead is, over "her lead
        # is on the hook in the porch").
        scored.append((shared > 0, score, index, sentence))
    if not scored:
        return None
    # Of those holding as many of the question's words, "where" is answered by one saying a
    # place ("... on Saturday 12 June at Fernhill Scout Hut", not the closer "Amara is
    # turning 7!"); "where is it from?" asks for a source, not a place.
    placed = where and not re.search(r"\bfrom\W*$", question)
    scored.sort(key=lambda s: (-s[0], -(placed and bool(PLACE.search(s[3]))), -s[1]))
    naming = [i for i in range(len(candidates)) if covered(asked, stems(
        _in_section(candidates, i, headings))) == asked] \
        if asked and not kept and not scored[0][0] else []
    if naming and (not whose & _names_in(scored[0][3]) or any(_someone_elses(
            whose, with_antecedent(candidates, i, headings), candidates[i], known, said)
            for i in naming)):
        # The document names the asked thing and says nothing of the asked kind of it: a
        # sentence naming none of it answers for something else ("Flight home at 3.15pm"
        # holds no price, so the aquarium's tickets are no answer to what the flights cost),
        # unless it names the asked one and the thing is no one else's ("Lessons are at
        # Riverside" beside the row of Mia's times). Not in a follow-up, whose pronoun
        # names its thing ("what's her number?" after who the piano teacher is: "Useful
        # numbers" names numbers, Kate Morris's line says hers).
        return None
    if scored[0][2] >= older:
        # A quoted message's sentence gives way to the reply's that can answer too and says
        # the same thing again: the reply is newer ("his lesson is now on Wednesdays at
        # 5.15pm, not 4.30pm" over the quoted "he swims on Wednesdays at 4.30pm").
        again = content_words(scored[0][3])
        scored.sort(key=lambda s: s[2] >= older or len(content_words(s[3]) & again) < 2)
    worded_first, best_score, best_index, sentence = scored[0]
    # A runner-up nearly as close is told with it (in the document's order): which of two
    # close sentences holds the answer is where the picking most often fails. Not one of
    # another message: a reply's words change the one it quotes ("his lesson is now at
    # 5.15pm" is not told with the quoted "he swims at 4.30pm").
    runner = next((s for s in scored[1:2] if s[0] == worded_first
                   and (s[2] >= older) == (best_index >= older)
                   and best_score - s[1] <= EVIDENCE_PAIR_MARGIN), None)
    chosen = {best_index} | ({runner[2]} if runner is not None else set())
    # A pronoun's sentence is told with the one saying what the pronoun stands for.
    chosen |= {i - 1 for i in chosen
               if with_antecedent(candidates, i, headings) != candidates[i]
               or i in continued}
    if best_index + 1 < len(candidates) and \
            with_antecedent(candidates, best_index + 1, headings) != candidates[best_index + 1]:
        # The next sentence goes on about the same thing ("E4 - outdoor unit iced up." "It
        # defrosts by itself"): what to do, or why, is often there.
        chosen.add(best_index + 1)
    # A clause is told with the rest of its sentence ("Pick-up is at 15:15; on Wednesdays
    # there is an early finish at 14:00"): which clause answers is where picking fails.
    # Each told sentence's own clauses only: a runner-up in another section does not bring
    # the clauses between the two.
    for index in list(chosen):
        first = last = index
        while _clause_before(candidates, first):
            first -= 1
        while last + 1 < len(candidates) and _clause_before(candidates, last + 1):
            last += 1
        chosen |= set(range(first, last + 1))
    told = " ".join(c for i, c in enumerate(candidates) if i in chosen)
    if best_index in signed:
        told = f"{author}: {told}"
    # The section's heading is told with it when it holds what the question asks about and
    # the sentences do not: a letter's heading names the vet's practice, not its sentences.
    for above in (labels[best_index] if best_index < len(labels) else "",
                  _last_heading(headings[best_index] if best_index < len(headings) else "", told)):
        if above and covered(asked, stems(above)) - covered(asked, stems(told)):
            told = f"{above}: {told}"
    beyond = content_words(question) | HONORIFICS
    clauses = _CLAUSE.split(sentence)
    clause = _answering_clause(clauses, asked)
    parts = () if clause or len(clauses) < 2 else tuple(
        p for p in (frozenset(content_words(c) - beyond) for c in clauses) if p)
    return Evidence(sentence, source, frozenset(content_words(clause or sentence) - beyond),
                    told=told, every_name=_asks_a_name(question),
                    parts=parts if len(parts) > 1 else (),
                    place=_place_word(clause or sentence, beyond) if where else "",
                    kind=kind, score=(worded_first, best_score + EVIDENCE_WORD_WEIGHT * len(
                        (stems(question) - asked) & stems(title))))


# A name's relative's thing: "Amara's sister's party", "Leo's grandad's birthday".
_NAMES_RELATIVE = re.compile(rf"\b[A-Z][\w-]*['’]s\s+({RELATIVES})['’]s\b")


# A pronoun that stands for a thing the last question named (not for the person a "who"
# question's answer named: "what's his number?" after who cuts the lawn).
_REFERRING = re.compile(r"\b(?:it|its|they|them|their)\b", re.IGNORECASE)


def _referred(question: str, kept: str, candidates: Sequence[str], headings: Sequence[str],
              source: str) -> set[str]:
    """The words of what a follow-up's pronoun stands for, when some sentence (with its
    heading and the sentence its own pronoun leans on) holds one of them: a sentence about
    another thing answers nothing of it ("how often does it need water?" after where the fig
    is: not the orchids' watering). Empty when the turn has no such pronoun."""
    if not kept or not _REFERRING.search(question) or answer_kind(kept) == "name":
        return set()
    referred = stems(kept) - stems(document_title(source)) - name_stems(kept) - stems(question)
    held = any(covered(referred, stems(_in_section(candidates, i, headings)))
               for i in range(len(candidates)))
    return referred if held else set()


# A name in a subject's place: opening the sentence or a labelled field ("Person: Omar").
# (A row's columns are its fields: "13 Jan   Yusuf   £3   hoovered the stairs" is Yusuf's.)
_SUBJECT = re.compile(r"(?:^|:\s+|\S {2,}|\t)((?-i:[A-Z][a-z]+))")


# A pronoun for a person, whose sentence is about its section's subject when it names nobody.
_PERSONAL_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their)\b", re.IGNORECASE)


_MESSAGE_HEADER = re.compile(r"^(?:To|Cc|Date|Sent):\s")
_FROM_LINE = re.compile(r"^From:\s")  # a name or an address ("orders@pedalworks.co.uk")
_LEADING_LABEL = re.compile(r"^([A-Z][\w'’ ,-]{0,30}):\s")
_SPOKEN = re.compile(r"\b(?:I|I'm|I'll|I've|I'd|me|my|you|your|you're|you'll|we|we're|we'll|"
                     r"us|our)\b", re.IGNORECASE)


def _line_label(sentence: str, label: str) -> str:
    """The label of a sentence's line: given for its later sentences, read off its first."""
    found = _LEADING_LABEL.match(sentence)
    return label or (found.group(1) if found is not None else "")


def _anothers_parts(question: str, candidates: Sequence[str], headings: Sequence[str],
                    labels: Sequence[str]) -> Callable[[int, str], bool]:
    """Whether a sentence (its index, and what it is about) is in another's part of a
    document with a part for someone the question names: a section ("## Leo (5)": "She's
    allergic to peanuts" under "## Ruby (9)" is Ruby's), or a line labelled with a name
    ("Finn: asthma. Allergic to cats."; not a chat's speaker, who talks to someone: "Sam: can
    you do Tuesday?")."""
    asked = names(question)
    parts = [_below_title(headings[i] if i < len(headings) else "")
             for i in range(len(candidates))]
    sections = [_names_in(part) for part in parts]
    owners = [set() if _SPOKEN.search(c) else _names_in(_line_label(
        c, labels[i] if i < len(labels) else "")) for i, c in enumerate(candidates)]
    sectioned = asked & set().union(*sections)
    labelled = asked & set().union(*owners)
    # A section headed with another's thing ("## Maya's bike") is about that thing throughout:
    # "Tyres: pump to 40 psi" there is Maya's, with no pronoun to say so.
    possessed = [bool(_POSSESSIVE.search(part)) for part in parts]

    def anothers(index: int, about: str) -> bool:
        held = _names_in(about)
        return bool(sectioned and not sectioned & (sections[index] | held)
                    and (_PERSONAL_PRONOUN.search(about) or possessed[index])
                    or labelled and owners[index] and not labelled & (owners[index] | held))
    return anothers


_POSSESSIVE = re.compile(r"\b[A-Z][\w-]*['’]s\b")


def _below_title(heading: str) -> str:
    """The last part of a heading below the document's title ("Leo (5)" in "For Chloe › Leo
    (5)"); '' for the title itself, which is the whole document's."""
    if HEADING_SEPARATOR not in heading:
        return ""
    return heading.rsplit(HEADING_SEPARATOR, 1)[-1]


_SUBJECT_PRONOUN = re.compile(r"(?:he|she|they)\b", re.IGNORECASE)


def _own_cells(row: str, whose: set[str], known: set[str]) -> str:
    """A table row whose columns are people ("Day: Saturday, Mia: Squad trial, 8am, Jonah:
    Stage 2, 9.30am"), as it reads for the asked ones: the other people's cells left out; ''
    when their own is empty ("-"). Any other sentence as it is."""
    if not whose or not is_row(row):
        return row
    cells = row_cells(row)
    people = {label for label, _ in cells if fold(label.lower()) in known}
    asked = [value for label, value in cells if fold(label.lower()) in whose]
    if not asked:
        return row
    if not any(value.strip(" .-–—") for value in asked):
        return ""
    return ", ".join(f"{label}: {value.rstrip('.')}" for label, value in cells
                     if label not in people or fold(label.lower()) in whose) + "."



def _not_of_the_asked(named: set[str], not_about: frozenset[str], asked: set[str]) -> bool:
    """Whether a sentence names one a follow-up does not ask about and none it does: "Rosie
    and Arlo have tea at 5" still answers "And Arlo?" after Rosie's bedtime."""
    return bool(named & not_about) and not named & (asked - not_about)


def _names_in(text: str) -> set[str]:
    """The capitalised words of a text, folded as names are compared ("Theo's": theo)."""
    return {fold(w.lower()) for w in CAPITALISED.findall(text)}


def _someone_elses(whose: set[str], about: str, sentence: str, known: set[str],
                   asked: Set[str] = frozenset()) -> bool:
    """Whether the sentence is about another of the document's names and, with what its
    pronoun stands for, names none of those the question asks about: "Lukas catches the
    number 42 bus" does not say which bus Mia catches. A name elsewhere in the sentence is a
    place or a signature ("at my house, 8 Willow Crescent"), not whom it is about. Nor is
    one naming another of them in place of one asked about: "Mr. Dunn takes Theo for maths"
    is not what Mr. Dunn said about Ada."""
    if not whose:
        return False
    held = _names_in(about)
    if whose & held:
        return bool(whose - held) and bool(held & known - whose)
    # A pronoun's subject is its antecedent's: "She is microchipped and her flea treatment is
    # due on the 1st" after "Mochi is insured" is Mochi's, not Shelby's.
    # (A field's label of words in lower case says what the line is, not whom: "Class
    # teacher: Mr Okafor". A name's is its speaker: "Ines: Swimming moved to 4.15".)
    label = _LEADING_LABEL.match(sentence)
    named = sentence[label.end():] if label and re.search(r"\s[a-z]", label[1]) else sentence
    if is_row(sentence):
        # A table row is about its first cell ("Medicine: Metformin, Dose: 500 mg, ... What
        # it's for: Diabetes"), which the question may name in lower case (``asked``: its
        # words): a later cell's capital is a value, not whom the row is about.
        named = named.split(", ", 1)[0]
    said = {fold(w.lower()) for w in _SUBJECT.findall(named)}
    if is_row(sentence) and said & asked:
        return False
    before = about[:-len(sentence)]
    if before and _SUBJECT_PRONOUN.match(sentence) and not re.match(SPEAKER_LABEL, before):
        # (In a chat, whom a pronoun stands for is anyone's guess: "Sam: Great thanks.
        # She's had breakfast" is the dog's.)
        said |= {fold(w.lower()) for w in _SUBJECT.findall(before)}
    return bool(said & known - whose)


_IN_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I'll|I've|I'd|me|my)\b")
_WRITERS = re.compile(r"\b(?:I|we|us|our)\b|\b(?:I|we)['’]", re.IGNORECASE)
# A letter's sender: its "From:" line, or the name under its sign-off ("Best wishes,").
_FROM = re.compile(r"^From:\s*((?-i:[A-Z])[\w'.-]*(?: (?-i:[A-Z])[\w'.-]*){0,3})",
                   re.IGNORECASE)
_SIGN_OFF = re.compile(r"^(?:with )?(?:best wishes|kind regards|best regards|regards|many thanks|"
                       r"thanks|thank you|cheers|love|yours sincerely|yours faithfully|yours|"
                       r"all the best|best|warm wishes),?\s*", re.IGNORECASE)
_SIGNATURE = re.compile(r"^(?:(?:Mr|Mrs|Ms|Miss|Dr)\.? )?[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}\.?$")


# Where an email quotes the message it replies to: under the quote's attribution ("On Mon, 4
# Jan 2027 at 08:40, Carla Novak wrote", its heading), or from a "From:" header after the
# message's own text.
_WROTE = re.compile(r"\bwrote$")


def _older_message(candidates: Sequence[str], headings: Sequence[str]) -> int:
    """The index of the first sentence of an earlier message a reply quotes or forwards (the
    number of candidates when there is none)."""
    for index, candidate in enumerate(candidates):
        if index < len(headings) and _WROTE.search(headings[index]) or _FROM.match(
                candidate) and any(not _MESSAGE_HEADER.match(c) and not _FROM.match(c)
                                   for c in candidates[:index]):
            return index
    return len(candidates)


def _signature(candidates: Sequence[str]) -> tuple[str, list[int]]:
    """Who wrote a letter or an email ('' for a note signed by no one) and the sentences
    that name them: the name on its "From:" line, or under (or beside) its sign-off."""
    for index, candidate in enumerate(candidates):
        sender = _FROM.match(candidate)
        if sender is not None:
            return sender.group(1).rstrip("."), [index]
        signed = _SIGN_OFF.match(candidate)
        if signed is None:
            continue
        # (The name before the role under it: "Helen Marsh, Head Coach".)
        rest = candidate[signed.end():].split(",")[0].strip()
        lines = [index]
        if not rest and index + 1 < len(candidates):
            rest = candidates[index + 1].strip()
            lines.append(index + 1)
        if rest and _SIGNATURE.match(rest):
            return rest.rstrip("."), lines
    return "", []


# Asking who wrote a message: its signature answers, in no word of the question.
_ASKS_THE_WRITER = re.compile(r"^who\b.*\b(?:wrote|write|written|signed|sign|sent|send)\b",
                              re.IGNORECASE)


def asks_the_writer(question: str) -> bool:
    """Whether the question asks who wrote, signed or sent a message (its signature, at its
    end, answers it)."""
    return _ASKS_THE_WRITER.search(question.strip()) is not None


def _another_of_the_kind(question: str, sentence: str, named_elsewhere: Counter[tuple[str, str]]
                         ) -> bool:
    """Whether the sentence names the question's thing with another qualifier, where the
    document names the asked one elsewhere (``named_elsewhere``: its other sentences' word
    pairs): "Ella's piano lesson costs £18" does not say what her swimming lesson costs when
    "swimming lessons" are in the note too ("hot lunches" still answer "the school lunch" when
    no "school lunch" is named)."""
    asked = [fold(w) for w in words(question.lower())]
    said = [fold(w) for w in words(sentence.lower())]
    held = {w[:STEM] for w in said}
    for qualifier, head in pairwise(asked):
        if qualifier in STOPWORDS or head in STOPWORDS or qualifier[:STEM] in held:
            continue
        others = {said[j - 1] for j, w in enumerate(said) if j and w[:STEM] == head[:STEM]}
        # (Which one in order is no other kind: "by the first lesson".)
        if any(o not in STOPWORDS | _WHICH_ONE and o not in asked and not o.isdigit()
               for o in others) and \
                named_elsewhere[(qualifier[:STEM], head[:STEM])] > 0:
            return True
    return False


def _place_word(sentence: str, beyond: set[str]) -> str:
    """The last word of the sentence's first place phrase ("sink" of "under the kitchen sink,
    behind the bleach"): what an answer to "where" must say, when the question lacks it."""
    found = PLACE.search(sentence)
    if found is None:
        return ""
    phrase = re.split(r"[,;.:!?()]| (?:and|or|but|which|where|so|if|to|for|with)\b",
                      sentence[found.end():])[0]
    said = [w for w in content_words(phrase) if w not in beyond]
    return max(said, key=phrase.lower().rfind, default="")


# A pronoun in a sentence's first words, after its speaker's label in a chat ("Omar: I'll pick
# him up" answers the line before).
_PRONOUN_OPENING = re.compile(rf"^(?:{SPEAKER_LABEL})?(?:[\w']+ ){{0,2}}(it|its|they|them|their|"
                              r"this|these|that|those|he|him|she|his|her)\b"
                              # (or after an opening phrase of when or where: "In a hard
                              # frost it can freeze" is the condensate pipe of before)
                              r"|^(?:in|on|at|if|when|after|before|during|once|until|while)"
                              r"\b[^,.;:]{0,40}?\s(?:it|they|he|she)\b", re.IGNORECASE)


def _last_heading(heading: str, sentence: str) -> str:
    """The last part of a sentence's section heading, which a list of people or things says
    it after ("Electrician - M. J. O'Brien: Fitted the outside light in Oct."); '' when there
    is none or the sentence says it already."""
    last = heading.rsplit(HEADING_SEPARATOR, 1)[-1].strip()
    return last if last and last.lower() not in sentence.lower() else ""


def with_antecedent(candidates: Sequence[str], index: int, headings: Sequence[str] = ()) -> str:
    """A sentence opening with a pronoun ("Turn it clockwise", "its code is 5170") or holding
    one for a thing ("we have booked this for Tuesday") after the sentence before it, which
    says what the pronoun is; a reply after its question; any other sentence alone. Never
    across a heading (``headings``: each candidate's): a section's pronoun is its own
    subject's, not the last section's ("Never give ibuprofen: it upsets his stomach" under
    "Notes" is not about the table row above it)."""
    sentence = candidates[index]
    if 0 < index < len(headings) and headings[index] != headings[index - 1]:
        return sentence
    if index and (_leans_on(sentence, candidates[index - 1])
                  or _names_again(sentence, candidates[index - 1])):
        return f"{candidates[index - 1]} {sentence}"
    return sentence


def _in_section(candidates: Sequence[str], index: int, headings: Sequence[str]) -> str:
    """A sentence with its section's heading and what its pronoun stands for: all it says."""
    heading = headings[index] if index < len(headings) else ""
    return f"{heading} {with_antecedent(candidates, index, headings)}"


def _clause_before(candidates: Sequence[str], index: int) -> str:
    """The clause before a candidate when the two are one sentence (it ends with a
    semicolon); '' when there is none."""
    return candidates[index - 1] if index and candidates[index - 1].endswith(";") else ""


def _leans_on(sentence: str, before: str) -> bool:
    """Whether the sentence takes its subject from the one before: a pronoun for a thing, or
    a reply after a question (a chat's "Who's doing the music?" "My nephew Kofi will DJ", an
    FAQ's answer is about what was asked)."""
    return bool(_PRONOUN_OPENING.match(sentence) or _PRONOUN_OBJECT.search(sentence)
                or _THOSE.search(sentence) or before.endswith("?")
                or _BARE_IDENTIFIER.match(sentence))


def own_subject(candidates: Sequence[str], index: int) -> str:
    """What a sentence is about for telling its secret: with the sentence before only when
    that says what its pronoun stands for. One naming its thing again ("The shed is locked
    with a combination padlock" after "the hose is in the shed") is about that alone, not
    the garden the sentence before also names."""
    sentence = candidates[index]
    if index and (_leans_on(sentence, candidates[index - 1])
                  or _clause_before(candidates, index)):
        # ("Keys are in the key box by the door; the code is 2580" tells the key box's code.)
        return f"{candidates[index - 1]} {sentence}"
    return sentence


# A pronoun standing for a thing, not a determiner before one: followed by a preposition or a
# stop ("we have booked this for Tuesday", "do not plug it in"), not a noun ("this season").
_PRONOUN_OBJECT = re.compile(
    r"\b(it|them|this|these|those)\b(?=\s*(?:[,.;:!?]|$)|\s(?:for|to|in|on|at|by|with|from|up|"
    r"down|off|out|back|away|before|after|until|and|or|but|if|when|so)\b)", re.IGNORECASE)


# "Those" before a noun points back as a pronoun does ("Cars must be moved to Holme Street for
# those three days" after the resurfacing's dates); "this" and "these" may point at now ("this
# week", "these days").
_THOSE = re.compile(r"\bthose\s+(?!who\b|which\b|that\b)\w", re.IGNORECASE)


# A sentence opening with an identifier that names no thing of its own: "The burglar alarm
# panel is by the front door. The code is 4471" is the alarm's code.
_BARE_IDENTIFIER = re.compile(rf"^(?:{SPEAKER_LABEL})?(?:the|its) (?:code|pin|password|"
                              r"combination|passcode|number)\b(?! (?:for|of|to)\b)",
                              re.IGNORECASE)
# A sentence's opening capitalised word, and whether it owns what follows ("Elsa's netball").
_CAPITALISED_OPENING = re.compile(rf"^(?:{SPEAKER_LABEL})?(?P<word>[A-Z][a-z]+)\b"
                                  r"(?P<owned>['’]s\b)?")
# A sentence opening with "the" and a noun: "the exam" after "his Grade 2 exam" is that one.
_DEFINITE_OPENING = re.compile(rf"^(?:{SPEAKER_LABEL})?the (?P<noun>[a-z]+)\b", re.IGNORECASE)


def _names_again(sentence: str, before: str) -> bool:
    """Whether the sentence opens by naming again, with "the", a thing the sentence before it
    names: like a pronoun, it says that one ("Leo is ready to take his Grade 2 exam." "The exam
    will be held on 14 June")."""
    opening = _DEFINITE_OPENING.match(sentence)
    return opening is not None and fold(opening.group("noun").lower())[:STEM] in stems(before)


def _answering_clause(clauses: Sequence[str], asked: set[str]) -> str:
    """Of a sentence's clauses ("the pellets are in the metal bin, and the eggs are collected
    every afternoon"), the one alone holding most of the question's words: what an answer
    must say. '' when there is one clause or none stands out."""
    if len(clauses) < 2:
        return ""
    held = sorted(((len(asked & stems(c)), c) for c in clauses), key=lambda p: -p[0])
    best, clause = held[0]
    return clause if best > held[1][0] and content_words(clause) else ""


def _asks_a_name(question: str) -> bool:
    """'Who …?', 'what is the hamster called?', 'the babysitter's name': the name is the
    answer, so an answer must say it whole."""
    return answer_kind(question) in ("name", "part of a name")


def stated_by(text: str, evidence: Evidence, ends: Sequence[int]) -> int:
    """The first of ``ends`` (sentence ends) by which ``text`` states the evidence; 0: none."""
    return next((end for end in ends if states(text[:end], evidence)), 0)


def states(answer: str, evidence: Evidence) -> bool:
    """Whether the answer says what the evidence says beyond the question: every number, one
    of its names if it has any, most of its other words, and no negation it lacks."""
    if evidence.exact is not None:
        # The value itself, not a longer one that starts with it ('04:19.20' is not '04:19').
        return re.search(rf"(?<![\d:.]){re.escape(evidence.exact)}(?![\d]|[.:]\d)",
                         answer) is not None
    said = content_words(answer)
    # Numbers are the facts a small model most often gets wrong: each must be there.
    wanted = {w for w in evidence.key_words if any(c.isdigit() for c in w)}
    if numbers(" ".join(wanted)) - numbers(answer):
        return False
    # So are days and months: "on Mondays" is not "on Mondays and Thursdays".
    if {w for w in evidence.key_words if w in CALENDAR} - said:
        return False
    # A name opening the sentence counts when the name is the answer ("Nibbles the hamster").
    named = evidence.sentence if evidence.every_name else evidence.sentence[1:]
    names = ({fold(n.lower()) for n in CAPITALISED.findall(named)} & evidence.key_words
             ) - CALENDAR - STOPWORDS  # a day is checked above, not a name
    if names and not (names <= said if evidence.every_name else names & said):
        return False  # "Dr Elam Street Surgery" is not "Dr Shah at Elm Street Surgery"
    # "the last Thursday of the month" is not "Thursday": which one of them, each said.
    if (evidence.key_words & _WHICH_ONE) - said:
        return False
    if holds_kind(evidence.kind, evidence.sentence) and not holds_kind(evidence.kind, answer):
        return False  # "you need the water off the first morning" says not for how long
    if evidence.place and evidence.place not in said:
        return False  # "in the closet behind the bleach" is not "under the kitchen sink"
    if any(not part & said for part in evidence.parts):
        return False  # "the spare blade is on the shelf" says nothing of the petrol
    if _NEGATION.search(answer) and not _NEGATION.search(evidence.sentence):
        return False  # "we are not the energy supplier" uses the words and denies them
    return len(evidence.key_words & said) * 2 >= len(evidence.key_words)
