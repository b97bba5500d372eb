"""Words as the answer path compares them: lower-case, stopwords out, crude plural folding.
A leaf module: the store's lexical search and the agent's checks read text the same way."""

from __future__ import annotations

import re
from itertools import pairwise

_WORD = re.compile(r"[a-z0-9][a-z0-9'.,:-]*[a-z0-9]|[a-z0-9]", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+", re.IGNORECASE)
STOPWORDS = frozenset(
    "a an the and or but of to in on at for by with from is are was were be been it its this "
    "that these those do does did how what when where which who whom why can could should "
    "would will i you we my our your me us there their they them he she his her have has had "
    "not no yes if then so as about into than too very much many any some get make "
    "s tell please know whats what's who's where's when's i'm it's something anything "
    "everything someone anyone everyone somebody anybody".split()
)


def words(text: str) -> list[str]:
    """Words with their inner punctuation kept ('1.5', '3:15', 'wi-fi')."""
    return [w.lower().strip(".,:") for w in _WORD.findall(text)]


def fold(word: str) -> str:
    """A crude stem: enough that 'bins' meets 'bin', 'nails' meets 'nail' and 'empties' meets
    'empty'."""
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ss"):
        return word  # 'chess', 'glass', 'address': no plural to fold
    return word.rstrip("s") if len(word) > 3 else word


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stopwords out; crude plural folding). A stopword
    is left out before it is folded too: "does" folds to "doe", "this" to "thi"."""
    return {fold(w) for w in words(text) if w not in STOPWORDS} - STOPWORDS


def search_terms(text: str, limit: int = 16) -> list[str]:
    """The plain alphanumeric tokens worth looking up in a full-text index (FTS5's own
    tokenizer splits the same way), at most ``limit``: a query costs linear in its words."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        if token not in STOPWORDS and len(token) > 1 and token not in seen:
            seen[token] = None
    return list(seen)[:limit]


STEM = 5
COMPOUND_MIN = 4  # a word this long opening a longer one is the same thing ('milk', 'milkman')

# --- Numbers ----------------------------------------------------------------------------------
_NUMBER = re.compile(r"\d[\d,.:]*\d|\d")


def numbers(text: str) -> set[str]:
    """The numbers a text states, as bare digit strings ('3,200' and '3200' alike; '5:30'
    as '530'), so that a value can be checked against the evidence's."""
    return {re.sub(r"\D", "", n) for n in _NUMBER.findall(text)}


def covered(asked: set[str], held: set[str]) -> set[str]:
    """The asked stems a text holds, a whole short word also as the start of a compound
    ('milk' in 'milkman', 'tooth' in 'toothbrush')."""
    return {a for a in asked if a in held or (
        len(a) >= COMPOUND_MIN and any(h.startswith(a) for h in held)) or any(
        len(h) >= COMPOUND_MIN and a.startswith(h) and a[len(h):] in ("i", "e") for h in held)}


def word_pairs(text: str, *, content: bool = False) -> set[tuple[str, str]]:
    """Each two words in a row, as stems: how a text names things ("swimming lessons");
    ``content``: only pairs of two content words ("the reply slip" names a reply slip)."""
    said = [fold(w) for w in words(text.lower())]
    return {(a[:STEM], b[:STEM]) for a, b in pairwise(said)
            if not content or (a not in STOPWORDS and b not in STOPWORDS)}


def stems(text: str) -> set[str]:
    """Content words cut to their first STEM letters ('serviced' meets 'services')."""
    return {w[:STEM] for w in content_words(text) if not w.isdigit()}
