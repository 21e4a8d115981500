"""Simulations per second of the native bot with its own network (nnue-1) beside the shipped
student, in one run, and what the incremental accumulator buys: the same network compiled with
``-DTW_NNUE_FULL_REFRESH`` (a full refresh at every evaluation).

    python scripts/bench_nnue.py runs/nnue/train-g1/nnue.twnet

The positions and the search are scripts/bench_bot.py's (seeded mid-game positions of the
6-board, a fresh tree each, ``--sims`` simulations); both binaries are the tools binary
(``tw_rl.native.build``) compiled with ``g++ -std=c++17 -O2``; the bench mode times CPU seconds,
``--rounds`` interleaved rounds, the best of each kept.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bot import default_student, make_positions  # noqa: E402

from tw_rl.codecup.errors import WeightsError  # noqa: E402
from tw_rl.codecup.weights import read_weights  # noqa: E402
from tw_rl.native import build  # noqa: E402


def bench(binary: Path, weights: Path, lines: str, sims: int) -> dict:
    done = subprocess.run(
        [str(binary), "--bench", str(sims), "--weights", str(weights)],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("nnue", type=Path, help="the native network's weights file (int16, int8 or float32)")
    p.add_argument("--positions", type=int, default=50, help="mid-game positions (default 50)")
    p.add_argument("--seed", type=int, default=2024, help="seed of the positions (default 2024)")
    p.add_argument("--sims", type=int, default=2000, help="simulations per search (default 2000)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds, best kept (default 3)")
    args = p.parse_args(argv)
    try:
        header = read_weights(str(args.nnue), 6).header
    except WeightsError as err:
        p.error(str(err))
    if header.get("arch") != "nnue-1":
        p.error(f"{args.nnue} holds a {header.get('arch')!r} network, not 'nnue-1'")
    folder = Path(tempfile.mkdtemp(prefix="tw_rl-bench-nnue-"))
    source = build.build_native_tools(None, folder / "bot-tools.cpp").path
    flags = ("-std=c++17", "-O2")
    binaries = {
        "incremental": build.compile_source(source, folder / "bot", flags),
        "refresh": build.compile_source(source, folder / "bot-refresh", (*flags, "-DTW_NNUE_FULL_REFRESH")),
    }
    records = make_positions(args.positions, args.seed)
    lines = "".join(" ".join(map(str, [r, w, *m])) + "\n" for r, w, m in records)
    runs = {
        "student": (binaries["incremental"], default_student()),
        "nnue": (binaries["incremental"], args.nnue),
        "nnue, full refresh": (binaries["refresh"], args.nnue),
    }
    best: dict[str, dict] = {}
    for _ in range(args.rounds):
        for name, (binary, weights) in runs.items():
            figures = bench(binary, weights, lines, args.sims)
            if name not in best or figures["sims_per_s"] > best[name]["sims_per_s"]:
                best[name] = figures
    if best["nnue"]["signature"] != best["nnue, full refresh"]["signature"]:
        print("the incremental and the refreshing accumulator searched differently", file=sys.stderr)
        return 1
    print(
        f"{args.positions} positions (seed {args.seed}), {args.sims} simulations each, "
        f"best of {args.rounds} rounds"
    )
    print("\n| native bot's network | search simulations/s | share of the student's |\n|---|---|---|")
    base = best["student"]["sims_per_s"]
    for name, figures in best.items():
        label = {
            "student": "shipped student",
            "nnue": f"nnue-1 width {header['width']}, hidden {header['hidden']}",
            "nnue, full refresh": "the same, accumulator refreshed at every evaluation",
        }[name]
        print(f"| {label} | {figures['sims_per_s']:,.0f} | {figures['sims_per_s'] / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
