"""Figures of the native bot's options for the CodeCup's points (issue 43): the evaluation cache
and the exact endgame.

The tools binary (``build.build_native_tools`` with the shipped student, ``g++ -std=c++17 -O2``
and ``--flags``) is measured two ways:

- the evaluation cache (``--eval-cache-mib``): ``--bench SIMS`` over ``scripts/bench_bot.py``'s
  positions (the same seed), without and with the cache, ``--rounds`` times interleaved, the
  best of each kept (CPU seconds: the figure holds when other work shares the machine); the
  two bench signatures (equal: a hit answers what the evaluator answered, so the searches are
  the same) and the cache's hit rate.  ``--bench`` searches each position in a fresh tree, so
  the hits are transpositions inside one search (the bot's cache also keeps its earlier moves');
- the exact endgame (``--endgame``): ``--games`` games of the binary against itself
  (``search SIMS`` a move after 4 seeded random moves), and at every position of them with 1 to
  20 undecided cells (outside both territory simulations) the solver with a deadline of
  ``--ms`` milliseconds (wall clock) and ``--nodes`` positions; by undecided cells, how many
  it solved exactly, how many it solved or proved won, and the CPU milliseconds of the exact
  ones (median and largest).

    python scripts/bench_search_options.py                    # 50 positions x 400 sims; 30 games, 50 ms
    python scripts/bench_search_options.py --flags=-march=native --rounds 5
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUCKETS = ((1, 2), (3, 4), (5, 8), (9, 12), (13, 20))


def build_tools(folder: Path, flags: list[str]) -> Path:
    from tw_rl.codecup.evaluation import default_weights
    from tw_rl.native import build

    info = build.build_native_tools(Path(default_weights(6)), folder / "bot-tools.cpp")
    return build.compile_source(info.path, folder / "bot-tools", ("-std=c++17", "-O2", *flags))


def bench(binary: Path, sims: int, lines: str, options: list[str]) -> dict:
    done = subprocess.run(
        [str(binary), "--bench", str(sims), *options], input=lines, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def cache_figures(binary: Path, args) -> list[str]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_bot import make_positions

    records = make_positions(args.positions, args.seed)
    lines = "".join(" ".join(map(str, [r, w, *moves])) + "\n" for r, w, moves in records)
    kinds = {"plain": [], "cache": ["--eval-cache-mib", str(args.cache_mib)]}
    out = [
        "| evaluator | cache | sims/s (best of rounds) | ratio | signature | hit rate |",
        "|---|---|---|---|---|---|",
    ]
    for evaluator, extra in (("student", []), ("territory", ["--no-weights"])):
        best: dict[str, dict] = {}
        for _ in range(args.rounds):
            for kind, options in kinds.items():
                figures = bench(binary, args.sims, lines, [*extra, *options])
                if kind not in best or figures["sims_per_s"] > best[kind]["sims_per_s"]:
                    best[kind] = figures
        base = best["plain"]["sims_per_s"]
        for kind in kinds:
            f = best[kind]
            hits = f.get("cache_hits")
            rate = "-" if hits is None else f"{hits / max(1, hits + f['cache_misses']):.1%}"
            out.append(
                f"| {evaluator} | {kind} | {f['sims_per_s']:,.0f} | {f['sims_per_s'] / base:.3f} | "
                f"{f['signature']} | {rate} |"
            )
    return out


def self_play_positions(binary: Path, games: int, sims: int, seed: int) -> list[tuple[int, str]]:
    """(undecided cells, position text) of every position with 1 to 20 undecided cells."""
    from tw_rl.codecup.rules import Board, Position, judge_start

    board = Board(6)
    rng = random.Random(seed)
    proc = subprocess.Popen([str(binary), "--test"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    found = []
    try:
        for _ in range(games):
            red, white = judge_start(board, rng)
            pos = Position.start(board, red, white)
            moves: list[int] = []
            while not pos.over:
                tr, tw = pos.territory_bits()
                undecided = board.num_cells - (tr | tw).bit_count()
                line = " ".join(map(str, [red, white, *moves]))
                if 1 <= undecided <= 20:
                    found.append((undecided, line))
                if len(moves) < 4:
                    move = rng.choice(pos.legal_moves())
                else:
                    proc.stdin.write(f"search {sims} {line}\n")
                    proc.stdin.flush()
                    move = int(proc.stdout.readline().split()[1])
                pos.play(move)
                moves.append(move)
    finally:
        proc.stdin.close()
        proc.wait()
    return found


def endgame_figures(binary: Path, args) -> list[str]:
    found = self_play_positions(binary, args.games, args.game_sims, args.seed)
    commands = "".join(f"endgame {args.nodes} {args.ms} {line}\n" for _, line in found)
    done = subprocess.run([str(binary), "--test"], input=commands, capture_output=True, text=True, check=True)
    answers = [dict(zip(w[0::2], w[1::2], strict=True)) for w in map(str.split, done.stdout.splitlines())]
    out = [
        "| undecided cells | positions | solved exactly | solved or proved won "
        "| CPU ms of the exact (median, max) |",
        "|---|---|---|---|---|",
    ]
    for lo, hi in BUCKETS:
        rows = [a for (u, _), a in zip(found, answers, strict=True) if lo <= u <= hi]
        exact = [a for a in rows if a["lower"] == a["upper"]]
        won = [a for a in rows if a["lower"] == a["upper"] or int(a["lower"]) >= 1]
        ms = [float(a["ms"]) for a in exact]
        spread = f"{statistics.median(ms):.1f}, {max(ms):.1f}" if ms else "-"
        out.append(f"| {lo}-{hi} | {len(rows)} | {len(exact)} | {len(won)} | {spread} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache-mib", type=float, default=32.0)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--game-sims", type=int, default=200)
    parser.add_argument("--ms", type=int, default=50)
    parser.add_argument("--nodes", type=int, default=10_000_000)
    parser.add_argument("--flags", default="", help="extra compiler flags, e.g. -march=native")
    parser.add_argument("--skip", choices=("cache", "endgame"), help="leave one part out")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_tools(Path(tmp), args.flags.split())
        if args.skip != "cache":
            print(f"evaluation cache: {args.positions} positions x {args.sims} sims, {args.rounds} rounds")
            print("\n".join(cache_figures(binary, args)))
        if args.skip != "endgame":
            print(f"\nexact endgame: {args.games} games ({args.game_sims} sims a move), {args.ms} ms each")
            print("\n".join(endgame_figures(binary, args)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
