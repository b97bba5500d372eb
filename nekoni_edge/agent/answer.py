"""What the answer prompt says and what the phone is sent: plain text only, ended cleanly,
grounded in the owner's documents. Pure text logic, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nekoni_edge.store.knowledge import Hit

ANSWER_INSTRUCTION = "Answer the question briefly, using the information above."
# Said when the model produced nothing a person should see, twice.
NO_ANSWER = "Sorry, I could not answer that. Please ask again in other words."
SENTENCE_END = (".", "!", "?", "…", ":", ")", '"', "”")
# Hits within this cosine of the best one join it in the prompt (a small model is easily
# distracted by the rest: bench_agent, "knowledge hits").
HIT_MARGIN = 0.08
MAX_HITS = 2
# Below this a document is not shown at all: on the household set the right document scored
# 0.54-0.76 and follow-ups 0.42-0.48, while the best unrelated one scored at most 0.39 (for "what
# time is it?", whose answer a small model then took from a school timetable).
SHOW_MIN_SCORE = 0.40
# When a tool answers the turn, a document must be clearly about the question too.
SHOW_MIN_SCORE_WITH_TOOL = 0.45
# The best document must be at least this close before its sentence is quoted under an answer.
GROUNDING_MIN_SCORE = 0.45

_WORD = re.compile(r"[a-z0-9][a-z0-9'.,:-]*[a-z0-9]|[a-z0-9]", re.IGNORECASE)
_STOPWORDS = frozenset(
    "a an the and or but of to in on at for by with from is are was were be been it its this "
    "that these those do does did how what when where which who whom why can could should "
    "would will i you we my our your me us there their they them he she his her have has had "
    "not no yes if then so as about into than too very much many any some get make".split()
)


def _words(text: str) -> list[str]:
    return [w.lower().strip(".,:") for w in _WORD.findall(text)]


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stopwords out; crude plural folding)."""
    return {w.rstrip("s") if len(w) > 3 else w for w in _words(text)} - _STOPWORDS


def chosen_hits(hits: list[Hit], *, with_tool: bool = False) -> list[Hit]:
    """The hits worth showing a small model: the best, and any nearly as good, when close."""
    floor = SHOW_MIN_SCORE_WITH_TOOL if with_tool else SHOW_MIN_SCORE
    if not hits or hits[0].score < floor:
        return []
    best = hits[0].score
    return [h for h in hits[:MAX_HITS] if h.score >= max(floor, best - HIT_MARGIN)]


def compose(question: str, facts: list[str], hits: list[Hit]) -> str:
    """The turn's user message: retrieved text and tool facts right before the question."""
    parts = []
    if hits:
        parts.append("From the owner's documents:\n" +
                     "\n".join(f"[{h.source}] {h.content}" for h in hits))
    parts.extend(facts)
    if not parts:
        return question
    return "\n\n".join([*parts, f"Question: {question}\n{ANSWER_INSTRUCTION}"])


def sentences(text: str) -> list[str]:
    """Split at sentence ends ('.', '!', '?', ';') followed by a space."""
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+", text) if s.strip()]


@dataclass(frozen=True, slots=True)
class Evidence:
    """The retrieved sentence that best answers the question, and where it came from."""

    sentence: str
    source: str
    key_words: frozenset[str]  # what an answer stating it must mention


def evidence_candidates(hits: list[Hit]) -> list[str]:
    """The sentences of the best document, when it is close enough to be worth quoting."""
    if not hits or hits[0].score < GROUNDING_MIN_SCORE:
        return []
    return sentences(hits[0].content)


def pick_evidence(question: str, candidates: list[str], cosines: list[float],
                  source: str) -> Evidence | None:
    """The candidate closest to the question (by embedding), with what it adds to it."""
    if not candidates:
        return None
    best = max(range(len(candidates)), key=lambda i: cosines[i])
    sentence = candidates[best]
    keys = frozenset(content_words(sentence) - content_words(question))
    return Evidence(sentence, source, keys) if keys else None


def states(answer: str, evidence: Evidence) -> bool:
    """Whether the answer mentions most of what the evidence says beyond the question."""
    said = content_words(answer)
    # Numbers are the facts a small model most often gets wrong: each must be there.
    numbers = {w for w in evidence.key_words if any(c.isdigit() for c in w)}
    if numbers - said:
        return False
    return len(evidence.key_words & said) * 2 >= len(evidence.key_words)


def quote(evidence: Evidence) -> str:
    """The line added under an answer that missed what the document says."""
    return f"\n\n(From {evidence.source}: “{evidence.sentence}”)"


def looks_like_json(text: str) -> bool:
    """An answer opening like a tool call or a JSON object or array is never sent."""
    head = text.lstrip()
    return head.startswith(("{", "[{", '["', "```json", '"tool_call"')) or '"tool_call"' in head


class PieceGate:
    """Holds back an answer's pieces until it is plainly not JSON, and always the word being
    written, so that a reply cut by ``max_tokens`` can end cleanly instead of mid-word."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start over, for a second try."""
        self.sent = ""
        self._held = ""
        self.refused = False
        self.stopped = False  # the answer turned into a tool call: end it here
        self._checked = False

    def push(self, piece: str) -> str:
        """Take a piece; return what may go to the phone now."""
        if self.refused or self.stopped:
            return ""
        self._held += piece
        if not self._checked:
            head = self._held.strip()
            # Plain text is known at its first letter; a bracket, quote or fence needs more.
            if not head or (head[0] in "{[`\"" and len(head) < 8):
                return ""
            self._checked = True
            if looks_like_json(self._held):
                self.refused = True
                return ""
        if "tool_call" in self._held:
            # A tool call written mid-answer: the text before it may go, nothing after.
            self._held = self._held[: self._held.find("tool_call")].rstrip(' \n"[(`')
            self.stopped = True
            self.refused = not (self.sent or self._held.strip())  # nothing said: try again
            return ""
        # Release up to the last space, keeping the space: a cut reply then ends on a word.
        # The first word goes at once (it is the first thing the phone shows, and no reply is
        # cut inside its first word): holding it cost one token's time before the first piece.
        cut = max(self._held.rfind(" "), self._held.rfind("\n")) if self.sent else len(self._held)
        if self._held.endswith(SENTENCE_END):
            # A word that ends a sentence is never cut (``finish`` keeps it): it need not wait
            # for the next token, which for an answer's last word is the end of the stream.
            cut = len(self._held)
        if cut <= 0:
            return ""
        ready, self._held = self._held[:cut], self._held[cut:]
        if not self.sent:
            ready = ready.lstrip()
        self.sent += ready
        return ready

    def finish(self, cut_short: bool) -> str:
        """The rest at the end; ``cut_short``: the model hit max_tokens mid-thought."""
        if not self._checked and looks_like_json(self._held):
            self.refused = True
        if self.refused:
            return ""
        rest = self._held.rstrip()
        if cut_short or self.stopped:
            if not rest.endswith(SENTENCE_END):
                rest = ""  # the unfinished word goes, with its space
            if not (self.sent + rest).rstrip().endswith(SENTENCE_END):
                rest += "…"
        if not self.sent:
            rest = rest.lstrip()
        self.sent += rest
        return rest
