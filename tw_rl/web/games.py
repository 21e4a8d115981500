"""Games against the bot on the web page: kept in memory, one lock each, with undo and a record.

A game holds every position it passed through (batch-of-one States), the actions between them
and the bot. The person plays one seat (the colour they chose: with the pie set-up, the seat
that sets up and, unless the guest swaps, plays red). ``play`` checks a person's action
against the rules and refuses an illegal one with the rules' reason (``MoveRefused``); the bot
then answers until it is the person's turn again. When the bot fails, the game keeps the
person's move and reports the failure (``bot_error``); ``bot_move`` tries again. ``undo`` takes
back the person's last move, or goes back to any earlier ply where the person was to move (a
click in the move list). The store keeps ``Limits.games`` games in all and
``Limits.games_per_client`` per client (a client's oldest game goes first).
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from tw_rl.core.notation import PASS, cell_name, format_record, parse_cell
from tw_rl.core.rules import VARIANTS, Rules
from tw_rl.core.state import PLAY, RED, WHITE, State
from tw_rl.web.bots import Bot, BotError, make_bot
from tw_rl.web.catalogue import Catalogue
from tw_rl.web.limits import Limits
from tw_rl.web.shelf import Shelf
from tw_rl.web.views import PHASE_WORDS, board_view, position_view, status_line

PAGE_SETUPS = {"codecup": ("judge",), "official": ("pie", "judge")}  # ones a record can write


class GameError(ValueError):
    """A request the page cannot carry out (bad settings, unknown game): one line."""


class UnknownGame(GameError):
    """No game of that id on this server: 404."""


class MoveRefused(ValueError):
    """An action the rules do not allow here; the message says why."""


@dataclass
class PlayGame:
    rules: Rules
    human_seat: int
    bot: Bot
    notation: str = "diff"
    states: list[State] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    bot_error: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def state(self) -> State:
        return self.states[-1]

    def humans_turn(self) -> bool:
        state = self.state
        return not state.terminated[0] and int(state.current_seat()[0]) == self.human_seat

    def parse_action(self, move: str | int) -> int:
        if isinstance(move, bool):
            raise MoveRefused(f"{move!r} is not a move")
        if isinstance(move, int):
            if not 0 <= move <= self.rules.num_cells:
                raise MoveRefused(f"{move} is not a cell of this board")
            return move
        try:
            return parse_cell(self.rules.grid, str(move), self.notation)
        except ValueError as err:
            raise MoveRefused(str(err)) from None

    def play(self, move: str | int) -> None:
        """The person's action, then the bot's answers (MoveRefused when the rules refuse it)."""
        state = self.state
        if state.terminated[0]:
            raise MoveRefused("the game is over")
        if not self.humans_turn():
            raise MoveRefused("it is the bot's turn")
        action = self.parse_action(move)
        if not self.rules.legal_mask(state)[0, action]:
            raise MoveRefused(self._why(state, action))
        self._push(action)
        self.bot_move()

    def _why(self, state: State, action: int) -> str:
        name = cell_name(self.rules.grid, action, self.notation)
        if int(state.phase[0]) != PLAY:
            return f"{name}: not a set-up choice here ({PHASE_WORDS[int(state.phase[0])]})"
        return f"{name}: {self.rules.why_illegal(state, action)}"

    def _push(self, action: int) -> None:
        self.states.append(self.rules.step(self.state, action))
        self.actions.append(action)

    def bot_move(self) -> None:
        """Let the bot act until it is the person's turn or the game is over."""
        self.bot_error = None
        while not self.state.terminated[0] and not self.humans_turn():
            try:
                action = self.bot.choose(self.state)
            except BotError as err:
                self.bot_error = str(err)
                return
            except Exception as err:  # a bot must never take the page down with it
                self.bot_error = f"the bot failed: {type(err).__name__}: {err}"
                return
            self._push(action)

    def undo(self, ply: int | None = None) -> None:
        """Take back the person's last action and the bot's answers to it; with ``ply``, go
        back to that ply (0 = the start), which must be one where the person is to move."""
        seats = [int(s.current_seat()[0]) for s in self.states[:-1]]
        if ply is None:
            mine = [k for k, seat in enumerate(seats) if seat == self.human_seat]
            if not mine:
                raise MoveRefused("nothing to undo: you have not moved yet")
            ply = mine[-1]
        if not 0 <= ply < len(self.states):
            raise MoveRefused(f"ply {ply} is not in this game (plies 0 to {len(self.states) - 1})")
        if ply == len(self.states) - 1:
            raise MoveRefused(f"the game is at ply {ply} already")
        if seats[ply] != self.human_seat:
            raise MoveRefused(f"at ply {ply} the bot is to move: go back to a ply where you are")
        del self.states[ply + 1 :]
        del self.actions[ply:]
        self.bot_error = None

    def ply_view(self, k: int) -> dict:
        """Position ``k`` of the game (0 = the start) as the page draws it."""
        if not 0 <= k < len(self.states):
            raise GameError(f"ply {k} is out of range: this game has plies 0 to {len(self.states) - 1}")
        position = position_view(self.rules, self.states[k])
        mine = k < len(self.states) - 1 and int(self.states[k].current_seat()[0]) == self.human_seat
        return {"ply": k, "position": position, "status": status_line(position), "can_play_from": mine}

    def start_cells(self) -> tuple[int, int] | None:
        """Red's and white's start cells once the set-up is over (None before)."""
        for state in self.states:
            if int(state.phase[0]) == PLAY:
                owner = state.owner[0]
                red = np.flatnonzero(owner == RED)
                white = np.flatnonzero(owner == WHITE)
                return int(red[0]), int(white[0])
        return None

    def record(self) -> str:
        """The game record (start cells, then the moves of play) that ``tw-rl analyze`` reads."""
        starts = self.start_cells()
        if starts is None:
            raise GameError("the set-up is not finished: a record begins with both start cells")
        moves = [a for s, a in zip(self.states, self.actions, strict=False) if int(s.phase[0]) == PLAY]
        header = (
            f"# tw-rl web game {self.id}: size {self.rules.size}, {self.rules.variant} rules; "
            f"read with: tw-rl analyze FILE --size {self.rules.size} --rules {self.rules.variant}"
            f" --notation {self.notation}\n"
        )
        return header + format_record(self.rules.grid, starts[0], starts[1], moves, self.notation)

    def view(self) -> dict:
        position = position_view(self.rules, self.state)
        human_colour = None
        if int(self.state.phase[0]) == PLAY or self.state.terminated[0]:
            human_colour = "red" if int(self.state.red_seat[0]) == self.human_seat else "white"
        moves = []
        for state, action in zip(self.states, self.actions, strict=False):
            seat = int(state.current_seat()[0])
            moves.append(
                {
                    "name": cell_name(self.rules.grid, action, self.notation),
                    "by": "you" if seat == self.human_seat else "bot",
                }
            )
        return {
            "id": self.id,
            "board": board_view(self.rules, self.notation),
            "position": position,
            "status": status_line(position),
            "your_turn": self.humans_turn(),
            "you": human_colour,
            "bot": self.bot.spec.describe() + (f" ({self.bot.note})" if self.bot.note else ""),
            "bot_error": self.bot_error,
            "moves": moves,
            "can_undo": any(m["by"] == "you" for m in moves),
            "pass_name": PASS,
        }


class GameStore:
    """The games of one server, by id: the newest ``limits.games`` in all and the newest
    ``limits.games_per_client`` of each client."""

    def __init__(self, catalogue: Catalogue | None = None, limits: Limits | None = None) -> None:
        self.catalogue = catalogue or Catalogue()
        self.limits = limits or Limits()
        self._games: Shelf[PlayGame] = Shelf(self.limits.games, UnknownGame, "game")
        self._by_client: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def new(
        self,
        size: int,
        variant: str,
        setup: str,
        colour: str,
        bot: str,
        seed: int | None = None,
        notation: str = "diff",
        client: str = "",
    ) -> PlayGame:
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise GameError(f"unknown rules {str(variant)[:40]!r}: use one of {', '.join(VARIANTS)}")
        setup = setup or PAGE_SETUPS[variant][0]
        if setup not in PAGE_SETUPS[variant]:
            raise GameError(
                f"set-up {setup[:40]!r} is not offered for the {variant} rules here: "
                f"use {' or '.join(PAGE_SETUPS[variant])}"
            )
        if colour not in ("red", "white"):
            raise GameError(f"colour must be red or white, not {colour[:40]!r}")
        try:
            rules = Rules(int(size), variant, setup=setup)
        except (TypeError, ValueError) as err:
            raise GameError(str(err)) from None
        rng = np.random.default_rng(seed)
        the_bot = make_bot(bot, rules, self.catalogue, self.limits, int(rng.integers(2**31)))
        # With drawn starts seat 0 plays red; with the pie the host (seat 0) sets up and is red
        # unless the guest takes red.
        game = PlayGame(rules, 0 if colour == "red" else 1, the_bot, notation)
        game.states.append(rules.init(1, rng))
        game.bot_move()
        self._keep(game, client)
        return game

    def _keep(self, game: PlayGame, client: str) -> None:
        with self._lock:
            self._games.add(game.id, game)
            mine = self._by_client.setdefault(client, [])
            self._by_client.move_to_end(client)
            mine[:] = [g for g in mine if g in self._games]
            mine.append(game.id)
            while len(mine) > self.limits.games_per_client:
                self._games.remove(mine.pop(0))
            while len(self._by_client) > 4 * self.limits.games:  # forget clients long gone
                self._by_client.popitem(last=False)

    def get(self, game_id: str) -> PlayGame:
        return self._games.get(game_id)
