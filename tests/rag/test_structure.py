"""Documents as households write them: headings, lists, tables, hand-wrapped lines."""

from __future__ import annotations

import time

from nekoni_edge.rag.structure import Section, sections, split_sentences


def test_markdown_headings_make_a_path_and_markup_is_dropped() -> None:
    text = ("# Cottage notes\n\nIntro line.\n\n## Heating\n\nThe **log burner** needs [dry "
            "logs](https://example.org) only.\n\n### Chimney\nSwept every `May`.\n\n## Keys\n"
            "The shed key is on the hook.\n")
    assert sections(text, markdown=True) == [
        Section("Cottage notes", "Intro line."),
        Section("Cottage notes › Heating", "The log burner needs dry logs only."),
        Section("Cottage notes › Heating › Chimney", "Swept every May."),
        Section("Cottage notes › Keys", "The shed key is on the hook."),
    ]


def test_list_items_and_table_rows_are_passages_of_their_own() -> None:
    text = ("## Packing\n- sun cream\n- two towels\n1. Lock the door\n\n"
            "| Child | Club | Night |\n|---|:---:|---|\n| Rosa | Chess | Monday |\n"
            "| Tom | Judo | Friday |\n")
    [packing] = sections(text, markdown=True)
    assert packing.text.split("\n") == [
        "sun cream.", "two towels.", "Lock the door.",
        "Child: Rosa, Club: Chess, Night: Monday.", "Child: Tom, Club: Judo, Night: Friday."]


def test_hard_wrapped_lines_join_and_hyphenated_words_rejoin() -> None:
    text = ("The spare key for the\nbike lock hangs by the\nback door. Put the filter in compart-\n"
            "ment two.\n\nA new paragraph\nstarts here.\n")
    [section] = sections(text)
    assert section.text.split("\n") == [
        "The spare key for the bike lock hangs by the back door. Put the filter in "
        "compartment two.", "A new paragraph starts here."]


def test_a_hyphen_before_a_capital_or_a_number_is_kept() -> None:
    [section] = sections("Call the after-\nSchool club or ring 0800-\n123 today.")
    assert section.text == "Call the after-School club or ring 0800-123 today."


def test_short_unpunctuated_lines_between_sentences_are_headings() -> None:
    page = ("Kettle Guide\nRead this first.\nDescaling\nUse citric acid once a month.\n"
            "Warranty\nTwo years from purchase.\n")
    assert sections(page) == [
        Section("Kettle Guide", "Read this first."),
        Section("Kettle Guide › Descaling", "Use citric acid once a month."),
        Section("Kettle Guide › Warranty", "Two years from purchase."),
    ]
    # A later page of a PDF does not open the document: its first heading is not a title.
    assert sections("Cleaning\nWipe it dry.\nStorage\nKeep it upright.\n", opening=False) == [
        Section("Cleaning", "Wipe it dry."), Section("Storage", "Keep it upright.")]


def test_a_wrapped_line_is_not_a_heading() -> None:
    # "bike lock" is short and unpunctuated but continues a sentence (the line before it
    # does not end one), and "milk" precedes a line in lower case.
    [section] = sections("We keep the spare key\nbike lock\nin the drawer. Buy\nmilk\nand eggs.")
    assert section.heading == ""
    assert section.text == "We keep the spare key bike lock in the drawer. Buy milk and eggs."


def test_markdown_numbered_items_stay_items() -> None:
    [section] = sections("## Method\n1. Boil\n2. Stir well\n", markdown=True)
    assert section.text == "Boil.\nStir well."


def test_a_long_paragraph_is_joined_in_linear_time() -> None:
    # Joined as the lines came, a paragraph of n lines was copied n times (quadratic).
    def cost(lines: int) -> float:
        text = "word " * 8 + "\n"
        started = time.perf_counter()
        sections(text * lines)
        return time.perf_counter() - started

    cost(1000)  # warm up
    small, large = min(cost(20_000) for _ in range(3)), min(cost(80_000) for _ in range(3))
    assert large < small * 8  # linear: about 4x; quadratic would be about 16x


def test_a_wrapped_item_and_an_indented_continuation_stay_one_item() -> None:
    text = ("## Rules\n- The bins are shared with the flat\n  upstairs and go out on the first\n"
            "  Monday of the month.\n- Keep the gate shut.\nDogs are welcome.\n")
    [rules] = sections(text, markdown=True)
    assert rules.text.split("\n") == [
        "The bins are shared with the flat upstairs and go out on the first Monday of the "
        "month.", "Keep the gate shut.", "Dogs are welcome."]


def test_a_number_wrapped_to_a_lines_start_is_not_a_list_item() -> None:
    [page] = sections("The Old Bell takes bookings on 01632 960\n412. The bus stops outside.\n",
                      opening=False)
    assert page.text == "The Old Bell takes bookings on 01632 960 412. The bus stops outside."
    # After a finished sentence a numbered line is an item.
    [steps] = sections("Do this:\n1. Turn the tap off.\n2. Open the valve.\n", opening=False)
    assert steps.text.split("\n") == ["Do this:", "Turn the tap off.", "Open the valve."]


def test_an_emails_quoted_reply_is_read_without_its_marks() -> None:
    [mail] = sections("Thanks, see you then.\n\n> Our out of hours line is 0800 052\n> 7713.\n"
                      ">\n>> Is anyone there?\n")
    assert mail.text.split("\n") == [
        "Thanks, see you then.", "Our out of hours line is 0800 052 7713.", "Is anyone there?"]


def test_each_stamped_line_of_a_chat_export_is_a_message_of_its_own() -> None:
    text = ("[02/05/2026, 18:04] Ana: swimming moves to Thursdays\n"
            "[02/05/2026, 18:06] Ben: ok who takes her\n12/05/2026 09:00 meter read 4411\n")
    [chat] = sections(text)
    assert chat.text.split("\n") == [
        "Ana: swimming moves to Thursdays.", "Ben: ok who takes her.",
        "12/05/2026 09:00 meter read 4411."]


def test_a_forms_field_lines_are_passages_of_their_own() -> None:
    text = ("GREENWAY DENTAL\nPatient: Noor Haddad (9 years)   Dentist: Dr Bell\n"
            "Treatment: two fillings, lower left, and a fluoride\nvarnish\n"
            "Noor was very brave and can eat after an hour. Brush twice a day.\n")
    [form] = sections(text)
    assert form.text.split("\n") == [
        "Patient: Noor Haddad (9 years)   Dentist: Dr Bell.",
        "Treatment: two fillings, lower left, and a fluoride varnish.",
        "Noor was very brave and can eat after an hour. Brush twice a day."]


def test_no_before_a_number_ends_no_sentence() -> None:
    assert split_sentences("Priya (no. 11): That's Smudge from no. 15, don't feed him.") == [
        "Priya (no. 11): That's Smudge from no. 15, don't feed him."]


def test_an_initial_or_a_title_does_not_end_a_sentence() -> None:
    assert split_sentences("Ring Prof. K. L. Mensah first. Then Dr. R. Obi.") == [
        "Ring Prof. K. L. Mensah first.", "Then Dr. R. Obi."]


def test_a_persons_line_heads_their_details() -> None:
    # A contacts list: each person's line, then their details; the dash between job and
    # name is no word.
    text = ("Useful numbers (May)\n\nPlumber - T. W. Greaves\nMobile: 07700 900 123\n"
            "Fixed the bath tap in March.\n\nVet - Dr. A. Moreau, Hill Lane\n"
            "Open until 7pm on weekdays.\n")
    assert sections(text) == [
        Section("", "Useful numbers (May)"),
        Section("Plumber - T. W. Greaves",
                "Mobile: 07700 900 123.\nFixed the bath tap in March."),
        Section("Vet - Dr. A. Moreau, Hill Lane", "Open until 7pm on weekdays."),
    ]


def test_a_word_in_lower_case_after_a_full_stop_goes_on_with_the_sentence() -> None:
    # A chat message written fast: "a 6ft fir" cut from "it is real!" loses what it is.
    assert split_sentences("Mum: it is real! a 6ft fir from Lane Farm.") == [
        "Mum: it is real! a 6ft fir from Lane Farm."]
    assert split_sentences("It is real! A 6ft fir. Delivered Friday.") == [
        "It is real!", "A 6ft fir.", "Delivered Friday."]
    assert split_sentences("Water in the evenings; the tap is by the gate.") == [
        "Water in the evenings;", "the tap is by the gate."]


def test_a_labelled_line_of_running_text_goes_on_over_its_wrap() -> None:
    text = ("Kids: Noor (9) and Sami (6). Noor has swimming on\n"
            "Mondays and Sami has judo on Thursdays.\n")
    assert sections(text, markdown=True)[0].text == (
        "Kids: Noor (9) and Sami (6). Noor has swimming on Mondays and Sami has judo on "
        "Thursdays.")
    # Fields of a form stay one a line.
    form = "Patient: Pepper (cat)\nVet: Dr Shah\n"
    assert sections(form)[0].text == "Patient: Pepper (cat)\nVet: Dr Shah."


def test_a_letterhead_over_an_address_is_a_heading() -> None:
    text = ("BRIGHTSMILE DENTAL\n12 Harbour Road, Portlow\nDear Mr Cole,\n"
            "Your appointment is on 3 June at 9am.\n")
    found = sections(text)
    assert found[0].heading.startswith("BRIGHTSMILE DENTAL")
    assert "BRIGHTSMILE" not in found[0].text


def test_a_lines_label_is_told_for_its_later_sentences() -> None:
    from nekoni_edge.rag.structure import line_labels

    text = ("Spring term: 4 January to 1 April. Half term is 15 to 19 February.\n"
            "Plain line. Another one.")
    assert list(zip(split_sentences(text), line_labels(text), strict=True)) == [
        ("Spring term: 4 January to 1 April.", ""),
        ("Half term is 15 to 19 February.", "Spring term"),
        ("Plain line.", ""), ("Another one.", "")]


def test_a_note_of_one_line_per_thing_keeps_its_lines_apart() -> None:
    """No line ends in a full stop, and each is a thing of its own: "Tue - bins" is not the
    end of what Monday says."""
    [note] = sections("Mon - Isla swimming 5.30, Owen picks up\nTue - bins: black + food caddy\n"
                      "Wed - Grandad for tea, no onions\nGas meter outside by the back gate\n"
                      "Window cleaner Dave 1st Sat of the month, £18\n")
    assert note.text.split("\n") == [
        "Mon - Isla swimming 5.30, Owen picks up", "Tue - bins: black + food caddy",
        "Wed - Grandad for tea, no onions", "Gas meter outside by the back gate",
        "Window cleaner Dave 1st Sat of the month, £18"]


def test_wrapped_lines_opening_with_capitals_are_still_one_paragraph() -> None:
    """Filled to its width, a line ends where the next word would not fit: wrapped, whatever
    the next line opens with."""
    [text] = sections("The spring gala is on Sunday 21 March at the leisure centre, with the\n"
                      "Harlow Otters and the Epping Seals racing from 9am in the main pool,\n"
                      "Swimmers arrive by 8.15am for a warm-up led by the club coach, Mel,\n"
                      "Parents watch from the gallery and pay £2 on the door, under-5s free.\n")
    assert "\n" not in text.text


def test_an_emails_subject_heads_its_message_and_a_rule_is_no_sentence() -> None:
    mail = sections("From: Riverside Swimming Club\nSubject: Fwd: Spring gala\n\n"
                    "---------- Forwarded message ---------\n"
                    "The gala is on Sunday 21 March.\n")
    assert mail[-1] == Section("Spring gala", "The gala is on Sunday 21 March.")
    assert not any("Subject" in s.text or "-----" in s.text for s in mail)


def test_short_lines_in_a_row_are_text_not_headings_each_replacing_the_last() -> None:
    """A PDF's two-column table: every row looks like a bare heading; only the last may be
    one, and the rows before it are kept as text."""
    page = ("Dear resident, collection days change over Christmas.\n"
            "Usual day        New day\nThursday 25 Dec  Saturday 27 Dec\n"
            "Friday 26 Dec    Monday 29 Dec\nTrees are collected on Monday 12 January.\n")
    text = "\n".join(s.text for s in sections(page, opening=False))
    assert "Thursday 25 Dec  Saturday 27 Dec" in text
    assert "Usual day" in text


def test_a_long_line_left_unended_before_a_number_goes_on_in_a_note_of_lines() -> None:
    """A note of one line per thing, one of whose lines the writer wrapped before a number:
    the number is the end of its sentence, not a thing of its own."""
    [note] = sections("Boiler serviced every October by Heat Right\n"
                      "Plumber Tom Reed, mobile is best or ring the office on 01632\n"
                      "960 555. He is usually free on Fridays\n"
                      "Stopcock under the kitchen sink\nFuse box under the stairs\n")
    assert note.text.split("\n") == [
        "Boiler serviced every October by Heat Right",
        "Plumber Tom Reed, mobile is best or ring the office on 01632 960 555. He is usually "
        "free on Fridays",
        "Stopcock under the kitchen sink", "Fuse box under the stairs"]


def test_a_row_of_columns_is_a_passage_of_its_own_and_heads_nothing() -> None:
    """A PDF table's rows (columns apart by spaces) each stay a passage, the text after the
    table is not joined to its last row, and the section's heading is not replaced by one."""
    page = ("2.1 Cycles\nCotton 40      2 h 50 min\nWool 30        1 h 05 min\n"
            "Rapid 20       15 min\nCotton suits most everyday loads.\n")
    [table] = sections(page, opening=False)
    assert table.heading == "2.1 Cycles"
    assert table.text.split("\n") == [
        "Cotton 40      2 h 50 min.", "Wool 30        1 h 05 min.", "Rapid 20       15 min.",
        "Cotton suits most everyday loads."]


def test_numbered_sections_nest_and_a_run_in_title_heads_its_clause() -> None:
    """A manual's "4 Cleaning" then "4.1 Filter. Rinse it…": the clause's title is its
    heading, under its section's, and says nothing itself."""
    page = ("Oven guide\n4 Cleaning\n4.1 Racks. Soak them overnight in warm soapy\n"
            "water. Never use a scourer.\n4.2 Door glass. Lift the door off its hinges first.\n"
            "5 Faults\n5.1 Codes\nF1 means the door is open.\n")
    assert sections(page) == [
        Section("Oven guide › 4 Cleaning › 4.1 Racks",
                "Soak them overnight in warm soapy water. Never use a scourer."),
        Section("Oven guide › 4 Cleaning › 4.2 Door glass",
                "Lift the door off its hinges first."),
        Section("Oven guide › 5 Faults › 5.1 Codes", "F1 means the door is open."),
    ]


def test_a_field_labelled_in_bold_is_a_line_of_its_own() -> None:
    text = ("# Dog sitting\n\n**Food:** one scoop at 7am and 5pm\n**Walks:** twice, never off "
            "the lead by the road\n**Vet:** Hill Vets, 01632 960 000\n")
    [page] = sections(text, markdown=True)
    assert page.text.split("\n") == [
        "Food: one scoop at 7am and 5pm.", "Walks: twice, never off the lead by the road.",
        "Vet: Hill Vets, 01632 960 000."]


def test_a_date_standing_alone_heads_nothing() -> None:
    """A letter's date line is text: the letter is not filed under "3 March 2027"."""
    page = ("RIVERSIDE CLINIC\n5 Park Row   Tel 01632 960 111\n3 March 2027\nDear Ms Lee,\n"
            "Your scan is on Friday 12 March at 10am.\n")
    found = sections(page)
    assert all("2027" not in s.heading for s in found)
    assert "3 March 2027." in "\n".join(s.text for s in found)


def test_a_rows_first_column_labels_its_later_sentences() -> None:
    from nekoni_edge.rag.structure import line_labels

    text = "4 May   Cut the grass. Fed the roses.\nPlain line. Another one."
    assert line_labels(text) == ["", "4 May", "", ""]


def test_a_question_on_a_line_of_its_own_heads_its_answer() -> None:
    """A note of questions and answers: each answer is filed under its question, which says
    what a bare "21, dropping to 17 at night" is about."""
    page = ("Car questions\n\nQ. What pressure do the tyres take?\nA. 36 front and 38 back.\n\n"
            "Q. Where is the locking wheel nut?\nA. In the glovebox, in a blue pouch.\n")
    assert sections(page)[-2:] == [
        Section("What pressure do the tyres take?", "36 front and 38 back."),
        Section("Where is the locking wheel nut?",
                "In the glovebox, in a blue pouch."),
    ]


def test_a_task_lists_empty_box_is_no_text_and_a_ticked_one_stays() -> None:
    [packing] = sections("## Packing\n- [ ] Wellies for both\n- [x] Passports\n", markdown=True)
    assert packing.text.split("\n") == ["Wellies for both.", "[x] Passports."]


def test_a_short_line_after_a_blank_line_heads_what_follows_however_the_last_ended() -> None:
    """"CLUBS THIS TERM", a blank line, "MONDAY", then Monday's club: the blank line ended
    the title, so the day heads its paragraph."""
    note = ("CLUBS THIS TERM\n\nMONDAY\nCubs for Ollie, 6pm at the scout hut.\n\nFRIDAY\n"
            "Chess club for Ada, 3.30pm in the library.\n")
    found = sections(note)
    assert Section("MONDAY", "Cubs for Ollie, 6pm at the scout hut.") in found
    assert Section("FRIDAY", "Chess club for Ada, 3.30pm in the library.") in found


def test_a_line_stopped_short_in_wrapped_text_ends_its_paragraph() -> None:
    """A PDF page with no blank lines: the salutation and the title stop where the next line's
    first word would have fitted, so they end their paragraphs; wrapped lines go on."""
    page = ("Dear Mr Hale,\n"
            "Your new parking zone from 1 June\n"
            "From 1 June 2027 the permit zone for Mill Lane becomes zone F, and your permit\n"
            "will be reissued by post. Visitor vouchers stay at £1.20 for a day and can be\n"
            "bought online. Permits already paid for are valid until they run out as\n"
            "Zone C permits in the new zone.\n"
            "Yours sincerely,\n"
            "Ann Cole\n")
    found = sections(page, opening=False)
    assert [line for s in found for line in s.text.split("\n")] == [
        "Dear Mr Hale,",
        "Your new parking zone from 1 June",
        "From 1 June 2027 the permit zone for Mill Lane becomes zone F, and your permit "
        "will be reissued by post. Visitor vouchers stay at £1.20 for a day and can be "
        "bought online. Permits already paid for are valid until they run out as "
        "Zone C permits in the new zone.",
        "Yours sincerely, Ann Cole",
    ]


def test_a_sign_off_and_the_lines_under_it_are_one_passage() -> None:
    """The name and the role under "Kind regards," say whose the role is; the letter's
    sentences before it stay their own."""
    page = ("Dear Ms Amin,\nYour son's swimming assessment is on Friday 6 June at the pool.\n"
            "Kind regards,\nOmar Feld\nLead Instructor\n")
    text = "\n".join(s.text for s in sections(page, opening=False))
    assert text.split("\n")[-1] == "Kind regards, Omar Feld, Lead Instructor"
    assert "Your son's swimming assessment is on Friday 6 June at the pool." in text.split("\n")


def test_a_quoted_message_is_headed_by_its_introduction() -> None:
    """A reply quoting the message it answers: the quote is a section of its own under its
    line of introduction, above it or as its first quoted line."""
    reply = ("Subject: Re: Tuesday\n\nHi Kim,\nTuesday at 10 is fine.\nRob\n\n"
             "On 3 May, Kim Lee wrote:\n> Could you come on Tuesday? The gate sticks.\n> Kim\n")
    found = sections(reply)
    assert found[-1].heading == "Tuesday › On 3 May, Kim Lee wrote"
    assert found[-1].text.startswith("Could you come on Tuesday?")
    inside = sections("Subject: Tuesday\n\nFine by me.\n\n> On 3 May, Kim Lee wrote:\n"
                      "> Could you come on Tuesday? The gate still sticks.\n")
    assert inside[-1].heading == "Tuesday › On 3 May, Kim Lee wrote"
    assert "wrote" not in inside[-1].text


def test_after_a_title_line_too_long_to_head_the_first_bare_heading_is_a_sibling() -> None:
    """A handbook page's first line is its title, too long to be a heading: the bare headings
    under it are sections side by side, "Brakes" not inside "Lights"."""
    text = ("Harlow Tourer caravan - owner's handbook (page extract)\nLights\n"
            "The road lights run from the car's thirteen-pin socket.\nBrakes\n"
            "The handbrake must be fully on before you unhitch.")
    headings = [s.heading for s in sections(text)]
    assert "Lights" in headings
    assert "Brakes" in headings
    assert not any("Lights › " in h for h in headings)
