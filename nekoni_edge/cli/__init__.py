"""The ``nekoni-edge`` command: the box's administration (``admin``), a phone client
(``phone``) and the demo (``demo``), each command registered once."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from nekoni_edge import __version__
from nekoni_edge.cli import admin, demo, docs, phone_client, schedule
from nekoni_edge.cli.phone_client import box_url
from nekoni_edge.errors import NekoniError

__all__ = ["box_url", "build_parser", "cli_entry_point", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    parser = argparse.ArgumentParser(
        prog="nekoni-edge",
        description="nekoni_edge: an offline LLM agent in a box, reached from a paired phone "
        "over WebRTC.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--log-level", default=None, help="DEBUG, INFO, WARNING or ERROR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (admin, docs, schedule, phone_client, demo):
        group.add_commands(sub)
    return parser


def _keys_last(argv: Sequence[str]) -> list[str]:
    """``devices add/remove``: a key may start with '-' (base64url), which argparse would take
    for an option; move such a key behind ``--``, where it can only be the positional."""
    args = list(argv)
    if "devices" not in args or "--" in args:
        return args
    from nekoni_edge.protocol.canonical import is_valid_public_key

    keys = [a for a in args if a.startswith("-") and is_valid_public_key(a)]
    if len(keys) != 1:
        return args
    args.remove(keys[0])
    return [*args, "--", keys[0]]


async def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one command; return the exit code."""
    from nekoni_edge.log import setup_logging

    args = build_parser().parse_args(_keys_last(sys.argv[1:] if argv is None else argv))
    # Only the daemon logs its INFO lines; every other command prints its own words.
    setup_logging(args.log_level or ("INFO" if args.command == "serve" else "WARNING"))
    import aiohttp

    try:
        return int(await args.func(args))
    except NekoniError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except aiohttp.ServerFingerprintMismatch as exc:
        print(f"error: the box's TLS certificate (sha256 {exc.got.hex()}) is not the one with "
              "the fingerprint given; refusing to talk to it", file=sys.stderr)
    except (aiohttp.ClientError, OSError) as exc:
        print(f"error: cannot reach the box: {exc}", file=sys.stderr)
    return 1


def cli_entry_point() -> None:
    """Console script: run ``main`` and exit with its code."""
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
