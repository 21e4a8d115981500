"""The page's opponents, named by a short spec, each choosing one action for a batch-of-one State.

Each is a player of the one in-process protocol (``tw_rl.core.player``) behind the page's
``Bot.choose``: the baselines built by the rating's player kinds (``tw_rl.rating``), a
checkpoint's search (``training.match.search_player``), the CodeCup bot through a thin adapter
(``codecup_player``: one position of its engine at a time).

- ``bot@SECONDS`` (default ``bot@30``, the CodeCup clock): the CodeCup bot
  (``tw_rl.codecup.players.BotPlayer``) on a clock of SECONDS for the whole game, as the rating's
  ``NAME@SECONDS`` means; its own time control shares them over its moves (never more than
  ``Limits.move_seconds`` on one), with the shipped student where it fits (6-board) and the
  territory evaluator on other boards;
- ``ckpt:NAME@N`` (default 64): a checkpoint the server offers (by name or number, see
  ``catalogue``; ``default`` = the shipped teacher) searching N simulations a move;
- ``random``, ``greedy``: the baselines.

The syntax and its defaults are spelt in ``bot_syntax`` (the help of ``tw-rl serve`` shows them).

The CodeCup bot and the baselines know the game proper only: in the set-up steps of the
official rules (the pie) they choose at random among the legal set-up actions; a checkpoint's
search plays those steps too. A bad spec, a value out of range, a checkpoint not offered, one
that cannot be read or is for another board is a ``BotError`` (one line for the page).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tw_rl.codecup.clock import DEFAULT_SAFETY, TimeControl
from tw_rl.codecup.errors import EvaluatorError
from tw_rl.codecup.evaluation import TerritoryEvaluator, default_weights, make_evaluator
from tw_rl.codecup.players import BotPlayer
from tw_rl.codecup.rules import Board
from tw_rl.codecup.weights import WeightsError
from tw_rl.core.baselines import BASELINES
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.core.state import PLAY, State
from tw_rl.rating.player_specs import make_player, parse_player
from tw_rl.referee.releases import split_clock
from tw_rl.scalar_position import state_position
from tw_rl.training.checkpoint import CheckpointError
from tw_rl.training.match import search_player
from tw_rl.web.bot_syntax import DEFAULT_GAME_SECONDS, DEFAULT_SIMULATIONS, USAGE
from tw_rl.web.catalogue import Catalogue, NotOffered
from tw_rl.web.checkpoints import load_policy_value
from tw_rl.web.limits import Limits


class BotError(ValueError):
    """A bot that cannot be made or cannot move: one line for the page."""


@dataclass(frozen=True)
class BotSpec:
    kind: str  # "bot", "checkpoint", "random" or "greedy"
    seconds: float = DEFAULT_GAME_SECONDS  # the bot's clock for the whole game
    checkpoint: str = ""  # the name a client gave (resolved against the catalogue)
    simulations: int = DEFAULT_SIMULATIONS

    def describe(self) -> str:
        if self.kind == "bot":
            return f"the CodeCup bot, {self.seconds:g} s for the game"
        if self.kind == "checkpoint":
            return f"checkpoint {self.checkpoint}, {self.simulations} simulations a move"
        return f"the {self.kind} baseline"


def _shown(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def parse_bot(text: str, limits: Limits | None = None) -> BotSpec:
    """A BotSpec from its spec string (BotError with the usage for anything else); checkpoint
    names are checked when the bot is made."""
    limits = limits or Limits()
    if not isinstance(text, str):
        raise BotError(f"the bot must be a text such as bot@30, not {type(text).__name__}: {USAGE}")
    spec = text.strip()
    if spec in BASELINES:
        return BotSpec(spec)
    if spec == "bot" or spec.startswith("bot@"):
        value = spec.partition("@")[2]
        try:  # the rating's NAME@SECONDS syntax, one definition; the range is the page's own
            head, seconds = split_clock(spec, DEFAULT_GAME_SECONDS, positive=False)
        except ValueError:
            head = ""
        if head != "bot":
            raise BotError(
                f"{_shown(spec)!r}: give the seconds for the whole game as a plain number "
                "(bot@30 = 30 s a game, shared over the bot's moves, as the rating's NAME@SECONDS)"
            )
        low, high = limits.bot_seconds
        if not low <= seconds <= high:
            raise BotError(
                f"bot@{value}: the bot's clock is {low:g} to {high:g} s for the whole game on this server"
            )
        return BotSpec("bot", seconds=seconds)
    if spec.startswith("ckpt:"):
        name, at, count = spec[len("ckpt:") :].rpartition("@")
        if not at:
            name, count = count, ""
        if not name:
            raise BotError(f"{_shown(spec)!r}: name the checkpoint, e.g. ckpt:default@64")
        if count and not re.fullmatch(r"[0-9]{1,6}", count):
            raise BotError(
                f"{_shown(spec)!r}: the simulations a move are a whole number, e.g. ckpt:default@64"
            )
        simulations = int(count) if count else DEFAULT_SIMULATIONS
        if not 1 <= simulations <= limits.simulations:
            raise BotError(f"ckpt:...@{count}: simulations must be 1 to {limits.simulations} on this server")
        return BotSpec("checkpoint", checkpoint=name, simulations=simulations)
    raise BotError(f"unknown bot {_shown(spec)!r}: {USAGE}")


def bot_evaluator(size: int):
    """The CodeCup bot's evaluator on this board and a note on it: the shipped student on the
    board it was made for, the territory evaluator elsewhere."""
    weights = default_weights(size)
    if weights is None:
        return TerritoryEvaluator(), "without a network (the shipped student is for the 6-board)"
    try:
        return make_evaluator(weights, size), "with the shipped student network"
    except (EvaluatorError, WeightsError, OSError) as err:
        return TerritoryEvaluator(), f"without a network ({err})"


class Bot:
    """One opponent for one game: ``choose(state) -> action``, the page's shape (one game, one
    action) over a player of the one in-process protocol (``tw_rl.core.player.Player``)."""

    def __init__(
        self,
        spec: BotSpec,
        rules: Rules,
        catalogue: Catalogue | None = None,
        limits: Limits | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ):
        """``clock``: the seconds the CodeCup bot (bot@S) measures its moves and deadlines with
        (tests pass a fake one)."""
        self.spec = spec
        self.rules = rules
        self.rng = np.random.default_rng(seed)
        self.note = ""  # what the bot runs on, for the page
        self.codecup_bot: BotPlayer | None = None  # the CodeCup bot's own object (its log), for bot@S
        limits = limits or Limits()
        if spec.kind == "bot":
            evaluator, self.note = bot_evaluator(rules.size)
            self.codecup_bot = BotPlayer(
                evaluator=evaluator,
                time_control=TimeControl(
                    spec.seconds,
                    DEFAULT_SAFETY,
                    ceiling=min(spec.seconds * DEFAULT_SAFETY / 8.0, limits.move_seconds),
                ),
                now=clock,
            )
            self.player: Player = codecup_player(self.codecup_bot)
        elif spec.kind == "checkpoint":
            self.player = _checkpoint_search(spec, rules, catalogue or Catalogue())
        else:  # a baseline, built by the rating's player kinds
            self.player = make_player(parse_player(spec.kind)[0], rules)

    def choose(self, state: State) -> int:
        """The bot's action in game 0 of ``state`` (which must not be over)."""
        legal = np.flatnonzero(self.rules.legal_mask(state)[0])
        if legal.size == 0:
            raise BotError("the bot has no legal action (the game is over)")
        if int(state.phase[0]) != PLAY and self.spec.kind != "checkpoint":
            return int(self.rng.choice(legal))  # only a checkpoint searches the set-up steps
        action = int(self.player(self.rules, state, self.rng)[0])
        if action not in legal:
            raise BotError(f"{self.spec.describe()} chose an illegal action ({action})")
        return action


def codecup_player(bot: BotPlayer) -> Player:
    """The CodeCup bot (one position at a time, on its own clock) as a player of the one
    protocol: each unfinished game as a position of the bot's engine (a pass is ``num_cells``
    in both engines)."""
    boards: dict[int, Board] = {}

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        board = boards.setdefault(rules.size, Board(rules.size))
        actions = np.zeros(state.batch_size, dtype=np.int64)
        for game in np.flatnonzero(~state.terminated):
            position = state_position(board, state, int(game), rules.variant, rules.stale_end)
            actions[game] = bot.choose(position)
        return actions

    return play


def _checkpoint_search(spec: BotSpec, rules: Rules, catalogue: Catalogue) -> Player:
    """An offered checkpoint's search (the page's loader: one-line errors without paths)."""
    try:
        offered = catalogue.resolve(spec.checkpoint)
        policy_value, _ = load_policy_value(offered.path, rules, offered.name)
    except (NotOffered, CheckpointError) as err:
        raise BotError(str(err)) from None
    return search_player(policy_value, SearchConfig(simulations=spec.simulations))


def make_bot(
    text: str,
    rules: Rules,
    catalogue: Catalogue | None = None,
    limits: Limits | None = None,
    seed: int = 0,
    clock: Callable[[], float] = time.monotonic,
) -> Bot:
    """The bot of a spec string for a game of ``rules`` (BotError when it cannot be made)."""
    return Bot(parse_bot(text, limits), rules, catalogue, limits, seed, clock)
