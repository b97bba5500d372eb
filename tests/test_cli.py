"""The command line: fast --help with no heavy imports, devices by hand, serve and demo."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nekoni_edge.cli import build_parser

HEAVY = ("llama_cpp", "aiortc", "aioice", "av", "aiosqlite", "numpy")


def run(*args: str, timeout: float = 120, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "nekoni_edge", *args],
        capture_output=True, text=True, timeout=timeout, check=False, **kw,
    )


def test_help_lists_commands() -> None:
    text = build_parser().format_help()
    for command in ("serve", "demo", "chat", "devices", "client-key"):
        assert command in text


def test_help_does_not_import_heavy_modules() -> None:
    code = ("import sys; sys.argv=['nekoni-edge','--help']\n"
            "from nekoni_edge import cli\n"
            "try:\n    cli.cli_entry_point()\nexcept SystemExit:\n    pass\n"
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip().endswith("[]"), out.stdout


def test_devices_by_hand(tmp_path: Path) -> None:
    key = "QXlBPXoTe7ywIt4SYVgrsus-ZIcW149W7XsUxDhtzOA"
    data = ["--data-dir", str(tmp_path)]
    assert run("devices", *data, "add", key, "--name", "Ada").stdout.strip() == "approved"
    assert run("devices", *data, "add", key).stdout.strip() == \
        "already approved: confirmed (no longer on probation)"
    listed = run("devices", *data, "list").stdout
    assert key in listed
    assert "Ada" in listed
    assert run("devices", *data, "remove", key).returncode == 0
    assert run("devices", *data, "remove", key).returncode == 1
    # base64url keys may start with '-': still the key, not an option, wherever it stands
    dashed = "-FLjldmFv5F6fNx02yYxyEysuEjJuOH4BaVkRPQd5P8"
    assert run("devices", *data, "add", dashed, "--name", "Bo").stdout.strip() == "approved"
    assert run("devices", *data, "add", "--name", "Bo", dashed).stdout.strip() \
        == "already approved: confirmed (no longer on probation)"
    assert f"{dashed}  Bo" in run("devices", *data, "list").stdout
    assert run("devices", *data, "remove", dashed).stdout.strip() == "removed"
    bad = run("devices", *data, "add", "nope")
    assert bad.returncode == 2
    assert "not a public key" in bad.stderr


def test_bad_config_is_refused_by_name(tmp_path: Path) -> None:
    result = run("serve", "--data-dir", str(tmp_path), env={**os.environ, "NEKONI_PROT": "1"})
    assert result.returncode == 1
    assert "NEKONI_PROT" in result.stderr


@pytest.mark.slow
def test_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    data = tmp_path / "box"  # made by the daemon
    env = {**os.environ, "NEKONI_ICE_ADDRESSES": "127.0.0.1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "nekoni_edge", "serve", "--data-dir", str(data),
         "--host", "127.0.0.1", "--port", "0"],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + 60
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "serving on" in line or time.monotonic() > deadline:
                break
        assert any("serving on" in line for line in lines), lines
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=30) == 0
        assert "nekoni-edge stopped" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (data / "identity.pem").is_file()
    assert (data / "nekoni.db").is_file()
    # started by hand, not by the unit: still private (it was 0755 and 0644 with the umask)
    assert data.stat().st_mode & 0o777 == 0o700
    for name in ("nekoni.db", "nekoni.db-wal", "identity.pem"):
        if (data / name).exists():
            assert (data / name).stat().st_mode & 0o777 == 0o600, name


@pytest.mark.slow
def test_demo_streams_an_answer() -> None:
    result = run("demo", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "pairing: approved" in result.stderr
    assert "handshake passed" in result.stderr
    assert "box> " in result.stdout
    answer = result.stdout.split("box> ", 1)[1].strip()
    assert answer


@pytest.mark.slow
def test_ingest_docs_ask(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "shed.txt").write_text("The shed key is under the blue watering can.")
    (docs / "sub" / "garden.md").write_text("Tomatoes need potash once they fruit.")
    (docs / "photo.bin").write_bytes(b"\x00\x01\x02 binary")
    data = ["--data-dir", str(tmp_path / "box")]
    ingest = run("ingest", *data, str(docs))
    assert ingest.returncode == 1  # one file was refused, and said so
    assert "photo.bin: is not a text or PDF file" in ingest.stderr
    assert "2 of 3 documents ingested" in ingest.stderr
    assert "1/1 chunks" in ingest.stderr  # the progress bar
    listed = run("docs", *data, "list").stdout.splitlines()
    assert sorted(line.split()[-1] for line in listed) == ["garden.md", "shed.txt"]
    ask = run("ask", *data, "Where is the shed key?")
    assert ask.returncode == 0
    first = ask.stdout.splitlines()[0]
    assert "[shed.txt]" in first
    assert 0.3 < float(first.split()[0]) <= 1.0
    doc_id = next(line.split()[0] for line in listed if line.endswith("shed.txt"))
    assert run("docs", *data, "delete", doc_id).stdout.strip() == "deleted"
    assert run("ask", *data, "Where is the shed key?").returncode == 1


def test_config_show_is_the_effective_config(tmp_path: Path) -> None:
    import tomllib

    conf = tmp_path / "c.toml"
    conf.write_text('agent_name = "kitchen"\n')
    shown = run("config", "show", "--config", str(conf),
                env={**os.environ, "NEKONI_PORT": "9001"})
    assert shown.returncode == 0, shown.stderr
    values = tomllib.loads(shown.stdout)
    assert values["port"] == 9001
    assert values["agent_name"] == "kitchen"
    assert values["ice_addresses"] == []
    bad = run("config", "show", env={**os.environ, "NEKONI_PORT": "x"})
    assert bad.returncode == 1
    assert "port" in bad.stderr


def test_state_directory_from_systemd(tmp_path: Path) -> None:
    from nekoni_edge.config import load_settings

    assert load_settings(env={"STATE_DIRECTORY": f"{tmp_path}:/other"}).data_dir == tmp_path
    # a development machine: the user's own data dir, never ./var under whatever directory
    assert load_settings(env={"HOME": str(tmp_path)}, service_dir=tmp_path / "none").data_dir \
        == tmp_path / ".local" / "share" / "nekoni-edge"


def test_identity_names_the_box(tmp_path: Path) -> None:
    first = run("identity", "--data-dir", str(tmp_path)).stdout.splitlines()
    again = run("identity", "--data-dir", str(tmp_path)).stdout.splitlines()
    assert first == again
    assert first[0].startswith("pubKey ")
    name = first[1].removeprefix("name ")
    assert len(name) == len("nekoni-") + 6
    assert name.startswith("nekoni-")


@pytest.mark.slow
def test_skills_cron_traces(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path)]
    skill_id = run("skills", *data, "create", "Greeting", "Say hello.").stdout.strip()
    assert skill_id.startswith("sk_")
    assert "Greeting" in run("skills", *data, "list").stdout
    job = run("cron", *data, "create", skill_id, "0 7 * * *")
    assert job.returncode == 0
    bad = run("cron", *data, "create", skill_id, "every day")
    assert bad.returncode == 2
    assert "invalid cron expression" in bad.stderr
    assert "'0 7 * * *'" in run("cron", *data, "list").stdout
    ran = run("skills", *data, "run", skill_id, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip()
    traces = run("traces", *data, "--session", f"skill:{skill_id}").stdout
    assert "skill_event" in traces
    assert "llm_call" in traces
    assert run("cron", *data, "delete", job.stdout.strip()).stdout.strip() == "deleted"


@pytest.mark.parametrize(("host", "url"), [
    ("192.168.1.5", "http://192.168.1.5:8470"), ("192.168.1.5:9000", "http://192.168.1.5:9000"),
    ("box.local:8471", "http://box.local:8471"), ("https://box:8470/", "https://box:8470"),
    ("fe80::1", "http://[fe80::1]:8470"), ("[fe80::1]:9000", "http://[fe80::1]:9000"),
])
def test_host_takes_host_port(host: str, url: str) -> None:
    from nekoni_edge.cli import box_url

    assert box_url(host, 8470) == url


def test_settings_options_before_or_after_the_action() -> None:
    parser = build_parser()
    for argv in (["devices", "--data-dir", "/d", "list"], ["devices", "list", "--data-dir", "/d"],
                 ["cron", "delete", "cj_1", "--data-dir", "/d"]):
        assert str(parser.parse_args(argv).data_dir) == "/d", argv
    assert parser.parse_args(["docs", "list"]).data_dir is None


def test_a_bad_tls_fingerprint_is_refused_in_words() -> None:
    bad = run("chat", "--host", "https://127.0.0.1:9", "--tls-fingerprint", "zz", "hi")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert "not a SHA-256 fingerprint" in bad.stderr


async def a_paired_phone(data_dir: Path) -> str:
    """A box's data dir with one paired phone; its key."""
    from nekoni_edge.store.database import Database

    key = "k" * 43
    async with await Database.open(data_dir / "nekoni.db") as db:
        await db.approve_device(key, "phone")
    return key


async def test_a_refusal_by_the_running_box_is_reported_not_worked_around(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The control socket's "not allowed" (another user) once read as "no daemon", and the
    CLI then removed the device from the database itself while its channel stayed open."""
    import asyncio

    from nekoni_edge import cli

    key = await a_paired_phone(tmp_path)

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"error: not allowed\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(refuse, str(tmp_path / "control.sock"))
    try:
        code = await cli.main(["devices", "remove", key, "--data-dir", str(tmp_path)])
    finally:
        server.close()
        await server.wait_closed()
    assert code == 1
    err = capsys.readouterr().err
    assert "the running box refused the request: not allowed" in err
    from nekoni_edge.store.database import Database

    async with await Database.open(tmp_path / "nekoni.db") as db:
        assert await db.is_approved(key)


async def test_without_a_daemon_the_same_handlers_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """No daemon: the command runs the box's own handlers here, not a second implementation."""
    from nekoni_edge import cli

    key = await a_paired_phone(tmp_path)
    assert await cli.main(["devices", "remove", key, "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == "removed"
    assert "the box's handlers run here" in out.err
    assert await cli.main(["docs", "delete", "nope", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().out.strip() == "not found"


async def test_any_message_reaches_the_box_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A new message needs no CLI change: ``request`` sends it through the same door."""
    import json

    from nekoni_edge import cli

    key = await a_paired_phone(tmp_path)
    message = json.dumps({"type": "device_rename", "mobilePubKey": key, "name": "Tablet"})
    assert await cli.main(["request", message, "--data-dir", str(tmp_path)]) == 0
    [reply] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert reply == {"type": "device_rename_response", "renamed": True, "mobilePubKey": key,
                     "name": "Tablet"}
    assert await cli.main(["request", '{"type": "teleport"}', "--data-dir", str(tmp_path)]) == 2
    assert json.loads(capsys.readouterr().out)["code"] == "UNKNOWN_TYPE"
    assert await cli.main(["request", "[1]", "--data-dir", str(tmp_path)]) == 2
