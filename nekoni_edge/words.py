"""Words as the answer path compares them: lower-case, stopwords out, crude plural folding.
A leaf module: the store's lexical search and the agent's checks read text the same way."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9][a-z0-9'.,:-]*[a-z0-9]|[a-z0-9]", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+", re.IGNORECASE)
STOPWORDS = frozenset(
    "a an the and or but of to in on at for by with from is are was were be been it its this "
    "that these those do does did how what when where which who whom why can could should "
    "would will i you we my our your me us there their they them he she his her have has had "
    "not no yes if then so as about into than too very much many any some get make "
    "s tell please know whats what's who's where's when's i'm it's".split()
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
    return word.rstrip("s") if len(word) > 3 else word


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stopwords out; crude plural folding)."""
    return {fold(w) for w in words(text)} - STOPWORDS


def search_terms(text: str, limit: int = 16) -> list[str]:
    """The plain alphanumeric tokens worth looking up in a full-text index (FTS5's own
    tokenizer splits the same way), at most ``limit``: a query costs linear in its words."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        if token not in STOPWORDS and len(token) > 1 and token not in seen:
            seen[token] = None
    return list(seen)[:limit]
