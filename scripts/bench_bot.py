"""Benchmark the CodeCup bot's search and evaluators: the frozen release 0.1, the current code and
its native (C++) twin.

On a fixed, seeded set of mid-game positions of the 6-board (random and greedy play, 12 to 39
plies, positions with a single legal move left out), for each bot and each evaluator (the
shipped student, and none: the territory evaluator) it measures

- search: simulations per second of the bot's PUCT search (a fresh tree per position,
  ``--sims`` simulations each, the root's full expansion included);
- evaluations per second of the evaluator alone (the territory it may take as a hint given);
- the rules engine alone: microseconds per ``search.advance`` (copy, play, and the territory
  the CodeCup end test needs), over every legal move of every position, and simulations per
  second of the same search with a free evaluator (uniform priors, value 0): engine + tree.

The native bot (``tw_rl/native``) is its tools binary: the parts of the C++ submission that
``tw-rl export --target cpp`` writes plus the bench mode (``build.build_native_tools``), with the
shipped student, compiled here with ``g++ -std=c++17 -O2`` (``--native-flags`` adds
flags, e.g. ``-march=native``); its ``--bench N`` mode searches the same positions (a fresh tree
each, N simulations) and prints its CPU seconds and a bench signature (root moves and visit
counts), which the current Python bot's searches reproduce when the two are the same bot.
``--no-native`` leaves it out (also done, with a note, when there is no compiler).
``--native-weights FILE ...`` also times the native bot with other networks (a wider student, or
the native network, arch nnue-1, of ``scripts/train_nnue.py``), in the same rounds, as
simulations/s and as a share of the shipped student's: what one of them costs at equal time.

Release 0.1 is loaded from ``baselines/tw_rl-0.1.py`` itself: a worker process executes that
file's definitions, installs its import hook (so ``tw_rl.codecup`` is the embedded 0.1 code)
and writes its embedded weights to a temporary file; the current code runs in a worker of
its own.  Times are CPU time of the worker (``time.process_time``); the workers run one after
the other, ``--rounds`` times each, interleaved, and the best figure of each is kept (the
machine may be busy with other work).  ``--profile`` adds
each search's cProfile summary (functions by own time; the profiler inflates call-heavy code).

    python scripts/bench_bot.py                          # 50 positions, 200 simulations each, 2 rounds
    python scripts/bench_bot.py --rounds 3 --profile
    python scripts/bench_bot.py --native-flags=-march=native
    python scripts/bench_bot.py --native-weights runs/w64/student.twnet   # a width-64 student too
    python scripts/bench_bot.py --native-weights runs/nnue/train-g1/nnue.twnet   # the native network
"""

from __future__ import annotations

import argparse
import base64
import cProfile
import io
import json
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "baselines" / "tw_rl-0.1.py"
VERSIONS = ("0.1", "current")
EVALUATORS = ("student", "none")


# ----------------------------------------------------------------------------- positions
def make_positions(count: int, seed: int) -> list[list]:
    """[red start, white start, moves] of ``count`` mid-game positions, drawn with the current
    engine (both bots replay the moves in their own engines)."""
    from tw_rl.codecup.players import GreedyPlayer
    from tw_rl.codecup.rules import Board, Position, judge_start

    board = Board(6)
    rng = random.Random(seed)
    greedy = GreedyPlayer(seed)
    records = []
    while len(records) < count:
        red, white = judge_start(board, rng)
        pos = Position.start(board, red, white)
        moves = []
        target = rng.randrange(12, 40)
        while not pos.over and pos.ply < target:
            move = greedy.choose(pos) if rng.random() < 0.5 else rng.choice(pos.legal_moves())
            pos.play(move)
            moves.append(move)
        if not pos.over and len(pos.legal_moves()) > 1:
            records.append([red, white, moves])
    return records


# ----------------------------------------------------------------------------- worker
def load_bot(version: str) -> dict:
    """The bot's modules and the path of its student weights."""
    if version == "0.1":
        ns = {"__name__": "tw_rl_release_0_1"}
        exec(compile(BASELINE.read_text(), str(BASELINE), "exec"), ns)
        ns["_install"]()  # tw_rl and tw_rl.codecup now come from the embedded 0.1 sources
        handle, weights = tempfile.mkstemp(suffix=".twnet")
        with os.fdopen(handle, "wb") as out:
            out.write(base64.b64decode(ns["_WEIGHTS_B64"]))
    else:
        weights = None
    import tw_rl.codecup.evaluation as evaluation
    import tw_rl.codecup.rules as rules
    import tw_rl.codecup.search as search

    if weights is None:
        weights = evaluation.default_weights(6)
    return {"rules": rules, "search": search, "evaluation": evaluation, "weights": weights}


class FreeEvaluator:
    """Uniform priors over the legal moves, value 0: the search without an evaluator's cost.

    ``territory``: the frozen 0.1 search passes the position's territory (its API); ignored."""

    def evaluate(self, position, territory=None):
        moves = position.legal_moves()
        p = 1.0 / len(moves)
        return {m: p for m in moves}, 0.0


def clock() -> float:
    """CPU seconds of this process: the figures hold up when other work shares the machine."""
    return time.process_time()


def run_worker(version: str, job: dict) -> dict:
    bot = load_bot(version)
    rules, search = bot["rules"], bot["search"]
    board = rules.Board(6)
    positions = []
    for red, white, moves in job["records"]:
        pos = rules.Position.start(board, red, white)
        for m in moves:
            pos.play(m)
        positions.append(pos)
    old_api = version == "0.1"  # advance returned (child, territory); evaluate took the territory
    hints = [pos.territory() if old_api else None for pos in positions]

    def evaluate(evaluator, pos, hint):
        return evaluator.evaluate(pos, hint) if old_api else evaluator.evaluate(pos)

    out = {"version": version}

    def search_rate(evaluator, sims, profile=False, signature=None):
        total = 0
        spent = 0.0
        profiler = cProfile.Profile() if profile else None
        for pos in positions:
            mcts = search.MCTS(evaluator, reuse=False)
            t0 = clock()
            if profiler:
                profiler.enable()
            mcts.search(pos, max_sims=sims)
            if profiler:
                profiler.disable()
            spent += clock() - t0
            total += mcts.last_sims
            if signature is not None:
                for move, visits, _, _ in mcts.last_stats:
                    signature[0] = (signature[0] * 31 + move * 1009 + visits) & 0xFFFFFFFF
        text = None
        if profiler:
            stream = io.StringIO()
            pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(job["profile_rows"])
            text = stream.getvalue()
        return total / spent, text

    for kind in EVALUATORS:
        evaluator = bot["evaluation"].make_evaluator(bot["weights"] if kind == "student" else None)
        reps = job["eval_reps"]
        for pos, hint in zip(positions, hints, strict=True):  # warm up (the network's row cache)
            evaluate(evaluator, pos, hint)
        t0 = clock()
        for _ in range(reps):
            for pos, hint in zip(positions, hints, strict=True):
                evaluate(evaluator, pos, hint)
        evals = reps * len(positions) / (clock() - t0)
        signature = None if old_api else [0]
        sims, _ = search_rate(evaluator, job["sims"], signature=signature)
        out[kind] = {"sims_per_s": sims, "evals_per_s": evals}
        if signature is not None:
            out[kind]["signature"] = signature[0]
        if job["profile"]:
            out[kind]["profile"] = search_rate(evaluator, job["sims"], profile=True)[1]
    # the rules engine alone
    calls = 0
    t0 = clock()
    for pos in positions:
        for m in pos.legal_moves():
            search.advance(pos, m)
            calls += 1
    out["advance_us"] = (clock() - t0) / calls * 1e6
    out["free_sims_per_s"] = search_rate(FreeEvaluator(), job["sims"])[0]
    return out


# ----------------------------------------------------------------------------- parent
def best_of(runs: list[dict]) -> dict:
    """The best figure of each measurement over the rounds."""
    best = json.loads(json.dumps(runs[0]))
    for run in runs[1:]:
        for kind in EVALUATORS:
            for key in ("sims_per_s", "evals_per_s"):
                best[kind][key] = max(best[kind][key], run[kind][key])
        best["advance_us"] = min(best["advance_us"], run["advance_us"])
        best["free_sims_per_s"] = max(best["free_sims_per_s"], run["free_sims_per_s"])
    return best


# ----------------------------------------------------------------------------- native
def build_native(folder: Path, flags: list[str]) -> Path:
    """The native tools binary (the submission's parts and the bench mode) with the shipped
    student, compiled in ``folder``."""
    from tw_rl.codecup.evaluation import default_weights
    from tw_rl.native import build

    info = build.build_native_tools(Path(default_weights(6)), folder / "bot-tools.cpp")
    return build.compile_source(info.path, folder / "bot", ("-std=c++17", "-O2", *flags))


def run_native(binary: Path, job: dict) -> dict:
    """The native bot's --bench on the job's positions: with the shipped student, without one
    (``none``), and with each file of ``job["native_weights"]`` (keyed by its path)."""
    lines = "".join(" ".join(map(str, [red, white, *moves])) + "\n" for red, white, moves in job["records"])
    kinds = {"student": [], "none": ["--no-weights"]}
    kinds.update({path: ["--weights", path] for path in job["native_weights"]})
    out = {}
    for kind, options in kinds.items():
        done = subprocess.run(
            [str(binary), "--bench", str(job["sims"]), *options],
            input=lines,
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        out[kind] = {"sims_per_s": figures["sims_per_s"], "signature": figures["signature"]}
    return out


def student_shape(path: str) -> str:
    """``ARCH, width W, hidden H`` of a weights file (its header), for the table."""
    from tw_rl.codecup.weights import read_weights

    header = read_weights(path).header
    return f"{header.get('arch')}, width {header.get('width')}, hidden {header.get('hidden')}"


def table(results: dict[str, dict], job: dict) -> str:
    old, new = results["0.1"], results["current"]
    lines = [
        f"{len(job['records'])} positions (seed {job['seed']}), {job['sims']} simulations each, "
        f"best of {job['rounds']} rounds",
        "",
        "| bot | evaluator | search simulations/s | evaluations/s |",
        "|---|---|---|---|",
    ]
    for kind in EVALUATORS:
        name = "shipped student" if kind == "student" else "none (territory evaluator)"
        for label, res in (("0.1", old), ("current", new)):
            sims, evals = res[kind]["sims_per_s"], res[kind]["evals_per_s"]
            lines.append(f"| {label} | {name} | {sims:,.0f} | {evals:,.0f} |")
        lines.append(
            f"| current / 0.1 | {name} | {new[kind]['sims_per_s'] / old[kind]['sims_per_s']:.2f}x "
            f"| {new[kind]['evals_per_s'] / old[kind]['evals_per_s']:.2f}x |"
        )
    lines += [
        "",
        "| bot | rules: advance (copy, play, territory) | search with a free evaluator (engine + tree) |",
        "|---|---|---|",
        f"| 0.1 | {old['advance_us']:.1f} us | {old['free_sims_per_s']:,.0f} simulations/s |",
        f"| current | {new['advance_us']:.1f} us | {new['free_sims_per_s']:,.0f} simulations/s |",
        f"| current / 0.1 | {old['advance_us'] / new['advance_us']:.2f}x faster "
        f"| {new['free_sims_per_s'] / old['free_sims_per_s']:.2f}x |",
    ]
    native = results.get("native")
    if native:
        lines += [
            "",
            "| bot | evaluator | search simulations/s | native / current | bench signature "
            "(native, current) |",
            "|---|---|---|---|---|",
        ]
        for kind in EVALUATORS:
            name = "shipped student" if kind == "student" else "none (territory evaluator)"
            nat, cur = native[kind], new[kind]
            same = "same" if nat["signature"] == cur.get("signature") else "DIFFERENT"
            lines.append(
                f"| native ({job['native_flags'] or '-O2'}) | {name} | {nat['sims_per_s']:,.0f} "
                f"| {nat['sims_per_s'] / cur['sims_per_s']:.1f}x "
                f"| {nat['signature']}, {cur.get('signature')} ({same}) |"
            )
        if job["native_weights"]:
            lines += [
                "",
                "| native bot's network | network | search simulations/s | share of the shipped student's |",
                "|---|---|---|---|",
                f"| shipped | {student_shape(str(default_student()))} "
                f"| {native['student']['sims_per_s']:,.0f} | 1.00 |",
            ]
            for path in job["native_weights"]:
                sims = native[path]["sims_per_s"]
                lines.append(
                    f"| {path} | {student_shape(path)} | {sims:,.0f} "
                    f"| {sims / native['student']['sims_per_s']:.2f} |"
                )
    return "\n".join(lines)


def default_student() -> Path:
    """The shipped student of the 6-board (what the native bot embeds without --weights)."""
    from tw_rl.codecup.weights import default_weights

    return Path(default_weights(6))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=50, help="mid-game positions (default 50)")
    p.add_argument("--seed", type=int, default=2024, help="seed of the positions (default 2024)")
    p.add_argument("--sims", type=int, default=200, help="search simulations per position (default 200)")
    p.add_argument("--eval-reps", type=int, default=10, help="evaluations of each position (default 10)")
    p.add_argument("--rounds", type=int, default=2, help="runs of each bot, best kept (default 2)")
    p.add_argument("--profile", action="store_true", help="print each search's cProfile summary")
    p.add_argument("--profile-rows", type=int, default=15, help="functions per profile (default 15)")
    p.add_argument("--no-native", action="store_true", help="leave the native (C++) bot out")
    p.add_argument(
        "--native-flags", default="", help="extra g++ flags for the native bot, e.g. -march=native"
    )
    p.add_argument(
        "--native-weights",
        nargs="+",
        default=[],
        metavar="FILE",
        help="also time the native bot with these students (.twnet weights files)",
    )
    p.add_argument("--worker", choices=VERSIONS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.native_weights and args.no_native:
        p.error("--native-weights needs the native bot (leave out --no-native)")
    for path in args.native_weights:
        from tw_rl.codecup.weights import WeightsError, read_weights

        try:
            read_weights(path, 6)
        except WeightsError as err:
            p.error(str(err))
    if args.worker:
        json.dump(run_worker(args.worker, json.load(sys.stdin)), sys.stdout)
        return 0
    job = {
        "records": make_positions(args.positions, args.seed),
        "seed": args.seed,
        "sims": args.sims,
        "eval_reps": args.eval_reps,
        "rounds": args.rounds,
        "profile": args.profile,
        "profile_rows": args.profile_rows,
        "native_flags": args.native_flags,
        "native_weights": args.native_weights,
    }
    binary = None
    if not args.no_native:
        from tw_rl.native import build

        try:
            binary = build_native(Path(tempfile.mkdtemp(prefix="tw_rl-bench-")), args.native_flags.split())
        except build.NativeBuildError as err:
            print(f"native bot left out: {err}", file=sys.stderr)
    runs: dict[str, list[dict]] = {v: [] for v in VERSIONS}
    for r in range(args.rounds):
        for version in VERSIONS:
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--worker", version],
                input=json.dumps(job),
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                return 1
            runs[version].append(json.loads(done.stdout))
            print(f"round {r + 1}: {version} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        if binary is not None:
            runs.setdefault("native", []).append(run_native(binary, job))
    results = {v: best_of(runs[v]) for v in VERSIONS}
    if binary is not None:
        results["native"] = {
            kind: max((run[kind] for run in runs["native"]), key=lambda f: f["sims_per_s"])
            for kind in (*EVALUATORS, *args.native_weights)
        }
    print(table(results, job))
    if args.profile:
        for version in VERSIONS:
            for kind in EVALUATORS:
                print(f"\n## profile: {version}, evaluator {kind} (last round)\n")
                print(runs[version][-1][kind]["profile"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
