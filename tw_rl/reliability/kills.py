"""Kill rounds: SIGKILL a training run, a rating run or a distillation at random moments (or, for
training, at chosen points inside it), start it again, and audit after every kill
(``tw_rl.reliability.audits``) that nothing was lost, counted twice or left half-written.

A training round's kill point is installed in the child process by ``scripts/kill_test.py
_child POINT K -- OVERRIDES`` (it patches the training stack before importing it, then runs
``scripts/train.py``); the rating and export rounds kill ``tw-rl rate`` and ``tw-rl
export --run``. The rounds run in a source checkout (``ROOT``). ``scripts/kill_test.py`` is the
command line.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tw_rl.referee.process import proc_stat
from tw_rl.reliability.audits import check_export, check_results_db, check_run, count_games

ROOT = Path(__file__).resolve().parents[2]
TRAIN_SCRIPT = ROOT / "scripts" / "train.py"
KILL_SCRIPT = ROOT / "scripts" / "kill_test.py"  # its _child installs a training kill point

# The tiny training run every round works on: 3 generations of 3 games, a shard per game.
TRAIN_GENERATIONS = 3
TRAIN_GAMES = 3
TRAIN_OVERRIDES = [
    "debug=default",
    f"selfplay.games_per_generation={TRAIN_GAMES}",
    "selfplay.parallel_games=2",
    "learner.min_samples=8",
    "arena.games=2",
    "arena.opponents=[random,greedy]",
]
# Kill points inside a training process: name -> the largest occurrence K drawn for it.
TRAIN_POINTS = {
    "selfplay": 60,  # the K-th search call (self-play and arena searches both count)
    "shard-mid": 6,  # half-way through writing the K-th shard
    "shard-late": 6,  # the K-th shard written, before its rename
    "checkpoint-mid": 2,
    "checkpoint-late": 2,
    "config-mid": 1,
    "train": 4,  # the K-th gradient step
    "arena": 3,  # the start of the K-th arena match (K = 2: between the two opponents)
    "metrics-mid": 2,  # half-way through the K-th metrics line
    "time": 0,  # after a random time (the parent kills)
}


def log_line(text: str) -> None:
    print(text, flush=True)


def run_round(
    argv: list[str], kill_after: float | None, timeout: float, log_path: Path, env: dict | None = None
) -> tuple[int, float]:
    """Run ``argv`` (stdout and stderr to ``log_path``), SIGKILL it after ``kill_after`` seconds
    if given; (exit status, seconds). A negative status is the signal that ended it."""
    started = time.monotonic()
    with open(log_path, "ab") as out:
        out.write(f"\n$ {' '.join(argv)}\n".encode())
        out.flush()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            limit = timeout if kill_after is None else min(kill_after, timeout)
            try:
                proc.wait(limit)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return proc.returncode, time.monotonic() - started


def train_command(run: Path, point: str, k: int, generations: int = TRAIN_GENERATIONS) -> list[str]:
    overrides = [*TRAIN_OVERRIDES, f"generations={generations}", f"hydra.run.dir={run}"]
    if point in ("time", "none"):
        return [sys.executable, str(TRAIN_SCRIPT), *overrides]
    return [sys.executable, str(KILL_SCRIPT), "_child", point, str(k), "--", *overrides]


def kill_train(
    work: Path,
    rounds: int,
    rng: random.Random,
    plan: list[tuple[str, int]] | None = None,
    log: Callable[[str], None] = log_line,
    timeout: float = 600.0,
    generations: int = TRAIN_GENERATIONS,
) -> list[str]:
    """Kill training runs ``rounds`` times (or along ``plan``: (point, k) pairs), completing and
    checking each run of ``generations`` generations; the problems found ([] when all is well)."""
    work.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    runs = [work / "run-000"]
    plan = plan or [None] * rounds
    typical = 30.0  # seconds a whole run takes here; refined as runs complete
    for number, step in enumerate(plan, 1):
        run = runs[-1]
        if step is None:
            point = rng.choice(list(TRAIN_POINTS))
            k = rng.randint(1, TRAIN_POINTS[point]) if TRAIN_POINTS[point] else 0
        else:
            point, k = step
        kill_after = rng.uniform(2.0, typical) if point == "time" else None
        command = train_command(run, point, k, generations)
        code, seconds = run_round(command, kill_after, timeout, work / "rounds.log")
        what = f"after {kill_after:.1f} s" if point == "time" else f"at {point} #{k}"
        outcome = "killed" if code == -signal.SIGKILL else f"exit {code}"
        found = check_run(run, generations, TRAIN_GAMES, final=False)
        if code == 0:
            found += check_run(run, generations, TRAIN_GAMES, final=True)
            typical = max(10.0, seconds)
            runs.append(work / f"run-{len(runs):03d}")
        elif code != -signal.SIGKILL:
            found.append(f"the training process ended with status {code} (see {work / 'rounds.log'})")
        log(
            f"train round {number}: {run.name} {what}: {outcome} after {seconds:.1f} s"
            + (f"; PROBLEMS: {found}" if found else "")
        )
        problems += [f"{run.name} round {number} ({what}): {p}" for p in found]
    # Finish the last run without kills.
    command = train_command(runs[-1], "none", 0, generations)
    code, seconds = run_round(command, None, timeout, work / "rounds.log")
    found = check_run(runs[-1], generations, TRAIN_GAMES, final=True)
    if code != 0:
        found.append(f"the final training process ended with status {code}")
    log(
        f"train: {runs[-1].name} completed without kills in {seconds:.1f} s"
        + (f"; PROBLEMS: {found}" if found else "")
    )
    problems += [f"{runs[-1].name} final: {p}" for p in found]
    log(f"train: {len(runs)} runs, {len(plan)} kills, {len(problems)} problems")
    return problems


RATE_TAG = "97531"  # the seed of the protocol programs: finds their processes in the process table


def rate_command(work: Path, games: int) -> list[str]:
    program = f"{shlex.quote(sys.executable)} -m tw_rl.codecup --seed {RATE_TAG} --time 5 --player"
    return [
        sys.executable,
        "-m",
        "tw_rl.cli",
        "rate",
        "--players",
        "random",
        "greedy",
        f"prand=program:{program} random",
        f"pgreedy=program:{program} greedy",
        "--games",
        str(games),
        "--batch-size",
        "4",
        "--jobs",
        "2",
        "--time",
        "10",
        "--db",
        str(work / "results.sqlite"),
        "--out",
        str(work / "arena"),
        "--no-progress",
        "--no-tensorboard",
    ]


def tagged_processes(tag: str) -> list[int]:
    """Living processes (not zombies) whose command line contains ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = proc_stat(int(entry.name))
        if tag in cmdline and fields is not None and fields[0] != b"Z" and "kill_test" not in cmdline:
            found.append(int(entry.name))
    return found


def kill_rate(
    work: Path,
    rounds: int,
    rng: random.Random,
    games: int = 24,
    log: Callable[[str], None] = log_line,
    timeout: float = 600.0,
) -> list[str]:
    """Kill ``tw-rl rate`` ``rounds`` times at random moments, then let it finish; problems."""
    work.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    typical = 20.0
    command = rate_command(work, games)
    for number in range(1, rounds + 1):
        kill_after = rng.uniform(1.5, typical)
        code, seconds = run_round(command, kill_after, timeout, work / "rounds.log")
        time.sleep(0.5)  # the kernel delivers the programs' parent-death signal
        found = check_results_db(work / "results.sqlite", None)
        left = tagged_processes(RATE_TAG)
        if left:
            found.append(f"program processes left behind: {left}")
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if code not in (0, -signal.SIGKILL):
            found.append(f"tw-rl rate ended with status {code} (see {work / 'rounds.log'})")
        stored = count_games(work / "results.sqlite")
        log(
            f"rate round {number}: killed after {kill_after:.1f} s (exit {code}); {stored} games stored"
            + (f"; PROBLEMS: {found}" if found else "")
        )
        problems += [f"rate round {number}: {p}" for p in found]
        if code == 0:
            break
    code, seconds = run_round(command, None, timeout, work / "rounds.log")
    found = check_results_db(work / "results.sqlite", games)
    if code != 0:
        found.append(f"the final tw-rl rate ended with status {code}")
    log(
        f"rate: completed in {seconds:.1f} s with {count_games(work / 'results.sqlite')} games"
        + (f"; PROBLEMS: {found}" if found else "")
    )
    return problems + [f"rate final: {p}" for p in found]


def export_command(run: Path, folder: Path, steps: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tw_rl.cli",
        "export",
        "--run",
        str(run),
        "--steps",
        str(steps),
        "--student-dir",
        str(folder),
        "--out",
        str(folder / "submission.py"),
    ]


def kill_export(
    work: Path,
    run: Path,
    rounds: int,
    rng: random.Random,
    steps: int = 200,
    log: Callable[[str], None] = log_line,
    timeout: float = 600.0,
) -> list[str]:
    """Kill ``tw-rl export --run RUN`` ``rounds`` times at random moments, then let it finish."""
    folder = work / "export"
    folder.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    typical = 20.0
    command = export_command(run, folder, steps)
    for number in range(1, rounds + 1):
        kill_after = rng.uniform(1.0, typical)
        code, seconds = run_round(command, kill_after, timeout, work / "export.log")
        found = check_export(folder, folder / "submission.py")
        if code == 0:
            typical = max(5.0, seconds)
        elif code != -signal.SIGKILL:
            found.append(f"tw-rl export ended with status {code} (see {work / 'export.log'})")
        log(
            f"export round {number}: killed after {kill_after:.1f} s (exit {code})"
            + (f"; PROBLEMS: {found}" if found else "")
        )
        problems += [f"export round {number}: {p}" for p in found]
    code, seconds = run_round(command, None, timeout, work / "export.log")
    found = check_export(folder, folder / "submission.py")
    if code != 0:
        found.append(f"the final tw-rl export ended with status {code}")
    if not (folder / "student.twnet").exists() or not (folder / "submission.py").exists():
        found.append("the final export left no weights file or no submission")
    log(f"export: completed in {seconds:.1f} s" + (f"; PROBLEMS: {found}" if found else ""))
    return problems + [f"export final: {p}" for p in found]
