"""Ship a training checkpoint as the package's default teacher, with its model card.

Copies the checkpoint to ``tw_rl/training/teacher-default.pt`` (checked to load with
``weights_only=True``) and writes ``tw_rl/training/teacher-default.md``: the run's config, the
compute it took, the games and samples it learned from, and (with ``--ratings``) its Elo
against the anchors of a rating run's ``ratings.json``.

    python scripts/ship_teacher.py runs/teacher-ref/checkpoints/ckpt-g000060.pt \\
        --ratings ratings-teacher/ratings.json --note "CPU run on the 2-core development machine"
    python scripts/ship_teacher.py runs/teacher-next/checkpoints/ckpt-g000120.pt \\
        --out candidates/teacher-next.pt --note "..."   # a candidate, not the default

``--out`` writes the checkpoint and its card elsewhere, outside the package: a candidate that a
later session continues (``init_from=PATH``) or measures before it has earned the default's
place; only the default teacher ships in the wheel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tw_rl.files import file_sha256, write_atomic
from tw_rl.training.checkpoint import DEFAULT_TEACHER, CheckpointError, load_checkpoint
from tw_rl.training.run_totals import run_totals


def ratings_table(path: Path, name: str) -> str:
    """A rating run's ratings as a Markdown table (the shipped teacher's row marked)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    players = data.get("players", data)
    rows = ["| player | Elo | 95% interval | games |", "|---|---|---|---|"]
    for p in sorted(players, key=lambda p: -p["elo"]):
        mark = " (this teacher)" if p["name"] == name else ""
        interval = f"[{p['low']:+.0f}, {p['high']:+.0f}]"
        rows.append(f"| {p['name']}{mark} | {p['elo']:+.0f} | {interval} | {p['games']} |")
    return "\n".join(rows)


def model_card(shipped: Path, payload: dict, totals: dict, ratings: str, note: str) -> str:
    """The card of the checkpoint written at ``shipped`` (the default teacher, or a candidate)."""
    cfg = payload.get("config", {})
    net, board = payload["net"], cfg.get("board", {})
    search, selfplay, learner = cfg.get("search", {}), cfg.get("selfplay", {}), cfg.get("learner", {})
    minutes = totals["selfplay_seconds"] / 60
    of_selfplay = f", about {minutes:.0f} of them self-play" if minutes else ""  # generational runs only
    cpu = ""  # runs before 2026-12-03 did not log their CPU time
    if totals["cpu_hours"]:
        partial = "; only the later generations logged it" if totals["cpu_hours_partial"] else ""
        cpu = f", {totals['cpu_hours']:.2f} core-hours of CPU time logged (`time/cpu_hours`{partial})"
    default = shipped.resolve() == DEFAULT_TEACHER
    where = (
        f"tw_rl/training/{shipped.name}"
        if shipped.resolve().parent == DEFAULT_TEACHER.parent
        else str(shipped)
    )
    lines = [
        "# The default teacher" if default else f"# Teacher candidate `{shipped.name}`",
        "",
        f"Shipped as `{where}` (sha256 `{file_sha256(shipped)}`):",
        f"the network of generation {payload['generation']} (gradient step {payload['step']}) of the run",
        f"`{Path(cfg.get('run_dir', '?')).name}`"
        + (f", started from `init_from={cfg['init_from']}`" if cfg.get("init_from") else "")
        + ".",
        "`ckpt:default` in a rating run, `tw-rl export --teacher default` and `init_from=default` use it;"
        if default
        else f"Not the default: `ckpt:{where}` in a rating run, `init_from={where}` continues it;",
        "`torch.load(..., weights_only=True)` reads it.",
        "",
        "## Network",
        f"`{net['name']}`: {net['blocks']} residual blocks of {net['channels']} channels (global pooling",
        f"every {net['pool_every']}), heads of {net['head_channels']} channels; board size",
        f"{payload['size']}, {board.get('variant', '?')} rules.",
        "",
        "## Training",
        f"- Search: {search.get('root', '?')} root, {search.get('simulations', '?')} simulations on a share "
        f"of {search.get('full_search_fraction', '?')} of the moves (these become samples), "
        f"{search.get('cheap_simulations', '?')} on the others.",
        f"- Self-play: {selfplay.get('games_per_generation', '?')} games a generation. Learner: "
        f"{learner.get('steps_per_generation', '?')} steps of batch {learner.get('batch_size', '?')} a "
        f"generation, replay window {learner.get('replay_window', '?')}.",
        f"- Up to this generation: {totals['generations']} generations, {totals['games']:,} games, "
        f"{totals['samples']:,} samples, {totals['steps']:,} gradient steps, "
        f"{totals['run_minutes']:.0f} minutes of the run's wall time{of_selfplay}{cpu}.",
    ]
    if note:
        lines += [f"- {note}"]
    if ratings:
        lines += ["", "## Strength", "", ratings]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--ratings", type=Path, help="a rating run's ratings.json to quote in the card")
    parser.add_argument("--name", default="", help="the teacher's player name in --ratings")
    parser.add_argument("--note", default="", help="a line about the compute (machine, wall time)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_TEACHER, help="where to write it (default: the default teacher)"
    )
    args = parser.parse_args(argv)
    try:
        payload = load_checkpoint(args.checkpoint)
    except CheckpointError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    run_dir = args.checkpoint.resolve().parent.parent
    totals = run_totals(run_dir, up_to=int(payload["generation"]))
    ratings = ratings_table(args.ratings, args.name) if args.ratings else ""
    out = args.out
    write_atomic(out, args.checkpoint.read_bytes())
    load_checkpoint(out)  # reads back
    card = model_card(out, payload, totals, ratings, args.note)
    write_atomic(out.with_suffix(".md"), card)
    print(f"shipped {args.checkpoint} as {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
