"""The page's opponents, named by a short spec, each choosing one action for a batch-of-one State.

- ``bot@SECONDS`` (default 1 s a move): the CodeCup bot's search (``tw_rl.codecup.search``)
  for SECONDS a move, with the shipped student where it fits (6-board) and the territory
  evaluator on other boards;
- ``ckpt:PATH@N`` (default 64): a training checkpoint's batched search with N simulations a move
  (PATH ``default`` = the shipped teacher);
- ``random``, ``greedy``: the baselines.

The CodeCup bot and the baselines know the game proper only: in the set-up steps of the
official rules (the pie) they choose at random among the legal set-up actions; a checkpoint's
search plays those steps too. A bad spec, a checkpoint that cannot be read or is for another
board is a ``BotError`` (one line for the page).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import numpy as np

from tw_rl.codecup.errors import EvaluatorError
from tw_rl.codecup.evaluation import TerritoryEvaluator, default_weights, make_evaluator
from tw_rl.codecup.rules import Board
from tw_rl.codecup.search import MCTS
from tw_rl.codecup.weights import WeightsError
from tw_rl.core.baselines import BASELINES
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.core.state import PLAY, State
from tw_rl.scalar_position import state_position
from tw_rl.training.checkpoint import CheckpointError
from tw_rl.training.match import search_player
from tw_rl.web.checkpoints import load_policy_value

DEFAULT_BOT = "bot@1"
DEFAULT_SECONDS = 1.0
DEFAULT_SIMULATIONS = 64
MAX_SECONDS = 60.0
MAX_SIMULATIONS = 20000
USAGE = "use bot[@SECONDS], ckpt:PATH[@SIMULATIONS] (PATH may be 'default'), random or greedy"
_SPEC = re.compile(r"^(?:(bot)(?:@([0-9.]+))?|ckpt:(.+?)(?:@(\d+))?|(random|greedy))$")


class BotError(ValueError):
    """A bot that cannot be made or cannot move: one line for the page."""


@dataclass(frozen=True)
class BotSpec:
    kind: str  # "bot", "checkpoint", "random" or "greedy"
    seconds: float = DEFAULT_SECONDS
    path: str = ""
    simulations: int = DEFAULT_SIMULATIONS

    def describe(self) -> str:
        if self.kind == "bot":
            return f"the CodeCup bot, {self.seconds:g} s a move"
        if self.kind == "checkpoint":
            return f"checkpoint {self.path}, {self.simulations} simulations a move"
        return f"the {self.kind} baseline"


def parse_bot(text: str) -> BotSpec:
    """A BotSpec from its spec string (BotError with the usage for anything else)."""
    match = _SPEC.match(str(text).strip())
    if match is None:
        raise BotError(f"unknown bot {text!r}: {USAGE}")
    bot, seconds, path, simulations, baseline = match.groups()
    if bot:
        value = float(seconds) if seconds else DEFAULT_SECONDS
        if not 0.0 < value <= MAX_SECONDS:
            raise BotError(f"bot@{seconds}: the time a move must be above 0 and at most {MAX_SECONDS:g} s")
        return BotSpec("bot", seconds=value)
    if path:
        count = int(simulations) if simulations else DEFAULT_SIMULATIONS
        if not 1 <= count <= MAX_SIMULATIONS:
            raise BotError(f"ckpt:{path}@{simulations}: simulations must be 1 to {MAX_SIMULATIONS}")
        return BotSpec("checkpoint", path=path, simulations=count)
    return BotSpec(baseline)


class Bot:
    """One opponent for one game: ``choose(state) -> action``."""

    def __init__(self, spec: BotSpec, rules: Rules, seed: int = 0):
        self.spec = spec
        self.rules = rules
        self.rng = np.random.default_rng(seed)
        self.note = ""  # what the bot runs on, for the page
        self._search = None
        self._player = None
        if spec.kind == "bot":
            self.board = Board(rules.size)
            weights = default_weights(rules.size)
            evaluator = TerritoryEvaluator()
            self.note = "without a network (the shipped student is for the 6-board)"
            if weights is not None:
                try:
                    evaluator = make_evaluator(weights, rules.size)
                    self.note = "with the shipped student network"
                except (EvaluatorError, WeightsError, OSError) as err:
                    self.note = f"without a network ({err})"
            self._search = MCTS(evaluator, reuse=False)
        elif spec.kind == "checkpoint":
            self._player = _checkpoint_search(spec, rules)
        else:
            self._player = BASELINES[spec.kind]

    def choose(self, state: State) -> int:
        """The bot's action in game 0 of ``state`` (which must not be over)."""
        legal = np.flatnonzero(self.rules.legal_mask(state)[0])
        if legal.size == 0:
            raise BotError("the bot has no legal action (the game is over)")
        if int(state.phase[0]) != PLAY and self.spec.kind != "checkpoint":
            return int(self.rng.choice(legal))  # only a checkpoint searches the set-up steps
        if self._search is not None:
            position = state_position(self.board, state, 0, self.rules.variant, self.rules.stale_end)
            return int(self._search.search(position, deadline=time.monotonic() + self.spec.seconds))
        action = int(self._player(self.rules, state, self.rng)[0])
        if action not in legal:
            raise BotError(f"{self.spec.describe()} chose an illegal action ({action})")
        return action


def _checkpoint_search(spec: BotSpec, rules: Rules):
    try:
        policy_value, _ = load_policy_value(spec.path, rules)
    except CheckpointError as err:
        raise BotError(str(err)) from None
    return search_player(policy_value, SearchConfig(simulations=spec.simulations))


def make_bot(text: str, rules: Rules, seed: int = 0) -> Bot:
    """The bot of a spec string for a game of ``rules`` (BotError when it cannot be made)."""
    return Bot(parse_bot(text), rules, seed)
