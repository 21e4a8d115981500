"""Kill tests: SIGKILL a training run, an evaluation or a distillation at random moments, start it
again, many times, and check that nothing was lost, counted twice or left half-written.

    python scripts/kill_test.py train --rounds 40            # training runs (scripts/train.py debug=default)
    python scripts/kill_test.py evaluate --rounds 20         # tw-rl evaluate into a SQLite database
    python scripts/kill_test.py export --rounds 10           # tw-rl export --run (the distillation)
    python scripts/kill_test.py all --rounds 20 --work DIR   # the three; DIR is kept (default: a temp folder)

Each round starts the command as a subprocess and kills it with SIGKILL: after a random time, or
(training) at a chosen point inside it: during self-play (the k-th search call), half-way
through writing a shard, checkpoint or config file (``*-mid``) or after writing it but before
its rename (``*-late``), during training (the k-th gradient step), in the arena (the k-th
match), half-way through a metrics line. The point is installed by running the command
through this script (``_child POINT K -- ARGS``), which patches the function, then hands over
to ``scripts/train.py``. After every kill the folder is checked for what must always hold
(every shard and checkpoint readable, no generation's games over its count, no metrics line
twice); when a run completes it is checked in full (every generation's checkpoint loads with
``torch.load(weights_only=True)``, each generation's shards hold exactly its games, one metrics
line per generation, no temporary files) and a new run starts, so that kills keep landing in
every stage. At the end every unfinished run is completed without kills and checked.

Evaluation: ``tw-rl evaluate`` (baselines in-process and two protocol programs through the
referee) killed at random times; after each kill no program process is left and the database
is sound; at the end the stored games match the budget exactly, no slot twice, every game
replays to its stored result. Export: ``tw-rl export --run`` killed at random times; whatever
lies at the output paths is always a whole weights file and a whole submission.

Exit status 1 (and the problems listed) when a check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAIN_SCRIPT = ROOT / "scripts" / "train.py"
TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # tw_rl.files.TEMPORARY

# The tiny training run every round works on: 3 generations of 3 games, a shard per game.
TRAIN_GENERATIONS = 3
TRAIN_GAMES = 3
TRAIN_OVERRIDES = [
    "debug=default",
    f"selfplay.games_per_generation={TRAIN_GAMES}",
    "selfplay.parallel_games=2",
    "learner.min_samples=8",
    "eval.games=2",
    "eval.opponents=[random,greedy]",
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


# ----------------------------------------------------------------------------- the child side


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class _HalfThenDie:
    """A file handle that writes half of the first write, syncs it and kills the process."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data) -> int:
        data = bytes(data)
        self._handle.write(data[: max(1, len(data) // 2)])
        self._handle.flush()
        os.fsync(self._handle.fileno())
        _die()
        return 0

    def __getattr__(self, name):
        return getattr(self._handle, name)


def install_kill_point(point: str, k: int) -> None:
    """Patch the training stack so that the process SIGKILLs itself at ``point``, occurrence ``k``."""
    count = {"n": 0}

    def hit() -> bool:
        count["n"] += 1
        return count["n"] == k

    if point.split("-")[0] in ("shard", "checkpoint", "config"):
        import tw_rl.files as files

        prefix = {"shard": "shard-", "checkpoint": "ckpt-", "config": "config.json"}[point.split("-")[0]]
        original = files.atomic_writer

        @contextlib.contextmanager
        def atomic_writer(path, check=None):
            if not Path(path).name.startswith(prefix) or not hit():
                with original(path, check) as handle:
                    yield handle
                return
            with original(path, check) as handle:
                if point.endswith("-mid"):
                    yield _HalfThenDie(handle)
                else:
                    yield handle
                    handle.flush()
                    os.fsync(handle.fileno())
                    _die()

        files.atomic_writer = atomic_writer  # before the training modules import it
    elif point == "selfplay":
        from tw_rl.core.mcts import BatchedMCTS

        search = BatchedMCTS.search

        def searching(self, *args, **kwargs):
            if hit():
                _die()
            return search(self, *args, **kwargs)

        BatchedMCTS.search = searching
    elif point == "train":
        from tw_rl.training.learner import Learner

        step = Learner.train_step

        def stepping(self, *args, **kwargs):
            if hit():
                _die()
            return step(self, *args, **kwargs)

        Learner.train_step = stepping
    elif point == "arena":
        import tw_rl.training.loop as loop

        play_match = loop.play_match

        def matching(*args, **kwargs):
            if hit():
                _die()
            return play_match(*args, **kwargs)

        loop.play_match = matching
    elif point == "metrics-mid":
        import tw_rl.training.loop as loop

        append_line = loop.append_line

        def appending(path, line):
            if Path(path).name == "metrics.jsonl" and hit():
                with open(path, "ab") as handle:
                    handle.write(line.encode()[: len(line) // 2])
                    handle.flush()
                    os.fsync(handle.fileno())
                _die()
            return append_line(path, line)

        loop.append_line = appending
    elif point != "none":
        raise SystemExit(f"unknown kill point {point!r}")


def child(argv: list[str]) -> None:
    """``_child POINT K -- train.py overrides``: install the kill point, run scripts/train.py."""
    import runpy

    point, k = argv[0], int(argv[1])
    rest = argv[argv.index("--") + 1 :] if "--" in argv else argv[2:]
    install_kill_point(point, k)
    sys.argv = [str(TRAIN_SCRIPT), *rest]
    runpy.run_path(str(TRAIN_SCRIPT), run_name="__main__")


# ----------------------------------------------------------------------------- running rounds


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


def nice_env() -> dict:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


# ----------------------------------------------------------------------------- training runs


def check_run(run: Path, generations: int, games: int, final: bool) -> list[str]:
    """What is wrong with a training run folder: always (``final`` False, e.g. after a kill) or
    for a completed run (``final`` True)."""
    import numpy as np
    import torch

    from tw_rl.training.replay_buffer import SHARD_PATTERN, load_shard

    problems: list[str] = []
    ckpt_dir, shard_dir = run / "checkpoints", run / "selfplay"
    # Checkpoints: every file under a checkpoint's name loads safely and is the generation it names.
    found = {}
    for path in sorted(ckpt_dir.glob("ckpt-g*.pt")) if ckpt_dir.is_dir() else []:
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as err:
            problems.append(
                f"{path.name}: does not load with weights_only=True ({type(err).__name__}: {err})"
            )
            continue
        generation = int(re.search(r"g(\d+)", path.name).group(1))
        if payload.get("generation") != generation:
            problems.append(f"{path.name}: holds generation {payload.get('generation')}")
        found[generation] = payload
    # Shards: each whole and readable, names unique, no generation over its games.
    per_generation: dict[int, int] = {}
    samples = 0
    keys = set()
    for path in sorted(shard_dir.glob("shard-*.npz")) if shard_dir.is_dir() else []:
        match = SHARD_PATTERN.search(path.name)
        if not match:
            problems.append(f"{path.name}: not a shard name")
            continue
        key = (match.group("generation"), match.group("worker"), match.group("index"))
        if key in keys:
            problems.append(f"{path.name}: a second shard with the same generation, writer and index")
        keys.add(key)
        try:
            part = load_shard(path)
        except (OSError, ValueError) as err:
            problems.append(f"{path.name}: damaged ({err})")
            continue
        samples += len(part)
        if not np.all(np.isin(part.value, (-1, 0, 1))):
            problems.append(f"{path.name}: values outside -1, 0, 1")
        generation = int(match.group("generation"))
        per_generation[generation] = per_generation.get(generation, 0) + int(match.group("games"))
    for generation, count in sorted(per_generation.items()):
        if count > games or generation >= generations:
            problems.append(f"generation {generation}: {count} games stored (at most {games} belong there)")
    # The metrics log: whole lines (but for a last one cut by the kill), each generation once.
    logged: list[int] = []
    metrics = run / "metrics.jsonl"
    if metrics.is_file():
        lines = metrics.read_bytes().split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        if tail and final:
            problems.append("metrics.jsonl: ends in a cut-off line")
        for number, line in enumerate(complete, 1):
            try:
                logged.append(int(json.loads(line)["generation"]))
            except (ValueError, KeyError, TypeError):
                problems.append(f"metrics.jsonl:{number}: not a whole JSON line")
        twice = sorted({g for g in logged if logged.count(g) > 1})
        if twice:
            problems.append(f"metrics.jsonl: generations logged twice: {twice}")
    if not final:
        return problems
    # A completed run.
    if sorted(found) != list(range(generations)):
        problems.append(f"checkpoints of generations {sorted(found)}, expected 0..{generations - 1}")
    elif int(found[generations - 1]["generation"]) != generations - 1:
        problems.append("the final checkpoint is not the last generation's")
    if per_generation != {g: games for g in range(generations)}:
        problems.append(f"games per generation {per_generation}, expected {games} in each of {generations}")
    if sorted(logged) != list(range(generations)):
        problems.append(f"metrics.jsonl logs generations {sorted(logged)}, expected 0..{generations - 1}")
    for folder in (run, ckpt_dir, shard_dir):
        left = [p.name for p in folder.iterdir() if TEMPORARY.match(p.name)] if folder.is_dir() else []
        if left:
            problems.append(f"{folder}: temporary files left: {left}")
    try:
        json.loads((run / "config.json").read_text())
    except (OSError, ValueError) as err:
        problems.append(f"config.json: {err}")
    if samples == 0:
        problems.append("no samples stored")
    return problems


def train_command(run: Path, point: str, k: int, generations: int = TRAIN_GENERATIONS) -> list[str]:
    overrides = [*TRAIN_OVERRIDES, f"generations={generations}", f"hydra.run.dir={run}"]
    if point in ("time", "none"):
        return [sys.executable, str(TRAIN_SCRIPT), *overrides]
    return [sys.executable, str(Path(__file__).resolve()), "_child", point, str(k), "--", *overrides]


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


# ----------------------------------------------------------------------------- evaluation


EVAL_TAG = "97531"  # the seed of the protocol programs: finds their processes in the process table


def evaluate_command(work: Path, games: int) -> list[str]:
    program = f"{shlex_quote(sys.executable)} -m tw_rl.codecup --seed {EVAL_TAG} --time 5 --player"
    return [
        sys.executable,
        "-m",
        "tw_rl.cli",
        "evaluate",
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


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def tagged_processes(tag: str) -> list[int]:
    """Living processes (not zombies) whose command line contains ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in cmdline and state != "Z" and "kill_test" not in cmdline:
            found.append(int(entry.name))
    return found


def check_results_db(path: Path, budget: int | None) -> list[str]:
    """What is wrong with an arena database: integrity, slots stored twice, games that do not
    replay to their stored result, and (``budget``) a game count other than the budget."""
    from tw_rl.core.record import IllegalMove, replay_moves
    from tw_rl.core.rules import Rules
    from tw_rl.rating.games import parse_moves
    from tw_rl.rating.results_db import ResultsDB

    if not path.exists():
        return [] if budget is None else [f"{path}: missing"]
    problems = []
    conn = sqlite3.connect(path)
    try:
        if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            problems.append(f"{path}: integrity check failed")
        twice = conn.execute(
            "SELECT red, white, size, opening, COUNT(*) FROM games GROUP BY red, white, size, opening"
            " HAVING COUNT(*) > 1"
        ).fetchall()
        if twice:
            problems.append(f"slots stored twice: {twice}")
    finally:
        conn.close()
    with ResultsDB(path) as db:
        games = db.games()
        rules = Rules(6, "codecup")
        for row in games:
            red_start, white_start = (parse_moves(rules, c)[0] for c in (row.red_start, row.white_start))
            try:
                states = list(replay_moves(rules, red_start, white_start, parse_moves(rules, row.moves)))
            except IllegalMove as err:
                if row.end_reason != "fault":
                    problems.append(f"game {row.id}: does not replay ({err})")
                continue
            last = states[-1]
            if row.end_reason != "fault":
                points = tuple(int(p) for p in rules.score(last)[0])
                if not last.terminated[0] or points != (row.red_points, row.white_points):
                    problems.append(
                        f"game {row.id}: replays to {points}, stored {row.red_points, row.white_points}"
                    )
        if budget is not None and len(games) != budget:
            problems.append(f"{len(games)} games stored, the budget is {budget}")
    return problems


def kill_evaluate(
    work: Path,
    rounds: int,
    rng: random.Random,
    games: int = 24,
    log: Callable[[str], None] = log_line,
    timeout: float = 600.0,
) -> list[str]:
    """Kill ``tw-rl evaluate`` ``rounds`` times at random moments, then let it finish; problems."""
    work.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    typical = 20.0
    command = evaluate_command(work, games)
    for number in range(1, rounds + 1):
        kill_after = rng.uniform(1.5, typical)
        code, seconds = run_round(command, kill_after, timeout, work / "rounds.log")
        time.sleep(0.5)  # the kernel delivers the programs' parent-death signal
        found = check_results_db(work / "results.sqlite", None)
        left = tagged_processes(EVAL_TAG)
        if left:
            found.append(f"program processes left behind: {left}")
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if code not in (0, -signal.SIGKILL):
            found.append(f"tw-rl evaluate ended with status {code} (see {work / 'rounds.log'})")
        stored = _count_games(work / "results.sqlite")
        log(
            f"evaluate round {number}: killed after {kill_after:.1f} s (exit {code}); {stored} games stored"
            + (f"; PROBLEMS: {found}" if found else "")
        )
        problems += [f"evaluate round {number}: {p}" for p in found]
        if code == 0:
            break
    code, seconds = run_round(command, None, timeout, work / "rounds.log")
    found = check_results_db(work / "results.sqlite", games)
    if code != 0:
        found.append(f"the final tw-rl evaluate ended with status {code}")
    log(
        f"evaluate: completed in {seconds:.1f} s with {_count_games(work / 'results.sqlite')} games"
        + (f"; PROBLEMS: {found}" if found else "")
    )
    return problems + [f"evaluate final: {p}" for p in found]


def _count_games(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return -1
    finally:
        conn.close()


# ----------------------------------------------------------------------------- export


def check_export(folder: Path, submission_path: Path) -> list[str]:
    """Whatever lies at the export's output paths must be whole: the weights file reads (its
    checksum included) and the submission compiles and embeds a readable weights file."""
    from tw_rl.codecup.weights import WeightsError, read_weights

    problems = []
    weights = folder / "student.twnet"
    if weights.exists():
        try:
            read_weights(weights, 6)
        except WeightsError as err:
            problems.append(f"{weights}: {err}")
    if submission_path.exists():
        text = submission_path.read_text(encoding="utf-8", errors="replace")
        try:
            compile(text, str(submission_path), "exec")
        except SyntaxError as err:
            problems.append(f"{submission_path}: does not compile ({err.msg}, line {err.lineno})")
    return problems


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


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("train", "evaluate", "export", "all"))
    parser.add_argument("--rounds", type=int, default=20, help="kills per command (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill times and points")
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    parser.add_argument("--run", type=Path, default=None, help="export: the training run to distil")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rng = random.Random(seed)
    work = args.work or Path(tempfile.mkdtemp(prefix="tw-kill-"))
    log_line(f"kill test {args.what}: seed {seed}, work folder {work}")
    problems: list[str] = []
    if args.what in ("train", "all"):
        problems += kill_train(work / "train", args.rounds, rng)
    if args.what in ("evaluate", "all"):
        problems += kill_evaluate(work / "evaluate", args.rounds, rng)
    if args.what in ("export", "all"):
        run = args.run
        if run is None:
            run = work / "train" / "run-000"
            if not (run / "checkpoints").is_dir():
                log_line("export: training a run to distil first")
                code, _ = run_round(train_command(run, "none", 0), None, 900, work / "train.log")
                if code != 0:
                    problems.append(f"the training run for the export failed (status {code})")
        if not problems or args.what == "all":
            problems += kill_export(work / "export", run, args.rounds, rng)
    for problem in problems:
        log_line(f"PROBLEM: {problem}")
    log_line(f"kill test {args.what}: {'FAILED' if problems else 'passed'} (seed {seed}, work folder {work})")
    if not problems and args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
