"""Elo pictures: a training run's checkpoints rated against training step, as PNG and TensorBoard."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure  # no pyplot: no backend, no global figure list
from torch.utils.tensorboard import SummaryWriter

from tw_rl.files import write_atomic
from tw_rl.rating.kinds import kind_named
from tw_rl.rating.ratings import Ratings
from tw_rl.rating.results_db import PlayerRow


def _curve(player: PlayerRow) -> bool:
    """Whether a stored player is drawn as a curve over training (its kind says so)."""
    kind = kind_named(player.kind)
    return kind is not None and kind.curve


def elo_figure(
    ratings: Ratings, checkpoints: Sequence[PlayerRow], baselines: Sequence[str] = (), title: str = ""
):
    """Elo (95% intervals) of a run's checkpoints against training step (generation when no step
    is known), with the baselines as horizontal lines. Returns a matplotlib Figure."""
    rated = [c for c in checkpoints if c.name in ratings and ratings.connected(c.name, ratings.anchor)]
    by_step = any((c.step or 0) > 0 for c in rated)
    rated.sort(key=lambda c: ((c.step or 0) if by_step else (c.generation or 0), c.name))
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot(1, 1, 1)
    groups: dict[str, list[PlayerRow]] = {}
    for c in rated:
        groups.setdefault(json.dumps(c.search, sort_keys=True), []).append(c)
    for key, members in groups.items():
        xs = [(c.step or 0) if by_step else (c.generation or 0) for c in members]
        ys = [ratings[c.name].elo for c in members]
        lows = [ratings[c.name].elo - ratings[c.name].low for c in members]
        highs = [ratings[c.name].high - ratings[c.name].elo for c in members]
        sims = json.loads(key).get("simulations", 0)
        label = f"checkpoints ({sims} sims)" if sims else "checkpoints (raw policy)"
        axes.errorbar(xs, ys, yerr=[lows, highs], marker="o", capsize=3, label=label)
    colours = ["#555555", "#2e7d32", "#c62828", "#6a1b9a", "#ef6c00"]
    for k, name in enumerate(baselines):
        if name in ratings and ratings.connected(name, ratings.anchor):
            p = ratings[name]
            colour = colours[k % len(colours)]
            axes.axhline(p.elo, color=colour, linestyle="--", linewidth=1, label=f"{name} ({p.elo:.0f})")
            if p.high > p.low:
                axes.axhspan(p.low, p.high, color=colour, alpha=0.08)
    axes.set_xlabel("training step" if by_step else "generation")
    axes.set_ylabel(f"Elo ({ratings.anchor} = 0)")
    axes.set_title(title or "Elo of the checkpoints (95% intervals)")
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(loc="best", fontsize=8)
    figure.tight_layout()
    return figure


def write_pictures(
    ratings: Ratings,
    players: Sequence[PlayerRow],
    chosen: Sequence[PlayerRow],
    out_dir: Path,
    tensorboard: bool,
) -> list[Path]:
    """One PNG per training run among the chosen checkpoints (all of its rated checkpoints in
    the database are drawn), also logged to the run's TensorBoard (``tb/``, ``arena/elo``)."""
    runs = sorted({p.run_dir for p in chosen if _curve(p) and p.run_dir})
    baselines = [p.name for p in players if not _curve(p) and p.name in ratings]
    files = []
    for run in runs:
        members = [p for p in players if _curve(p) and p.run_dir == run]
        figure = elo_figure(ratings, members, baselines, title=f"{Path(run).name}: Elo of the checkpoints")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100)
        path = out_dir / f"elo-{_safe(Path(run).name)}.png"
        out_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(path, buffer.getvalue())
        files.append(path)
        if tensorboard and Path(run).is_dir():
            writer = SummaryWriter(str(Path(run) / "tb"))
            try:
                last = 0
                for p in sorted(members, key=lambda m: (m.generation or 0, m.name)):
                    if p.name in ratings and ratings.connected(p.name, ratings.anchor):
                        writer.add_scalar("arena/elo", ratings[p.name].elo, p.generation or 0)
                        last = max(last, p.generation or 0)
                writer.add_figure("arena/elo_curve", figure, global_step=last, close=False)
            finally:
                writer.close()
    return files


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", text) or "run"
