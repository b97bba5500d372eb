"""What a question asks for: the kind table and whether a sentence holds that kind."""

from __future__ import annotations

import time

from nekoni_edge.agent import asked, trust
from nekoni_edge.agent.evidence import (
    pick_evidence,
)


def test_only_a_sentence_holding_what_is_asked_can_answer() -> None:
    van = "It takes diesel and the AdBlue tank is filled every 6,000 miles."
    assert not asked.can_answer("What is the van's mileage?", van)
    assert not asked.can_answer("What is the alarm code?", "The alarm panel is by the door.")
    assert asked.can_answer("What is the policy number?", "The policy number is CG-2093-77.")
    assert not asked.can_answer("Who is Pepper's vet?", "Pepper gets two walks a day.")
    assert asked.can_answer("Who is Pepper's vet?", "Her vet is Dr Nkemelu.")
    assert not asked.can_answer("How much did the boiler cost?", "It is serviced every November.")
    assert asked.can_answer("When is pickup?", "Pick-up is at 5:30 pm.")
    # "what time" wants a clock time, not a day
    assert not asked.can_answer("What time is pick-up?", "Leo goes on Tuesdays and Fridays.")
    assert asked.can_answer("What time is pick-up?", "Pick-up is at 5:30 pm.")
    # an identifier beside another word of the question
    assert asked.can_answer("What is the home insurance policy number?",
                            "The home insurance is with Castle Guard, policy CG-2093-77.")
    assert asked.can_answer("What is the babysitter's name?", "The babysitter is Chloe.")
    assert not asked.can_answer("How much did the boiler cost?", "The pressure is 1.3 bar.")
    assert asked.can_answer("How much did the charger cost?", "The quote came to 950 pounds.")


def test_a_possessive_questions_subject_must_be_in_the_document() -> None:
    leo = "Leo goes to nursery on Tuesdays. He is allergic to peanuts."
    assert asked.missing_subject("When is Leo's birthday?", leo)
    assert not asked.missing_subject("What is Leo's allergy?", leo + " allergy")
    assert not asked.missing_subject("What is the babysitter's name?", "Chloe babysits.")
    assert not asked.missing_subject("Where is the fuse box?", "")  # may be named otherwise
    # "What's … called?" asks the thing's name: "called" is no thing the note must hold.
    assert not asked.missing_subject("What's Omar's tortoise called?",
                                     "Our tortoise is Speedy and he lives in the shed.")


def test_a_question_names_what_kind_of_answer_it_wants() -> None:
    # a day is not a person, a school year is not an age, a habit is not a purchase date
    assert not asked.can_answer("Who is our window cleaner?",
                                "The window cleaner comes on a Tuesday, paid 25 pounds.")
    assert not asked.can_answer("How old is Maya?", "Maya is in Year 4 at Oakfield Primary.")
    assert asked.can_answer("How old is Maya?", "Maya is 9 years old.")
    assert not asked.can_answer("When did we buy the dishwasher?",
                                "The filter is cleaned every two weeks.")
    assert asked.can_answer("When did we buy the dishwasher?", "We bought it in 2021.")
    assert not asked.can_answer("How big is the fish tank?", "The water is changed weekly.")
    assert asked.can_answer("How big is the fish tank?", "The tank holds 60 litres.")


def test_someone_named_with_a_possessive_is_the_households() -> None:
    assert trust.about_household("What's Rosa's surname?") is True
    # a question word after a greeting is no one's
    assert trust.about_household("Evening! How's your day been?") is not True
    assert trust.about_household("Hello. What's the weather like?") is not True
    # the head of "key worker at nursery" is the worker, and the document has none
    assert asked.missing_subject("Who is Leo's key worker at nursery?",
                                 "Leo goes to Little Acorns nursery.")
    # any preposition ends the head: "per pupil", "during the holidays" say which, not what
    trip = "Mia's school trip to the farm costs £12 a head."
    assert not asked.missing_subject("How much is Mia's school trip per pupil?", trip)
    assert not asked.missing_subject("What does Mia's school trip cost during term?", trip)


def test_an_address_and_a_time_of_year_are_kinds_too() -> None:
    assert not asked.can_answer("What's the Okafors' address?", "On Thursdays the Okafors drive.")
    assert asked.can_answer("What's the Okafors' address?", "The Okafors live at 3 Mill Road.")
    assert asked.can_answer("What time of year is the heater used?", "From November to March.")


def test_a_measure_is_said_by_its_unit_and_the_subject_by_the_documents_opening() -> None:
    """"At what mileage is the Skoda's next service due?" was refused: the sentence with the
    number ("the next is due at 60,200") names neither the Skoda nor a mileage."""
    question = "At what mileage is the Skoda's next service due?"
    doc = ["The Skoda Octavia is serviced by Halden Motors every 12,000 miles.",
           "The last service was at 48,200 miles, so the next is due at 60,200."]
    assert asked.can_answer(question, doc[1], f"skoda service {doc[0]}")
    assert not asked.can_answer(question, "So the next is due at 60,200.")  # no unit, no name
    evidence = pick_evidence(question, doc, [0.5, 0.5], "skoda_service.txt")
    assert evidence is not None
    assert "60,200" in evidence.told


def test_last_months_is_not_this_months() -> None:
    sentence = "This month's book is The Salt Path."
    assert not asked.can_answer("What was last month's book at book club?", sentence)
    assert asked.can_answer("What is this month's book?", sentence)
    assert asked.can_answer("What is the current month's book?", sentence)


def test_how_long_wants_a_length_of_time() -> None:
    assert not asked.can_answer("How long do hamsters live?",
                                "She gets fresh vegetables on Saturdays.")
    assert asked.can_answer("How long does the lasagne bake?", "Bake it for 40 minutes.")
    assert asked.can_answer("How long is the drive?", "It takes about an hour.")
    assert asked.can_answer("How long until repeat medicine is ready?",
                            "They take three working days to be ready.")


def test_whats_someone_doing_is_not_a_possession() -> None:
    doc = "Maya's book club meets at Priya's house. This month's book is The Salt Path."
    assert not asked.missing_subject("What's Maya reading for book club?", doc)
    assert asked.missing_subject("What is Maya's favourite colour?", doc)


def test_a_secret_is_answered_by_where_it_is_kept() -> None:
    sentence = ("The Wi-Fi network is called Badger Sett and the password is on the card stuck "
                "to the fridge.")
    assert asked.can_answer("What's the internet password?", sentence)
    assert not asked.can_answer("What's the internet password?", "The guest network is "
                                "Badger Guest.")
    assert not asked.can_answer("What is the alarm code?", "The alarm panel is in the hall.")


def test_a_birthday_is_not_an_age_and_a_combination_is_a_code() -> None:
    assert not asked.can_answer("How old is Grandad?", "His birthday is on 2 August.")
    assert asked.can_answer("How old is Leo?", "Leo was born in March 2018.")
    assert asked.can_answer("How old is Leo?", "Leo is 7 years old.")
    assert asked.can_answer("What's the code for the bike shed?", "The combination for the bike "
                            "shed padlock is written inside the blue notebook in the drawer.")


def test_a_verb_after_does_is_not_the_subject_and_a_things_name_needs_the_thing() -> None:
    choir = "choir.txt Priya sings with the Fernbank choir on Thursday evenings at 7:30."
    assert not asked.missing_subject("What time does Priya's choir start?", choir)
    assert asked.missing_subject("What is the choir conductor's name?", choir)
    assert not asked.missing_subject("What is Priya's phone number?", choir)  # a name: shown
    assert not asked.missing_subject("What is the babysitter's name?", "Our babysitter is Chloe.")


def test_when_was_wants_a_past_time_and_what_evening_a_day() -> None:
    assert not asked.can_answer("When was the coffee machine bought?",
                                "The filter should be changed every two weeks.")
    assert asked.can_answer("When was the chimney swept?",
                            "The chimney was swept in October by Clean Sweep Ltd.")
    assert not asked.can_answer("What evening is choir?", "Rehearsals stop for August.")
    assert asked.can_answer("What evening is choir?", "Priya sings on Thursday evenings.")
    assert asked.can_answer("What days does he come?", "He comes on Tuesdays and Fridays.")
    assert asked.specific("What evening is choir?")


def test_a_phone_number_a_given_number_plural_days_and_the_walls_colour() -> None:
    gas = "In a gas emergency, call 0800 111 999 and open the windows."
    assert asked.can_answer("What number do I call in a gas emergency?", gas)
    assert not asked.can_answer("What number do I call in a gas emergency?",
                                "Open the windows and leave 12 30 minutes later.")
    assert asked.can_answer("Who lives at number 16?", "Our neighbours at number 16 are Tom.")
    assert not asked.can_answer("Who mows the lawn on Sundays?",
                                "The tomatoes are fed with tomato feed on Sundays.")
    assert trust.about_household("What colour are the living room walls?") is None
    assert trust.about_household("What colour is a flamingo?") is False


def test_an_interval_is_not_a_measure_and_a_date_of_birth_is_not_an_expiry() -> None:
    assert not asked.can_answer("What is the van's mileage?",
                                "The van's AdBlue tank is filled every 6,000 miles.")
    assert asked.can_answer("What is the Skoda's mileage?", "Its service is due at 60,200 miles.")
    assert not asked.can_answer("What is Priya's date of birth?",
                                "Priya's passport expires in 2029.")
    assert asked.can_answer("What's the date of the school trip?",
                            "Maya's school trip to the zoo is on 12 May.")


def test_a_date_is_a_kind_of_answer_a_note_may_lack() -> None:
    assert asked.specific("What is Priya's date of birth?")
    assert asked.specific("What is Mr Pike's first name?")  # a name no sentence gives: declined


def test_what_it_cost_then_and_who_gave_it() -> None:
    assert not asked.can_answer("How much did the canoe cost?",
                                "The canoe club membership costs 120 pounds a year.")
    assert asked.can_answer("How much did the boiler cost us?",
                            "The boiler cost 2,400 pounds in 2019.")
    assert not asked.can_answer("How much did the caravan cost?",
                                "Its site fee of 2,400 pounds is paid every March.")
    assert asked.can_answer("How much did the caravan cost?", "We paid 9,000 pounds for it.")
    # A record of the past says what was paid without "paid": a log line, "last time".
    assert asked.can_answer("How much did the new tyres cost?",
                            "2026-01-22  Two new tyres, £236 fitted, at Tyre Town.")
    assert asked.can_answer("How much did the service cost?",
                            "Serviced at Cog & Chain every spring (last time £65).")
    assert not asked.can_answer("Who gave us the sewing machine?",
                                "The sewing machine is a Singer kept in the spare room.")


def test_a_name_the_question_already_says_is_not_the_answer() -> None:
    hedge = "Mr Pike trims the front hedge twice a year, in May and September, for 60 pounds."
    assert not asked.can_answer("What is Mr Pike's first name?", hedge)
    assert asked.can_answer("Who is Leo's karate instructor?",
                            "His instructor is Sensei Kato and the grading fee is 25 pounds.")


def test_what_things_are_called_and_when_a_deed_was_done_want_that() -> None:
    hens = "Our four hens live in the coop at the bottom of the garden."
    assert not asked.can_answer("What are the hens called?", hens)
    assert asked.can_answer("What are the goldfish called?",
                            "Our goldfish, Bubbles and Squeak, are fed once a day.")
    pond = "The pond pump is cleaned every April, and a net goes over the pond in October."
    assert not asked.can_answer("When was the pond dug?", pond)
    assert asked.can_answer("When was the house built?", "The house was built in 1932.")
    assert asked.can_answer("When was the chimney swept?", "The chimney was swept in October.")


def test_a_kind_is_said_by_name_or_as_what_something_is() -> None:
    hens = "Our four hens live in the coop at the bottom of the garden."
    assert asked.specific("What breed are our hens?")
    assert not asked.can_answer("What breed are our hens?", hens)
    assert asked.can_answer("What breed is Pepper?", "Pepper the spaniel gets two walks a day.")
    assert asked.can_answer("What brand is the Wi-Fi extender?",
                            "The Wi-Fi extender on the landing is a TP-Link.")
    assert not asked.can_answer("What colour is it?", "The paint tins are on the garage shelf.")
    assert asked.can_answer("What colour is the car?", "The red Honda Jazz is Priya's car.")


def test_part_of_a_name_is_said_beside_the_name_and_an_address_is_personal() -> None:
    bike = "Ben's e-bike is insured with Pedal Cover for 1,200 pounds."
    assert not asked.can_answer("What's Ben's middle name?", bike)
    assert asked.can_answer("What's Ben's middle name?", "Ben Thomas Hale was born in 1990.")
    assert asked.can_answer("What is Rosa's surname?", "Our cleaner, Rosa Diaz, comes on Fridays.")
    assert not asked.can_answer("What is Mr Pike's first name?", "Mr Pike trims the hedge.")
    assert not asked.can_answer("What is Nurse Patel's first name?",
                                "Leo's asthma review is every March with Nurse Patel.")
    assert asked.specific("What's the Okafors' address?")


def test_how_hot_wants_degrees() -> None:
    loaf = "For a white loaf use programme 1, which takes 3 hours 40 minutes."
    assert not asked.can_answer("How hot should the oven be for the bread?", loaf)
    assert asked.can_answer("How hot should the oven be for the bread?",
                            "Bake at 230 degrees for 40 minutes.")
    assert asked.can_answer("How warm is the house kept?",
                            "The thermostat in the hall is set to 20 degrees.")
    assert asked.specific("How warm is the house kept?")


def test_a_size_is_of_the_thing_and_last_months_is_told_in_the_past() -> None:
    starter = "The starter lives in the fridge and is fed with 50 g flour every Sunday."
    assert not asked.can_answer("How big is the fridge?", starter)
    assert asked.can_answer("How big is the hot tub?", "The hot tub holds 1,000 litres.")
    club = "Maya's book club meets on the last Thursday of the month at Priya's house."
    assert not asked.can_answer("What was last month's book at book club?", club)
    assert asked.can_answer("What was last month's book at book club?",
                            "In November they read Holes.")


def test_what_thing_is_asked_for_is_named_where_it_is_told() -> None:
    karate = "Leo's karate class is on Mondays at 5:30 pm at the Parkway dojo."
    assert asked.specific("What belt is Leo?")
    assert not asked.can_answer("What belt is Leo?", karate)
    assert asked.can_answer("Which rack is the canoe on?", "Our canoe is kept on rack 14.")
    assert asked.can_answer("What date is the garden party?",
                            "The summer garden party is on 19 July from 2 pm.")


def test_a_number_asked_by_its_thing_is_said_after_it() -> None:
    assert asked.can_answer("What is our allotment plot number?",
                            "We rent plot 23 at the Mill Road allotments.")
    assert not asked.can_answer("What is our allotment plot number?",
                                "We rent an allotment at Mill Road.")


def test_which_day_asks_for_a_day_even_of_a_payment() -> None:
    question = "On which day of the month is the council tax paid?"
    assert asked.can_answer(question, "It is paid on the 15th of each month.")
    assert not asked.can_answer(question, "The council tax is £142 a month.")


def test_a_close_sentence_may_name_an_identifiers_thing_in_other_words() -> None:
    question = "What's the visitors' Wi-Fi password?"
    sentence = "Visitors use the network HarbourNet, whose password is sea-gull-19."
    assert asked.can_answer(question, sentence, close=True)
    assert not asked.can_answer(question, sentence)  # far by meaning: every word, or nothing
    # Unless the note names the thing with a qualifier of its own: the home insurance's claims
    # line is no national insurance number, however close.
    assert not asked.can_answer("What's my national insurance number?",
                                "The claims line is 0800 468 221.",
                                "insurance The home insurance is with Castle Guard.", close=True)


def test_a_meal_or_bedtime_says_when() -> None:
    assert asked.can_answer("When does Omar take his tablet?", "Omar takes it before breakfast.")
    assert asked.can_answer("When is the bath run?", "The bath is run after dinner.")


def test_who_is_answered_by_the_name_a_pronoun_stands_for() -> None:
    question = "Who fixed the gate?"
    sentence = "He came on Friday and fixed the gate."
    assert not asked.can_answer(question, sentence)
    assert asked.can_answer(question, sentence, about=f"Thanks for sending Tomasz. {sentence}")


def test_who_is_answered_by_the_speaker_who_says_i() -> None:
    question = "Who is taking the recycling to the tip?"
    assert asked.can_answer(question, "Dad: I'll take it on my way to work.")
    assert asked.can_answer(question, "Sam (flat 5): I can take it on Saturday.")
    assert not asked.can_answer(question, "Note: take it before noon.")  # a field's label


def test_a_day_asked_for_is_not_answered_by_other_days() -> None:
    question = "Who walks the dog on Sundays?"
    assert not asked.can_answer(question, "Day: Monday, Walker: Omar.")
    assert asked.can_answer(question, "Day: Sunday, Walker: Lena.")
    assert asked.can_answer(question, "The dog is walked every day by Lena.")


def test_a_phone_number_asked_for_is_a_number_to_ring() -> None:
    question = "What is the electrician's phone number?"
    visit = "The electrician parks his van in bay B7."
    assert not asked.can_answer(question, visit, close=True)
    assert asked.can_answer(question, "The electrician's phone number is 07700 900 261.")


def test_a_word_opening_a_sentence_inside_the_question_is_no_name() -> None:
    assert asked.names("Morning! How's it going?") == set()
    assert asked.names("When does Ella swim? And Sami?") == {"ella", "sami"}


def test_an_ordinal_is_no_code() -> None:
    assert not asked.can_answer("What is the locker number?",
                                "The lockers are emptied on the 12th.", close=True)
    assert asked.can_answer("What is the locker number?", "Our locker is B12.", close=True)


def test_a_state_after_is_is_no_part_of_the_thing_asked_about() -> None:
    note = "vet: Biscuit's annual vaccination is due in May; her worming tablets are monthly."
    assert asked.missing_subject("When is Biscuit's dental check due?", note)
    assert not asked.missing_subject("When is Biscuit's vaccination due?", note)
    assert asked.missing_subject("Is Biscuit's microchip registered?", note)


def test_a_day_of_the_month_says_when() -> None:
    assert asked.can_answer("When is the boiler service due?",
                            "Dad: the boiler service is due on the 14th, I've booked it.")


def test_a_thing_named_whole_and_said_in_words_answers_for_its_code() -> None:
    assert asked.can_answer("What is the party's dress code?",
                            "The dress code is fancy dress: pirates or mermaids.")
    assert not asked.can_answer("What is the party's dress code?",
                                "The dress code is changing this year.")


def test_who_does_it_is_answered_by_the_name_before_the_verb() -> None:
    assert asked.can_answer("Who waters the plants?", "Noor waters the plants on Sundays.")
    assert not asked.can_answer("Who waters the plants?", "Water the plants on Sundays.")
    assert not asked.can_answer("Who is Rolo's vet?", "Rolo is our brown rabbit.")  # no verb


def test_a_numbered_thing_the_document_numbers_otherwise_is_another_one() -> None:
    letter = "Class 3 go swimming on Fridays; Class 5 on Tuesdays."
    assert asked.numbered_otherwise("When does Class 4 go swimming?", letter)
    assert not asked.numbered_otherwise("When does Class 3 go swimming?", letter)
    assert not asked.numbered_otherwise("When does Class 4 go swimming?", "Swimming: Fridays.")
    # joined by a dash, and written either way
    squads = "Training for the under-10s is on Tuesdays; the Under 12s train on Thursdays."
    assert asked.numbered_otherwise("When do the under-14s train?", squads)
    assert not asked.numbered_otherwise("When do the under-12s train?", squads)
    assert not asked.numbered_otherwise("When do the Under 10s train?", squads)
    # a code: letters and digits joined
    codes = "F1 - filter blocked. F3 - door open. F8 - no water."
    assert asked.numbered_otherwise("What does F5 mean on the washer?", codes)
    assert not asked.numbered_otherwise("What does F3 mean on the washer?", codes)
    assert not asked.numbered_otherwise("Is the class at 10am?", "The class is at 9am.")


def test_a_number_the_question_states_says_which_sentence() -> None:
    sentences = ["The tank is heated to 50 degrees every morning at 5am.",
                 "On Sundays at 2am the tank is heated to 65 degrees."]
    question = "When is the tank heated to 65 degrees?"
    evidence = pick_evidence(question, sentences, [0.70, 0.55], "water.txt")
    assert evidence is not None
    assert "Sundays" in evidence.sentence
    # a number no sentence states says nothing of which
    other = pick_evidence("When is the tank heated to 55 degrees?", sentences, [0.70, 0.55],
                          "water.txt")
    assert other is not None
    assert "5am" in other.sentence


def test_a_proper_name_the_document_never_writes_is_another_things() -> None:
    disco = "The Christmas disco is on Friday 12 December from 6pm in the hall."
    assert asked.unnamed("When is the school's Halloween disco?", disco)
    assert asked.lacks("When is the school's Halloween disco?", disco)
    assert not asked.unnamed("When is the school's Christmas disco?", disco)
    # a day: the week's other days are no answer; a plural and a shortened one are the day
    menu = "Mon: fish pie. Tues: soup and rolls. Thurs: pasta bake."
    assert asked.unnamed("What's for tea on Wednesday?", menu)
    assert not asked.unnamed("What's for tea on Tuesdays?", menu)
    # a name written many ways does not count, nor does a title or the opening word
    assert not asked.unnamed("Is it OK to leave the WiFi router on?", "The router stays on.")
    assert not asked.unnamed("What's the guest Wi-Fi password?", "The guest network is X1.")
    assert not asked.unnamed("When does Mrs Okoro come?", "Okoro comes on Fridays.")
    assert not asked.unnamed("Where is the spare key?", "The spare key is in the shed.")


def test_a_name_after_a_title_or_an_initial_is_a_name() -> None:
    assert asked.names("Did Mrs. Adeyemi ring about Kofi?") == {"adeyemi", "kofi"}
    assert asked.names("Ask J. Whitfield. He knows.") == {"whitfield"}


def test_shortened_days_and_months_are_days_and_months_not_names() -> None:
    assert asked.spelled_out("Bins out Sun night, back in on Mon. The dog sat.") == \
        "Bins out sunday night, back in on monday. The dog sat."
    assert asked.names("Swapped the filter on Sat, next due in Feb.") == set()
    # a short month is no doer's name, and a short day still says when
    assert not asked.can_answer("Who repaired the gate?", "Repaired the gate in Aug.")
    assert asked.can_answer("When is the eye test?", "Eye test: Weds? no, Fri 3 Mar, 10am")
    assert asked.can_answer("What day does the cleaner come?", "Usually comes on a Thurs.")


def test_a_firm_named_by_its_letters_is_a_name() -> None:
    assert asked.can_answer("Who is our home insurance with?",
                            "The home insurance is with the AA; it renews in May.")
    assert not asked.can_answer("Who is our home insurance with?",
                                "The home insurance renews in May; the PDF is in the drawer.")


def test_what_is_not_allowed_is_told_by_a_sentence_that_rules_something_out() -> None:
    question = "What can't the rabbit eat?"
    assert not asked.can_answer(question, "Rolo is fed hay every morning at 8.")
    assert asked.can_answer(question, "Never give him chocolate, onions or iceberg lettuce.")
    assert asked.can_answer("Which plastics mustn't go in the blue box?",
                            "Pots and tubs only, no film or crisp packets.")
    # a fault is no rule: "won't" asks what to do
    assert asked.answer_kind("The dishwasher won't drain, what should I do?") == ""


def test_how_many_is_answered_by_a_number_that_counts() -> None:
    question = "How many children are in Priya's class?"
    assert asked.can_answer(question, "There are 28 children in the class.")
    assert asked.can_answer(question, "Her class has twenty-six pupils and two teachers.")
    # a clock time, a date, a price or a numbered label counts nothing
    assert not asked.can_answer(question, "Class 4B starts at 8:50 and ends at 15:20.")
    assert not asked.can_answer(question, "The class trip on 14 March costs £12.")
    assert not asked.can_answer(question, "Priya is in Year 3, taught by the under-9s coach.")


def test_a_count_after_a_word_capitalised_only_by_opening_the_sentence_counts() -> None:
    """"Makes 24." is how many a recipe makes: its first word, which the question writes in
    lower case, names no numbered thing as "Year 3" does."""
    assert asked.can_answer("How many biscuits does the recipe make?", "Makes 24.")
    assert not asked.can_answer("How many biscuits does the recipe make?", "Tray 2.")


def test_who_where_and_when_say_the_kind_whatever_follows() -> None:
    """"pay" and "charge" are money words, but "who do I pay?" asks for a name, "where is the
    charger?" for a place and "when do we pay?" for a time."""
    assert asked.answer_kind("Who do we pay the window cleaner's money to?") == "name"
    assert asked.answer_kind("Where do I pay the parking charge?") == ""
    assert asked.answer_kind("When do we pay the music teacher?") == "when"
    assert asked.answer_kind("When did we pay the deposit?") == "past date"
    assert asked.answer_kind("How much do we pay the music teacher?") == "money"
    assert asked.can_answer("Where do I pay the parking charge?",
                      "Use the machine by the lift on level 2.")
    assert asked.can_answer("Who do we pay the window cleaner's money to?",
                      "Leave it with Mrs Bell at number 9.")


def test_a_number_to_ring_need_not_say_phone() -> None:
    question = "What is the surgery's phone number?"
    assert asked.can_answer(question, "To book, call the surgery on 01632 960 555.", "GP surgery")
    assert not asked.can_answer(question, "The surgery is open from 8am.", "GP surgery")
    # the rest of the question is still held: the school's number is not the surgery's
    assert not asked.can_answer(question, "Call the school office on 01632 960 000.", "School")


def test_how_much_is_asks_a_price_and_how_much_of_a_thing_an_amount() -> None:
    assert asked.answer_kind("How much are the swimming lessons for the term?") == "money"
    assert asked.answer_kind("How much was the school trip?") == "money"
    assert asked.answer_kind("How much flour goes in the bread?") == "amount"
    assert not asked.can_answer("How much are the swimming lessons for the term?",
                                "Lessons are on Fridays at 5.15pm, for 40 minutes.")
    assert asked.can_answer("How much are the swimming lessons for the term?",
                            "The term's ten lessons come to £85.")


def test_pence_after_their_number_are_money() -> None:
    question = "What's the water standing charge?"
    assert asked.can_answer(question, "Standing charge   18.40p per day.")
    assert not asked.can_answer(question, "Used this quarter   42 cubic metres.")


def test_a_clock_time_written_with_a_dot_says_when() -> None:
    assert asked.can_answer("When does the ferry leave?", "The ferry goes at 17.45 from pier 3.")



def test_who_is_answered_by_the_name_opening_the_sentence() -> None:
    # The doer of "who is …" as of "who compares …": the name the sentence opens with.
    assert asked.can_answer("Who is scared of thunder?", "Juno is scared of thunder and hides.")
    assert asked.can_answer("Who has the spare car key?", "Marek has the spare car key.")
    # A pronoun or "there" opening it names no one.
    assert not asked.can_answer("Who is scared of thunder?", "She is scared of thunder.")
    assert not asked.can_answer("Who is scared of thunder?", "There is thunder forecast.")


def test_a_weight_is_answered_by_a_weight_not_by_any_amount() -> None:
    question = "How much does the cat weigh?"
    assert asked.answer_kind(question) == "weight"
    assert asked.can_answer(question, "At her last check she was 4.2 kg.")
    assert not asked.can_answer(question, "She is a two-year-old tabby with a big appetite.")
    assert not asked.can_answer(question, "She has one pouch of wet food a day.")


def test_a_number_another_word_names_is_no_phone_number() -> None:
    question = "What is the AA's phone number?"
    assert not asked.can_answer(question, "Our cover is with the AA, membership number "
                                "4410 2297.", "car.md")
    assert asked.can_answer(question, "Our cover is with the AA; their phone number is "
                            "0800 887 766.", "car.md")
    assert asked.can_answer(question, "Our cover is with the AA, membership number 4410 "
                            "2297; ring them on 0800 887 766.", "car.md")


def test_a_name_holding_a_months_letters_says_no_month() -> None:
    question = "When is Mayla's eye test?"
    assert not asked.can_answer(question, "As Mayla is under 16 the test is free.", "optician")
    assert asked.can_answer(question, "Mayla's eye test is on 3 May at 9am.", "optician")
    assert asked.can_answer("When is swimming?", "Swimming is on Mondays.", "clubs")


def test_a_length_of_time_in_words_is_one() -> None:
    question = "How long does the MOT take?"
    assert asked.can_answer(question, "The test should take about forty minutes.", "garage")
    assert asked.can_answer(question, "It takes twenty-five minutes.", "garage")
    assert not asked.can_answer(question, "The garage is on Mill Road.", "garage")


def test_a_document_about_the_thing_asked_names_one_in_a_sentence() -> None:
    question = "Which optician is Sam seeing?"
    sentence = "This confirms Sam's appointment with Ms Okafor on 3 June."
    assert asked.can_answer(question, sentence, "optician letter")
    assert not asked.can_answer(question, sentence, "school letter")


def test_free_is_what_a_thing_costs() -> None:
    question = "How much does the eye test cost?"
    assert asked.can_answer(question, "As Sam is under 16 the eye test is free.", "optician")
    assert not asked.can_answer(question, "The eye test takes twenty minutes.", "optician")


def test_a_time_something_lasts_until_is_no_time_it_starts() -> None:
    assert not asked.can_answer("What time does the library open on Saturdays?",
                                "The library is open until 5pm on Saturdays.", "library")
    assert asked.can_answer("What time does the library open on Saturdays?",
                            "On Saturdays the library is open from 9am until 5pm.", "library")
    assert asked.can_answer("What time does the library close on Saturdays?",
                            "The library is open until 5pm on Saturdays.", "library")


def test_a_group_of_a_phone_or_membership_number_is_no_year() -> None:
    line = "Window cleaner: Sparkle, 0161 496 0001, customer 4420 9913."
    assert not asked.can_answer("When does the window cleaner come?", line)
    assert asked.can_answer("When did the window cleaner start?", "Sparkle started in 2024.")
    assert asked.can_answer("When was the boiler fitted?", "Fitted on 2019-05-02.")


def test_the_event_asked_the_time_or_place_of_must_be_in_the_document() -> None:
    handbook = "Summer term: 19 April to 21 July. The PTA runs a uniform rail on Fridays."
    assert asked.missing_subject("When is the PTA summer fair?", handbook)
    assert not asked.missing_subject("When is the uniform rail?", handbook)
    assert asked.missing_subject("What time is the nativity on Friday?", handbook)
    # A thing's place may be a thing named otherwise ("the consumer unit").
    assert not asked.missing_subject("Where is the fuse box?", "The consumer unit is upstairs.")
    # Not one said to do or undergo something: the plumber may be Dave, named otherwise.
    assert not asked.missing_subject("When is the plumber coming?", "Dave will come at 9.")
    # Nor what is done to a thing, which is named otherwise too often.
    assert not asked.missing_subject("When is the rubbish collected?", "Bins go out Monday.")
    assert not asked.missing_subject("When is the hedge kept trimmed?", "Gardener: May.")


def test_a_team_numbered_with_a_plural_is_a_numbered_thing() -> None:
    chat = "Coach: U9s - no training this Saturday, back to 9.30 next week."
    assert asked.numbered_otherwise("When do the U13s train?", chat)
    assert not asked.numbered_otherwise("When do the U9s train?", chat)


def test_whom_to_ring_may_be_a_number() -> None:
    assert asked.can_answer("Who do I call for help out of hours?",
                            "When the office is shut, ring 0300 123 7000.")
    assert not asked.can_answer("Who do I call for help out of hours?",
                                "The office is shut on Sundays.")


def test_a_value_another_identifier_names_is_no_pin() -> None:
    assert not asked.can_answer("What is the gym locker PIN?", "Gym locker reference: GL-5512.")
    assert asked.can_answer("What is the gym locker PIN?", "Gym locker: GL-5512.")


def test_a_time_said_for_the_opposite_event_does_not_answer() -> None:
    # When something closes or ends is no answer to when it opens or starts, and back.
    late = "The corner café is two minutes away and closes at 5pm."
    assert not asked.can_answer("What time does the café open?", late)
    assert asked.can_answer("What time does the café close?", late)
    early = "The library opens at 9.30am on weekdays."
    assert not asked.can_answer("What time does the library shut?", early)
    assert asked.can_answer("What time does the library open?", early)
    # A journey's end is no answer to when it sets out, and back.
    coach = "The coach gets into Leeds at 16.40 on Sunday."
    assert not asked.can_answer("What time does the coach leave?", coach)
    assert asked.can_answer("What time does the coach arrive?", coach)
    assert not asked.can_answer("What time does the ferry land?", "The ferry departs at 7.15.")


def test_how_long_is_answered_by_a_length_as_by_a_time() -> None:
    assert asked.can_answer("How long can the pieces of the tree be?",
                            "Cut it into pieces no longer than 1 metre.")
    assert asked.can_answer("How long does the tuning take?", "It takes about two hours.")
    assert not asked.can_answer("How long does the tuning take?", "It is on Thursday 11 March.")


def test_a_temperature_without_its_unit_answers_where_temperature_is_named() -> None:
    question = "What temperature is the fridge kept at?"
    assert asked.can_answer(question, "Turn the fridge temperature dial; ours is on 4.")
    assert asked.can_answer(question, "3 in summer, 5 in winter.",
                            "fridge › What temperature should the fridge be?")
    assert not asked.can_answer(question, "Turn the fridge temperature dial for 10 minutes.")
    assert not asked.can_answer(question, "The fridge is 4 years old.")


def test_dusk_and_dawn_say_when() -> None:
    assert asked.can_answer("When do the hens go in?", "The hens go in at dusk.")


def test_a_proper_name_in_the_plural_is_written_in_the_document() -> None:
    assert not asked.unnamed("What time is Guppies?", "Guppies for Maisie, 5pm at the pool.")
    assert asked.unnamed("What time is Beavers?", "Guppies for Maisie, 5pm at the pool.")


def test_a_possessed_activity_after_a_verb_of_the_questions_own_is_its_subject() -> None:
    assert asked.subject("What time does Ada's riding start?") == ("Ada", ["riding"])
    assert asked.subject("What's Ada reading this week?") is None


def test_a_doer_named_before_words_in_lower_case_answers_who() -> None:
    assert asked.can_answer("Who feeds the fish?",
                            "Priya next door at number 4 feeds the fish on Sundays.")
    assert not asked.can_answer("Who feeds the fish?", "The fish are fed on Sundays.")


def test_a_long_determined_thing_is_read_in_linear_time() -> None:
    """Each word of the thing a question ends by naming is matched whole: a word that could
    end anywhere inside it made the match split "allotment committee" every way before
    failing (12 s for one question, the event loop blocked; one more word, 43 s). A 10 s CPU
    deadline holds on a busy machine; the match takes well under a millisecond here."""
    question = "When does the old village hall committee inspect the sheds?"
    started = time.process_time()
    asked.named_otherwise(question, "The committee inspects plots in May.", "Plots.")
    assert time.process_time() - started < 10


def test_one_standing_for_a_thing_says_no_frequency() -> None:
    question = "How often does the lemon tree need feeding?"
    assert not asked.can_answer(question, "The lemon tree is the hungry one.")
    assert asked.can_answer(question, "It gets one spoon of feed a fortnight.")
    assert asked.can_answer(question, "Feed it at 5,000 and 10,000 hours.")


def test_the_questions_own_numbered_thing_is_no_value_of_the_asked_kind() -> None:
    """"Year 2 nativity play" says no when by its "year"; "Room 4" counts nothing asked."""
    question = "When is the Year 2 nativity?"
    assert not asked.can_answer(question, "Year 2 nativity play in the school hall")
    assert asked.can_answer(question, "Year 2 will perform their nativity on 12 December.")
    assert not asked.can_answer("How many chairs are in Room 4?", "Room 4 is the art room.")
    assert asked.can_answer("How many chairs are in Room 4?", "Room 4 has 30 chairs.")


def test_a_name_as_the_subject_before_the_thing_answers_what_it_is_called() -> None:
    """"Clover the rabbit has her hutch by the shed": Clover is the rabbit's name; an
    instruction's verb before the thing ("Brush the rabbit", "Feed the rabbit pellets") is no
    name."""
    question = "What's the rabbit called?"
    assert asked.can_answer(question, "Clover the rabbit has her hutch by the shed.")
    assert not asked.can_answer(question, "Brush the rabbit every week.")
    assert not asked.can_answer(question, "Feed the rabbit pellets.")


def test_an_email_address_is_what_an_email_question_asks_for() -> None:
    question = "What's the coach's email address?"
    assert asked.can_answer(question, "Any questions, write to the coach, Sam Tate, at "
                            "s.tate@riverside-fc.org.")
    assert not asked.can_answer(question, "The coach lives at 4 Mill Road.")


def test_a_number_counting_another_thing_is_no_count_of_the_asked_one() -> None:
    """"8 tortilla wraps" counts wraps, not the peppers asked about; a bare number, a rate
    ("20 a term") and an hour count for days may count it; so does a sentence naming it."""
    question = "How many peppers go in the fajitas?"
    assert not asked.can_answer(question, "8 tortilla wraps.")
    assert not asked.can_answer(question, "400 g chicken strips.")
    assert asked.can_answer(question, "Cut two red peppers into strips.")
    assert asked.can_answer("How many tickets do we get?", "We get 20 a term.")
    assert asked.can_answer("How many days must the dog rest?", "Rest him for 72 hours.")
    assert asked.can_answer("How many guests are coming?", "The whole street, so 40, and Nan.")


def test_a_doer_may_stand_before_a_bracketed_role() -> None:
    """A contacts list says who does what in brackets after the name."""
    assert asked.can_answer("Who cleans the windows?",
                            "Marek (window cleaner, cleans the windows monthly) - 07700 900 101")
    assert asked.can_answer("Who has a key to the shed?",
                            "Ines over the road (has a key to the shed) - 07700 900 202")


def test_a_date_in_figures_answers_when() -> None:
    """A log's "04/06/27 - ..." and a form's "04.06.2027" are dates; a section number or a
    clock time is not."""
    assert asked.can_answer("When did we lay the patio?", "04/06/27 - Laid the patio by the shed.")
    assert asked.can_answer("When did we lay the patio?", "Patio laid: 04.06.2027.")
    assert not asked.can_answer("When did we lay the patio?", "See 2.1.3 for the patio slabs.")
