"""A turn's decisions as pure functions: the reading of its words and hits, and the plan."""

from __future__ import annotations

from nekoni_edge.agent import plan
from nekoni_edge.agent.evidence import Evidence
from nekoni_edge.store.chunks import Hit

ROUTINES = Hit("d", "routines.md", 0, None, "Brush for two minutes, thirty seconds a side.",
               0.36, lexical=1, heading="Teeth")
GARAGE = Hit("g", "garage.md", 0, None, "The tyre pump is on the top shelf.", 0.62, lexical=1,
             heading="Garage")


def test_a_worldly_question_is_not_shown_a_note_sharing_only_its_words() -> None:
    question = "How many seconds are in a minute?"
    reading = plan.read_turn(question, question, [ROUTINES], routed=False)
    assert reading.worldly
    assert reading.shown == []
    # Leaning on the last turn it is not worldly: the note may answer it.
    leaning = plan.read_turn(question, f"teeth {question}", [ROUTINES], routed=False)
    assert not leaning.worldly


def test_a_household_question_with_a_note_and_no_evidence_is_declined() -> None:
    question = "When was the tyre pump bought?"
    reading = plan.read_turn(question, question, [GARAGE], routed=False)
    assert reading.shown == [GARAGE]
    assert reading.specific
    decided = plan.plan_answer(question, reading, reading.shown, None, routed=False)
    assert decided.decline
    found = Evidence("It was bought in May 2023.", "garage.md", frozenset({"may", "2023"}))
    assert not plan.plan_answer(question, reading, reading.shown, found, routed=False).decline


def test_a_general_question_no_note_answers_goes_to_the_model_without_notes() -> None:
    question = "How long do tortoises live?"
    reading = plan.read_turn(question, question, [], routed=False)
    decided = plan.plan_answer(question, reading, [], None, routed=False)
    assert not decided.decline
    assert decided.shown == []
    assert not decided.strict
    # A name no note knows may be the household's: no value the notes lack.
    named = "How old is Sheldon?"
    reading = plan.read_turn(named, named, [], routed=False)
    assert plan.plan_answer(named, reading, [], None, routed=False).strict
    # A name after a preposition says where or in what, not whose.
    measured = "What is the melting point of ice in Fahrenheit?"
    reading = plan.read_turn(measured, measured, [], routed=False)
    assert not plan.plan_answer(measured, reading, [], None, routed=False).strict


def test_chit_chat_asks_for_nothing() -> None:
    assert not plan.asks("Lovely, thanks")
    assert plan.asks("tell me about the boiler")


def test_the_thing_asked_about_is_looked_for_in_every_passage_of_the_best_document() -> None:
    question = "How often are Rolo's nails clipped?"
    opening = Hit("r", "rabbit.txt", 0, None, "Rolo lives in the hutch by the shed.", 0.55,
                  lexical=1)
    later = Hit("r", "rabbit.txt", 3, None, "His nails are clipped once a month.", 0.41,
                lexical=2)
    reading = plan.read_turn(question, question, [opening, later], routed=False)
    assert reading.shown[0] is opening  # the test's premise
    assert not reading.missing


def test_a_document_numbering_the_asked_thing_only_otherwise_lacks_it() -> None:
    # Not a question for a kind of value (it would be declined for lacking one anyway): what
    # the Year 2 rota says is not the Year 4 rota's.
    rota = Hit("s", "swimming.md", 0, None, "Year 2 swim on Wednesday with towels and goggles.",
               0.6, lexical=2, heading="Swimming")
    question = "What do Year 4 take for swimming?"
    reading = plan.read_turn(question, question, [rota], routed=False)
    assert reading.shown == [rota]
    assert reading.missing
    assert plan.plan_answer(question, reading, reading.shown, None, routed=False).decline
    same = "What do Year 2 take for swimming?"
    assert not plan.read_turn(same, same, [rota], routed=False).missing


def test_a_section_heading_names_what_its_lines_are_about() -> None:
    # A contacts list: the trade is in the heading, the number on the line under it.
    line = Hit("c", "people.txt", 1, None, "Mobile: 07700 900 123.", 0.6, lexical=1,
               heading="Gardener - Sam Ruiz")
    question = "What is the gardener's mobile number?"
    reading = plan.read_turn(question, question, [line], routed=False)
    assert reading.shown == [line]
    assert not reading.missing
    other = "What is the locksmith's mobile number?"
    assert plan.read_turn(other, other, [line], routed=False).missing


def test_a_question_a_note_is_about_and_does_not_answer_is_declined_whatever_it_asks() -> None:
    # Not a time, an amount or a name: a yes-or-no question and a "where" are declined too
    # when the shown note has no sentence answering them, not written by the model.
    for question in ("Can the tyre pump be used on the bikes?", "Where is the tyre pump from?"):
        reading = plan.read_turn(question, question, [GARAGE], routed=False)
        assert reading.shown == [GARAGE]
        assert not reading.specific
        assert plan.plan_answer(question, reading, reading.shown, None, routed=False).decline


def test_asking_what_a_note_says_goes_to_the_model_with_the_note() -> None:
    for question in ("What does the garage note say?", "Tell me about the garage."):
        reading = plan.read_turn(question, question, [GARAGE], routed=False)
        assert reading.shown == [GARAGE]
        decided = plan.plan_answer(question, reading, reading.shown, None, routed=False)
        assert not decided.decline
        assert decided.shown == [GARAGE]


def test_a_follow_up_in_general_form_with_no_evidence_is_declined_not_the_models() -> None:
    # "And does it cost anything?" after the tyre pump: in general form, but leaning on the
    # last turn's note, which says nothing of a cost; the model's words were nonsense there.
    question = "And does it cost anything?"
    query = f"Where is the tyre pump? {question}"
    reading = plan.read_turn(question, query, [GARAGE], routed=False)
    assert reading.general
    assert reading.shown == [GARAGE]
    assert plan.plan_answer(question, reading, reading.shown, None, routed=False).decline


def test_another_of_a_numbered_kind_the_notes_number_is_the_households() -> None:
    """ "What does error H9 mean?" in general form, beside an oven guide listing H2 and H5:
    the household's oven, declined, not the model's guess."""
    guide = Hit("o", "oven-guide.txt", 0, None,
                "H2 means the door is not shut. H5 means the fan has stopped.", 0.58,
                lexical=1, heading="Error codes")
    question = "What does error H9 mean?"
    reading = plan.read_turn(question, question, [guide], routed=False)
    assert reading.household is True
    assert plan.plan_answer(question, reading, reading.shown, None, routed=False).decline
