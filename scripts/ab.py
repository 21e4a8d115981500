"""An A/B of two training recipes at equal wall time: pairs of runs, then matches of their last networks.

    python scripts/ab.py forced --minutes 40 --a experiment=puct_forced --b search=puct --seeds 3
    python scripts/ab.py reuse --minutes 40 --a learner.sample_reuse=16 --a learner.steps_per_generation=200
    python scripts/ab.py overlap --minutes 30 --a selfplay.overlap_workers=2 --sequential

Each arm is ``scripts/train.py`` with its overrides (``--a``/``--b``, repeatable; none = the
default recipe) and ``max_minutes``, ``generations=100000``, ``arena.every=0``, ``seed`` and
``progress=false``. ``--seeds K`` trains K pairs of runs, one pair per seed (``--seed``,
``--seed`` + 1, ...; both arms of a pair share it): the pair of ``--seed`` lives in
``runs/ab-NAME/a`` and ``runs/ab-NAME/b`` (logs beside them), the others in
``runs/ab-NAME/seed-S/``, so a one-seed A/B gains seeds by the same command with a larger
``--seeds``. On two or more cores the arms of a pair train side by side, each pinned to a core of
its own; ``--sequential`` (for an arm that uses several cores itself, e.g.
``selfplay.overlap_workers``) runs them one after the other on the whole machine. An arm whose run
already has ``time/run_minutes`` of the limit is not trained again and one cut short resumes for
the minutes it lacks, so a killed A/B goes on with the same command. Then each pair's two newest
checkpoints play their share of ``--games`` games at ``--sims`` simulations a move (halves side by
side on separate cores; each opening played twice with colours swapped, so ``--games`` is whole
openings: an odd count is rounded up, with a note; draws half).

Why several seeds: two runs of one recipe can end far apart (on 2026-12-06 two 12-minute runs of
the same recipe, eager against ``torch.compile``, played 34-166), so one pair's Wilson interval
covers the luck of the games but not that of the runs. With two or more pairs the report adds
the mean of the pairs' scores with a Student t interval over them, which covers both.

The report, in ``runs/ab-NAME/ab.json`` and as a Markdown table on stdout: each run's overrides,
run minutes, generations, games, samples and gradient steps; each pair's score; arm a's pooled
score with its 95% Wilson interval (the games' luck only); and, with ``--seeds`` >= 2, the
between-runs interval; beside each score, arm a's record as red and as white and both arms'
CodeCup points per game. The statistics are ``tw_rl.stats``'s.
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
from tw_rl.stats import runs_interval, shares
from tw_rl.training.checkpoint import latest_checkpoint
from tw_rl.training.match import MatchScore
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
        "arena.every=0",
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


def train_pair(args, pair: Path, seed: int, cores: list[int], side_by_side: bool) -> None:
    """Train (or resume) the two arms of one pair, both with ``seed``, in ``pair/a`` and ``pair/b``."""
    arms = {"a": args.a, "b": args.b}
    pair.mkdir(parents=True, exist_ok=True)
    label = f" (seed {seed})" if args.seeds > 1 else ""
    if side_by_side:
        processes = {}
        for core, (arm, overrides) in zip(cores, arms.items(), strict=False):
            process = start_arm(arm, overrides, args.minutes, seed, pair, core)
            if process is not None:
                processes[arm] = process
        if processes:
            wait_with_bar(processes, args.minutes, f"training {'+'.join(processes)} side by side{label}")
        return
    for arm, overrides in arms.items():
        process = start_arm(arm, overrides, args.minutes, seed, pair, None)
        if process is not None:
            wait_with_bar({arm: process}, args.minutes, f"training {arm}{label}")


def pair_folder(out: Path, seed: int, first_seed: int) -> Path:
    """Where the pair of runs with ``seed`` lives: ``out`` itself for the first seed (the layout of
    a one-seed A/B), ``out/seed-S`` for the others."""
    return out if seed == first_seed else out / f"seed-{seed}"


def play_match(
    args, out: Path, cores: list[int], player: Path, opponent: Path, games: int, seed: int
) -> dict:
    """Arm a's newest checkpoint against arm b's, ``games`` games in halves on separate cores (match
    seeds derived from ``seed``; logs in ``out``); the summed score. ``games`` is even: the halves
    share whole openings."""
    halves = max(1, min(len(cores), 2, games // 2))
    processes = []
    for k, size in enumerate(2 * openings for openings in shares(games // 2, halves)):
        command = [
            sys.executable,
            str(SCRIPTS / "match.py"),
            str(player),
            str(opponent),
            "--games",
            str(size),
            "--sims",
            str(args.sims),
            "--threads",
            "1",
            "--seed",
            str(seed * 100 + k + 1),
        ]
        log = (out / f"match-{k}.log").open("w", encoding="utf-8")
        core = cores[k] if halves > 1 else None
        processes.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=pinned(core))
        )
    reports = []
    for k, process in enumerate(tqdm(processes, desc=f"match, {games} games", disable=None)):
        stdout, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(
                f"error: match half {k} failed (exit {process.returncode}); see {out}/match-{k}.log"
            )
        reports.append(json.loads(stdout.strip().splitlines()[-1]))
    return tally(reports, args.sims)


def tally(halves: list[dict], sims: int) -> dict:
    """The summed score of match halves (``scripts/match.py`` reports of a against b): arm a's wins,
    draws and losses, its score and the score's 95% Wilson interval, its record by colour and the
    points per game (``MatchScore.to_json``), and the halves themselves."""
    total = MatchScore()
    for half in halves:
        total += MatchScore.from_json(half)
    return {
        **total.to_json(),
        "wins_a": total.wins,
        "wins_b": total.losses,
        "score_a": total.score,
        "sims": sims,
        "halves": halves,
    }


def between_runs(scores: list[float], pooled: tuple[float, float]) -> dict:
    """The mean of the pairs' scores and its 95% Student t interval over the pairs
    (``tw_rl.stats.runs_interval``, never narrower than the pooled games' Wilson interval)."""
    spread = runs_interval(scores, floor=pooled)
    return {"pairs": spread.count, "scores": scores, "mean": spread.mean, "ci95": [spread.low, spread.high]}


def markdown(report: dict) -> str:
    several = len(report["pairs"]) > 1
    rows = [
        "| arm | " + ("seed | " if several else "") + "overrides | `time/run_minutes` | `time/cpu_hours` | "
        "generations | games | samples | gradient steps |",
        "|---|" + ("---|" if several else "") + "---|---|---|---|---|---|---|",
    ]
    for pair in report["pairs"]:
        for arm in ("a", "b"):
            t = pair["arms"][arm]
            overrides = " ".join(report["overrides"][arm]) or "(the default recipe)"
            rows.append(
                f"| {arm} | " + (f"{pair['seed']} | " if several else "") + f"`{overrides}` | "
                f"{t['run_minutes']:.2f} | {t['cpu_hours']:.2f} | {t['generations']} | {t['games']:,} | "
                f"{t['samples']:,} | {t['steps']:,} |"
            )
    rows.append("")
    if several:
        for pair in report["pairs"]:
            m = pair["match"]
            rows.append(
                f"- seed {pair['seed']}: a against b {m['wins_a']}-{m['wins_b']}, {100 * m['score_a']:.1f}%"
            )
        rows.append("")
    m = report["match"]
    low, high = m["ci95"]
    red, white = m["as_red"], m["as_white"]
    per_a, per_b = m["points_per_game"]
    rows.append(
        f"a against b, {m['sims']} simulations a move: {m['wins_a']}-{m['wins_b']}"
        + (f" ({m['draws']} drawn)" if m["draws"] else "")
        + f" in {m['games']} games, **{100 * m['score_a']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]**"
        + (
            " (Wilson: the games' luck only)"
            if several
            else " (Wilson: the games' luck only; one pair of runs, see --seeds)"
        )
    )
    rows.append(
        f"a as red {red[0]}-{red[1]}-{red[2]}, as white {white[0]}-{white[1]}-{white[2]} (red won "
        f"{m['red_won']} of {m['games']}); CodeCup points per game: a {per_a:.1f}, b {per_b:.1f}"
    )
    if several:
        b = report["between_runs"]
        rows.append(
            f"mean of the {b['pairs']} pairs' scores: **{100 * b['mean']:.1f}% "
            f"[{100 * b['ci95'][0]:.1f}%, {100 * b['ci95'][1]:.1f}%]** (Student t over the pairs: runs and games)"  # noqa: E501
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the A/B's name: its runs go to runs/ab-NAME (or --out)")
    parser.add_argument("--a", action="append", default=[], metavar="OVERRIDE", help="an override of arm a")
    parser.add_argument("--b", action="append", default=[], metavar="OVERRIDE", help="an override of arm b")
    parser.add_argument("--minutes", type=float, default=40.0, help="wall minutes of training per arm")
    parser.add_argument("--games", type=int, default=200, help="games of the match (all pairs together)")
    parser.add_argument("--sims", type=int, default=64, help="simulations a move in the match")
    parser.add_argument(
        "--seed", type=int, default=3, help="seed of the first pair of runs (the match's derive from it)"
    )
    parser.add_argument(
        "--seeds", type=int, default=1, help="pairs of runs, seeds --seed, --seed + 1, ... (default 1)"
    )
    parser.add_argument("--sequential", action="store_true", help="train the arms one after the other")
    parser.add_argument("--out", type=Path, default=None, help="folder of the A/B (default runs/ab-NAME)")
    args = parser.parse_args(argv)
    args.a = [part for value in args.a for part in value.split()]  # "--a 'x=1 y=2'" is two overrides
    args.b = [part for value in args.b for part in value.split()]
    if args.minutes <= 0 or args.games < 1 or args.sims < 1 or args.seeds < 1:
        parser.error("--minutes, --games, --sims and --seeds must be positive")
    if args.games % 2:
        print(
            f"note: --games {args.games} rounded up to {args.games + 1}: each opening is played twice, "
            "colours swapped",
            file=sys.stderr,
        )
        args.games += 1
    if args.games < 2 * args.seeds:
        parser.error(
            f"--games {args.games} is fewer than one opening (two games) for each of the --seeds "
            f"{args.seeds} pairs"
        )
    if args.a == args.b:
        parser.error("arms a and b have the same overrides: nothing to compare")
    out = args.out or Path("runs") / f"ab-{args.name}"
    out.mkdir(parents=True, exist_ok=True)
    cores = sorted(os.sched_getaffinity(0))
    side_by_side = not args.sequential and len(cores) >= 2
    seeds = [args.seed + k for k in range(args.seeds)]
    for seed in seeds:
        train_pair(args, pair_folder(out, seed, args.seed), seed, cores, side_by_side)
    pairs = []
    for seed, openings in zip(seeds, shares(args.games // 2, args.seeds), strict=True):
        games = 2 * openings
        folder = pair_folder(out, seed, args.seed)
        checkpoints = {}
        for arm in ("a", "b"):
            found = latest_checkpoint(folder / arm / "checkpoints")
            if found is None:
                print(f"error: arm {arm} wrote no checkpoint; see {folder}/{arm}.log", file=sys.stderr)
                return 2
            checkpoints[arm] = found[0]
        pairs.append(
            {
                "seed": seed,
                "arms": {arm: run_totals(folder / arm) for arm in ("a", "b")},
                "checkpoints": {arm: str(path) for arm, path in checkpoints.items()},
                "match": play_match(args, folder, cores, checkpoints["a"], checkpoints["b"], games, seed),
            }
        )
    matches = [pair["match"] for pair in pairs]
    report = {
        "name": args.name,
        "minutes": args.minutes,
        "seed": args.seed,
        "seeds": seeds,
        "side_by_side": side_by_side,
        "overrides": {"a": args.a, "b": args.b},
        "arms": pairs[0]["arms"],  # the first pair's (seed --seed), as in a one-seed A/B
        "checkpoints": pairs[0]["checkpoints"],
        "pairs": pairs,
        "match": tally([half for m in matches for half in m["halves"]], args.sims),
    }
    if len(pairs) > 1:
        report["between_runs"] = between_runs([m["score_a"] for m in matches], tuple(report["match"]["ci95"]))
    write_atomic(out / "ab.json", json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
