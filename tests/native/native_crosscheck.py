"""The cross-check of the native bot against the Python bot: positions from seeded random games,
the same question put to both (the binary's ``--test`` mode, one command a line), the answers
compared.  A position travels as ``R W m1 m2 ...`` (start cells, then the moves)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from tw_rl.codecup.evaluation import TerritoryEvaluator, default_weights, make_evaluator
from tw_rl.codecup.rules import Board, Position, count_at, judge_start
from tw_rl.codecup.search import MCTS

BOARD = Board(6)


def random_games(games: int, seed: int) -> list[tuple[int, int, list[int]]]:
    """Every position (start cells, moves) of ``games`` seeded random games, the end included."""
    rng = random.Random(seed)
    records = []
    for _ in range(games):
        red, white = judge_start(BOARD, rng)
        pos = Position.start(BOARD, red, white)
        moves: list[int] = []
        while True:
            records.append((red, white, list(moves)))
            if pos.over:
                break
            move = rng.choice(pos.legal_moves())
            pos.play(move)
            moves.append(move)
    return records


def position(record) -> Position:
    red, white, moves = record
    pos = Position.start(BOARD, red, white)
    for m in moves:
        pos.play(m)
    return pos


def text(record) -> str:
    red, white, moves = record
    return " ".join(map(str, [red, white, *moves]))


def ask(binary: Path, commands: list[str], *options: str) -> list[str]:
    """The binary's answers to ``commands`` in its --test mode, one line each."""
    done = subprocess.run(
        [str(binary), "--test", *options],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    answers = done.stdout.splitlines()
    assert len(answers) == len(commands), done.stderr[:300]
    return answers


def rules_answer(record) -> str:
    """What the Python engine says of a position, in the binary's `rules` answer format."""
    pos = position(record)
    rc, wc = pos.counts()
    tr, tw = pos.territory()
    r, w = pos.score()

    def cells(xs):
        return ",".join(map(str, xs))

    return (
        f"legal {cells(pos.legal_moves())} rs {''.join(str(count_at(rc, b)) for b in BOARD.bits)} "
        f"ws {''.join(str(count_at(wc, b)) for b in BOARD.bits)} tr {cells(tr)} tw {cells(tw)} "
        f"over {int(pos.over)} score {r},{w}"
    )


def rules_disagreements(binary: Path, records) -> list[tuple[str, str, str]]:
    """(position, Python's answer, the binary's) wherever legal moves, sight, territory, end or
    score differ."""
    commands = ["rules " + text(r) for r in records]
    answers = ask(binary, commands)
    out = []
    for record, answer in zip(records, answers, strict=True):
        want = rules_answer(record)
        if answer != want:
            out.append((text(record), want, answer))
    return out


def parse_evaluation(line: str) -> tuple[float, dict[int, float]]:
    parts = line.split()
    assert parts[0] == "value" and parts[2] == "priors", line
    priors = {}
    for item in parts[3:]:
        move, p = item.split(":")
        priors[int(move)] = float(p)
    return float(parts[1]), priors


def evaluation_gaps(binary: Path, records, network: bool = True) -> list[float]:
    """Per position the largest |difference| of value and priors (inf: other moves)."""
    evaluator = make_evaluator(default_weights(6), board_size=6) if network else TerritoryEvaluator()
    playing = [r for r in records if not position(r).over]
    answers = ask(binary, [("eval " if network else "teval ") + text(r) for r in playing])
    gaps = []
    for record, answer in zip(playing, answers, strict=True):
        priors, value = evaluator.evaluate(position(record))
        c_value, c_priors = parse_evaluation(answer)
        if list(c_priors) != list(priors):
            gaps.append(float("inf"))
            continue
        gaps.append(max([abs(c_value - value)] + [abs(c_priors[m] - priors[m]) for m in priors]))
    return gaps


def signature(stats, sig: int = 0) -> int:
    """The bench signature of one search's root statistics (the binary computes the same)."""
    for move, visits, _, _ in stats:
        sig = (sig * 31 + move * 1009 + visits) & 0xFFFFFFFF
    return sig


def search_agreement(binary: Path, records, sims: int, network: bool = True):
    """(same move, same signature, positions): a fresh search of ``sims`` simulations each."""
    evaluator = make_evaluator(default_weights(6), board_size=6) if network else TerritoryEvaluator()
    playing = [r for r in records if not position(r).over and len(position(r).legal_moves()) > 1]
    command = "search" if network else "tsearch"
    answers = ask(binary, [f"{command} {sims} {text(r)}" for r in playing])
    same_move = same_sig = 0
    for record, answer in zip(playing, answers, strict=True):
        mcts = MCTS(evaluator, reuse=False)
        move = mcts.search(position(record), max_sims=sims)
        parts = answer.split()
        same_move += int(parts[1]) == move
        same_sig += int(parts[5]) == signature(mcts.last_stats)
    return same_move, same_sig, len(playing)
