"""``tw-rl serve``: the local web page (play the bot, replay and study games) on a local address."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from tw_rl.cli.common import CliError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="a local web page: play the bot, replay and study games",
        description="Start a local web server and print its address. The page plays against the bot "
        "(any board size and rules), opens the games of an arena results database or a record "
        "file, and shows a checkpoint's policy (a heat map) and value at every ply.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to listen on (default %(default)s)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port (default %(default)s; 0 = any free port)"
    )
    parser.add_argument("--db", metavar="FILE", help="an arena results database whose games the page lists")
    parser.add_argument(
        "--checkpoint",
        metavar="PATH",
        action="append",
        default=[],
        help="a checkpoint offered for analysis (repeatable; the first is chosen at first; "
        "default: the shipped teacher)",
    )
    parser.add_argument(
        "--bot",
        default=None,
        help="the bot a new game starts with (default bot@1: the CodeCup bot, 1 s a move)",
    )
    parser.set_defaults(func=run)


def _listen(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise CliError(f"--port {port} is not a port number (0 to 65535)")
    try:
        sock = socket.create_server((host, port), reuse_port=False)
    except OSError as err:
        raise CliError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    return sock


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from tw_rl.web.app import ServerSettings, create_app
        from tw_rl.web.bots import BotError, parse_bot
        from tw_rl.web.study import StudyError
    except ModuleNotFoundError as err:
        raise CliError(
            f"tw-rl serve needs the web extra ({err.name} is missing): pip install -e '.[web]'"
        ) from None
    for path in args.checkpoint:
        if path != "default" and not Path(path).is_file():
            raise CliError(f"--checkpoint {path}: no such file")
    settings = ServerSettings(
        db=args.db,
        checkpoints=[c for c in args.checkpoint if c != "default"],
        analysis_checkpoint=args.checkpoint[0] if args.checkpoint else "default",
    )
    if args.bot is not None:
        try:
            parse_bot(args.bot)
        except BotError as err:
            raise CliError(f"--bot: {err}") from None
        settings.bot = args.bot
    try:
        app = create_app(settings)
    except StudyError as err:
        raise CliError(f"--db: {err}") from None
    sock = _listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"tw-rl serve: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    sys.stdout.flush()
    return 0
