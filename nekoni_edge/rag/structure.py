"""A document's layout read as a household writes it: sections under their headings, and in
each one passage per sentence, list item or table row, in plain text.

Markdown headings make a heading path ("House manual › Water"); list items and table rows
become sentences of their own (a row as "Who: Tobi, Pocket money: £6 a week."); emphasis,
links and code marks are dropped. Lines a file or a PDF page wrapped by hand are joined into
their sentences, a word hyphenated across a line break is rejoined, and a short unpunctuated
line standing alone between sentences (a PDF's "Error codes") is a heading. Pure text logic,
one pass over the lines: the cost is linear in the document's size. English-neutral: nothing
here reads a word's meaning, only the layout's marks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING_SEPARATOR = " › "
MAX_HEADING_CHARS = 120  # a heading path longer than this is cut (it is context, not text)
HEADING_MAX_WORDS = 6  # a plain line this short, unpunctuated, alone between sentences
QUESTION_MAX_WORDS = 15  # a question on a line of its own this short heads its answer
# In wrapped text, a line this much of the width or less, with the next line's first word, was
# ended by its writer: a proportional font's wrapped lines vary in characters by a tenth or
# two (a PDF's), a paragraph's end leaves far more room.
WRAP_ROOM = 0.8

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^(=+|-+)\s*$")
# (A task list's empty box, "- [ ] Teeth for both", is a mark too: its text is the item. A
# ticked one, "[x]", says it is done, and stays.)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•◦▪]|\d{1,3}[.)]|[a-zA-Z][.)])\s+(?:\[ \]\s+)?(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`+)(?=\S)(.+?)(?<=\S)\1")
_SENTENCE_END = (".", "!", "?", ":", ";", "…", '"', "”", ")")
_NUMBERED = re.compile(r"^\s*(?:\d{1,3}|[a-zA-Z])[.)]\s")  # "3." or "b)": or a wrapped number
_SUBJECT = re.compile(r"^Subject:\s*(?:(?:re|fwd?|fw)\s*:\s*)*(.+)$", re.IGNORECASE)
_RULE = re.compile(r"^-{3,}(?:[^-]*-{3,})?$")  # a rule, or a forwarded message's marker
_QUOTED = re.compile(r"^\s*(?:>\s?)+")  # an email's quoted reply ("> > text")
# A line opening with a stamp ("[02/05/2026, 18:04] Aisha: ..." of a chat export, "12/03/26
# ..." of a log): a message of its own, however it ends.
_STAMPED = re.compile(r"^\s*(?:\[[^\]]{3,40}\]|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b)")
# A form's or a message's field line: a short capitalised label, a colon, its value
# ("Patient: Pepper (cat)", "Subject: Re: boiler", "Omar: I'll pick him up").
_FIELD = re.compile(r"^[A-Z][\w'’()-]*(?: [\w'’()-]+){0,2}: \S")
# A field line that is running text cut mid-sentence by the wrap: a sentence ends inside it
# and it does not end as one ("Kids: Maya and Femi. Maya has drama on⏎Thursdays.").
_RUNS_ON = re.compile(r"[.!?;]\s+\S.*[^.!?:;…\"”)]$")
# A row of columns: words apart by two spaces or a tab ("E24    Water is not draining",
# "2 Mar   Sowed broad beans", "Usual day        New day").
_COLUMNS = re.compile(r"\S(?: {2,}|\t)\S")
# A numbered section's heading ("2 Daily use", "2.1 Programmes"): its number says how deep.
_SECTION_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*)\.?\s+(?=[^\W\d_])")
# A numbered clause opening with its title as a sentence of its own ("1.2 Rinse aid. The
# dispenser is on the door."): the title heads the clause, it says nothing itself.
_RUN_IN = re.compile(r"^(\d{1,2}(?:\.\d{1,2})+)\s+([^\W\d_][^.!?:;]{0,60}?)\.\s+(\S.*)$")
_HYPHENATED = re.compile(r"[^\W\d_]-$")  # a word cut at a line's end: "compart-"
_BROKEN = re.compile(r"[^\W_]-$")  # any word or number broken after its hyphen: "0800-"


@dataclass(frozen=True, slots=True)
class Section:
    """The text under one heading path ('' before any heading), passages one per line."""

    heading: str
    text: str


def plain(text: str) -> str:
    """A line of Markdown as plain words: links as their text, no emphasis or code marks."""
    text = _LINK.sub(r"\1", text)
    return _EMPHASIS.sub(r"\2", text).strip()


def _ended(text: str) -> str:
    """A passage that stands alone (a list item, a row) ends as a sentence does."""
    text = text.rstrip()
    return text if not text or text.endswith(_SENTENCE_END) else text + "."


def _cells(line: str) -> list[str]:
    return [plain(c) for c in line.strip().strip("|").split("|")]


def _looks_like_heading(line: str, previous: str, following: str) -> bool:
    """A short line with no sentence end, after a sentence's end (or nothing) and before a
    line opening with a capital letter or a digit: a heading in text without markup."""
    words = [w for w in line.split() if any(c.isalnum() for c in w)]  # not " - "
    return (0 < len(words) <= HEADING_MAX_WORDS and not line.endswith(_SENTENCE_END + (",", "-"))
            and (not previous or previous.endswith(_SENTENCE_END))
            and (following[:1].isupper() or following[:1].isdigit()))  # "12 Quay Street"


# A line's last words after its sentences: a short phrase ending with a comma ("Yours
# sincerely,"), which the short lines under it sign ("Helen Marsh", "Head Coach").
_SIGN_OFF = re.compile(r"(?:^|[.!?]\s)\s*[^\s.!?]+(?: [^\s.!?]+){0,2},$")


def _signing_off(last_line: str, line: str, signing: bool) -> bool:
    """Whether a short unpunctuated line goes on a sign-off's passage (the name under it, or
    the role under the name): ``signing``, a line under the sign-off has already."""
    return (0 < len(line.split()) <= HEADING_MAX_WORDS and not line.endswith(_SENTENCE_END)
            and (signing or _SIGN_OFF.search(last_line) is not None))


def _figure(line: str) -> bool:
    """Whether a line is more numbers than words: a date or a figure ("22 November 2026")."""
    words = line.split()
    return sum(any(c.isdigit() for c in w) for w in words) * 2 > len(words)


def _own_lines(lines: list[str]) -> list[bool]:
    """Whether each line was ended by its writer, not wrapped: true in a run of four lines or
    more (a paragraph between blank lines, or a PDF page) each of which opens with a capital
    or a digit and most of which end where the next line's first word would still have
    fitted, the width being the run's longest line: a note of one line per thing ("Mon -
    swimming 5.30", "Tue - bins"). Wrapped text opens most lines in lower case and fills them
    to the width; a shorter run can open each line with a capital by chance."""
    ended = [False] * len(lines)
    start = 0
    for end in range(len(lines) + 1):
        if end < len(lines) and lines[end].strip():
            continue
        run = [line.strip() for line in lines[start:end]]
        width = max(map(len, run), default=0)
        fits = [len(a) + 1 + len(b.split()[0]) <= width
                for a, b in zip(run[:-1], run[1:], strict=True)]
        if len(fits) >= 3 and sum(fits) * 2 > len(fits) and all(
                line[:1].isupper() or line[:1].isdigit() for line in run[1:]):
            # (A word or a number broken at its hyphen goes on, however short its line; so
            # does a sentence a long line leaves unended before a number that numbers no
            # item: "renews on⏎14 January", "call us on 0345⏎600 1234".)
            ended[start:end - 1] = [
                not _BROKEN.search(a) and not (
                    not a.endswith(_SENTENCE_END) and b[:1].isdigit()
                    and not _LIST_ITEM.match(b) and len(a.split()) > HEADING_MAX_WORDS)
                for a, b in zip(run[:-1], run[1:], strict=True)]
        elif len(fits) >= 3:
            # Wrapped text with lines of its own among its wrapped ones (a letter's "Dear
            # Resident," and its title on a PDF page with no blank lines): a line that stops
            # where the next line's first word, opening with a capital, would have fitted
            # with room to spare was ended by its writer.
            ended[start:end - 1] = [
                (b[:1].isupper() or b[:1].isdigit()) and not _BROKEN.search(a)
                and len(a) + 1 + len(b.split()[0]) <= width * WRAP_ROOM
                for a, b in zip(run[:-1], run[1:], strict=True)]
        start = end + 1
    return ended


class _Builder:
    """Collects passages per heading path; one joined paragraph at a time."""

    def __init__(self) -> None:
        self.levels: list[tuple[int, str]] = []
        self.sections: list[Section] = []
        self.passages: list[str] = []
        # The paragraph's wrapped lines, each after what joins it to the one before (a space,
        # or nothing after a hyphen), joined once the paragraph ends.
        self._parts: list[str] = []
        self.in_item = False  # the paragraph being read is a list item
        self.in_field = False  # ... a field line, which a line opening with a capital ends
        self.in_row = False  # ... a row, which only a line opening in lower case goes on
        self.in_signature = False  # ... a sign-off with the lines under it

    @property
    def heading(self) -> str:
        return HEADING_SEPARATOR.join(t for _, t in self.levels)[:MAX_HEADING_CHARS]

    @property
    def paragraph(self) -> str:
        """The paragraph's last line read so far ('' between paragraphs)."""
        return self._parts[-1] if self._parts else ""

    def add_line(self, line: str, separator: str = " ") -> None:
        """One wrapped line of running text, joined to the paragraph being read (a list of
        its lines: joining as they come would copy a long paragraph once per line)."""
        if not self._parts:
            self._parts.append(line)
        elif _BROKEN.search(self._parts[-1]):
            if _HYPHENATED.search(self._parts[-1]) and line[:1].islower():
                self._parts[-1] = self._parts[-1][:-1]  # "compart-" + "ment"
            self._parts.append(line)  # else the hyphen stays: "0800-" + "123"
        else:
            self._parts.append(separator + line)

    def end_paragraph(self) -> None:
        if self._parts:
            text = "".join(self._parts)
            self.passages.append(_ended(text) if self.in_item else text)
            self._parts = []
        self.in_item = self.in_field = self.in_row = self.in_signature = False

    def start_item(self, text: str) -> None:
        """A list item: a passage of its own, which lines after it may continue (a wrapped
        item, or Markdown's indented continuation)."""
        self.end_paragraph()
        if text:
            self._parts.append(text)
            self.in_item = True

    def add_passage(self, text: str) -> None:
        self.end_paragraph()
        if text:
            self.passages.append(_ended(text))

    def set_heading(self, level: int, title: str) -> None:
        self.flush()
        while self.levels and self.levels[-1][0] >= level:
            self.levels.pop()
        if title:
            self.levels.append((level, title))

    def flush(self) -> None:
        self.end_paragraph()
        if self.passages:
            self.sections.append(Section(self.heading, "\n".join(self.passages)))
            self.passages = []


def sections(text: str, *, markdown: bool = False, opening: bool = True) -> list[Section]:
    """The document's sections in order; ``markdown``: read '#' headings, lists and tables
    (plain text and PDF pages still get lists, wrapped lines and bare headings); ``opening``:
    the text starts the document (a PDF's later page does not), so a bare first line heads
    the rest of it."""
    lines = [line.rstrip() for line in text.splitlines()]
    ended = _own_lines([_QUOTED.sub("", line, count=1) for line in lines])
    out = _Builder()
    header: list[str] | None = None  # a Markdown table's column names
    for i, raw in enumerate(lines):
        if quoted := _QUOTED.match(raw):
            raw = raw[quoted.end():]  # "> 7713." of a reply quoted in an email is "7713."
            if not (i and _QUOTED.match(lines[i - 1])):
                # A quote's line of introduction ("On 4 Jan, Carla wrote:"), above it or its
                # first line, heads it: the quoted message is another, earlier one.
                out.end_paragraph()
                level = max(2, len(out.levels) + 1)
                if raw.rstrip().endswith(":"):
                    out.set_heading(level, raw.strip()[:-1])
                    continue
                if out.passages and out.passages[-1].endswith(":"):
                    out.set_heading(level, out.passages.pop()[:-1])
        line = raw.strip()
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not line:
            out.end_paragraph()
            header = None
            continue
        if not markdown and (subject := _SUBJECT.match(line)):
            # An email's subject is its title, as a document's name is: it says which
            # message, and its words are no answer ("Subject: Spring swimming gala" for when).
            out.set_heading(1, subject.group(1))
            continue
        if not markdown and _RULE.match(line):
            out.end_paragraph()  # "---------- Forwarded message ---------": no sentence
            continue
        if markdown and (match := _MD_HEADING.match(line)):
            out.set_heading(len(match.group(1)), plain(match.group(2)))
            continue
        if markdown and _SETEXT.match(following) and not line.startswith("|") and \
                out.paragraph == "" and not _LIST_ITEM.match(line):
            out.set_heading(1 if following.startswith("=") else 2, plain(line))
            continue
        if markdown and _SETEXT.match(line) and i > 0 and lines[i - 1].strip():
            continue  # the underline of a heading already read
        if markdown and line.startswith("|"):
            if _TABLE_RULE.match(line):
                continue
            if header is None and _TABLE_RULE.match(following):
                header = _cells(line)
                continue
            cells = _cells(line)
            if header is not None and len(header) == len(cells):
                out.add_passage(", ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True)
                                          if c and h))
            else:
                out.add_passage(", ".join(c for c in cells if c))
            continue
        if out.in_row and not line[:1].islower():
            out.end_paragraph()  # the next row, or text after the table
        # (A field's label may be in bold: "**Bedtime:** Isla at 7pm".)
        said = plain(line) if markdown else line
        if out.in_field and said[:1].isupper() and not (
                _FIELD.match(said) is None and _RUNS_ON.search(out.paragraph)):
            out.end_paragraph()  # the next field, or running text after the form's fields
        if not out.paragraph and _FIELD.match(said) and not _LIST_ITEM.match(line):
            out.start_item(said)
            out.in_field = True  # a wrapped value (a line opening in lower case) goes on
            continue
        if not markdown and _COLUMNS.search(line):
            # A row is a passage of its own and heads nothing: a table's rows had each
            # replaced the one before as a bare heading, and were lost.
            out.start_item(line)
            out.in_row = True
            continue
        # (After a blank line nothing goes on: "CLUBS THIS TERM", a blank, then "MONDAY".)
        previous = out.paragraph or (
            out.passages[-1] if out.passages and lines[i - 1].strip() else "")
        if not markdown and (run_in := _RUN_IN.match(line)) and \
                len(run_in.group(2).split()) <= HEADING_MAX_WORDS and \
                (not out.paragraph or out.paragraph.endswith(_SENTENCE_END)):
            out.set_heading(2 + run_in.group(1).count("."), f"{run_in[1]} {run_in[2]}")
            out.add_line(run_in.group(3))
            continue
        marked = _LIST_ITEM.match(line)
        asked = marked.group(1) if marked else line  # "Q. Who do we call?" asks it too
        if not markdown and asked.endswith("?") and not out.paragraph and following and \
                not following.endswith("?") and len(asked.split()) <= QUESTION_MAX_WORDS:
            # A question on a line of its own, then its answer (a note of questions and
            # answers, "Q. Who do we call?⏎A. Dan Price Heating"): the question heads it.
            out.set_heading(2, asked)
            continue
        bare = not markdown and _looks_like_heading(line, previous, following)
        if bare and _figure(line):
            # A date or a figure standing alone (a letter's "22 November 2026") heads nothing:
            # a line of its own, and a heading just before it headed nothing either.
            if out.levels and out.levels[-1][0] >= 2 and not out.passages and not out.paragraph:
                out.add_passage(out.levels.pop()[1])
            out.add_passage(line)
            continue
        if bare:
            # A bare heading replaces the one before it, under the first line of the page
            # when that was one too (a PDF's title); a numbered one nests by its number.
            number = _SECTION_NUMBER.match(line)
            # (Only the first line: after a title line too long to be a heading, "Tyres" is
            # the first section's, and "Fuel and oil" is not under it.)
            level = 1 if opening and not out.levels and not out.sections and not out.passages \
                and not out.paragraph else 2 + (number.group(1).count(".") if number else 0)
            if level >= 2 and out.levels and out.levels[-1][0] >= level and \
                    not out.passages and not out.paragraph:
                # Two in a row, the second no deeper: the first heads nothing, a letterhead's
                # line or a contents list's, and is text.
                out.add_passage(out.levels.pop()[1])
            out.set_heading(level, line)
            continue
        item = marked
        if item and _NUMBERED.match(line) and out.paragraph and not out.in_item and \
                not out.paragraph.endswith(_SENTENCE_END):
            item = None  # "bookings on 01632 962⏎318. The van...": a number wrapped, no item
        if item:
            out.start_item(plain(item.group(1)))
            continue
        if stamp := _STAMPED.match(line):
            # The stamp is when, not what: its digits are no value of the message's.
            out.start_item(line[stamp.end():].strip() if line.startswith("[") else line)
            continue
        if out.paragraph and not out.in_item and _signing_off(
                out.paragraph, line, out.in_signature):
            # A letter's sign-off and the lines under it are one passage: "Yours sincerely,
            # Helen Marsh, Head Coach" says whose the role is.
            out.add_line(line, " " if out.paragraph.endswith(",") else ", ")
            out.in_signature = True
            continue
        if out.in_item and not raw[:1].isspace() and out.paragraph.endswith(_SENTENCE_END):
            out.end_paragraph()  # a finished item, then running text
        elif out.paragraph and not out.in_item and ended[i - 1]:
            out.end_paragraph()  # a line of its own ("Mon - swimming 5.30"), not one wrapped
        out.add_line(plain(line) if markdown else line)
    out.flush()
    return out.sections


def is_markdown(filename: str) -> bool:
    return filename.lower().endswith((".md", ".markdown"))


# A full stop after these is not a sentence's end ("Mr. Hendry", "Priya (no. 11)"), nor after
# an initial ("Dr. S. Patel", "M. J. O'Brien").
ABBREVIATIONS = ("Mr", "Mrs", "Ms", "Dr", "Prof", "St", "No", "no", "e.g", "i.e")
INITIAL = r"(?<!\b[A-Z]\.)"
_SPLIT = re.compile("".join(rf"(?<!\b{re.escape(a)}\.)" for a in ABBREVIATIONS)
                    + INITIAL + r"(?:(?<=[.!?])\s+(?![a-z])|(?<=;)\s+)")


def split_sentences(text: str) -> list[str]:
    """Split at sentence ends ('.', '!', '?', ';') followed by a space, and at line breaks:
    not before a word in lower case, which goes on with the same sentence ("it is real! a
    6ft fir from Hollins Farm"), except after a semicolon, which ends a clause of its own. A
    stored passage (sentence, list item, table row) is one line. The unit evidence is
    picked from, and embedded at ingest."""
    return [s.strip() for line in text.split("\n") for s in _SPLIT.split(line) if s.strip()]


def line_labels(text: str) -> list[str]:
    """For each of ``split_sentences(text)``, the label its line opens with when the sentence
    is not the one holding it ("Spring term" for "Half term is 15 to 19 February." in
    "- Spring term: 4 January to 1 April. Half term is 15 to 19 February."): a list item's
    or a field's or a row's later sentences are about what it is labelled, as a section's are
    about its heading. '' for the rest."""
    labels: list[str] = []
    for line in text.split("\n"):
        said = [s for s in _SPLIT.split(line) if s.strip()]
        field = _FIELD.match(line.strip())
        column = _COLUMNS.search(line.strip())
        # (A row's first column labels its later sentences: "2 Mar   Dug over the top bed.
        # Sowed broad beans." sowed them on the 2nd of March.)
        label = line.strip().split(":", 1)[0] if field else \
            line.strip()[:column.start() + 1] if column else ""
        labels += [label if i else "" for i in range(len(said))]
    return labels


def document_title(source: str) -> str:
    """A document's name as words: 'home_insurance.txt' -> 'home insurance'."""
    return re.sub(r"[_.-]+", " ", source.rsplit(".", 1)[0])


def titled(source: str, sentence: str, heading: str = "") -> str:
    """A sentence as it is embedded to pick evidence: after its document's name and its
    section's heading, so that 'It is serviced every November' is still about the boiler."""
    if is_row(sentence):
        # A table row is dense already: the section it is in says enough, and the path above
        # it would drown it ("the eco programme" found a row at 0.22 under the guide's full
        # title, 0.29 under "Programmes" alone).
        heading = heading.rsplit(HEADING_SEPARATOR, 1)[-1]
    return f"{document_title(source)} › {heading}: {sentence}" if heading else \
        f"{document_title(source)}: {sentence}"


# A table row as ``sections`` writes it: "Name: value, Name: value" (two fields or more).
_ROW = re.compile(r"^[^:,]{1,40}: .*, [A-Z][\w ()'-]{0,39}: ")


def is_row(sentence: str) -> bool:
    """Whether the passage is a table row as ``sections`` writes it."""
    return bool(_ROW.match(sentence))


def row_cells(row: str) -> list[tuple[str, str]]:
    """A row's cells as ``sections`` writes them: (column's name, value), a value running up
    to the next column's name ("Mia: Squad trial, 8am, Jonah: ...")."""
    return [(m.group(1), m.group(2)) for m in _CELL.finditer(row)]


_CELL = re.compile(r"(?:^|, )([A-Z][\w ()'-]{0,39}): (.*?)(?=, [A-Z][\w ()'-]{0,39}: |$)")
