"""The web page's server: a Starlette application with the page and its JSON API.

    GET  /                               the page (static/index.html)
    GET  /api/options                    sizes, rules, set-ups, bots, offered checkpoints, limits, db
    POST /api/games                      {size, variant, setup, colour, bot, seed?} -> a new game
    GET  /api/games/{id}                 the game as it stands
    GET  /api/games/{id}/ply/{k}         position k of the game (the move list's clicks)
    POST /api/games/{id}/move            {move: "F6" | "Pass" | cell index}
    POST /api/games/{id}/undo            {} : take back the person's last move (and the bot's
                                         answer); {ply: k}: go back to ply k
    POST /api/games/{id}/bot             let the bot try again after it failed
    POST /api/games/{id}/hint            the bot's search from here: best move, principal variation
    GET  /api/games/{id}/eval/{k}        ?by=bot|CHECKPOINT: the value of position k (the bar)
    GET  /api/games/{id}/record          the game record (text file, ``tw-rl analyze`` notation)
    GET  /api/stored                     ?db=NAME: the games of a results database (``--db``; the first)
    POST /api/study                      {db_game: id, db?: NAME} or {record, size, variant}: open one
    GET  /api/study/{id}/ply/{k}         one position of an opened game
    GET  /api/study/{id}/analysis/{k}    ?checkpoint=NAME: the network's policy and value there

Checkpoints and databases are named as ``/api/options`` lists them (``default`` and the
server's ``--checkpoint`` files; its ``--db`` files; by name or number), never by a path.
``guard.Guard`` checks the Host, the token and the writes before a request reaches a route.
Searches and analyses wait for one of a few slots (``limits.WorkQueue``; a full queue is a
429); bodies are read up to a limit (413).
Every refusal is a JSON ``{"error": "..."}`` with a 4xx status (an illegal move is 409 with the
rules' reason); an unexpected failure is a 500 with one line, and the server goes on.
"""

from __future__ import annotations

import json
import logging
import re
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tw_rl.core.hexgrid import SIZES
from tw_rl.core.rules import VARIANTS
from tw_rl.web.bot_syntax import DEFAULT_BOT, USAGE
from tw_rl.web.bots import BotError, parse_bot
from tw_rl.web.catalogue import Catalogue, NotOffered
from tw_rl.web.games import PAGE_SETUPS, GameError, GameStore, MoveRefused, PlayGame, UnknownGame
from tw_rl.web.guard import LOOPBACK_NAMES, Guard, is_loopback
from tw_rl.web.hints import HintError, bot_value, hint
from tw_rl.web.limits import Busy, Limits, WorkQueue
from tw_rl.web.study import Analyst, GameLibrary, StudyError, UnknownStudy, study_record, study_shelf

__all__ = ["Limits", "ServerSettings", "SettingsError", "create_app", "is_loopback"]  # what the CLI uses
STATIC = Path(__file__).resolve().with_name("static")
log = logging.getLogger(__name__)


class SettingsError(ValueError):
    """A server setting that cannot be used (a bot spec, a checkpoint name, a database)."""


@dataclass
class ServerSettings:
    db: str | None = None  # an arena results database to browse (the first)
    dbs: list[str] = field(default_factory=list)  # more of them
    checkpoints: list[str] = field(default_factory=list)  # files offered (besides default)
    analysis_checkpoint: str | None = "default"  # the one chosen at first (a name, number or file)
    bot: str = DEFAULT_BOT
    limits: Limits = field(default_factory=Limits)
    allowed_hosts: frozenset[str] | None = LOOPBACK_NAMES  # None: any Host (then the token guards)
    token: str | None = None  # required on every request when set


class RequestError(ValueError):
    """A malformed request (not JSON, a missing or wrong field): 400."""


class TooLarge(RequestError):
    """A body over the limit: 413."""


def _error(status: int, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _body(request: Request, limit: int) -> dict:
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise TooLarge(f"the request is too large ({length} bytes; at most {limit})")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the request is too large (over {limit} bytes)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise RequestError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def _int(value, what: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
        raise RequestError(f"{what} must be a whole number")
    if isinstance(value, str) and not re.fullmatch(r"\s*-?[0-9]{1,19}\s*", value):
        raise RequestError(f"{what} must be a whole number, not {value[:40]!r}")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise RequestError(f"{what} must be a whole number, not {str(value)[:40]!r}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise RequestError(f"{what} must be {low} to {high}, not {number}")
    return number


def _text(value, what: str) -> str:
    if not isinstance(value, str):
        raise RequestError(f"{what} must be a text, not {type(value).__name__}")
    return value


def create_app(settings: ServerSettings | None = None) -> Guard:
    """The application behind its guard; ``settings`` name what the page offers and its limits
    (``BotError`` for a bad bot, ``StudyError`` for a database that cannot be read,
    ``SettingsError`` for a first checkpoint not offered)."""
    settings = settings or ServerSettings()
    limits = settings.limits
    catalogue = Catalogue(settings.checkpoints)
    parse_bot(settings.bot, limits)  # BotError for a bad one
    try:
        chosen = catalogue.name_of(settings.analysis_checkpoint) if settings.analysis_checkpoint else None
    except NotOffered as err:
        raise SettingsError(str(err)) from None
    databases = Catalogue([*([settings.db] if settings.db else []), *settings.dbs], "database")
    libraries = {e.name: GameLibrary(e.path) for e in databases.entries}  # StudyError for a bad one
    games = GameStore(catalogue, limits)
    studies = study_shelf()
    analyst = Analyst(catalogue, chosen)
    work = WorkQueue(limits.searches, limits.queue, limits.wait_seconds)

    @asynccontextmanager
    async def lifespan(app):
        # Requests waiting for a search slot each hold a worker thread; leave room for the rest.
        threads = anyio.to_thread.current_default_thread_limiter()
        threads.total_tokens = max(threads.total_tokens, limits.searches + limits.queue + 32)
        yield

    def client_of(request: Request) -> str:
        return str(request.scope.get("state", {}).get("client", ""))

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> Response:
        return JSONResponse(
            {
                "sizes": list(SIZES),
                "variants": list(VARIANTS),
                "setups": {v: list(s) for v, s in PAGE_SETUPS.items()},
                "bot": settings.bot,
                "bot_usage": USAGE,
                "checkpoints": catalogue.names(),
                "analysis_checkpoint": chosen,
                "evaluators": ["bot", *catalogue.names()],
                "limits": limits.as_json(),
                "db": databases.names()[0] if databases.entries else None,
                "dbs": databases.names(),
            }
        )

    async def new_game(request: Request) -> Response:
        data = await _body(request, limits.body_bytes)
        seed = data.get("seed")
        game = await run_in_threadpool(
            work.run,
            games.new,
            _int(data.get("size", 6), "size"),
            _text(data.get("variant", "codecup"), "variant"),
            _text(data.get("setup", ""), "setup"),
            _text(data.get("colour", "red"), "colour"),
            _text(data.get("bot", settings.bot), "bot"),
            None if seed is None else _int(seed, "seed", 0, 2**63 - 1),
            "diff",
            client_of(request),
        )
        return JSONResponse(game.view())

    def _read(game, what):
        """``what(game)`` once the bot has finished with the game (waiting in a worker thread,
        never on the event loop)."""
        with game.lock:
            return what(game)

    async def get_game(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(_read, game, PlayGame.view))

    async def game_ply(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        k = _int(request.path_params["ply"], "ply")
        return JSONResponse(await run_in_threadpool(_read, game, lambda g: g.ply_view(k)))

    def _locked(game, action, *args):
        if not game.lock.acquire(timeout=0.5):
            raise GameError("the bot is still thinking about this game; wait for its move")
        try:
            action(*args)
            return game.view()
        finally:
            game.lock.release()

    async def move(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        data = await _body(request, limits.body_bytes)
        if "move" not in data:
            raise RequestError('give the move as {"move": "F6"} (a cell name, Pass, or a cell index)')
        chosen_move = data["move"]
        if not isinstance(chosen_move, (str, int)):
            raise MoveRefused(f"{str(chosen_move)[:40]!r} is not a move")
        return JSONResponse(await run_in_threadpool(work.run, _locked, game, game.play, chosen_move))

    async def undo(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        data = await _body(request, limits.body_bytes)
        ply = None if data.get("ply") is None else _int(data["ply"], "ply")
        return JSONResponse(await run_in_threadpool(_locked, game, game.undo, ply))

    async def bot_move(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(work.run, _locked, game, game.bot_move))

    async def game_hint(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        states = list(game.states)
        if not game.humans_turn():
            raise HintError("a hint is for your turn")
        return JSONResponse(
            await run_in_threadpool(
                work.run, hint, game.rules, states[-1], limits.hint_seconds, game.notation
            )
        )

    async def game_eval(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        states = list(game.states)
        k = _int(request.path_params["ply"], "ply")
        if not 0 <= k < len(states):
            raise GameError(f"ply {k} is out of range: this game has plies 0 to {len(states) - 1}")
        by = request.query_params.get("by") or "bot"
        if by == "bot":
            result = await run_in_threadpool(work.run, bot_value, game.rules, states[k])
        else:
            if states[k].terminated[0]:
                raise HintError("the game is over")
            result = await run_in_threadpool(
                work.run, analyst.evaluate, game.rules, states[k], by, game.notation
            )
            result = {
                "by": result["checkpoint"],
                "value": result["value"],
                "value_red": result["value_red"],
                "note": f"checkpoint {result['checkpoint']}: {result['note']}",
            }
        return JSONResponse({"ply": k, **result})

    async def record(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        text = await run_in_threadpool(_read, game, PlayGame.record)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="tumbleweed-{game.id}.txt"'}
        )

    def library_of(name) -> tuple[str, GameLibrary]:
        if not databases.entries:
            raise StudyError("no results database is open: start the server with --db FILE")
        try:
            chosen_db = databases.resolve(0 if name is None else name).name
        except NotOffered as err:
            raise StudyError(str(err)) from None
        return chosen_db, libraries[chosen_db]

    async def stored(request: Request) -> Response:
        if not databases.entries:
            return JSONResponse({"db": None, "games": []})
        name, library = library_of(request.query_params.get("db"))
        return JSONResponse({"db": name, "games": await run_in_threadpool(library.listing)})

    async def open_study(request: Request) -> Response:
        data = await _body(request, limits.body_bytes)
        if data.get("db_game") is not None:
            name, library = library_of(data.get("db"))
            game = await run_in_threadpool(library.game, _int(data["db_game"], "db_game"))
            if len(databases.entries) > 1:
                game.title += f" ({name})"
        elif isinstance(data.get("record"), str):
            title = data.get("title") or "record"
            game = await run_in_threadpool(
                study_record,
                data["record"],
                _int(data.get("size", 6), "size"),
                _text(data.get("variant", "codecup"), "variant"),
                "diff",
                str(title)[:100],
            )
        else:
            raise RequestError('give {"db_game": ID} or {"record": TEXT, "size": N, "variant": RULES}')
        studies.add(game.id, game)
        return JSONResponse(game.summary())

    async def study_ply(request: Request) -> Response:
        game = studies.get(request.path_params["study"])
        return JSONResponse(game.ply(_int(request.path_params["ply"], "ply")))

    async def analysis(request: Request) -> Response:
        game = studies.get(request.path_params["study"])
        ply = _int(request.path_params["ply"], "ply")
        checkpoint = request.query_params.get("checkpoint") or None
        return JSONResponse(await run_in_threadpool(work.run, analyst.analyse, game, ply, checkpoint))

    async def refused(request: Request, exc: Exception) -> Response:
        return _error(409, str(exc))

    async def bad_request(request: Request, exc: Exception) -> Response:
        return _error(413 if isinstance(exc, TooLarge) else 400, str(exc))

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(404, str(exc))

    async def busy(request: Request, exc: Exception) -> Response:
        return _error(429, str(exc), {"Retry-After": "2"})

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, exc.detail or "error")

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error in %s", request.url.path)
        return _error(500, f"unexpected error: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")

    routes = [
        Route("/", page),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game}", get_game),
        Route("/api/games/{game}/ply/{ply}", game_ply),
        Route("/api/games/{game}/move", move, methods=["POST"]),
        Route("/api/games/{game}/undo", undo, methods=["POST"]),
        Route("/api/games/{game}/bot", bot_move, methods=["POST"]),
        Route("/api/games/{game}/hint", game_hint, methods=["POST"]),
        Route("/api/games/{game}/eval/{ply}", game_eval),
        Route("/api/games/{game}/record", record),
        Route("/api/stored", stored),
        Route("/api/study", open_study, methods=["POST"]),
        Route("/api/study/{study}/ply/{ply}", study_ply),
        Route("/api/study/{study}/analysis/{ply}", analysis),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {
        MoveRefused: refused,
        RequestError: bad_request,
        UnknownGame: not_found,
        UnknownStudy: not_found,
        GameError: bad_request,
        StudyError: bad_request,
        BotError: bad_request,
        HintError: bad_request,
        Busy: busy,
        HTTPException: http_error,
        Exception: unexpected,
    }
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    return Guard(app, settings.allowed_hosts, settings.token)
