"""The web page's API handlers: one method per route over one server's state, and the reading of
request bodies and parameters (``RequestError``: 400, ``TooLarge``: 413).

``Handlers(settings)`` opens what the settings name (the checkpoints and databases on offer, the
games and studies in memory, the search queue); ``tw_rl.web.app`` maps each route of its table
to one of its methods. A handler refuses with an exception, which the app's error table turns
into a JSON ``{"error": "..."}`` with its status.
"""

from __future__ import annotations

import json
import re
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response

from tw_rl.core.hexgrid import SIZES
from tw_rl.core.rules import VARIANTS
from tw_rl.core.state import COLOUR_NAMES, RED
from tw_rl.web.bot_syntax import USAGE
from tw_rl.web.bots import parse_bot
from tw_rl.web.catalogue import Catalogue, NotOffered
from tw_rl.web.games import PAGE_SETUPS, GameError, GameStore, MoveRefused, PlayGame
from tw_rl.web.hints import HintError, bot_value, hint
from tw_rl.web.limits import WorkQueue
from tw_rl.web.settings import ServerSettings, SettingsError
from tw_rl.web.study import Analyst, GameLibrary, StudyError, study_record, study_shelf

STATIC = Path(__file__).resolve().with_name("static")  # the page itself (index.html, its script and style)


class RequestError(ValueError):
    """A malformed request (not JSON, a missing or wrong field): 400."""


class TooLarge(RequestError):
    """A body over the limit: 413."""


async def read_body(request: Request, limit: int) -> dict:
    """The request's JSON object, read up to ``limit`` bytes."""
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


def whole_number(value, what: str, low: int | None = None, high: int | None = None) -> int:
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


def text(value, what: str) -> str:
    if not isinstance(value, str):
        raise RequestError(f"{what} must be a text, not {type(value).__name__}")
    return value


def client_of(request: Request) -> str:
    """The client the guard named (its games are its own)."""
    return str(request.scope.get("state", {}).get("client", ""))


def read_locked(game, what):
    """``what(game)`` once the bot has finished with the game (waiting in a worker thread, never
    on the event loop)."""
    with game.lock:
        return what(game)


def change_locked(game, action, *args):
    """``action(*args)`` on the game unless the bot is still thinking about it; the game's view."""
    if not game.lock.acquire(timeout=0.5):
        raise GameError("the bot is still thinking about this game; wait for its move")
    try:
        action(*args)
        return game.view()
    finally:
        game.lock.release()


class Handlers:
    """One server's state and its route handlers (``BotError`` for a bad bot, ``StudyError`` for
    a database that cannot be read, ``SettingsError`` for a first checkpoint not offered)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.limits = limits = settings.limits
        self.catalogue = Catalogue(settings.checkpoints)
        parse_bot(settings.bot, limits)  # BotError for a bad one
        try:
            self.chosen = (
                self.catalogue.name_of(settings.analysis_checkpoint) if settings.analysis_checkpoint else None
            )
        except NotOffered as err:
            raise SettingsError(str(err)) from None
        self.databases = Catalogue([*([settings.db] if settings.db else []), *settings.dbs], "database")
        # StudyError for a database that cannot be read
        self.libraries = {e.name: GameLibrary(e.path) for e in self.databases.entries}
        self.games = GameStore(self.catalogue, limits)
        self.studies = study_shelf()
        self.analyst = Analyst(self.catalogue, self.chosen)
        self.work = WorkQueue(limits.searches, limits.queue, limits.wait_seconds)

    @asynccontextmanager
    async def lifespan(self, app):
        # Requests waiting for a search slot each hold a worker thread; leave room for the rest.
        threads = anyio.to_thread.current_default_thread_limiter()
        threads.total_tokens = max(threads.total_tokens, self.limits.searches + self.limits.queue + 32)
        yield

    def library_of(self, name) -> tuple[str, GameLibrary]:
        if not self.databases.entries:
            raise StudyError("no results database is open: start the server with --db FILE")
        try:
            chosen_db = self.databases.resolve(0 if name is None else name).name
        except NotOffered as err:
            raise StudyError(str(err)) from None
        return chosen_db, self.libraries[chosen_db]

    # ------------------------------------------------------------------ the page and its options

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(self, request: Request) -> Response:
        names = self.catalogue.names()
        return JSONResponse(
            {
                "sizes": list(SIZES),
                "variants": list(VARIANTS),
                "setups": {v: list(s) for v, s in PAGE_SETUPS.items()},
                "bot": self.settings.bot,
                "bot_usage": USAGE,
                "checkpoints": names,
                "analysis_checkpoint": self.chosen,
                "evaluators": ["bot", *names],
                "limits": self.limits.as_json(),
                "db": self.databases.names()[0] if self.databases.entries else None,
                "dbs": self.databases.names(),
            }
        )

    # ------------------------------------------------------------------ games against the bot

    async def new_game(self, request: Request) -> Response:
        data = await read_body(request, self.limits.body_bytes)
        seed = data.get("seed")
        game = await run_in_threadpool(
            self.work.run,
            self.games.new,
            whole_number(data.get("size", 6), "size"),
            text(data.get("variant", "codecup"), "variant"),
            text(data.get("setup", ""), "setup"),
            text(data.get("colour", COLOUR_NAMES[RED]), "colour"),
            text(data.get("bot", self.settings.bot), "bot"),
            None if seed is None else whole_number(seed, "seed", 0, 2**63 - 1),
            "diff",
            client_of(request),
        )
        return JSONResponse(game.view())

    async def get_game(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(read_locked, game, PlayGame.view))

    async def game_ply(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        k = whole_number(request.path_params["ply"], "ply")
        return JSONResponse(await run_in_threadpool(read_locked, game, lambda g: g.ply_view(k)))

    async def move(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        data = await read_body(request, self.limits.body_bytes)
        if "move" not in data:
            raise RequestError('give the move as {"move": "F6"} (a cell name, Pass, or a cell index)')
        chosen_move = data["move"]
        if not isinstance(chosen_move, (str, int)):
            raise MoveRefused(f"{str(chosen_move)[:40]!r} is not a move")
        return JSONResponse(
            await run_in_threadpool(self.work.run, change_locked, game, game.play, chosen_move)
        )

    async def undo(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        data = await read_body(request, self.limits.body_bytes)
        ply = None if data.get("ply") is None else whole_number(data["ply"], "ply")
        return JSONResponse(await run_in_threadpool(change_locked, game, game.undo, ply))

    async def bot_move(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        return JSONResponse(await run_in_threadpool(self.work.run, change_locked, game, game.bot_move))

    async def game_hint(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        states = list(game.states)
        if not game.humans_turn():
            raise HintError("a hint is for your turn")
        return JSONResponse(
            await run_in_threadpool(
                self.work.run, hint, game.rules, states[-1], self.limits.hint_seconds, game.notation
            )
        )

    async def game_eval(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        states = list(game.states)
        k = whole_number(request.path_params["ply"], "ply")
        if not 0 <= k < len(states):
            raise GameError(f"ply {k} is out of range: this game has plies 0 to {len(states) - 1}")
        by = request.query_params.get("by") or "bot"
        if by == "bot":
            result = await run_in_threadpool(self.work.run, bot_value, game.rules, states[k])
        else:
            if states[k].terminated[0]:
                raise HintError("the game is over")
            result = await run_in_threadpool(
                self.work.run, self.analyst.evaluate, game.rules, states[k], by, game.notation
            )
            result = {
                "by": result["checkpoint"],
                "value": result["value"],
                "value_red": result["value_red"],
                "note": f"checkpoint {result['checkpoint']}: {result['note']}",
            }
        return JSONResponse({"ply": k, **result})

    async def record(self, request: Request) -> Response:
        game = self.games.get(request.path_params["game"])
        record = await run_in_threadpool(read_locked, game, PlayGame.record)
        return PlainTextResponse(
            record, headers={"Content-Disposition": f'attachment; filename="tumbleweed-{game.id}.txt"'}
        )

    # ------------------------------------------------------------------ studying stored games

    async def stored(self, request: Request) -> Response:
        if not self.databases.entries:
            return JSONResponse({"db": None, "games": []})
        name, library = self.library_of(request.query_params.get("db"))
        return JSONResponse({"db": name, "games": await run_in_threadpool(library.listing)})

    async def open_study(self, request: Request) -> Response:
        data = await read_body(request, self.limits.body_bytes)
        if data.get("db_game") is not None:
            name, library = self.library_of(data.get("db"))
            game = await run_in_threadpool(library.game, whole_number(data["db_game"], "db_game"))
            if len(self.databases.entries) > 1:
                game.title += f" ({name})"
        elif isinstance(data.get("record"), str):
            title = data.get("title") or "record"
            game = await run_in_threadpool(
                study_record,
                data["record"],
                whole_number(data.get("size", 6), "size"),
                text(data.get("variant", "codecup"), "variant"),
                "diff",
                str(title)[:100],
            )
        else:
            raise RequestError('give {"db_game": ID} or {"record": TEXT, "size": N, "variant": RULES}')
        self.studies.add(game.id, game)
        return JSONResponse(game.summary())

    async def study_ply(self, request: Request) -> Response:
        game = self.studies.get(request.path_params["study"])
        return JSONResponse(game.ply(whole_number(request.path_params["ply"], "ply")))

    async def analysis(self, request: Request) -> Response:
        game = self.studies.get(request.path_params["study"])
        ply = whole_number(request.path_params["ply"], "ply")
        checkpoint = request.query_params.get("checkpoint") or None
        return JSONResponse(
            await run_in_threadpool(self.work.run, self.analyst.analyse, game, ply, checkpoint)
        )
