"""The web page's server: a Starlette application with the page and its JSON API.

    GET  /                               the page (static/index.html)
    GET  /api/options                    sizes, rules, set-ups, bots, checkpoints, whether a db is open
    POST /api/games                      {size, variant, setup, colour, bot, seed?} -> a new game
    GET  /api/games/{id}                 the game as it stands
    POST /api/games/{id}/move            {move: "F6" | "Pass" | cell index}
    POST /api/games/{id}/undo            take back the person's last move (and the bot's answer)
    POST /api/games/{id}/bot             let the bot try again after it failed
    GET  /api/games/{id}/record          the game record (text file, ``tw-rl analyze`` notation)
    GET  /api/stored                     the games of the results database (``--db``)
    POST /api/study                      {db_game: id} or {record, size, variant} -> an opened game
    GET  /api/study/{id}/ply/{k}         one position of an opened game
    GET  /api/study/{id}/analysis/{k}    ?checkpoint=PATH: the network's policy and value there

Every refusal is a JSON ``{"error": "..."}`` with a 4xx status (an illegal move is 409 with the
rules' reason); an unexpected failure is a 500 with one line, and the server goes on. Work that
takes time (the bot's search, a checkpoint's forward pass) runs in worker threads.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tw_rl.core.hexgrid import SIZES
from tw_rl.core.rules import VARIANTS
from tw_rl.web.bots import DEFAULT_BOT, USAGE, BotError
from tw_rl.web.games import PAGE_SETUPS, GameError, GameStore, MoveRefused, PlayGame, UnknownGame
from tw_rl.web.study import Analyst, GameLibrary, StudyError, UnknownStudy, study_record, study_shelf

STATIC = Path(__file__).resolve().with_name("static")
MAX_BODY = 200_000
log = logging.getLogger(__name__)


@dataclass
class ServerSettings:
    db: str | None = None  # an arena results database to browse
    checkpoints: list[str] = field(default_factory=list)  # offered for analysis (and as bots)
    analysis_checkpoint: str | None = "default"  # the one chosen at first
    bot: str = DEFAULT_BOT


class RequestError(ValueError):
    """A malformed request (not JSON, a missing or wrong field): 400."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RequestError(f"the request is too large ({len(raw)} bytes; at most {MAX_BODY})")
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def _int(value, what: str) -> int:
    if isinstance(value, bool):
        raise RequestError(f"{what} must be a whole number")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RequestError(f"{what} must be a whole number, not {value!r}") from None


def create_app(settings: ServerSettings | None = None) -> Starlette:
    """The application; ``settings`` name the database and checkpoints the page offers."""
    settings = settings or ServerSettings()
    games = GameStore()
    studies = study_shelf()
    analyst = Analyst(settings.analysis_checkpoint)
    library = GameLibrary(settings.db) if settings.db else None

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
                "checkpoints": ["default", *settings.checkpoints],
                "analysis_checkpoint": settings.analysis_checkpoint,
                "db": settings.db,
            }
        )

    async def new_game(request: Request) -> Response:
        data = await _body(request)
        game = await run_in_threadpool(
            games.new,
            _int(data.get("size", 6), "size"),
            str(data.get("variant", "codecup")),
            str(data.get("setup", "")),
            str(data.get("colour", "red")),
            str(data.get("bot", settings.bot)),
            _int(data["seed"], "seed") if data.get("seed") is not None else None,
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
        data = await _body(request)
        if "move" not in data:
            raise RequestError('give the move as {"move": "F6"} (a cell name, Pass, or a cell index)')
        return JSONResponse(await run_in_threadpool(_locked, game, game.play, data["move"]))

    async def undo(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(_locked, game, game.undo))

    async def bot_move(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(_locked, game, game.bot_move))

    async def record(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        text = await run_in_threadpool(_read, game, PlayGame.record)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="tumbleweed-{game.id}.txt"'}
        )

    async def stored(request: Request) -> Response:
        if library is None:
            return JSONResponse({"db": None, "games": []})
        return JSONResponse({"db": settings.db, "games": await run_in_threadpool(library.listing)})

    async def open_study(request: Request) -> Response:
        data = await _body(request)
        if data.get("db_game") is not None:
            if library is None:
                raise StudyError("no results database is open: start the server with --db FILE")
            game = await run_in_threadpool(library.game, _int(data["db_game"], "db_game"))
        elif isinstance(data.get("record"), str):
            game = await run_in_threadpool(
                study_record,
                data["record"],
                _int(data.get("size", 6), "size"),
                str(data.get("variant", "codecup")),
                "diff",
                str(data.get("title") or "record"),
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
        return JSONResponse(await run_in_threadpool(analyst.analyse, game, ply, checkpoint))

    async def refused(request: Request, exc: Exception) -> Response:
        return _error(409, str(exc))

    async def bad_request(request: Request, exc: Exception) -> Response:
        return _error(400, str(exc))

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(404, str(exc))

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, exc.detail or "error")

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error in %s", request.url.path)
        return _error(500, f"unexpected error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", page),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game}", get_game),
        Route("/api/games/{game}/move", move, methods=["POST"]),
        Route("/api/games/{game}/undo", undo, methods=["POST"]),
        Route("/api/games/{game}/bot", bot_move, methods=["POST"]),
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
        HTTPException: http_error,
        Exception: unexpected,
    }
    return Starlette(routes=routes, exception_handlers=handlers)
