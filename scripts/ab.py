"""An A/B of two training recipes at equal wall time: two runs, then a match of their last networks.

    python scripts/ab.py forced --minutes 40 --a experiment=puct_forced --b search=puct
    python scripts/ab.py reuse --minutes 40 --a learner.sample_reuse=16 --a learner.steps_per_generation=200
    python scripts/ab.py overlap --minutes 30 --a selfplay.overlap_workers=2 --sequential

Each arm is ``scripts/train.py`` with its overrides (``--a``/``--b``, repeatable; none = the
default recipe) and ``max_minutes``, ``generations=100000``, ``eval.every=0``, ``seed`` and
``progress=false``, in ``runs/ab-NAME/a`` and ``runs/ab-NAME/b`` (logs beside them). On two or
more cores the arms train side by side, each pinned to a core of its own; ``--sequential`` (for
an arm that uses several cores itself, e.g. ``selfplay.overlap_workers``) runs them one after the
other on the whole machine. An arm whose run already has ``time/run_minutes`` of the limit is not
trained again and one cut short resumes for the minutes it lacks, so a killed A/B goes on with the
same command. Then the two newest checkpoints play ``--games`` games at ``--sims`` simulations a
move (halves side by side on separate cores, colours alternating, draws half). The report, in
``runs/ab-NAME/ab.json`` and as a Markdown table on stdout: each arm's overrides, run minutes,
generations, games, samples and gradient steps, and arm a's score with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tqdm import tqdm

from tw_rl.files import write_atomic
from tw_rl.referee.match import wilson_interval
from tw_rl.training.checkpoint import latest_checkpoint
from tw_rl.training.run_totals import run_totals

SCRIPTS = Path(__file__).resolve().parent
DONE_SLACK = 0.02  # an arm this close to its minutes (a share of them) counts as trained


def pinned(core: int | None):
    """A ``preexec_fn`` that pins the child process to one core (None: leave it free)."""
    if core is None:
        return None
    return lambda: os.sched_setaffinity(0, {core})


def start_arm(arm: str, overrides: list[str], minutes: float, seed: int, out: Path, core: int | None):
    """Start (or resume) one arm's training for the minutes it still lacks; None if it has them."""
    run_dir = out / arm
    lacking = minutes - run_totals(run_dir)["run_minutes"]
    if lacking <= DONE_SLACK * minutes:
        return None
    command = [
        sys.executable,
        str(SCRIPTS / "train.py"),
        *overrides,
        f"max_minutes={lacking:.3f}",
        "generations=100000",
        "eval.every=0",
        f"seed={seed}",
        "progress=false",
        f"hydra.run.dir={run_dir}",
    ]
    log = (out / f"{arm}.log").open("a", encoding="utf-8")
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=pinned(core))


def wait_with_bar(processes: dict, minutes: float, what: str) -> None:
    """Wait for the processes, a bar over the planned minutes; stop at the first failure."""
    with tqdm(total=round(minutes * 60), desc=what, unit="s", disable=None) as bar:
        start = time.monotonic()
        while processes:
            for arm, process in list(processes.items()):
                code = process.poll()
                if code is None:
                    continue
                del processes[arm]
                if code != 0:
                    for other in processes.values():
                        other.terminate()
                    raise SystemExit(f"error: arm {arm} stopped with exit code {code}; see its log")
            bar.n = min(bar.total, round(time.monotonic() - start))
            bar.refresh()
            time.sleep(1)


def train_arms(args, out: Path, cores: list[int], side_by_side: bool) -> None:
    arms = {"a": args.a, "b": args.b}
    if side_by_side:
        processes = {}
        for core, (arm, overrides) in zip(cores, arms.items(), strict=False):
            process = start_arm(arm, overrides, args.minutes, args.seed, out, core)
            if process is not None:
                processes[arm] = process
        if processes:
            wait_with_bar(processes, args.minutes, f"training {'+'.join(processes)} side by side")
        return
    for arm, overrides in arms.items():
        process = start_arm(arm, overrides, args.minutes, args.seed, out, None)
        if process is not None:
            wait_with_bar({arm: process}, args.minutes, f"training {arm}")


def play_match(args, out: Path, cores: list[int], player: Path, opponent: Path) -> dict:
    """Arm a's newest checkpoint against arm b's, in halves on separate cores; the summed score."""
    halves = max(1, min(len(cores), 2, args.games // 2))
    sizes = [args.games // halves + (1 if k < args.games % halves else 0) for k in range(halves)]
    processes = []
    for k, games in enumerate(sizes):
        command = [
            sys.executable,
            str(SCRIPTS / "match.py"),
            str(player),
            str(opponent),
            "--games",
            str(games),
            "--sims",
            str(args.sims),
            "--threads",
            "1",
            "--seed",
            str(args.seed * 100 + k + 1),
        ]
        log = (out / f"match-{k}.log").open("w", encoding="utf-8")
        core = cores[k] if halves > 1 else None
        processes.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=pinned(core))
        )
    reports = []
    for k, process in enumerate(tqdm(processes, desc=f"match, {args.games} games", disable=None)):
        stdout, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(
                f"error: match half {k} failed (exit {process.returncode}); see {out}/match-{k}.log"
            )
        reports.append(json.loads(stdout.strip().splitlines()[-1]))
    wins = sum(r["wins"] for r in reports)
    draws = sum(r["draws"] for r in reports)
    games = sum(r["games"] for r in reports)
    score = (wins + 0.5 * draws) / games
    low, high = wilson_interval(wins + 0.5 * draws, games)
    return {
        "games": games,
        "wins_a": wins,
        "draws": draws,
        "wins_b": games - wins - draws,
        "score_a": score,
        "ci95": [low, high],
        "sims": args.sims,
        "halves": reports,
    }


def markdown(report: dict) -> str:
    rows = [
        "| arm | overrides | `time/run_minutes` | `time/cpu_hours` | generations | games | samples "
        "| gradient steps |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for arm in ("a", "b"):
        t = report["arms"][arm]
        overrides = " ".join(report["overrides"][arm]) or "(the default recipe)"
        rows.append(
            f"| {arm} | `{overrides}` | {t['run_minutes']:.2f} | {t['cpu_hours']:.2f} | "
            f"{t['generations']} | {t['games']:,} | "
            f"{t['samples']:,} | {t['steps']:,} |"
        )
    m = report["match"]
    low, high = m["ci95"]
    rows.append("")
    rows.append(
        f"a against b, {m['sims']} simulations a move: {m['wins_a']}-{m['wins_b']}"
        + (f" ({m['draws']} drawn)" if m["draws"] else "")
        + f" in {m['games']} games, **{100 * m['score_a']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]**"
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the A/B's name: its runs go to runs/ab-NAME (or --out)")
    parser.add_argument("--a", action="append", default=[], metavar="OVERRIDE", help="an override of arm a")
    parser.add_argument("--b", action="append", default=[], metavar="OVERRIDE", help="an override of arm b")
    parser.add_argument("--minutes", type=float, default=40.0, help="wall minutes of training per arm")
    parser.add_argument("--games", type=int, default=200, help="games of the match")
    parser.add_argument("--sims", type=int, default=64, help="simulations a move in the match")
    parser.add_argument("--seed", type=int, default=3, help="seed of both runs (the match's derive from it)")
    parser.add_argument("--sequential", action="store_true", help="train the arms one after the other")
    parser.add_argument("--out", type=Path, default=None, help="folder of the A/B (default runs/ab-NAME)")
    args = parser.parse_args(argv)
    args.a = [part for value in args.a for part in value.split()]  # "--a 'x=1 y=2'" is two overrides
    args.b = [part for value in args.b for part in value.split()]
    if args.minutes <= 0 or args.games < 1 or args.sims < 1:
        parser.error("--minutes, --games and --sims must be positive")
    if args.a == args.b:
        parser.error("arms a and b have the same overrides: nothing to compare")
    out = args.out or Path("runs") / f"ab-{args.name}"
    out.mkdir(parents=True, exist_ok=True)
    cores = sorted(os.sched_getaffinity(0))
    side_by_side = not args.sequential and len(cores) >= 2
    train_arms(args, out, cores, side_by_side)
    checkpoints = {}
    for arm in ("a", "b"):
        found = latest_checkpoint(out / arm / "checkpoints")
        if found is None:
            print(f"error: arm {arm} wrote no checkpoint; see {out}/{arm}.log", file=sys.stderr)
            return 2
        checkpoints[arm] = found[0]
    report = {
        "name": args.name,
        "minutes": args.minutes,
        "seed": args.seed,
        "side_by_side": side_by_side,
        "overrides": {"a": args.a, "b": args.b},
        "arms": {arm: run_totals(out / arm) for arm in ("a", "b")},
        "checkpoints": {arm: str(path) for arm, path in checkpoints.items()},
    }
    report["match"] = play_match(args, out, cores, checkpoints["a"], checkpoints["b"])
    write_atomic(out / "ab.json", json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
