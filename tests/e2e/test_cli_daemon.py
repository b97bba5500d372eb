"""The box's commands with the daemon running: they go through its control socket to the same
handlers a phone reaches, and print what the handlers answered."""

from __future__ import annotations

from typing import Any

import pytest

from nekoni_edge import cli
from nekoni_edge.daemon import Daemon

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("keep_logging")]


async def run(capsys: Any, settings: Any, *argv: str) -> tuple[int, str]:
    code = await cli.main([*argv, "--data-dir", str(settings.data_dir)])
    out = capsys.readouterr()
    assert "the box's handlers run here" not in out.err  # the daemon answered
    return code, out.out.strip()


async def test_skills_cron_and_docs_through_the_daemon(daemon: Daemon, settings: Any,
                                                       capsys: Any) -> None:
    code, skill_id = await run(capsys, settings, "skills", "create", "Morning",
                               "Say good morning.")
    assert code == 0
    assert skill_id.startswith("sk_")
    code, listing = await run(capsys, settings, "skills", "list")
    assert skill_id in listing
    code, job_id = await run(capsys, settings, "cron", "create", skill_id, "0 7 * * *")
    assert code == 0
    code, jobs = await run(capsys, settings, "cron", "list")
    assert job_id in jobs
    assert "'0 7 * * *'" in jobs
    code, refused = await run(capsys, settings, "cron", "create", skill_id, "0 0 30 2 *")
    assert code == 2  # the handler's skill_error, printed on stderr
    assert (await run(capsys, settings, "cron", "delete", job_id)) == (0, "deleted")
    assert (await run(capsys, settings, "cron", "delete", job_id)) == (1, "not found")
    code, answer = await run(capsys, settings, "skills", "run", skill_id)
    assert code == 0
    assert answer  # the daemon's model answered
    assert (await run(capsys, settings, "skills", "delete", skill_id)) == (0, "deleted")
    assert (await run(capsys, settings, "docs", "list")) == (0, "")
    assert (await run(capsys, settings, "docs", "delete", "nope")) == (1, "not found")
    assert daemon.db is not None
    assert await daemon.db.execute_sql("SELECT COUNT(*) FROM skills") == [(0,)]


async def test_ingest_goes_through_the_daemon(daemon: Daemon, settings: Any, capsys: Any,
                                              tmp_path: Any) -> None:
    """``ingest`` wrote the database from a second process while the daemon ran; now each
    file is uploaded to the running daemon as a phone does, and the daemon stores it."""
    assert daemon.chat is not None
    assert daemon.chat.knowledge is not None
    kb = daemon.chat.knowledge
    stored_by_the_daemon: list[str] = []
    ingest = kb.ingest

    async def recorded(filename: str, *args: Any, **kwargs: Any) -> Any:
        stored_by_the_daemon.append(filename)
        return await ingest(filename, *args, **kwargs)

    kb.ingest = recorded  # type: ignore[method-assign]
    doc = tmp_path / "boiler.txt"
    doc.write_text("The boiler is serviced every October by Acme Heating.")
    bad = tmp_path / "photo.bin"
    bad.write_bytes(b"\x00\x01\x02 binary")
    code = await cli.main(["ingest", str(doc), str(bad), "--data-dir", str(settings.data_dir)])
    out = capsys.readouterr()
    assert code == 1  # the binary file was refused by the daemon's handler, and said so
    assert "the box's handlers run here" not in out.err
    assert "photo.bin: is not a text or PDF file" in out.err
    assert "1 of 2 documents ingested" in out.err
    assert "1/1 chunks" in out.err  # the ingest's progress, from the daemon
    assert stored_by_the_daemon == ["boiler.txt", "photo.bin"]  # its one writer did it
    assert [d.source for d in await kb.store.documents()] == ["boiler.txt"]
