"""The pairing QR code nekoni's apps scan: its text (the JSON they parse) and its pictures.

nekoni's apps add an agent only by scanning a code whose text is ``{agentPubKey, signalUrl,
agentUrl, roomId, agentName}`` (nekoni's dashboard adds ``agentUrlHttps`` for the web app). The
two apps need different codes from the box: the web app runs in a browser that has accepted the
box's certificate and may be served over HTTPS, so it gets the HTTPS/WSS URLs, drawn light on
dark (its scanner reads only inverted codes); the mobile app cannot trust a self-signed
certificate, so it gets the plain HTTP/WS port, drawn as an ordinary code.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

from nekoni_edge.protocol.signaling import SIGNAL_PATH

APPS = ("web", "mobile")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where an app reaches the box: ``host:port`` and whether that port speaks TLS."""

    host: str
    secure: bool
    # ``/p/<setup code>`` on the box's label: nekoni's apps send every request under the URLs
    # they scanned, so the code comes with their pair request without their knowing.
    prefix: str = ""

    @property
    def agent_url(self) -> str:
        return f"{'https' if self.secure else 'http'}://{self.host}{self.prefix}"

    @property
    def signal_url(self) -> str:
        return f"{'wss' if self.secure else 'ws'}://{self.host}{self.prefix}{SIGNAL_PATH}"


def pairing_text(*, agent_pub_key: str, room_id: str, agent_name: str, endpoint: Endpoint,
                 https: Endpoint | None = None) -> str:
    """The code's text, in the field names and shape nekoni's apps parse."""
    payload = {
        "agentPubKey": agent_pub_key,
        "signalUrl": endpoint.signal_url,
        "agentUrl": endpoint.agent_url,
        "roomId": room_id,
        "agentName": agent_name,
    }
    if https is not None:  # nekoni's web app pairs and trusts the certificate through it
        payload["agentUrlHttps"] = https.agent_url
    return json.dumps(payload, separators=(",", ":"))


def _code(text: str):  # type: ignore[no-untyped-def]  # segno ships no type hints
    import segno  # only when a code is drawn

    return segno.make(text, error="m", micro=False)


def _colours(inverted: bool) -> dict[str, str]:
    return {"dark": "#ffffff", "light": "#000000"} if inverted else \
        {"dark": "#000000", "light": "#ffffff"}


def svg(text: str, *, inverted: bool, scale: int = 5) -> str:
    """The code as an SVG document (for the box's page)."""
    out = io.BytesIO()
    _code(text).save(out, kind="svg", scale=scale, border=4, xmldecl=False,
                     **_colours(inverted))
    return out.getvalue().decode("utf-8")


def png(text: str, path: Path, *, inverted: bool, scale: int = 8) -> None:
    """The code as a PNG file."""
    _code(text).save(str(path), kind="png", scale=scale, border=4, **_colours(inverted))


def terminal(text: str) -> str:
    """The code in text blocks for a terminal (dark modules on a light border)."""
    out = io.StringIO()
    _code(text).terminal(out=out, compact=True, border=2)
    return out.getvalue()
