"""``tw-rl serve``: the local web page (play the bot, replay and study games) on a local address."""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from pathlib import Path

from tw_rl.cli.common import CliError
from tw_rl.web.bot_syntax import DEFAULT_BOT, DEFAULT_GAME_SECONDS, SYNTAX

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
WILDCARDS = ("0.0.0.0", "::", "")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="a local web page: play the bot, replay and study games",
        description="Start a local web server and print its address. The page plays against the bot "
        "(any board size and rules), opens the games of a rating results database or a record "
        "file, and shows a checkpoint's policy (a heat map) and value at every ply. It answers only "
        "to the names it serves (loopback by default); beyond loopback it prints an address with a "
        "random token and refuses requests without it.",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help="address to listen on (default %(default)s; anything but loopback needs the printed token)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port (default %(default)s; 0 = any free port)"
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="another name the server answers to in the Host header (repeatable; '*' = any name, "
        "the token still guarding it); the loopback names and --host are always allowed",
    )
    parser.add_argument(
        "--token",
        action="store_true",
        help="require a random token on loopback too (beyond loopback it is always required)",
    )
    parser.add_argument(
        "--db",
        metavar="FILE",
        action="append",
        default=[],
        help="a rating results database whose games the page lists, by its file name (repeatable)",
    )
    parser.add_argument(
        "--checkpoint",
        metavar="PATH",
        action="append",
        default=[],
        help="a checkpoint the page offers for analysis and as a bot, by its file name (repeatable; "
        "the first is chosen at first; 'default', the shipped teacher, is always offered). The page "
        "offers nothing else: clients cannot name files",
    )
    parser.add_argument(
        "--bot",
        default=None,
        help=f"the bot a new game starts with: {SYNTAX} (default {DEFAULT_BOT}: the CodeCup bot with "
        f"{DEFAULT_GAME_SECONDS:g} s for the whole game, as the rating's NAME@SECONDS, shared over its "
        "moves by its own clock)",
    )
    parser.add_argument(
        "--max-searches",
        type=int,
        default=2,
        metavar="N",
        help="searches and analyses run at once (default %(default)s)",
    )
    parser.add_argument(
        "--max-queue",
        type=int,
        default=32,
        metavar="N",
        help="more that wait for a slot; past that a request gets 429 (default %(default)s)",
    )
    parser.add_argument(
        "--games-per-client",
        type=int,
        default=10,
        metavar="N",
        help="games kept per browser; its oldest goes first (default %(default)s)",
    )
    parser.set_defaults(func=run)


def _listen(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise CliError(f"--port {port} is not a port number (0 to 65535)")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.create_server((host, port), family=family, reuse_port=False)
    except (OSError, OverflowError) as err:
        raise CliError(f"cannot listen on {host}:{port}: {getattr(err, 'strerror', None) or err}") from None
    return sock


def _allowed_hosts(host: str, extra: list[str]) -> frozenset[str] | None:
    """The names a Host header may give: loopback, the address served, the machine's names when
    it listens on every address, and ``--allow-host`` (None: any)."""
    if "*" in extra:
        return None
    names = {*LOOPBACK_NAMES, *(e.lower() for e in extra)}
    if host in WILDCARDS:
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    else:
        names.add(host.lower().strip("[]"))
    return frozenset(names)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from tw_rl.web.app import Limits, ServerSettings, SettingsError, create_app, is_loopback
        from tw_rl.web.bots import BotError, parse_bot
        from tw_rl.web.study import StudyError
    except ModuleNotFoundError as err:
        raise CliError(
            f"tw-rl serve needs the web extra ({err.name} is missing): pip install -e '.[web]'"
        ) from None
    for path in args.checkpoint:
        if path != "default" and not Path(path).is_file():
            raise CliError(f"--checkpoint {path}: no such file")
    for path in args.db:
        if not Path(path).is_file():
            raise CliError(f"--db {path}: no such file")
    for option, value, low in [
        ("--max-searches", args.max_searches, 1),
        ("--max-queue", args.max_queue, 0),
        ("--games-per-client", args.games_per_client, 1),
    ]:
        if value < low:
            raise CliError(f"{option} {value}: give {low} or more")
    for name in args.allow_host:
        if not name or any(c in name for c in " /?#@"):
            raise CliError(f"--allow-host {name!r} is not a host name")
    exposed = not is_loopback(args.host)
    token = secrets.token_urlsafe(24) if exposed or args.token else None
    settings = ServerSettings(
        dbs=args.db,
        checkpoints=[c for c in args.checkpoint if c != "default"],
        analysis_checkpoint=args.checkpoint[0] if args.checkpoint else "default",
        limits=Limits(
            searches=args.max_searches, queue=args.max_queue, games_per_client=args.games_per_client
        ),
        allowed_hosts=_allowed_hosts(args.host, args.allow_host),
        token=token,
    )
    if args.bot is not None:
        try:
            parse_bot(args.bot, settings.limits)
        except BotError as err:
            raise CliError(f"--bot: {err}") from None
        settings.bot = args.bot
    try:
        app = create_app(settings)
    except StudyError as err:
        raise CliError(f"--db: {err}") from None
    except SettingsError as err:
        raise CliError(f"--checkpoint: {err}") from None
    sock = _listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = socket.gethostname() if host in WILDCARDS else f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    print(f"tw-rl serve: {address}  (Ctrl-C to stop)", flush=True)
    if exposed:
        print(
            "tw-rl serve: listening beyond loopback; every request needs the token in that address",
            flush=True,
        )
    config = uvicorn.Config(app, log_level="warning", access_log=False, limit_concurrency=256)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    sys.stdout.flush()
    return 0
