"""The prompt's scaffolding read back in an answer."""

from __future__ import annotations

from nekoni_edge.agent import answer
from nekoni_edge.agent.echo import EchoCheck


def test_scaffolding_read_back_is_found() -> None:
    echo = EchoCheck(["You are nekoni, a helpful assistant running offline.",
                            answer.ANSWER_INSTRUCTION])
    assert echo.find("The owner is nekoni, a helpful assistant.")
    assert echo.find("Notes: the fuse box")  # the framing itself
    assert echo.find("From the owner's documents: ...")
    # The notes as the prompt quotes them: their header after "The", a note's label.
    assert echo.find("The notes:\n- house.md › Kitchen: \"The kettle")
    assert echo.find('- house.md › Kitchen: "The kettle is descaled monthly."')
    assert echo.find('- house.md: "The kettle is descaled monthly."')  # a note without headings
    assert echo.find("The notes: the kettle is descaled monthly.")
    assert not echo.find("The notebook is in the kitchen drawer.")
    assert not echo.find("The fuse box is under the stairs.")
