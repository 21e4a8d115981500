"""One player against another in batched games, neither stored nor rated (``scripts/match.py``),
e.g. a checkpoint against a baseline: the score with a 95% Wilson interval, the record as red and
as white, and CodeCup points per game.

Openings are drawn as the judge draws them, each played twice with colours swapped
(``tw_rl.training.match.play_match``); a player is any in-process player of the player language
(``random``, ``greedy``, ``mcts@N``, ``student:PATH``, ...) or a checkpoint file (searching with
``simulations``, or its raw policy). The rated, stored rating run is ``tw_rl.rating.rating_run``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from tw_rl.config import HeadToHeadConfig
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.rating.kinds import RatingError
from tw_rl.rating.player_specs import make_player, parse_player
from tw_rl.training.match import MatchScore, even_games, play_match


def named_player(name: str, rules: Rules, simulations: int) -> Player:
    """The in-process player ``name`` stands for; a file that is no other player is a checkpoint
    (searching ``simulations`` a move, its raw policy at 0)."""
    text = f"ckpt:{name}@{simulations}" if ":" not in name and Path(name).is_file() else name
    specs = parse_player(text, simulations, rules.size)
    if len(specs) != 1:
        raise RatingError(f"{name}: a head-to-head plays one player, this is {len(specs)}")
    if not specs[0].in_process:
        raise RatingError(f"{name}: a head-to-head plays in-process players; a program plays in tw-rl rate")
    return make_player(specs[0], rules)


def head_to_head(cfg: HeadToHeadConfig, log: Callable[[str], None] = print) -> dict:
    """Play ``cfg.games`` games, ``cfg.batch`` at a time, each opening twice with colours
    swapped; the report (``MatchScore.to_json`` and the settings) as a JSON-ready dict.

    An odd ``games`` or ``batch`` is rounded up to whole openings, with a note in the log. A
    checkpoint that cannot be read or is for another board size raises ``RatingError``.
    """
    if cfg.games < 1 or cfg.batch < 1:
        raise RatingError(f"games and batch must be at least 1 (got {cfg.games} and {cfg.batch})")
    games, batch = even_games(cfg.games), even_games(cfg.batch)
    if games != cfg.games:
        log(f"note: {cfg.games} games rounded up to {games}: each opening is played twice, colours swapped")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    rules = Rules(cfg.size)
    player = named_player(cfg.player, rules, 0 if cfg.raw else cfg.simulations)
    opponent = named_player(cfg.opponent, rules, cfg.simulations)
    rng = np.random.default_rng(cfg.seed)
    total = MatchScore()
    start = time.perf_counter()
    for first in range(0, games, batch):
        total += play_match(rules, player, opponent, min(batch, games - first), rng)
        log(f"{total.games}/{games} games: {total.line()}")
    return {
        "player": cfg.player,
        "opponent": cfg.opponent,
        "raw": cfg.raw,
        "sims": cfg.simulations,
        **total.to_json(),
        "seconds": round(time.perf_counter() - start, 1),
    }
