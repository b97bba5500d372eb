"""The log: one line per event, whatever a peer put in a name."""

from __future__ import annotations

import logging

import pytest

from nekoni_edge.log import clean, setup_logging


def test_control_characters_are_escaped() -> None:
    assert clean("phone\n2026-12-03 WARNING clearing every paired device") == \
        "phone\\n2026-12-03 WARNING clearing every paired device"
    assert clean("a\rb\x1b[31mc\u2028d\x85e\tf") == "a\\rb\\x1b[31mc\\u2028d\\x85e\tf"
    assert clean("plain é😺 text") == "plain é😺 text"


@pytest.mark.usefixtures("keep_logging")
def test_a_forged_line_stays_on_its_own_line(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging("INFO")
    name = "notes.txt\n2026-12-03 12:00:00 WARNING nekoni_edge.pairing: clearing every device"
    logging.getLogger("nekoni_edge.test").info("stored document %s", name)
    try:
        raise ValueError("with\na traceback")
    except ValueError:
        logging.getLogger("nekoni_edge.test").exception("ingest of %s failed", name)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("stored document notes.txt\\n2026-12-03 12:00:00 WARNING "
                             "nekoni_edge.pairing: clearing every device")
    assert not any(line.startswith("2026-12-03 12:00:00 WARNING") for line in lines)
    assert lines[1].endswith("failed")
    assert lines[2] == "Traceback (most recent call last):"  # a traceback keeps its lines
