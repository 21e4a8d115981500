"""What a run folder's ``metrics.jsonl`` adds up to: generations, games, samples, gradient steps,
wall minutes, CPU hours and minutes of self-play (read with ``tw_rl.training.metrics_log``; a line cut off
by a kill is passed over)."""

from __future__ import annotations

from pathlib import Path

from tw_rl.training.metrics_log import read_metrics


def run_totals(run_dir: str | Path, up_to: int | None = None) -> dict:
    """The sums over the run's generations (up to generation ``up_to``, all if None)."""
    totals = {
        "generations": 0,
        "games": 0,
        "samples": 0,
        "steps": 0,
        "run_minutes": 0.0,
        "cpu_hours": 0.0,  # time/cpu_hours: 0 where the run did not log it (before 2026-12-03)
        "cpu_hours_partial": False,  # some generations (an older stretch of the run) did not log it
        "selfplay_seconds": 0.0,
    }
    for row in read_metrics(run_dir).rows:
        if "selfplay/games" not in row:
            continue
        if up_to is not None and row.get("generation", -1) > up_to:
            continue
        totals["generations"] += 1
        totals["games"] += int(row["selfplay/games"])
        totals["samples"] += int(row.get("selfplay/samples", 0))
        totals["steps"] = max(totals["steps"], int(row.get("train/step", 0)))
        totals["run_minutes"] = max(totals["run_minutes"], float(row.get("time/run_minutes", 0.0)))
        totals["cpu_hours"] = max(totals["cpu_hours"], float(row.get("time/cpu_hours", 0.0)))
        totals["cpu_hours_partial"] |= "time/cpu_hours" not in row
        if row.get("perf/games_per_s"):
            totals["selfplay_seconds"] += row["selfplay/games"] / row["perf/games_per_s"]
    totals["cpu_hours_partial"] &= totals["cpu_hours"] > 0
    return totals
