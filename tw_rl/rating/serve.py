"""Serving an in-process player as a CodeCup-protocol program, so the referee can play it.

    python -m tw_rl.rating.serve SPEC_JSON [--size N] [--seed S]

plays one game on stdin/stdout as the player ``SPEC_JSON`` (``PlayerSpec.to_json``: the whole
spec, and the module that registers its kind, imported here if need be); ``serve_argv`` builds
that command line. ``ServedPlayer`` is the adapter from the one in-process protocol (a batched
player, ``tw_rl.core.player``) to the CodeCup programs' ``choose(position, seconds_left)``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
import torch

from tw_rl.codecup.protocol import run
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.rating.kinds import PlayerSpec, kind_of
from tw_rl.rating.player_specs import make_player

MODULE = "tw_rl.rating.serve"


def serve_argv(spec: PlayerSpec, size: int, seed: int) -> tuple[str, ...]:
    """The command line that serves ``spec`` (seeded with ``seed``) for one game."""
    return (sys.executable, "-m", MODULE, spec.to_json(), "--size", str(size), "--seed", str(seed))


class ServedPlayer:
    """A batched in-process player behind the CodeCup protocol (``codecup.protocol.run``)."""

    def __init__(self, player: Player, rules: Rules, seed: int):
        self.player, self.rules = player, rules
        self.rng = np.random.default_rng(seed)

    def choose(self, position, seconds_left=None) -> int:
        state = self.rules.position(position.owner, position.height, position.to_move, position.passes)
        return int(self.player(self.rules, state, self.rng)[0])


def serve(spec_json: str, size: int = 6, seed: int = 0) -> int:
    """Play one CodeCup-protocol game on stdin/stdout as the in-process player ``spec_json``."""
    spec = PlayerSpec.from_json(spec_json)
    rules = Rules(size, "codecup")
    if kind_of(spec).uses_torch:
        torch.set_num_threads(1)
    player = make_player(spec, rules)
    return run(ServedPlayer(player, rules, seed), size=size, budget=1e9)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}", description="Play one CodeCup-protocol game as an in-process player."
    )
    parser.add_argument("spec", help="the player as JSON (PlayerSpec.to_json)")
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return serve(args.spec, args.size, args.seed)


if __name__ == "__main__":
    sys.exit(main())
