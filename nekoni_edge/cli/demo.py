"""``nekoni-edge demo``: a box on a temporary dir, a phone client paired by the simulated button,
one streamed answer."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from nekoni_edge.cli.common import command
from nekoni_edge.cli.phone_client import _stream_answer
from nekoni_edge.config import load_settings

DEFAULT_QUESTION = "In one sentence, what is a cat?"


async def _demo(args: argparse.Namespace) -> int:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
    )

    from nekoni_edge.client.phone import PhoneClient
    from nekoni_edge.daemon import Daemon
    from nekoni_edge.transport.control import send_command

    with tempfile.TemporaryDirectory(prefix="nekoni-demo-") as tmp:
        settings = load_settings(
            env={}, data_dir=Path(tmp), host="127.0.0.1", port=0,
            ice_addresses=("127.0.0.1",), model_path=args.model, mdns=False, gpio="off",
        )
        daemon = Daemon(settings)
        await daemon.start()
        try:
            assert daemon.db is not None
            if daemon.chat is None or daemon.chat.provider is None:
                print(f"error: {daemon.chat.model_error if daemon.chat else 'no model'}",
                      file=sys.stderr)
                return 1
            print(f"box {daemon.pub_key} on 127.0.0.1:{daemon.port}, "
                  f"model {daemon.chat.provider.name}", file=sys.stderr)
            client = PhoneClient(Ed25519PrivateKey.generate(), f"http://127.0.0.1:{daemon.port}")
            try:
                pairing = asyncio.create_task(client.pair("demo phone", poll_s=0.1))
                # The LED's fast blink: the phone is asking right now, so a press approves it.
                while daemon.pairing is not None and not daemon.pairing.someone_asking():  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
                print("phone asks to pair; pressing the box's button (simulated, as "
                      "'nekoni-edge press' does)", file=sys.stderr)
                await send_command(settings.control_path, "press")
                print(f"pairing: {await pairing}", file=sys.stderr)
                started = time.monotonic()
                await client.connect()
                print(f"phone connected over WebRTC in {time.monotonic() - started:.2f} s; "
                      "handshake passed", file=sys.stderr)
                print(f"you> {args.question}")
                sys.stdout.write("box> ")
                started = time.monotonic()
                answer = await _stream_answer(client, args.question, "demo")
                print(f"({len(answer)} characters streamed in "
                      f"{time.monotonic() - started:.2f} s)", file=sys.stderr)
            finally:
                await client.close()
            return 0 if answer.strip() else 1
        finally:
            await daemon.stop()


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register this module's commands, each with its handler."""
    demo = command(sub, _demo, "demo",
                    help="start a box on a temporary dir, pair a phone client, stream one answer",
                    at_the_box=False)
    demo.add_argument("--question", default=DEFAULT_QUESTION)
    demo.add_argument("--model", type=Path, help="GGUF model file (default: the embedded one)")
