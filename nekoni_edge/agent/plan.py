"""A turn's decisions as pure functions: what its words and the retrieved notes say before any
evidence is looked for (``read_turn``), and, with the evidence found, whether the box declines,
which notes the model sees and how strictly its numbers are held (``plan_answer``). The chat
service carries the plan out; nothing here waits or writes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from nekoni_edge.agent import secrets, trust
from nekoni_edge.agent.asked import asks_gist, lacks, names, numbered_otherwise, specific
from nekoni_edge.agent.evidence import Evidence
from nekoni_edge.store.chunks import Hit

_PLACED = re.compile(r"\b(?:in|of|from|on|at)\s+[A-Z][a-z]+\b")
_ASKING_OPENERS = ("what", "when", "where", "who", "which", "how", "is ", "are ", "do ",
                   "does ", "can ", "tell me", "give me")


def asks(text: str) -> bool:
    """Whether a turn asks for something (a question), rather than chats."""
    lowered = text.strip().lower()
    return lowered.endswith("?") or lowered.startswith(_ASKING_OPENERS)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a turn's words and its hits say before any evidence is looked for."""

    household: bool | None  # the household's (True), the world's (False), or unsaid
    asks: bool  # a question, not chit-chat
    specific: bool  # asks for a kind of thing a sentence may lack (a time, a name...)
    general: bool  # in general form: no "the", "my", or name a note uses
    worldly: bool  # in general form and leaning on no earlier turn
    shown: list[Hit] = field(default_factory=list)  # the notes worth showing the model
    missing: bool = False  # the best note lacks the thing the question is about
    gist: bool = False  # asks what a note says as a whole, not for one sentence's fact

    def may_show(self, hits: Sequence[Hit]) -> list[Hit]:
        """Of more hits, those this turn may show: a worldly question only takes a note as
        close by meaning as one shown for its meaning alone."""
        return [h for h in hits if h.score >= trust.SHOW_SEMANTIC] if self.worldly \
            else list(hits)


def read_turn(content: str, query: str, hits: Sequence[Hit], *, routed: bool,
              follows: Sequence[str] = ()) -> Reading:
    """``content``: the turn as sent; ``query``: what was searched (with the last turn's
    subject when the turn leans on it); ``routed``: a tool answers the turn too."""
    household = trust.about_household(content)
    if household is None and secrets.asked(content):
        household = True  # a code, a password, an account: only ever the household's
    general = trust.general_form(content, hits)
    wanted = specific(content)
    worldly = household is None and general and query == content
    shown = [] if household is False else trust.shown(query, hits, with_tool=routed,
                                                        follows=follows)
    if worldly:
        # Asked in general form, leaning on no earlier turn ("at what temperature does water
        # boil?"): a note answers only when one of its sentences is as close by meaning as a
        # note shown for its meaning alone; else the question is the world's. Sharing words is
        # no sign in a long document ("how many minutes are in an hour?" and the babysitting
        # section's "twenty minutes", "an hour"). Every set's general questions: closest
        # sentence 0.22-0.40; household questions in general form 0.49 and up.
        shown = [h for h in shown if h.score >= trust.SHOW_SEMANTIC]
    if household is None and not shown and wanted and not general and \
            trust.held_whole(content, hits):
        # The librarian beside the library note is the household's ("how's it going?" beside
        # "we are going to a cottage" asks for nothing a note may lack).
        household = True
    # The best document's every passage found: the thing may be in a later section. One that
    # numbers the asked thing only otherwise ("Year 3" for the Year 5 PE days), or never
    # writes a name the question uses (the Christmas party for the Easter one), lacks it too.
    text = trust.document_text(shown[0].source, trust.passages_of(shown[0].source, shown, hits)
                               ) if shown else ""
    missing = bool(shown) and lacks(content, text)
    if household is None and shown and numbered_otherwise(content, text):
        # Another of a numbered kind the household's notes number ("fault F28" beside a
        # guide's A01 and F37) is the household's too, in general form or not: no answer
        # from the world's knowledge.
        household = True
    return Reading(household, asks(content), wanted, general, worldly, shown, missing,
                   asks_gist(content))


@dataclass(frozen=True, slots=True)
class Plan:
    """What the turn does with its evidence."""

    decline: bool  # say DONT_KNOW with no model call
    shown: list[Hit]  # the notes the model sees
    strict: bool  # every number the answer states must be in the question or the notes


def plan_answer(content: str, reading: Reading, shown: list[Hit], evidence: Evidence | None,
                *, routed: bool) -> Plan:
    """``shown``: the notes after the evidence search (a note found a little under the show's
    floor may have joined)."""
    household = reading.household
    # A question a shown note is about and none of its sentences answers is declined, unless it
    # asks what the note says as a whole: the model's own words beside notes that do not say
    # the answer were nonsense in 9 of 10 such turns on the sets ("Mum is sleeping in the car").
    decline = evidence is None and not routed and reading.asks and bool(
        (household and not shown) or reading.missing or (shown and not reading.gist))
    if decline and household is None and reading.worldly:
        # About things in general, and no document answers it: the model's, without the notes
        # that do not ("how long do hamsters live?" is not about Nibbles).
        decline, shown, household = False, [], False
    # A question about things in general with no note shown is the world's: "366 days in a
    # leap year" is no value the household's notes must hold. One naming what no note knows
    # may be the household's all the same ("how old is Nibbles?"): no value the notes lack.
    # A name after a preposition is where or in what the thing is measured, not whose it is
    # ("the freezing point of water in Celsius").
    strict = evidence is None and household is not False and reading.asks and not (
        household is None and not shown and reading.general
        and not names(_PLACED.sub("", content)))
    return Plan(decline, shown, strict)
