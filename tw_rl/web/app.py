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

The routes are one table (``ROUTES``: path, handler, methods), the handlers the methods of
``tw_rl.web.handlers.Handlers``, and the refusals one table too (``REFUSALS``: exception, status).
Checkpoints and databases are named as ``/api/options`` lists them (``default`` and the
server's ``--checkpoint`` files; its ``--db`` files; by name or number), never by a path.
``guard.Guard`` checks the Host, the token and the writes before a request reaches a route.
Searches and analyses wait for one of a few slots (``limits.WorkQueue``; a full queue is a
429); bodies are read up to a limit (413).
Every refusal is a JSON ``{"error": "..."}`` with a 4xx status (an illegal move is 409 with the
rules' reason); an unexpected failure is a 500 with one line, and the server goes on.
"""

from __future__ import annotations

import logging

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tw_rl.web.bots import BotError
from tw_rl.web.games import GameError, MoveRefused, UnknownGame
from tw_rl.web.guard import Guard, is_loopback
from tw_rl.web.handlers import STATIC, Handlers, RequestError, TooLarge
from tw_rl.web.hints import HintError
from tw_rl.web.limits import Busy, Limits
from tw_rl.web.settings import ServerSettings, SettingsError
from tw_rl.web.study import StudyError, UnknownStudy

__all__ = ["Limits", "ServerSettings", "SettingsError", "create_app", "is_loopback"]  # what the CLI uses
log = logging.getLogger(__name__)

GET, POST = ("GET",), ("POST",)
# path, the name of its Handlers method, methods
ROUTES = (
    ("/", "page", GET),
    ("/api/options", "options", GET),
    ("/api/games", "new_game", POST),
    ("/api/games/{game}", "get_game", GET),
    ("/api/games/{game}/ply/{ply}", "game_ply", GET),
    ("/api/games/{game}/move", "move", POST),
    ("/api/games/{game}/undo", "undo", POST),
    ("/api/games/{game}/bot", "bot_move", POST),
    ("/api/games/{game}/hint", "game_hint", POST),
    ("/api/games/{game}/eval/{ply}", "game_eval", GET),
    ("/api/games/{game}/record", "record", GET),
    ("/api/stored", "stored", GET),
    ("/api/study", "open_study", POST),
    ("/api/study/{study}/ply/{ply}", "study_ply", GET),
    ("/api/study/{study}/analysis/{ply}", "analysis", GET),
)
# A handler's refusal: its exception and the status of the JSON error (the most specific class
# of an exception that is listed wins: MoveRefused is a GameError, TooLarge a RequestError).
REFUSALS = {
    MoveRefused: 409,
    TooLarge: 413,
    RequestError: 400,
    GameError: 400,
    StudyError: 400,
    BotError: 400,
    HintError: 400,
    UnknownGame: 404,
    UnknownStudy: 404,
    Busy: 429,
}
RETRY_AFTER = {429: {"Retry-After": "2"}}  # a full search queue: ask again in 2 s


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=RETRY_AFTER.get(status))


async def refusal(request: Request, exc: Exception) -> Response:
    status = next(REFUSALS[cls] for cls in type(exc).__mro__ if cls in REFUSALS)
    return error(status, str(exc))


async def http_error(request: Request, exc: HTTPException) -> Response:
    return error(exc.status_code, exc.detail or "error")


async def unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error in %s", request.url.path)
    return error(500, f"unexpected error: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")


def create_app(settings: ServerSettings | None = None) -> Guard:
    """The application behind its guard; ``settings`` name what the page offers and its limits
    (``BotError`` for a bad bot, ``StudyError`` for a database that cannot be read,
    ``SettingsError`` for a first checkpoint not offered)."""
    settings = settings or ServerSettings()
    handlers = Handlers(settings)
    routes = [Route(path, getattr(handlers, name), methods=list(methods)) for path, name, methods in ROUTES]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    errors = {cls: refusal for cls in REFUSALS} | {HTTPException: http_error, Exception: unexpected}
    app = Starlette(routes=routes, exception_handlers=errors, lifespan=handlers.lifespan)
    return Guard(app, settings.allowed_hosts, settings.token)
