"""Serving an in-process player as a CodeCup-protocol program, so the referee can play it.

    python -m tw_rl.rating.serve SPEC_JSON [--size N] [--seed S]

plays one game on stdin/stdout as the player ``SPEC_JSON`` (``PlayerSpec.serve_json``);
``serve_argv`` builds that command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np
import torch

from tw_rl.codecup.protocol import run
from tw_rl.core.rules import Rules
from tw_rl.rating.player_specs import PlayerSpec
from tw_rl.rating.players import Player, make_player

MODULE = "tw_rl.rating.serve"


def serve_argv(spec: PlayerSpec, size: int, seed: int) -> tuple[str, ...]:
    """The command line that serves ``spec`` (seeded with ``seed``) for one game."""
    return (sys.executable, "-m", MODULE, spec.serve_json(), "--size", str(size), "--seed", str(seed))


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
    data = json.loads(spec_json)
    spec = PlayerSpec(
        kind=data["kind"],
        name="served",
        label=data.get("label", ""),
        path=data.get("path", ""),
        simulations=int(data.get("simulations", 0)),
        playouts=int(data.get("playouts", 0)),
    )
    rules = Rules(size, "codecup")
    if spec.kind == "checkpoint":
        torch.set_num_threads(1)
    player = make_player(spec, rules)
    return run(ServedPlayer(player, rules, seed), size=size, budget=1e9)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}", description="Play one CodeCup-protocol game as an in-process player."
    )
    parser.add_argument("spec", help="the player as JSON (PlayerSpec.serve_json)")
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return serve(args.spec, args.size, args.seed)


if __name__ == "__main__":
    sys.exit(main())
