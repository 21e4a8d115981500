"""Audits of what a kill may break (``tw_rl.reliability.kills``, ``scripts/kill_test.py``): a
training run folder, a rating results database, an export's output paths. Each returns the
problems found, one line each ([] when all is well).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import torch

from tw_rl.codecup.weights import CODECUP_SIZE, WeightsError, read_weights
from tw_rl.core.record import IllegalMove, replay_moves
from tw_rl.core.rules import Rules
from tw_rl.files import TEMPORARY
from tw_rl.rating.games import parse_moves
from tw_rl.rating.results_db import ResultsDB, ResultsDBError
from tw_rl.training.metrics_log import read_metrics, row_generation
from tw_rl.training.replay_buffer import SHARD_PATTERN, load_shard


def check_run(run: Path, generations: int, games: int, final: bool) -> list[str]:
    """What is wrong with a training run folder: always (``final`` False, e.g. after a kill) or
    for a completed run (``final`` True)."""
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
    metrics = read_metrics(run)
    if metrics.cut_off and final:
        problems.append("metrics.jsonl: ends in a cut-off line")
    logged = metrics.generations()
    unnamed = [n for n, row in zip(metrics.numbers, metrics.rows, strict=True) if row_generation(row) is None]
    for number in sorted(metrics.unreadable + unnamed):
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


def check_results_db(path: Path, budget: int | None) -> list[str]:
    """What is wrong with a rating results database: integrity, slots stored twice, games that do not
    replay to their stored result, and (``budget``) a game count other than the budget."""
    if not path.exists():
        return [] if budget is None else [f"{path}: missing"]
    problems = []
    with ResultsDB(path) as db:
        if not db.intact():
            problems.append(f"{path}: integrity check failed")
        twice = db.slots_stored_twice()
        if twice:
            problems.append(f"slots stored twice: {twice}")
        games = db.games()
        rules = Rules(CODECUP_SIZE, "codecup")
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


def count_games(path: Path) -> int:
    """Games stored in a rating results database (0 when there is none, -1 when it cannot be read)."""
    if not path.exists():
        return 0
    try:
        with ResultsDB(path) as db:
            return db.count_all_games()
    except ResultsDBError:
        return -1


def check_export(folder: Path, submission_path: Path) -> list[str]:
    """Whatever lies at the export's output paths must be whole: the weights file reads (its
    checksum included) and the submission compiles and embeds a readable weights file."""
    problems = []
    weights = folder / "student.twnet"
    if weights.exists():
        try:
            read_weights(weights, CODECUP_SIZE)
        except WeightsError as err:
            problems.append(f"{weights}: {err}")
    if submission_path.exists():
        text = submission_path.read_text(encoding="utf-8", errors="replace")
        try:
            compile(text, str(submission_path), "exec")
        except SyntaxError as err:
            problems.append(f"{submission_path}: does not compile ({err.msg}, line {err.lineno})")
    return problems
