"""Where the live pages are served and reached: loopback or not (serving beyond loopback needs
a token), this machine's address on its network, and the pages' URLs to print and to show as a
QR code. No web library here: the command uses it without the [live] extra."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import quote

PAGES = ("display", "operator")  # the table display and the operator page, by their paths


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on its network (the one a phone on the same network reaches);
    loopback when it has none. Nothing is sent: a UDP socket's connect only picks a route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def page_urls(host: str, port: int, token: str | None) -> dict[str, str]:
    """The display's and the operator's URL as someone else's browser reaches them, by page
    (``display``, ``operator``), token included: a wildcard host is this machine's network
    address."""
    if host in ("0.0.0.0", "::", ""):
        host = lan_address()
    shown = f"[{host}]" if ":" in host else host
    query = f"?token={quote(token)}" if token else ""
    return {page: f"http://{shown}:{port}/{page}{query}" for page in PAGES}
