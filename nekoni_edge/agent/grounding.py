"""Finding a turn's evidence: the sentence of a shown note that answers the question (scored by
the cosines stored at ingest, secrets not asked for hidden) or a tool's value. The picking
itself is ``evidence.pick_evidence``; this module gathers the sentences and embeds those
stored before passages were embedded.
"""

from __future__ import annotations

from collections.abc import Sequence

from nekoni_edge.agent import answer, secrets, trust
from nekoni_edge.agent.asked import lacks, only_where_kept
from nekoni_edge.agent.evidence import Evidence, own_subject, pick_evidence, sentences
from nekoni_edge.agent.router import Embed, Route
from nekoni_edge.rag.structure import line_labels, titled
from nekoni_edge.store.chunks import Hit
from nekoni_edge.words import content_words, numbers


async def find_evidence(question: str, vector: Sequence[float] | None, hits: list[Hit],
                        embed: Embed | None, found: Sequence[Hit] = (),
                        searched: Sequence[float] | None = None,
                        not_about: frozenset[str] = frozenset(), kept: str = ""
                        ) -> Evidence | None:
    """The shown sentence closest to the question, when it holds what the question asks
    for: from the best document, or else from the next one shown ("who mows the lawn on
    Sundays?" is the rota's, not the garden note's with its Sunday tomato feed). A
    document's sentences are those of every chunk of it among the hits ``found`` too: the
    section that answers may rank under the document's opening. ``searched``: what a
    follow-up was searched with (its words after the last turn's); its sentences are scored
    by the mean of their closeness to both, the subject kept and the thing now asked ("and
    what was he pleased with?" is not the sentence naming Mr. Dunn). ``not_about`` and
    ``kept``: as ``pick_evidence`` takes them."""
    if vector is None or embed is None:
        return None
    kinds = secrets.asked(question)
    whose = secrets.whose(question)
    pointer: Evidence | None = None
    best_found: Evidence | None = None
    for source in dict.fromkeys(h.source for h in hits):
        chunks = trust.passages_of(source, found, hits)
        document = trust.document_text(source, chunks)
        if lacks(question, document):
            # The next document shown, without the thing asked about: "Yusuf's football"
            # is the chat's, not the tutor's fee for a lesson; "the Year 6 trip" is not
            # the Year 4 letter's.
            continue
        # (chunk, sentence, its cosine when stored with the chunk) for every sentence that
        # is not an instruction, secrets not asked for hidden.
        rows: list[tuple[Hit, str, float | None]] = []
        labels: list[str] = []  # each sentence's line's label (``line_labels``)
        for h in chunks:
            cosines = stored_cosines(h)
            labelled = line_labels(h.content)
            for i, c in answer.evidence_candidates(h):
                rows.append((h, secrets.hide(c, kinds), cosines[i]))
                labels.append(labelled[i])
        candidates = [c for _, c, _ in rows]
        withheld: set[str] = set()
        if kinds:
            # A secret is told only from a sentence about what the question names: in any
            # other it stays hidden (the sentences stay, as context for the next one), and
            # one whose asked secret is hidden answers nothing ("the bike shed padlock:
            # (not shown)" is no answer to the garden gate's combination).
            about = [trust.names_the_subject(question, titled(
                source, own_subject(candidates, i), row[0].heading), kinds)
                for i, row in enumerate(rows)]
            holds_asked = [any(s.kind in kinds for s in secrets.find(c)) for _, c, _ in rows]
            # (Nor one it names as another thing's: "Gate padlock code: 7731 (don't write it
            # on the shed)" for the shed's code.)
            rows = [(row[0], secrets.hide(row[1], kinds if named else frozenset(), whose,
                                          titled(source, "", row[0].heading)), row[2])
                    for row, named in zip(rows, about, strict=True)]
            withheld = {c for (_, c, _), held in zip(rows, holds_asked, strict=True)
                        if held and not any(s.kind in kinds for s in secrets.find(c))}
        if not rows:
            continue
        if searched is not None:
            own = await embed([titled(source, c, h.heading) for h, c, _ in rows])
            rows = [(h, c, (_dot(v, vector) + (cosine if cosine is not None
                                               else _dot(v, searched))) / 2)
                    for (h, c, cosine), v in zip(rows, own, strict=True)]
        missing = [(h, c) for h, c, cosine in rows if cosine is None]
        if missing:
            # Stored before passages were embedded: embed the sentences now.
            vectors = iter(await embed([titled(source, c, h.heading)
                                              for h, c in missing]))
            rows = [(h, c, cosine if cosine is not None else _dot(next(vectors), vector))
                    for h, c, cosine in rows]
        best = next(h for h in hits if h.source == source)
        evidence = pick_evidence(question, [c for _, c, _ in rows],
                                       [float(cosine or 0.0) for _, _, cosine in rows],
                                       source, best.heading, [h.heading for h, _, _ in rows],
                                       not_about, kept, labels)
        if evidence is not None and any(w in evidence.sentence for w in withheld):
            continue
        if evidence is not None and not only_where_kept(question, evidence.sentence):
            if best_found is None or evidence.score > best_found.score:
                best_found = evidence
            continue
        # "The key safe code is in the home manual": told only when no note says the value.
        pointer = pointer or evidence
    return best_found or pointer


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def stored_cosines(hit: Hit) -> list[float | None]:
    """Each sentence's cosine as the search scored it: its passage's, or the chunk's own when
    the chunk is that one sentence; None where it was not stored."""
    count = len(sentences(hit.content))
    if len(hit.passage_scores) == count:
        return list(hit.passage_scores)
    return [hit.score] if count == 1 else [None] * count


def tool_evidence(question: str, routes: list[Route],
                   results: list[tuple[str, str | None, bool]]) -> Evidence | None:
    """What the answer must state when a tool answered: its value, or its fact's words (a
    tool that failed gives none: the model says so in its words)."""
    for route, (fact, essential, ok) in zip(routes, results, strict=True):
        if ok and essential is not None:
            return Evidence(fact, route.tool.name, frozenset(), exact=essential,
                            document=False)
    for route, (fact, _, ok) in zip(routes, results, strict=True):
        if not ok or not numbers(fact):
            continue  # an action's outcome in words ("the door is unlocked"): the model's own
        return Evidence(fact, route.tool.name, frozenset(
            content_words(fact) - content_words(question)), document=False)
    return None
