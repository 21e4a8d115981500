"""The native network checked against its torch twin: the same positions put to the native
tools binary's ``--test`` mode (``nfeat``: the active inputs, ``nnue``: the raw outputs,
``search``: a fixed-size search's move) and to ``nnue_features`` / ``nnue_net``.

Positions travel as ``R W m1 m2 ...`` (the start cells, then the moves), from games in which
each move is the greedy player's (the best territory margin after it) with probability
``greedy`` and a random legal move otherwise, seeded: the mid-game and end-game positions real
players reach, every position of each game that is not over.  ``scripts/nnue_agreement.py``
prints the figures; ``tests/native/test_nnue.py`` asserts them.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import numpy as np
import torch

from tw_rl.codecup.players import GreedyPlayer
from tw_rl.codecup.rules import Board, Position, judge_start
from tw_rl.expert.nnue_features import position_rows
from tw_rl.expert.nnue_net import NnueNet

BOARD = Board(6)

Record = tuple[int, int, list[int]]


def game_positions(games: int, seed: int, greedy: float = 0.7) -> list[Record]:
    """Every position (not over) of ``games`` seeded greedy-and-random games."""
    rng = random.Random(seed)
    player = GreedyPlayer(seed)
    records: list[Record] = []
    for _ in range(games):
        red, white = judge_start(BOARD, rng)
        pos = Position.start(BOARD, red, white)
        moves: list[int] = []
        while not pos.over:
            records.append((red, white, list(moves)))
            move = player.choose(pos) if rng.random() < greedy else rng.choice(pos.legal_moves())
            pos.play(move)
            moves.append(move)
    return records


def position(record: Record) -> Position:
    red, white, moves = record
    pos = Position.start(BOARD, red, white)
    for m in moves:
        pos.play(m)
    return pos


def text(record: Record) -> str:
    red, white, moves = record
    return " ".join(map(str, [red, white, *moves]))


def ask(binary: Path, commands: list[str], *options: str) -> list[str]:
    """The tools binary's answers in its --test mode, one line a command."""
    done = subprocess.run(
        [str(binary), "--test", *options],
        input="".join(c + "\n" for c in commands),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    answers = done.stdout.splitlines()
    if done.returncode != 0 or len(answers) != len(commands):
        raise RuntimeError(f"the tools binary failed: {(done.stderr.strip().splitlines() or ['?'])[0]}")
    return answers


def native_rows(binary: Path, records: list[Record]) -> list[list[int]]:
    answers = ask(binary, [f"nfeat {text(r)}" for r in records], "--no-weights")
    return [[int(x) for x in line.split()[1:]] for line in answers]


def native_outputs(binary: Path, weights: Path, records: list[Record]) -> dict[str, np.ndarray]:
    """value_logit [B], margin_share [B], logits [B, cells] of the C++ network."""
    answers = ask(binary, [f"nnue {text(r)}" for r in records], "--weights", str(weights))
    bad = [a for a in answers if not a.startswith("value_logit ")]
    if bad:
        raise RuntimeError(f"the tools binary answered: {bad[0][:200]}")
    fields = [a.split() for a in answers]
    return {
        "value_logit": np.array([float(f[1]) for f in fields]),
        "margin_share": np.array([float(f[3]) for f in fields]),
        "logits": np.array([[float(x) for x in f[5:]] for f in fields]),
    }


def twin_outputs(net: NnueNet, records: list[Record], quantized: bool | set) -> dict[str, np.ndarray]:
    rows = torch.tensor([position_rows(position(r)) for r in records], dtype=torch.int64)
    with torch.no_grad():
        out = net(rows, quantized)
    return {k: v.to(torch.float64).numpy() for k, v in out.items()}


def largest_differences(a: dict[str, np.ndarray], b: dict[str, np.ndarray], legal_only: list[Record]) -> dict:
    """The largest |a - b| of each output (the logits over each position's legal cells)."""
    out = {k: float(np.abs(a[k] - b[k]).max()) for k in ("value_logit", "margin_share")}
    worst = 0.0
    for k, record in enumerate(legal_only):
        cells = [m for m in position(record).legal_moves() if m < BOARD.num_cells]
        if cells:
            worst = max(worst, float(np.abs(a["logits"][k, cells] - b["logits"][k, cells]).max()))
    out["logits"] = worst
    return out


def search_moves(binary: Path, weights: Path, records: list[Record], sims: int) -> list[int]:
    """The move of a fresh search of ``sims`` simulations on each position."""
    answers = ask(binary, [f"search {sims} {text(r)}" for r in records], "--weights", str(weights))
    return [int(a.split()[1]) for a in answers]
