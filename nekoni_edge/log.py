"""Logging to stderr, one line per event, with peer-supplied text unable to forge lines."""

from __future__ import annotations

import logging
import re
import sys

# C0 and C1 controls (newline, carriage return, escape…) and Unicode's line separators.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def clean(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\x1b``…): a device or file
    name with a newline in it cannot start a line of its own in the log."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


class OneLineFormatter(logging.Formatter):
    """Escapes control characters in the message; a traceback keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # logging's name
        record.message = clean(record.message)
        return super().formatMessage(record)


def setup_logging(level: str = "INFO") -> None:
    """Log to stderr (journald keeps it on the box)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # aiortc and aioice are chatty at INFO about every ICE pair.
    for noisy in ("aioice", "aiortc", "aiohttp.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
