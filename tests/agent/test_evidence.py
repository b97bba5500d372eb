"""The answering sentence picked from a note, and whether an answer states it."""

from __future__ import annotations

from nekoni_edge.agent import asked
from nekoni_edge.agent.evidence import (
    Evidence,
    pick_evidence,
    sentences,
    states,
    unsupported_numbers,
    with_antecedent,
)


def test_evidence_is_the_sentence_that_answers() -> None:
    sentences = ["Pepper the spaniel gets two walks a day.", "Her vet is Dr Nkemelu."]
    evidence = pick_evidence("Who is Pepper's vet?", sentences, [0.6, 0.4], "pepper.txt")
    assert evidence is not None
    assert evidence.sentence == "Her vet is Dr Nkemelu."
    # "Her" is Pepper: the sentence naming her is told before it.
    assert evidence.as_answer() == ("Pepper the spaniel gets two walks a day. Her vet is Dr "
                                    "Nkemelu. (from pepper.txt)")
    assert pick_evidence("Who is Pepper's vet?", sentences[:1], [0.6], "p") is None


def test_states_checks_every_number_and_an_exact_value() -> None:
    evidence = Evidence("Bake for 20 minutes at 240 degrees.", "b", frozenset(
        {"bake", "20", "minute", "240", "degree"}))
    assert states("Bake it for 20 minutes at 240 degrees.", evidence)
    assert not states("Bake it for 30 minutes at 240 degrees.", evidence)
    clock = Evidence("Current time on the box: 04:19 UTC.", "get_time", frozenset(),
                           exact="04:19", document=False)
    assert states("It is 04:19 now.", clock)
    assert not states("It is 04:19.20 now.", clock)  # a longer value is another one
    assert not states("It is 14:19 now.", clock)
    supplier = Evidence("Electricity and gas are with Octopus Energy.", "e", frozenset(
        {"electricity", "gas", "octopu"}))
    assert states("Octopus Energy supplies our electricity and gas.", supplier)
    # the words without the name, or denied, do not state it
    assert not states("Octopus Energy is not our electricity and gas supplier.", supplier)
    assert not states("Electricity and gas come from the grid.", supplier)


def test_a_title_is_not_a_sentence_end() -> None:
    assert sentences("Her teacher is Mr. Hendry. She swims; daily.") == [
        "Her teacher is Mr. Hendry.", "She swims;", "daily."]
    assert Evidence("the inverter is in the loft;", "solar.txt", frozenset()
                          ).as_answer() == "The inverter is in the loft. (from solar.txt)"


def test_numbers_no_source_holds() -> None:
    assert unsupported_numbers("Your passport number is 20260.", "What's my passport?") \
        == {"20260"}
    assert unsupported_numbers("It makes 3200 kWh.", "about 3,200 kWh a year") == set()
    assert unsupported_numbers("Pick-up is at 5 pm.", "Pick-up is at 5:00 pm.") == set()


def test_where_is_answered_by_a_place_and_close_runners_up_are_told_too() -> None:
    sentences = ["The home battery is a 5 kWh unit in the garage.",
                 "It charges from the panels and powers the house in the evening."]
    evidence = pick_evidence("Where is the home battery?", sentences, [0.50, 0.55],
                                   "home_battery.txt")
    assert evidence is not None
    assert evidence.sentence == sentences[0]  # "in the garage", not "in the evening"
    close = pick_evidence("What does the battery do?", sentences, [0.50, 0.52],
                                "home_battery.txt")
    assert close is not None
    assert close.as_answer() == " ".join(sentences) + " (from home_battery.txt)"


def test_an_answer_naming_one_of_two_days_does_not_state_the_evidence() -> None:
    evidence = pick_evidence("What days does Maya take a packed lunch?",
                                   ["Maya takes a packed lunch on Mondays and Thursdays."],
                                   [0.8], "lunches.txt")
    assert evidence is not None
    assert not states("On Mondays, Maya takes a packed lunch.", evidence)
    assert states("Maya takes one on Mondays and Thursdays.", evidence)


def test_a_day_is_not_the_name_asked_for_and_which_thursday_must_be_said() -> None:
    lessons = "Leo's piano lessons are on Wednesdays at 4:15 pm with Mrs Ortiz."
    piano = pick_evidence("Who teaches Leo piano?", [lessons], [0.8], "piano_lessons.txt")
    assert piano is not None
    assert not states("Leo's piano lessons are on Wednesdays at 4:15 pm.", piano)
    assert states("Mrs Ortiz teaches him, on Wednesdays at 4:15 pm.", piano)
    club = pick_evidence("When does Maya's book club meet?",
                               ["Maya's book club meets on the last Thursday of the month at "
                                "Priya's house."], [0.8], "book_club.txt")
    assert club is not None
    assert not states("Maya's book club meets on Thursday at Priya's house.", club)
    assert states("It meets on the last Thursday of the month at Priya's house.", club)


def test_who_wants_every_name_and_who_did_something_wants_the_doing() -> None:
    gp = pick_evidence("Who is our GP?", ["Our GP is Dr Shah at Elm Street Surgery."],
                             [0.8], "doctor.txt")
    assert gp is not None
    assert not states("Our GP is Dr. Elam Street Surgery.", gp)
    assert states("Dr Shah, at Elm Street Surgery.", gp)
    assert not asked.can_answer("Who fitted the home battery?",
                                "The home battery is a 5 kWh Puredrive unit in the garage.")
    assert asked.can_answer("Who swept the chimney?",
                            "The chimney was swept in October by Clean Sweep Ltd.")


def test_what_a_pet_is_called_wants_its_name_as_written() -> None:
    hamster = pick_evidence("What is the hamster called?",
                                  ["Nibbles the hamster lives in Leo's room."], [0.8],
                                  "hamster.txt")
    assert hamster is not None
    assert not states("Nebbles the Hamster living in Leo's room.", hamster)
    assert states("It is called Nibbles and lives in Leo's room.", hamster)


def test_an_answer_must_say_the_clause_that_answers() -> None:
    pellets = pick_evidence(
        "Where are the hens' pellets kept?",
        ["Their layers pellets are in the metal bin by the coop, and the eggs are collected "
         "every afternoon."], [0.7], "hens.txt")
    assert pellets is not None
    assert not states("We have four hens in the coop. The eggs are collected every "
                            "afternoon.", pellets)
    assert states("The pellets are in the metal bin by the coop.", pellets)


def test_an_answer_says_something_of_each_clause_when_none_is_asked_for() -> None:
    mower = pick_evidence(
        "What fuel goes in the lawn tractor?",
        ["It takes unleaded petrol, and the spare blade is on the shelf above the workbench."],
        [0.6], "ride_on_mower.txt")
    assert mower is not None
    assert not states("The fuel goes in the lawn tractor, and the spare blade is on the "
                            "shelf above the workbench.", mower)
    assert states("It takes unleaded petrol; the spare blade is on the shelf.", mower)


def test_a_pronouns_sentence_is_told_after_the_sentence_that_names_it() -> None:
    candidates = ["The water main tap is in the cellar by the meter.",
                  "Turn it to the right to close it.", "The meter is read in June."]
    evidence = pick_evidence("Which way does the water main tap close?", candidates,
                                   [0.3, 0.7, 0.1], "flat.md")
    assert evidence is not None
    assert evidence.told == " ".join(candidates[:2])
    assert with_antecedent(candidates, 2) == candidates[2]


def test_an_answer_to_where_must_say_the_place() -> None:
    evidence = pick_evidence(
        "Where do we keep the ladder?",
        ["The ladder hangs in the garage loft, above the freezer and the bikes."], [0.6],
        "house.md")
    assert evidence is not None
    assert evidence.place == "loft"
    # Most of its words, but another place: not the evidence.
    assert not states("The ladder hangs in the shed, above the freezer and the bikes.",
                            evidence)
    assert states("It hangs in the garage loft above the freezer and the bikes.", evidence)


def test_a_pronoun_clause_counts_its_subjects_words() -> None:
    # "drop them at the library" is about the batteries of the clause before it.
    clauses = ["Batteries are not collected from the kerb;",
               "drop them at the box inside the library entrance."]
    evidence = pick_evidence("Where do I drop old batteries?", clauses, [0.56, 0.38],
                                   "house.md", "Recycling")
    assert evidence is not None
    assert "library" in evidence.sentence


def test_another_qualifier_answers_unless_the_asked_one_is_named_elsewhere() -> None:
    question = "How much is the school lunch?"
    plain = ["Hot lunches cost £2.40 a day.", "Packed lunches must not contain nuts."]
    assert pick_evidence(question, plain, [0.6, 0.3], "school.md") is not None
    # With "school lunch" named in the note, the hot lunch is another thing.
    named = ["Hot lunches cost £2.40 a day.", "The school lunch is free for infants."]
    evidence = pick_evidence(question, named, [0.6, 0.5], "school.md")
    assert evidence is None or "infants" in evidence.sentence
    # A qualifier the question itself says is no other thing.
    assert pick_evidence("What is the recommended fan setting?", [
        "The fan setting can be changed with the arrows.",
        "The recommended setting for a bedroom is 2."], [0.5, 0.6], "fan.md") is not None


def test_a_sentence_about_someone_else_does_not_answer() -> None:
    notes = ["Person: Omar, Medicine: Ramipril, Dose: 10 mg, When: Every evening.",
             "Person: Lena, Medicine: Sertraline, Dose: 50 mg, When: Every morning."]
    evidence = pick_evidence("When does Lena take her sertraline?", notes, [0.7, 0.6],
                             "medicines.md", "Who takes what")
    assert evidence is not None
    assert "Lena" in evidence.sentence
    closer = pick_evidence("What dose does Lena take?", notes, [0.8, 0.5], "medicines.md")
    assert closer is not None
    assert "Omar" not in closer.told
    # A pronoun's sentence is about the name before it.
    family = ["Zara is seven.", "She walks to school with Omar at 8:15."]
    assert pick_evidence("When does Zara leave for school?", family, [0.4, 0.6],
                         "family.md") is not None


def test_a_place_or_signature_named_in_a_sentence_is_not_someone_else() -> None:
    letter = ["Thank you for signing Noor up for violin.", "Lessons are on Mondays at 17:00 "
              "at the studio, 3 Elm Parade, and last half an hour.", "Kind regards, Ada Vale"]
    evidence = pick_evidence("When are Noor's violin lessons?", letter, [0.7, 0.45, 0.2],
                             "violin-letter.txt")
    assert evidence is not None
    assert "17:00" in evidence.told


def test_a_chat_reply_is_told_with_the_line_it_answers() -> None:
    chat = ["Mum: Nana lands at 14:05 at gate 3.", "Dad: I'll collect her.",
            "Mum: Great, bring a coat."]
    evidence = pick_evidence("Who is collecting Nana from the airport?", chat,
                             [0.5, 0.3, 0.1], "family-chat.txt")
    assert evidence is not None
    assert evidence.told == "Mum: Nana lands at 14:05 at gate 3. Dad: I'll collect her."


def test_a_sentence_sharing_no_word_answers_only_when_close_by_meaning() -> None:
    question = "When does the coach leave for the tournament?"
    assert pick_evidence(question, ["Back by 17:00."], [0.35], "family-chat.txt") is None
    paraphrase = pick_evidence(question, ["The bus to the cup games goes at 7:30."], [0.55],
                               "club.md")
    assert paraphrase is not None


def test_a_reply_after_a_question_is_about_what_was_asked() -> None:
    chat = ["Jo (flat 2): Bins moved to Fridays.", "Who's organising the quiz?",
            "Sam (flat 5): My sister Ines is, she did it last year.", "Jo (flat 2): Great."]
    evidence = pick_evidence("Who is organising the quiz night?", chat, [0.2, 0.6, 0.3, 0.1],
                             "flats-chat.txt")
    assert evidence is not None
    assert "Ines" in evidence.told


def test_a_clause_is_told_with_the_rest_of_its_sentence() -> None:
    clauses = ["Collection is at 15:10;", "on Fridays the club ends at 16:30.", "Wear boots."]
    evidence = pick_evidence("What time is collection on Fridays?", clauses, [0.6, 0.5, 0.1],
                             "club.md")
    assert evidence is not None
    assert evidence.told == "Collection is at 15:10; on Fridays the club ends at 16:30."


def test_where_is_answered_by_a_named_place_not_a_day() -> None:
    notes = ["The party is on Saturday 9 May at Brook Farm near Eyam.",
             "The car park is the field behind the barn."]
    evidence = pick_evidence("Where is the party?", notes, [0.5, 0.52], "party.md")
    assert evidence is not None
    assert "Brook Farm" in evidence.told


def test_a_sentence_naming_another_in_place_of_one_asked_about_is_not_theirs() -> None:
    notes = ["We met Coach Rivera after the match.",
             "Then Mrs. Hale, who runs the choir for Femi.",
             "She thinks Femi should try the solo.", "Drama starts in May for Zara."]
    assert pick_evidence("What did Mrs. Hale say about Zara?", notes, [0.1, 0.6, 0.3, 0.2],
                         "club.txt") is None
    evidence = pick_evidence("What did Mrs. Hale say about Femi?", notes,
                             [0.5, 0.4, 0.6, 0.2], "club.txt")
    assert evidence is not None
    assert "solo" in evidence.sentence


def test_the_heading_answers_with_a_sentence_that_lacks_what_is_asked() -> None:
    lines = ["Mobile: 07700 900 555.", "Cleared the gutters in Nov.", "Cash only."]
    heading = "Handyman - P. Okonjo"
    evidence = pick_evidence("Who cleared the gutters?", lines, [0.2, 0.6, 0.1], "people.txt",
                             headings=[heading] * 3)
    assert evidence is not None
    assert evidence.as_answer() == ("Handyman - P. Okonjo: Cleared the gutters in Nov. "
                                    "(from people.txt)")
    assert pick_evidence("Who cleared the gutters?", lines, [0.2, 0.6, 0.1], "people.txt") \
        is None
    # a heading that does not hold what is asked adds nothing ("Repairs" names no one)
    assert pick_evidence("Who cleared the gutters?", lines, [0.2, 0.6, 0.1], "people.txt",
                         headings=["Repairs"] * 3) is None
    # a heading's year is the whole section's: no answer to when
    assert pick_evidence("When is the glass box emptied?", ["Cans and tins only, rinsed."],
                         [0.5], "leaflet.pdf", headings=["Collections 2026/27"]) is None


def test_an_identifiers_sentence_needs_no_shared_word_or_closeness() -> None:
    """A phone number to ring, in a long sentence about something else (cosine 0.29): it has
    passed the identifier's own test, so no floor by meaning keeps it back."""
    sentences = ["The surgery is on the first floor of the health centre.",
                 "If the stitches bleed or the swelling grows after two days, ring the "
                 "clinic on 01632 960 118."]
    evidence = pick_evidence("What's the dental clinic's phone number?", sentences,
                             [0.35, 0.29], "dentist.txt", "Northgate Dental Clinic")
    assert evidence is not None
    assert "01632 960 118" in evidence.sentence


def test_the_next_sentence_going_on_about_the_same_thing_is_told_too() -> None:
    sentences = ["F3 - filter blocked.", "It clears itself after a rinse cycle; if it comes "
                 "back, wash the filter under the tap.", "F5 - door open."]
    evidence = pick_evidence("What should I do about the blocked filter?", sentences,
                             [0.55, 0.40, 0.2], "dishwasher.md")
    assert evidence is not None
    assert evidence.sentence == "F3 - filter blocked."
    assert "wash the filter under the tap" in evidence.as_answer()


def test_a_word_of_the_question_opening_a_compound_is_shared() -> None:
    """"Captain" is in "team captain"; "head" in "Headteacher" (a compound counts the way
    the word coverage checks count it)."""
    sentences = ["Sports day is on the school field, weather permitting.",
                 "Mr Okoro, Headteacher"]
    evidence = pick_evidence("Who is the head of the school?", sentences, [0.42, 0.30],
                             "newsletter.pdf", "Greenfield Primary")
    assert evidence is not None
    assert evidence.sentence == "Mr Okoro, Headteacher"


def test_the_thing_named_again_with_the_is_the_one_before() -> None:
    """"The exam" after "her Grade 3 violin exam" is that exam, as a pronoun would be: the
    sentence with the date answers "Grade 3" though it does not repeat the number."""
    sentences = ["Nia is ready to take her Grade 3 violin exam.",
                 "The exam will be on 9 May at the music centre."]
    evidence = pick_evidence("When is Nia's Grade 3 exam?", sentences, [0.55, 0.50],
                             "violin.txt")
    assert evidence is not None
    assert "9 May" in evidence.sentence



def test_which_one_in_order_is_no_other_kind() -> None:
    """"The first lesson" is one of the violin lessons, not another kind of lesson."""
    sentences = ["Ella's violin lessons are on Mondays after school.",
                 "The fee is £90 a term, paid at the first lesson."]
    evidence = pick_evidence("How much are Ella's violin lessons?", sentences, [0.6, 0.5],
                             "violin.txt")
    assert evidence is not None
    assert "£90" in evidence.sentence


def test_a_pronoun_as_the_object_is_the_sentence_befores_thing() -> None:
    """"We have arranged this for …" is the appointment named before it, as an opening
    pronoun would be; "this season" is no pronoun."""
    sentences = ["Grandad needs his hearing aid checked.",
                 "We have arranged this for Friday 4 July at 2pm at the clinic.",
                 "Keep the aid dry for a day after the appointment."]
    assert with_antecedent(sentences, 1) == " ".join(sentences[:2])
    assert with_antecedent(["Welcome back.", "The captain for this season is Ravi."], 1) \
        == "The captain for this season is Ravi."
    evidence = pick_evidence("When is Grandad's hearing aid check?", sentences,
                             [0.45, 0.15, 0.30], "clinic.pdf")
    assert evidence is not None
    assert "4 July" in evidence.sentence


def test_a_clause_after_a_semicolon_shares_its_sentences_words() -> None:
    """The clause after ";" is the same sentence: it holds the words of the clause before it
    ("the piano tuner"), so it answers though not close by meaning alone."""
    sentences = ["The piano tuner comes between 9am and noon;",
                 "please stay in, the job normally lasts two hours.",
                 "Move the plant off the lid before the piano tuner arrives."]
    evidence = pick_evidence("How long does the piano tuner need?", sentences,
                             [0.40, 0.36, 0.30], "tuner.txt")
    assert evidence is not None
    assert "two hours" in evidence.sentence


def test_a_sentences_own_heading_tells_sections_apart() -> None:
    """The section heading "Collection" holds the question's word: its sentence answers
    though another section's is closer by meaning."""
    sentences = ["Owner: Khan family, Dog: Biscuit", "Please ring Sam Patel to agree a time."]
    headings = ["Kennels › Details", "Kennels › Collection"]
    evidence = pick_evidence("Who do we arrange Biscuit's collection with?", sentences,
                             [0.42, 0.38], "kennels.pdf", headings=headings)
    assert evidence is not None
    assert "Sam Patel" in evidence.sentence


def test_a_month_in_the_question_says_which_row() -> None:
    """"In March" picks March's row, as a number would, over a closer sentence (told with
    its heading's name, as a sentence naming no one is)."""
    rows = ["We walk on the first Sunday, led by whoever is organising.",
            "Month: March, Route: Castle loop, Organiser: Dev."]
    evidence = pick_evidence("Who is organising the walk in March?", rows, [0.60, 0.55],
                             "walks.md", headings=["Hillside Ramblers",
                                                   "Hillside Ramblers › This year"])
    assert evidence is not None
    assert "Dev" in evidence.sentence


def test_a_sentence_holding_the_asked_word_beats_one_drawn_close_by_the_name() -> None:
    # The name makes every sentence naming it close by meaning; the one that says the thing
    # asked about (the blanket) answers, though further by cosine and with no name.
    sentences = ["Took Biscuit to the park by the lake this morning.",
                 "The blanket is in the basket under the stairs."]
    evidence = pick_evidence("Where is Biscuit's blanket?", sentences, [0.52, 0.31],
                             "dog-walks.txt")
    assert evidence is not None
    assert evidence.sentence == sentences[1]


def test_a_numbered_thing_the_document_opens_with_does_not_pick_the_sentence() -> None:
    # "Year 6" is the letter's subject, said in its opening only: the cost sentence answers.
    candidates = ["Year 6 trip to Hallam Castle. Dear parents,", "The coach leaves at 9am.",
                  "The cost of the trip is £90, payable on the school app."]
    evidence = pick_evidence("How much does the Year 6 trip cost?", candidates,
                             [0.38, 0.25, 0.52], "trip-letter.pdf")
    assert evidence is not None
    assert "£90" in evidence.sentence
    # A number naming one of several things still says which sentence.
    rows = ["PE days: Year 4 on Mondays.", "PE days: Year 6 on Thursdays."]
    found = pick_evidence("When does Year 6 have PE?", rows, [0.5, 0.45], "pe.txt")
    assert found is not None
    assert "Thursdays" in found.sentence


def test_an_answer_must_say_a_value_of_the_kind_asked_for() -> None:
    # "How long" asks a length of time: most of the sentence's words without it state
    # nothing of what was asked.
    candidates = ["The electrician comes on Monday.",
                  "The power will be off for about two hours on the first morning."]
    evidence = pick_evidence("How long will the power be off?", candidates, [0.3, 0.6],
                             "works.txt")
    assert evidence is not None
    assert not states("The power will be off on the first morning.", evidence)
    assert states("About two hours, on the first morning.", evidence)


def test_a_heading_holding_what_is_asked_is_told_with_the_sentence() -> None:
    # A letter's heading names the practice; its sentences never do.
    sentences = ["Sam had a filling in a back tooth on 3 May.",
                 "He may feel sore for a day or two."]
    headings = ["BROOKSIDE DENTAL PRACTICE", "BROOKSIDE DENTAL PRACTICE"]
    letter = pick_evidence("Which dental practice did Sam go to?", sentences, [0.55, 0.30],
                           "dentist.pdf", headings=headings)
    assert letter is not None
    assert letter.as_answer().startswith("BROOKSIDE DENTAL PRACTICE: Sam had a filling")
    # A heading adding nothing the question asks is not told.
    sore = pick_evidence("How long will Sam's tooth be sore?", sentences, [0.30, 0.55],
                         "dentist.pdf", headings=headings)
    assert sore is not None
    assert "BROOKSIDE" not in sore.as_answer()


def test_a_letters_i_is_the_one_who_signed_it() -> None:
    email = ["From: Dana Whitlock.", "Subject: the hedge.", "Hi both,",
             "I'm happy to trim the hedge on our side in May.", "Cheers, Dana"]
    cosines = [0.20, 0.40, 0.10, 0.65, 0.15]
    found = pick_evidence("Who is trimming the hedge?", email, cosines, "hedge-email.txt")
    assert found is not None
    assert found.as_answer().startswith("Dana Whitlock: I'm happy to trim the hedge")
    # Signed under the sign-off, on a line of its own.
    letter = ["Dear Mr Cole,", "I will mark Sam's essay by Friday.", "Best wishes,",
              "Ruth Ansell"]
    found = pick_evidence("Who is marking Sam's essay?", letter, [0.1, 0.7, 0.1, 0.2],
                          "letter.txt")
    assert found is not None
    assert "Ruth Ansell" in found.as_answer()
    # A note signed by no one says no name for its "I".
    note = ["I'm happy to trim the hedge on our side in May."]
    assert pick_evidence("Who is trimming the hedge?", note, [0.65], "hedge.txt") is None


def test_a_runner_up_in_another_section_brings_only_its_own_clauses() -> None:
    # The first and the last are close; the clauses between them belong to neither.
    sentences = ["Recycling is collected on Tuesdays.",
                 "A bin left out gets a note from the warden;",
                 "after three notes the lease may end.",
                 "Garden waste is collected on the first Friday, and recycling is sorted."]
    found = pick_evidence("When is the recycling collected?", sentences,
                          [0.52, 0.20, 0.15, 0.50], "flats.md")
    assert found is not None
    assert "Tuesdays" in found.as_answer()
    assert "first Friday" in found.as_answer()
    assert "lease" not in found.as_answer()
    # A sentence's own clauses are still told with it.
    found = pick_evidence("What does the warden do about a bin left out?", sentences,
                          [0.10, 0.60, 0.30, 0.10], "flats.md")
    assert found is not None
    assert "after three notes the lease may end" in found.as_answer()


def test_a_pronouns_sentence_in_anothers_section_is_not_the_asked_ones() -> None:
    # Sectioned by child: "She" under Ada's heading is Ada, not Sam.
    sentences = ["She is allergic to cats.", "Lights out at 8.", "He walks to school."]
    headings = ["Sitter notes › Ada (7)", "Sitter notes › Ada (7)", "Sitter notes › Sam (4)"]
    assert pick_evidence("What is Sam allergic to?", sentences, [0.6, 0.2, 0.3],
                         "sitter.md", headings=headings) is None
    found = pick_evidence("What is Ada allergic to?", sentences, [0.6, 0.2, 0.3], "sitter.md",
                          headings=headings)
    assert found is not None
    assert "cats" in found.as_answer()


def test_a_clause_after_a_semicolon_is_about_its_sentences_thing() -> None:
    letter = ["Subject: your stay at Fern Cottage.", "Check-in is from 3pm.",
              "Keys are in the key box by the front door;",
              "the code is 4417 and is texted to you on the day."]
    found = pick_evidence("What is the key box code at the cottage?", letter,
                          [0.40, 0.40, 0.78, 0.67], "cottage-booking.txt")
    assert found is not None
    assert "4417" in found.as_answer()


def test_a_pronoun_is_its_antecedents_subject_when_telling_whose_it_is() -> None:
    note = ["Pip hibernates in the shed from October.",
            "Name: Pip, What: tortoise, Food: lettuce twice a week.",
            "Name: Mochi, What: cat, Food: a pouch night and morning.",
            "Mochi is insured with PetCo.",
            "She is chipped and her worming tablet is due on the 3rd."]
    cosines = [0.3, 0.43, 0.3, 0.25, 0.62]
    # Only Mochi's worming tablet is in the note: nothing in it answers for Pip.
    assert pick_evidence("When is Pip's worming tablet due?", note, cosines, "pets.md") is None
    found = pick_evidence("When is Mochi's worming tablet due?", note, cosines, "pets.md")
    assert found is not None
    assert "3rd" in found.as_answer()
    # In a chat, a speaker's label is no antecedent: "She" is the dog walked.
    chat = ["Kate: Picked up Pickle at 8, then the river loop.", "Sam: Great thanks.",
            "She's had breakfast, no treats please, she must lose a kilo."]
    found = pick_evidence("Why can't Pickle have treats?", chat, [0.47, 0.14, 0.33], "chat.txt")
    assert found is not None
    assert "no treats" in found.as_answer()


def test_a_list_items_label_tells_its_later_sentences_apart() -> None:
    terms = ["Autumn term: 2 September to 18 December.", "Half term is 26 to 30 October.",
             "Spring term: 4 January to 1 April.", "Half term is 15 to 19 February."]
    labels = ["", "Autumn term", "", "Spring term"]
    found = pick_evidence("When is the spring half term?", terms, [0.30, 0.50, 0.30, 0.47],
                          "handbook.md", labels=labels)
    assert found is not None
    assert "February" in found.as_answer()
    assert "October" not in found.as_answer()
    # A label makes no sentence holding none of the asked words an answer.
    hours = ["Hours: Monday to Thursday, 8am to 5.30pm.", "Drop-off is from 7.45am;",
             "please tell me by 9am if Isaac is off."]
    found = pick_evidence("What hours does Isaac go to the childminder?", hours,
                          [0.62, 0.52, 0.70], "contract.txt", labels=["", "Hours", "Hours"])
    assert found is not None
    assert "8am to 5.30pm" in found.as_answer()


def test_a_follow_ups_pronoun_stands_for_the_last_questions_subject() -> None:
    # No sentence holds the turn's own words: the last question's subject picks.
    club = ["Training is back to normal next week, 9.30 at Kings Park.",
            "The club dinner is at 7pm at the Royal Oak."]
    found = pick_evidence("And what time does it start?", club, [0.35, 0.45], "club-chat.txt",
                          kept="Where is training normally?")
    assert found is not None
    assert "9.30" in found.as_answer()
    # One holds them: the turn's own words pick, not the last subject's sentence again.
    letter = ["Your blood test is on Tuesday 15 December at 8.20am.",
              "Bring a list of the medicines you take."]
    found = pick_evidence("And what should I bring?", letter, [0.45, 0.40], "gp-letter.pdf",
                          kept="What time is the blood test?")
    assert found is not None
    assert "medicines" in found.as_answer()


def test_a_follow_ups_it_is_the_last_questions_thing_not_anothers_with_the_words() -> None:
    """"How often does it need feeding?" after where the lemon tree is: the tree's sentence
    (through its pronoun), not the roses' that says "feeding"."""
    garden = ["The lemon tree lives in the conservatory.",
              "It wants a spoon of citrus food every two weeks from April.",
              "The roses need feeding once a month with the green tub."]
    found = pick_evidence("How often does it need feeding?", garden, [0.40, 0.42, 0.55],
                          "garden.txt", kept="Where is the lemon tree?")
    assert found is not None
    assert "every two weeks" in found.as_answer()


def test_who_wrote_a_letter_is_its_signature() -> None:
    letter = ["Your new bin will be delivered on 3 May.", "Kind regards,", "Priya Sandhu",
              "Recycling Officer"]
    found = pick_evidence("Who signed the letter about the bin?", letter,
                          [0.5, 0.2, 0.2, 0.3], "bin-letter.pdf")
    assert found is not None
    assert "Priya Sandhu" in found.as_answer()
    # "With" before the closing words is a sign-off too.
    note = ["The hall is yours from 9am.", "With kind regards, Tom Ellery, Bookings"]
    booked = pick_evidence("Who sent the hall booking letter?", note, [0.5, 0.2], "hall.pdf")
    assert booked is not None
    assert "Tom Ellery" in booked.as_answer()


def test_a_line_labelled_with_a_name_is_that_ones() -> None:
    notes = ["Dee Lowe: blood group A negative.", "Allergic to penicillin.",
             "Finn: asthma, blue inhaler.", "Allergic to cats."]
    labels = ["", "Dee Lowe", "", "Finn"]
    found = pick_evidence("What is Dee allergic to?", notes, [0.3, 0.5, 0.3, 0.55],
                          "medical.txt", labels=labels)
    assert found is not None
    assert "penicillin" in found.as_answer()
    assert "cats" not in found.as_answer()
    # A chat's speaker talks to someone: the line is not the speaker's own.
    chat = ["Kate: Picked up Pickle at 8.", "Sam: Lovely.",
            "Next week can you walk her on Tuesday and Thursday?", "Kate: Yes fine."]
    found = pick_evidence("Which days will Kate walk Pickle next week?", chat,
                          [0.4, 0.1, 0.6, 0.3], "chat.txt", labels=["", "", "Sam", ""])
    assert found is not None
    assert "Tuesday and Thursday" in found.as_answer()


def test_another_kind_of_the_asked_thing_is_no_answer() -> None:
    # The document names the thing with a qualifier of its own and never says the question's:
    # the caravan's cover is not the flat's contents cover, nor a quarter pitch a half one.
    flat = ["The standard excess is £250 for each claim.", "Cover renews on 2 May."]
    headings = ["FLAT CONTENTS INSURANCE › Excess", "FLAT CONTENTS INSURANCE › Renewal"]
    asking = "What is the caravan insurance excess?"
    assert pick_evidence(asking, flat, [0.6, 0.3], "schedule.pdf", headings[0],
                         headings) is None
    found = pick_evidence("What is the contents insurance excess?", flat, [0.6, 0.3],
                          "schedule.pdf", headings[0], headings)
    assert found is not None
    assert "£250" in found.sentence
    # The document's name says its kind when no heading does.
    assert pick_evidence(asking, flat, [0.6, 0.3], "flat-insurance.pdf") is None
    pitches = ["Pitch: Half pitch, Fee: £40.", "Pitch: Full pitch, Fee: £70."]
    assert pick_evidence("What is the fee for a quarter pitch?", pitches, [0.6, 0.6],
                         "camping.md") is None
    # A thing named with no determiner after its verb ("does chess club cost") is one too.
    clubs = ["Chess club is on Mondays and costs £3 a session."]
    assert pick_evidence("How much does football club cost?", clubs, [0.6], "letter.pdf") is None
    # A name's word is no kind ("Riverside Tennis Club"), nor a verb after the thing, nor a
    # participle ("the raked leaves" are the leaves the document rakes).
    club = ["Riverside Tennis Club: the junior fee is £30 a term."]
    assert pick_evidence("How much is the junior tennis fee?", club, [0.6], "club.txt")
    assert not asked.named_otherwise("Where do the raked leaves go?",
                                     "Rake leaves into the cage behind the shed.", "garden")
    assert not asked.named_otherwise("When does the hall heating go off?",
                                     "The hall heating goes off at 10pm.", "hall")


def test_the_time_of_another_doer_is_no_answer() -> None:
    # Asked when the pharmacy opens, the document's only time is the surgery's.
    notes = ["The surgery is open from 8am on weekdays.", "There is a pharmacy next door."]
    assert pick_evidence("What time does the pharmacy by the surgery open?", notes,
                         [0.6, 0.5], "practice.txt") is None
    assert asked.timed_doer("When does the bin lorry come?") == {"bin", "lorry"}
    # Its own sentence answers, and a writer's "we" may be the asked thing.
    found = pick_evidence("What time does the surgery open?", notes, [0.6, 0.5],
                          "practice.txt")
    assert found is not None
    assert "8am" in found.sentence
    letter = ["Thank you for booking your bike in.", "We're open from 9am on Saturdays."]
    assert pick_evidence("What time does the bike shop open on Saturdays?", letter,
                         [0.3, 0.6], "bike-service.txt") is not None


def test_a_messages_later_sentence_goes_on_with_its_message() -> None:
    from nekoni_edge.rag.structure import line_labels
    chat = ("Tom: The barbecue is happening!! Sunday 3rd August, from 1pm, at Victoria Park.\n"
            "Ines: I'll bring the barbecue charcoal on Friday.")
    said = sentences(chat)
    found = pick_evidence("When is the barbecue?", said, [0.7, 0.3, 0.35], "chat.txt",
                          labels=line_labels(chat))
    assert found is not None
    assert "Sunday 3rd August" in found.told
    assert "The barbecue is happening" in found.told  # told with its message's opening


def test_an_identifier_naming_no_thing_of_its_own_is_the_sentence_befores() -> None:
    from nekoni_edge.agent.evidence import own_subject
    said = ["The side gate has a keypad lock.", "The code is 7720 and the gate sticks."]
    assert own_subject(said, 1) == " ".join(said)
    # ...but one that names its own thing is that thing's alone.
    named = ["The side gate has a keypad lock.", "The code for the bike lock is 3321."]
    assert own_subject(named, 1) == named[1]


def test_a_thing_said_only_of_another_opening_a_sentence_is_not_the_askeds() -> None:
    # Both names open their sentences: Leo's ballet says nothing of Maya's.
    said = ["Maya has piano on Mondays at 4pm.", "Leo's ballet is on Saturday mornings."]
    assert pick_evidence("When is Maya's ballet?", said, [0.5, 0.6], "kids.txt") is None
    found = pick_evidence("When is Leo's ballet?", said, [0.5, 0.6], "kids.txt")
    assert found is not None
    assert "Saturday" in found.sentence


def test_a_line_in_a_section_headed_with_anothers_thing_is_theirs() -> None:
    """'Tyres: pump to 40 psi' under '## Maya's bike' says nothing of Dad's tyres."""
    sentences = ["Tyres: 24 inch, pump to 40 psi.", "Lock: the blue D-lock.",
                 "Trek FX 2, grey.", "Serviced at Cog & Chain every spring."]
    headings = ["Our bikes › Maya's bike"] * 2 + ["Our bikes › Dad's bike"] * 2
    assert pick_evidence("What pressure should Dad's tyres be?", sentences,
                         [0.6, 0.2, 0.3, 0.3], "bikes.md", headings=headings) is None
    maya = pick_evidence("What pressure should Maya's tyres be?", sentences,
                         [0.6, 0.2, 0.3, 0.3], "bikes.md", headings=headings)
    assert maya is not None
    assert "40 psi" in maya.sentence


def test_a_fields_label_in_lower_case_is_not_whom_its_line_is_about() -> None:
    """"Form tutor: Mrs Achebe (Form 7B)." is Noah's form tutor: "Form" opens the line as
    the field's label, not as another of the document's names."""
    sentences = ["Noah started at Hillside in September.", "Form tutor: Mrs Achebe (Form 7B).",
                 "PE kit is needed on Mondays."]
    evidence = pick_evidence("Who is Noah's form tutor?", sentences, [0.3, 0.7, 0.2],
                             "noah school.txt")
    assert evidence is not None
    assert evidence.sentence == sentences[1]


def test_a_word_of_the_question_in_a_documents_name_counts_across_documents() -> None:
    """Picking within a document leaves its name's words out; comparing two documents' picks
    does not: the chess club's letter is about chess as much as the chat's line is."""
    question = "When is the chess tournament?"
    letter = pick_evidence(question, ["The spring tournament is on Sunday 8 March."], [0.70],
                           "chess club letter.txt")
    chat = pick_evidence(question, ["Chess moved to Thursday because of the tournament."],
                         [0.68], "family chat.txt")
    assert letter is not None
    assert chat is not None
    assert letter.score > chat.score


def test_a_rows_name_in_a_column_is_whom_it_is_about() -> None:
    """A log's row "3 Feb   Ravi   £2   weeded the path" is Ravi's, not Noor's."""
    rows = ["3 Feb   Ravi   £2   weeded the path", "10 Feb   Noor   £4   washed the bikes"]
    assert pick_evidence("How much did Noor get for weeding?", rows, [0.6, 0.3],
                         "jobs log.txt") is None
    found = pick_evidence("How much did Noor get for washing the bikes?", rows, [0.3, 0.6],
                          "jobs log.txt")
    assert found is not None
    assert found.sentence == rows[1]


def test_a_messages_header_lines_are_no_answer_about_what_it_says() -> None:
    """Close to the question by the message's subject alone, "Date: 2 March" is when it was
    sent; a table's "Date:" column, with no "From:" line by it, is a row like any other."""
    mail = ["From: Jan Novak", "To: Sam Price", "Date: 2 March 2027",
            "I can come on Friday 5 March at 9am to fix the gate."]
    found = pick_evidence("When is the gate being fixed?", mail, [0.3, 0.4, 0.8, 0.6],
                          "gate repair email.txt")
    assert found is not None
    assert found.sentence == mail[3]
    log = ["Date: 2 March 2027, Job: fixed the gate, By: Jan.", "Date: 9 April 2027, Job: oiled "
           "the hinges, By: Sam."]
    fixed = pick_evidence("When was the gate fixed?", log, [0.8, 0.5], "jobs.txt")
    assert fixed is not None
    assert fixed.sentence == log[0]


def test_a_reply_changes_the_message_it_quotes() -> None:
    """An email's own sentence, newer, is told over the quoted one it restates; a quoted
    sentence about something the reply does not say again still answers, and the two are
    never told together."""
    mail = ["Hi Dev,", "Your piano lesson has moved to Thursdays at 6pm, not 5pm, from next week.",
            "Best, Ana", "Hi Ana,", "At the moment Dev has piano on Thursdays at 5pm.",
            "His teacher is Mrs Clay."]
    headings = ["Lessons"] * 3 + ["Lessons › On 2 May, Sam Hart wrote"] * 3
    cosines = [0.1, 0.6, 0.1, 0.1, 0.8, 0.5]
    found = pick_evidence("What time does Dev have piano?", mail, cosines, "piano.txt",
                          headings[0], headings)
    assert found is not None
    assert found.told == mail[1]
    teacher = pick_evidence("Who is Dev's piano teacher?", mail, cosines, "piano.txt",
                            headings[0], headings)
    assert teacher is not None
    assert "Clay" in teacher.told
    # Without the quote's heading the quoted sentence is the one picked.
    plain = pick_evidence("What time does Dev have piano?", mail, cosines, "piano.txt",
                          "Lessons", ["Lessons"] * 6)
    assert plain is not None
    assert plain.sentence == mail[4]


def test_a_number_the_question_states_is_a_word_it_shares() -> None:
    """"What's on shelf 2?" in a note named for the shelf: the row holding the 2 answers,
    though its only other word is the note's name."""
    rows = ["Shelf: 1, Holds: tins and jars.", "Shelf: 2, Holds: cereal and pasta."]
    found = pick_evidence("What's on shelf 2?", rows, [0.3, 0.3], "pantry shelf.md")
    assert found is not None
    assert found.sentence == rows[1]


def test_a_clauses_thing_named_in_the_clause_before_is_of_its_kind() -> None:
    """"The cost is £40 a year" after "Resident permits cover the bay;" is the resident
    permit's cost, no answer for the visitor permit's (another kind, by the clause before)."""
    clauses = ["Resident permits cover the bay outside number 4;", "the cost is £40 a year."]
    assert pick_evidence("How much is the visitor permit?", clauses, [0.5, 0.6],
                         "street notes.txt") is None
    found = pick_evidence("How much is the resident permit?", clauses, [0.5, 0.6],
                          "street notes.txt")
    assert found is not None
    assert found.sentence == clauses[1]


def test_a_table_row_is_about_its_first_cell_which_the_question_may_name() -> None:
    """A row's later cells hold capitals that are values ("Full sun"), not whom it is about;
    its first cell is what it is about, named by the question in lower case."""
    rows = ["Mum keeps her plants on the landing.",
            "Plant: Fern, Water: Twice a week, Light: Shade.",
            "Plant: Cactus, Water: Once a month, Light: Full sun."]
    headings = ["Mum's plants"] * 3
    found = pick_evidence("How often does Mum water the cactus?", rows, [0.4, 0.5, 0.7],
                          "plants.md", headings[0], headings)
    assert found is not None
    assert found.told == rows[2]


def test_a_pronoun_does_not_lean_on_the_section_before() -> None:
    """A section's pronoun is about its own subject: "It is serviced every May" under
    "Garden" is not the loft boiler's."""
    sentences = ["The boiler is in the loft.", "It is serviced every May."]
    assert with_antecedent(sentences, 1) == " ".join(sentences)
    assert with_antecedent(sentences, 1, ["House › Heating", "House › Garden"]) == sentences[1]


def test_a_sentence_pointing_back_with_those_is_told_with_the_one_before() -> None:
    """"Those three days" are the dates of the sentence before: the next sentence says where
    the cars go while the drive is done."""
    sentences = ["The drive will be resurfaced from 3 to 5 June.",
                 "Cars go on Beech Road for those three days."]
    found = pick_evidence("Where can we park while the drive is resurfaced?", sentences,
                          [0.6, 0.5], "house notes.txt")
    assert found is not None
    assert "Beech Road" in found.told


def test_no_answer_when_the_document_names_the_thing_without_the_asked_kind() -> None:
    """The diary names the ferry and no price for it: the museum's tickets, naming none of
    the question's words, are no answer to what the ferry cost."""
    sentences = ["Ferry to Calais at 8.30am, back at 6pm.", "Museum tickets were €12 each."]
    assert pick_evidence("How much was the ferry to France?", sentences, [0.6, 0.62],
                         "trip diary.txt") is None
    found = pick_evidence("How much were the museum tickets?", sentences, [0.4, 0.7],
                          "trip diary.txt")
    assert found is not None
    assert found.sentence == sentences[1]


def test_a_messages_later_sentence_is_as_close_as_the_message() -> None:
    """"Saturday 3 July, from 1pm, at Ferncliffe Park" goes on with Priya's message about
    Mo's barbecue: alone it is far from the question, with its message it says where."""
    lines = ["Priya: Right, Mo's barbecue is on!", "Saturday 3 July, from 1pm, at Ferncliffe Park."]
    found = pick_evidence("Where is Mo's barbecue?", lines, [0.7, 0.3], "family chat.txt",
                          labels=["", "Priya"])
    assert found is not None
    assert found.sentence == lines[1]


def test_a_pronoun_after_an_opening_phrase_leans_on_the_sentence_before() -> None:
    """"In a cold snap it can split" is the water butt's of the sentence before, so the
    butt's question finds what to do in it."""
    sentences = ["The water butt sits by the shed.",
                 "In a cold snap it can split, so empty the tap end in November."]
    assert with_antecedent(sentences, 1) == " ".join(sentences)
    found = pick_evidence("What should I do with the water butt before a frost?", sentences,
                          [0.6, 0.45], "garden notes.txt")
    assert found is not None
    assert "in November" in found.told


def test_a_qualifier_in_a_documents_name_is_another_kind() -> None:
    """"Brightwell Home Insurance" is home insurance: its excess is no answer for the van's,
    which the document never names."""
    lines = ["Policyholder: Ms R. Osei.", "Buildings excess: £250."]
    heading = "Brightwell Home Insurance - policy schedule"
    assert pick_evidence("What is the van insurance excess?", lines, [0.4, 0.6],
                         "schedule.pdf", heading, [heading] * 2) is None
    found = pick_evidence("What is the home insurance excess?", lines, [0.4, 0.6],
                          "schedule.pdf", heading, [heading] * 2)
    assert found is not None
    assert "£250" in found.told


def test_a_header_line_under_a_from_address_is_no_answer() -> None:
    """An order email's "Date:" says when it was sent, under a "From:" address as under a
    name; the delivery day is in its text."""
    lines = ["From: orders@kettleshop.example", "Date: 2 May 2027.",
             "Your kettle should arrive on Friday 9 May."]
    found = pick_evidence("When is the kettle being delivered?", lines, [0.3, 0.7, 0.6],
                          "kettle order.txt")
    assert found is not None
    assert found.sentence == lines[2]


def test_a_feast_is_a_time_not_a_name() -> None:
    """"After Christmas" names no one: Mr Shah's sentence answers who takes Year 2 then."""
    lines = ["Mrs Lee leaves at Christmas.", "Year 2 will be taught by Mr Shah from January."]
    found = pick_evidence("Who will teach Year 2 after Christmas?", lines, [0.5, 0.7],
                          "newsletter.pdf")
    assert found is not None
    assert "Mr Shah" in found.told


def test_a_table_whose_columns_are_people_is_read_for_the_asked_one() -> None:
    """Each row tells the asked one's cell only; a row whose cell is empty answers nothing
    of them, and a thing only in another's cell is not theirs."""
    rows = ["Day: Tuesday, Ava: -, Ben: Judo, 6pm.",
            "Day: Thursday, Ava: Ballet, 4.30pm, Ben: Judo grading, 5pm.",
            "Ava needs her leotard; Ben's belt is in his bag."]
    found = pick_evidence("When is Ava's ballet?", rows, [0.6, 0.6, 0.3], "clubs.md")
    assert found is not None
    assert found.told.startswith("Day: Thursday, Ava: Ballet, 4.30pm.")
    assert "Judo" not in found.told
    assert pick_evidence("When is Ava's judo grading?", rows, [0.5, 0.7, 0.3],
                         "clubs.md") is None


def test_a_row_naming_the_asked_one_answers_beside_a_general_sentence_of_the_thing() -> None:
    """"Classes are at the Lido" names the class and no time; the row of Ava's times names
    her, and the class is no one else's: it answers."""
    rows = ["Classes are at the Lido.", "Day: Monday, Ava: Level 3, 5pm, Ben: -."]
    found = pick_evidence("When is Ava's swimming class?", rows, [0.5, 0.6], "swimming.md")
    assert found is not None
    assert "5pm" in found.told


def test_a_follow_ups_pronoun_names_its_thing_beside_a_line_naming_the_asked_word() -> None:
    """"What's his number?" after who the guitar teacher is: "Useful numbers" names numbers,
    the teacher's line says his."""
    lines = ["Useful numbers", "Tom Reed (guitar teacher) - 07700 900 333"]
    found = pick_evidence("What's his number?", lines, [0.4, 0.5], "contacts.txt",
                          kept="Who is the guitar teacher?")
    assert found is not None
    assert "07700 900 333" in found.told


def test_a_question_of_names_and_the_documents_words_has_no_floor_without_words() -> None:
    """"When is Zoe's party?" in "party invite": every word is a name or the document's, so
    no sentence can share one; the one saying when answers, however far by meaning."""
    lines = ["Zoe is turning 5!", "Join us on Sunday 4 July, 2pm to 4pm, at the Town Hall."]
    found = pick_evidence("When is Zoe's party?", lines, [0.7, 0.3], "party invite.md")
    assert found is not None
    assert "4 July" in found.told


def test_where_is_answered_first_by_a_sentence_saying_a_place() -> None:
    """Of sentences sharing as many words, "where" takes the one saying a place, however
    closer the other; "where is it from?" asks for a source, which no place pattern reads."""
    lines = ["Noor is turning 9!", "Join us on Sunday 4 July at Millfield Bowling Alley."]
    found = pick_evidence("Where is Noor's party?", lines, [0.75, 0.4], "party invite.md")
    assert found is not None
    assert found.sentence == lines[1]
    cake = ["The cake comes from Crumbs bakery.", "We collect it at the Old Hall at 11am."]
    found = pick_evidence("Where is the cake from?", cake, [0.7, 0.4], "party plan.md")
    assert found is not None
    assert found.sentence == cake[0]


def test_a_relatives_thing_is_not_answered_by_a_document_naming_no_such_relative() -> None:
    """"Noor's brother's party" in a note naming no brother is not Noor's own party; a note
    naming him answers."""
    own = ["Noor's party is on Sunday 4 July at the bowling alley."]
    assert pick_evidence("When is Noor's brother's party?", own, [0.8], "parties.txt") is None
    both = [*own, "Her brother Sami has his party on 9 May."]
    found = pick_evidence("When is Noor's brother's party?", both, [0.8, 0.6], "parties.txt")
    assert found is not None
    assert "9 May" in found.told
