"""Secrets in the owner's notes: a code, PIN, password, combination, account or membership
number and the value after it. Told only to a question that asks for that kind of secret;
everywhere else (the notes the model reads, a quote told as the answer) the value is hidden.
Pure text logic.

English-only: the kinds are English words ("code", "PIN", "password"); a note in another
language keeps its secrets visible to the model (SECURITY.md says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nekoni_edge.words import stems

HIDDEN = "(not shown)"

# Each kind of secret and the words that name it; a question naming any word of a kind asks
# for that kind ("the alarm PIN" asks for the alarm's code).
KINDS: dict[str, frozenset[str]] = {
    "code": frozenset({"code", "codes", "pin", "pins", "passcode", "combination"}),
    "password": frozenset({"password", "passwords", "passphrase", "passkey"}),
    "account": frozenset({"account", "membership"}),  # a membership number is an account's
    "policy": frozenset({"policy"}),
}
_KIND_OF = {word: kind for kind, names in KINDS.items() for word in names}
_NAMES = "|".join(sorted(_KIND_OF, key=len, reverse=True))
# The secret's word, at most a few words of filler ("is", "number", "for the gate"), then a
# value holding a digit; or a password's word and the word it is ("password is bluebell",
# "give the password lighthouse").
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_SPAN = re.compile(
    rf"\b(?P<name>{_NAMES})\b(?:[\s:=]+(?!\d)[\w'’]+){{0,3}}?[\s:=]+"
    r"(?P<value>(?=[\w-]*\d)\w[\w-]*\w(?: \d{2,})*|\d)"  # "6633 1042": groups, one value
    # (A date or a time is no secret's value: "the policy renews on 30 June", "at 5pm".)
    rf"\b(?<!\d(?:st|nd|rd|th|am|pm))(?!\s+{_MONTH}(?:\s|$|[,.;]))", re.IGNORECASE)
_WORD_SPAN = re.compile(
    r"\b(?P<name>password|passphrase|passkey)\b(?:[^.;\n]{0,40}?(?:\bis\b|:)|)\s+"
    r"(?:(?:also|still|now|usually|always)\s+)?(?!(?:\w+(?:ed|en)|kept|stuck|held)\s+"
    r"(?:on|in|under|at|by|to|inside|behind|beside|next|above|below)\b)"
    r"(?!(?:also|still|now|usually|always)\b)(?P<value>\w[\w-]{2,}\w)", re.IGNORECASE)
# (Not a participle before a place: "the password is printed on the card", "is also stuck
# to the fridge" say where it is, not what.)


@dataclass(frozen=True, slots=True)
class Secret:
    """One secret in a text: its kind, its value and where the value is (``named``: where
    the word naming it is)."""

    kind: str
    value: str
    start: int
    end: int
    named: int = 0


# A number that only qualifies the secret, with its value after it: "the combination for
# 2027 is 3-1-8-8", "the code for door 2 is 4417".
_RESTATED = re.compile(r"\s+(?:is|was|=|:)\s+(?P<value>(?=[\w-]*\d)\w[\w-]*\w|\d)\b",
                       re.IGNORECASE)


def find(text: str) -> list[Secret]:
    """The secrets a text states, in order."""
    found: dict[int, Secret] = {}
    for m in [*_WORD_SPAN.finditer(text), *_SPAN.finditer(text)]:
        value = _RESTATED.match(text, m.end("value")) or m
        found[value.start("value")] = Secret(_KIND_OF[m.group("name").lower()],
                                             value.group("value"), value.start("value"),
                                             value.end("value"), m.start("name"))
    return [secret for _, secret in sorted(found.items())]


def asked(question: str) -> frozenset[str]:
    """The kinds of secret a question asks for: of secret words in a row, the last, which the
    others qualify ("the account password" asks a password, not the account number)."""
    said = re.findall(r"[a-z]+", question.lower())
    kinds: set[str] = set()
    last = 0  # where the last asked secret's word was
    for index, (w, after) in enumerate(zip(said, [*said[1:], ""], strict=True)):
        if w not in _KIND_OF or after in _KIND_OF:
            continue
        if kinds and _QUALIFYING & set(said[last:index]) and "and" not in said[last:index]:
            # Just after "for", "of" or "on", a secret's word says whose the asked one is:
            # "the password for the broadband account" asks a password, not the account
            # number ("the code for the gate and the PIN" asks both).
            continue
        kinds.add(_KIND_OF[w])
        last = index
    return frozenset(kinds)


_QUALIFYING = frozenset({"for", "of", "on", "to"})


_SECRET_WORDS = frozenset(stems(" ".join([*_KIND_OF, "number"])))


def whose(question: str) -> frozenset[str]:
    """The question's words beside its secret's, as stems: whose secret it asks for."""
    return frozenset(stems(question) - _SECRET_WORDS)


def _anothers(text: str, secret: Secret, about: frozenset[str]) -> bool:
    """Whether the words right before the secret's word qualify it, with none of ``about``
    ("Gate padlock code"; not "the code", whose thing the sentence says elsewhere)."""
    before = _QUALIFIER.search(text[:secret.named])
    said = before.group().split() if before is not None else []
    if said and (not stems(said[-1]) or said[-1].lower() in _DETERMINERS):
        said = []  # "and the code is 5190", "OrchardGuest, whose password": no thing named
    qualifier = stems(" ".join(said))
    return bool(qualifier) and not qualifier & about


_DETERMINERS = frozenset("the a an this that these those its whose which their his her our "
                         "your my".split())
# The words right before a secret's word, naming whose it is ("Gate padlock code").
_QUALIFIER = re.compile(r"(?:[A-Za-z][\w'’-]* ){1,3}$")


def hide(text: str, keep: frozenset[str] = frozenset(),
         about: frozenset[str] | None = None, context: str = "") -> str:
    """The text with every secret's value hidden but those of the kinds in ``keep``; with
    ``about`` (the question's other words, as stems), also those a text names as another
    thing's: "Gate padlock code: 7731" is no answer to the shed's code, and the model must
    not read it as one (it said it for the shed's). Not where ``context`` (the text's
    document name and heading) holds all of ``about``: "Set code: 2580" under "Alarm"."""
    out, pos = [], 0
    whole = about is None or about <= stems(context)
    for secret in find(text):
        if secret.kind in keep and (whole or not _anothers(text, secret, about or frozenset())):
            continue
        out += [text[pos:secret.start], HIDDEN]
        pos = secret.end
    return "".join(out) + text[pos:]
