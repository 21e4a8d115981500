"""The server's front door, as ASGI middleware: who may talk to it, and how.

- **Host**: a request whose ``Host`` header names anything but the addresses served (the
  loopback names by default, plus the names given to ``tw-rl serve``) is refused (403): a web
  page the user visits cannot reach the server through DNS rebinding.
- **Token**: when the server has one (always when it listens beyond loopback), every request
  must carry it: ``?token=...`` in the address (the page's first visit; it is then kept in an
  HttpOnly, SameSite=Strict cookie), the cookie, or ``Authorization: token ...``.
- **State-changing requests** (anything but GET and HEAD) must be sent as
  ``Content-Type: application/json`` (which a plain HTML form cannot send, nor a script on
  another site without a CORS preflight the server never grants) and, when the browser sends an
  ``Origin``, from this server's own origin.
- **Client**: each browser gets an id cookie (``tw_rl_client``); the app keys the games it keeps
  per client by it (by the peer address when a client sends none).

Every refusal is one line of JSON (``{"error": ...}``), as the rest of the API answers.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import secrets
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
TOKEN_COOKIE = "tw_rl_token"
CLIENT_COOKIE = "tw_rl_client"
SAFE_METHODS = frozenset({"GET", "HEAD"})
_CLIENT_ID = re.compile(r"[0-9a-f]{32}")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address to listen on) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name of a ``Host`` header without its port, lower case (``[::1]:8000`` -> ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    name, colon, port = header.rpartition(":")
    return name if colon and port.isdigit() else header


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def _cookies(scope) -> dict[str, str]:
    raw = _header(scope, b"cookie")
    if not raw:
        return {}
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return {}
    return {k: v.value for k, v in jar.items()}


class Guard:
    """ASGI middleware around the app: Host allow-list, token, JSON and same-origin writes."""

    def __init__(self, app, allowed_hosts: Iterable[str] | None = LOOPBACK_NAMES, token: str | None = None):
        """``allowed_hosts``: the names a ``Host`` header may give (None: any, for a server
        behind a name the user chose; then only the token guards it); ``token``: required when
        given."""
        self.app = app
        self.allowed = (
            None if allowed_hosts is None else frozenset(h.lower().strip("[]") for h in allowed_hosts)
        )
        self.token = token

    async def _refuse(self, send, status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _token_of(self, scope, cookies: dict[str, str]) -> tuple[str | None, bool]:
        """The token the request carries, and whether it came in the address."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("token"):
            return query["token"][0], True
        auth = _header(scope, b"authorization") or ""
        word, _, value = auth.partition(" ")
        if word.lower() in ("token", "bearer") and value:
            return value.strip(), False
        return cookies.get(TOKEN_COOKIE), False

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host") or ""
        name = host_name(host)
        if self.allowed is not None and name not in self.allowed:
            shown = host if len(host) <= 60 else host[:57] + "..."
            await self._refuse(
                send,
                403,
                f"this server answers to {', '.join(sorted(self.allowed))} only, not to the host {shown!r} "
                "(start it with --allow-host NAME to add a name)",
            )
            return
        cookies = _cookies(scope)
        set_cookies: list[str] = []
        if self.token is not None:
            given, in_address = self._token_of(scope, cookies)
            if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
                await self._refuse(
                    send,
                    403,
                    "this server needs its token: open the address that tw-rl serve printed "
                    "(it ends in ?token=...)"
                    if given is None
                    else "wrong token for this server",
                )
                return
            if in_address:
                set_cookies.append(f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict")
        method = scope["method"].upper()
        if method not in SAFE_METHODS:
            media = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if media != "application/json":
                await self._refuse(
                    send,
                    415,
                    f"{method} requests must be sent as Content-Type: application/json "
                    f"(this one was {media or 'without a content type'!s:.60})",
                )
                return
            origin = _header(scope, b"origin")
            scheme = scope.get("scheme", "http")
            if origin is not None and origin.lower() != f"{scheme}://{host}".lower():
                await self._refuse(
                    send, 403, f"a request from another site ({origin[:60]!r}) may not change anything here"
                )
                return
        client = cookies.get(CLIENT_COOKIE, "")
        if not _CLIENT_ID.fullmatch(client):
            peer = scope.get("client") or ("", 0)
            client = ""
            new_id = secrets.token_hex(16)
            set_cookies.append(f"{CLIENT_COOKIE}={new_id}; Path=/; HttpOnly; SameSite=Strict")
            scope.setdefault("state", {})["client"] = f"peer:{peer[0]}"
        else:
            scope.setdefault("state", {})["client"] = client

        if not set_cookies:
            await self.app(scope, receive, send)
            return

        async def send_with_cookies(message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"set-cookie", c.encode("latin-1")) for c in set_cookies]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookies)
