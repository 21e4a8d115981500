"""Plot a training run's curves from its metrics.jsonl: losses per head and arena scores.

python scripts/plot_run.py runs/default-60min --out docs/training_curve.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from matplotlib.figure import Figure  # no pyplot: no GUI backend, nothing global

from tw_rl.training.metrics_log import metrics_path, read_metrics, row_generation


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="default: RUN_DIR/training_curve.png")
    args = parser.parse_args(argv)
    path = metrics_path(args.run_dir)
    if not path.exists():
        print(f"error: {path} does not exist (is {args.run_dir} a run folder?)", file=sys.stderr)
        return 2
    rows = [row for row in read_metrics(args.run_dir).rows if row_generation(row) is not None]
    if not rows:
        print(f"error: {path} holds no generation yet", file=sys.stderr)
        return 2
    figure = Figure(figsize=(11, 4))
    arena, loss = figure.subplots(1, 2)
    for key, label in (("arena/vs_random", "vs random"), ("arena/vs_greedy", "vs greedy")):
        points = [(r["generation"], r[key]) for r in rows if key in r]
        if points:
            arena.plot(*zip(*points, strict=True), marker="o", label=label)
    arena.set_ylim(0, 1.05)
    arena.axhline(0.8, color="grey", linestyle=":", linewidth=1)
    arena.set_xlabel("generation")
    arena.set_ylabel("score (draws count half)")
    arena.set_title("network with search vs baselines")
    arena.legend()
    for key in ("train/policy", "train/value", "train/territory", "train/score"):
        points = [(r["generation"], r[key]) for r in rows if key in r]
        if points:
            loss.plot(*zip(*points, strict=True), label=key.split("/")[1])
    loss.set_xlabel("generation")
    loss.set_title("training losses")
    loss.legend()
    figure.tight_layout()
    out = args.out or args.run_dir / "training_curve.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
