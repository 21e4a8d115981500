"""Benchmark self-play on Ray: samples per second with N local Ray workers against one process.

Plays ``--generations`` generations of ``--games`` games each with a freshly initialised network,
the way a training run does (the same search settings, shards written to a scratch run folder),
first in this process (``tw_rl.training.selfplay.play_games``, as the one-process loop does), then with a
local Ray and each worker count of ``--workers`` (``tw_rl.training.ray_selfplay.SelfPlayPool``, the
network published before every generation, as a Ray run does). The first generation of every
mode is a warm-up and is not counted. Reports samples, games and simulations per second, the
seconds Ray takes to start (``ray.init`` and the workers' imports), and the overhead of one
worker against one process.

    python scripts/bench_ray.py                              # small net, 64 games, 1 and 2 workers
    python scripts/bench_ray.py --net tiny --games 8 --parallel 4 --sims 4 --cheap-sims 2 --generations 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from tw_rl.config import TrainConfig, group_option
from tw_rl.core.rules import Rules
from tw_rl.training.net import NetPolicyValue, build_net
from tw_rl.training.replay_buffer import write_shard
from tw_rl.training.selfplay import play_games

CONFIGS = Path(__file__).resolve().parents[1] / "configs"  # the net presets: configs/net/*.yaml


def make_config(args: argparse.Namespace, run_dir: str, workers: int) -> TrainConfig:
    cfg = TrainConfig(
        net=group_option("net", args.net, CONFIGS),
        run_dir=run_dir,
        device="cpu",
        threads=args.threads,
        progress=False,
    )
    cfg.search.simulations = args.sims
    cfg.search.cheap_simulations = args.cheap_sims
    cfg.selfplay.games_per_generation = args.games
    cfg.selfplay.parallel_games = args.parallel
    cfg.selfplay.workers = workers
    cfg.ray.address = "local" if workers else ""
    return cfg


def one_process(args: argparse.Namespace, run_dir: Path) -> list[dict]:
    """Generations played as ``tw_rl.training.loop`` plays them without Ray."""
    cfg = make_config(args, str(run_dir), 0)
    rules = Rules(cfg.board.size)
    torch.manual_seed(args.seed)
    policy_value = NetPolicyValue(build_net(cfg.net, cfg.board.size), rules, "cpu")
    folder = run_dir / "selfplay"
    out = []
    for generation in range(args.generations):
        start = time.perf_counter()
        stats = play_games(
            rules,
            policy_value,
            cfg.search,
            cfg.selfplay.games_per_generation,
            cfg.selfplay.parallel_games,
            np.random.default_rng([args.seed, generation]),
            lambda games, samples, g=generation: write_shard(folder, g, games, samples),
            chunk_games=max(1, cfg.selfplay.parallel_games // 4),
        )
        out.append(_figures(stats, time.perf_counter() - start))
    return out


def on_ray(args: argparse.Namespace, run_dir: Path, workers: int) -> tuple[float, list[dict]]:
    """Ray's start-up seconds and the generations played by ``workers`` local Ray workers."""
    from tw_rl.training.ray_selfplay import open_pool

    cfg = make_config(args, str(run_dir), workers)
    torch.manual_seed(args.seed)
    net = build_net(cfg.net, cfg.board.size)
    start = time.perf_counter()
    with open_pool(cfg, run_dir) as pool:
        startup = time.perf_counter() - start
        out = []
        for generation in range(args.generations):
            result = pool.play_generation(net, generation, cfg.selfplay.games_per_generation, args.seed)
            out.append(_figures(result.stats, result.seconds))
    return startup, out


def _figures(stats, seconds: float) -> dict:
    return {
        "seconds": seconds,
        "games": stats.games,
        "samples": stats.samples,
        "samples_per_s": stats.samples / seconds,
        "games_per_s": stats.games / seconds,
        "simulations_per_s": stats.simulations / seconds,
    }


def _summary(mode: str, generations: list[dict], startup: float | None = None) -> dict:
    counted = generations[1:] or generations  # the first generation warms up
    seconds = sum(g["seconds"] for g in counted)
    row = {
        "mode": mode,
        "samples_per_s": sum(g["samples"] for g in counted) / seconds,
        "games_per_s": sum(g["games"] for g in counted) / seconds,
        "simulations_per_s": statistics.fmean(g["simulations_per_s"] for g in counted),
        "seconds_per_generation": seconds / len(counted),
        "generations_counted": len(counted),
    }
    if startup is not None:
        row["ray_startup_s"] = startup
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--net", default="small", choices=sorted(p.stem for p in (CONFIGS / "net").glob("*.yaml"))
    )
    parser.add_argument("--games", type=int, default=64, help="games per generation (all workers together)")
    parser.add_argument("--parallel", type=int, default=64, help="games searched together, per worker")
    parser.add_argument("--sims", type=int, default=32, help="simulations of a full search")
    parser.add_argument("--cheap-sims", type=int, default=8, help="simulations of a cheap move")
    parser.add_argument("--generations", type=int, default=3, help="per mode; the first is a warm-up")
    parser.add_argument("--workers", default="1,2", help="Ray worker counts to try, comma-separated")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as scratch:
        rows.append(_summary("one process", one_process(args, Path(scratch) / "single")))
        print(json.dumps(rows[-1]), flush=True)
        for workers in [int(w) for w in args.workers.split(",") if w.strip()]:
            startup, generations = on_ray(args, Path(scratch) / f"ray{workers}", workers)
            rows.append(_summary(f"Ray, {workers} worker{'s' if workers > 1 else ''}", generations, startup))
            print(json.dumps(rows[-1]), flush=True)
    base = rows[0]["samples_per_s"]
    print(
        f"\n{args.net} net, {args.games} games per generation, {args.parallel} at a time per worker, "
        f"{args.sims}/{args.cheap_sims} simulations, {args.threads} torch thread(s)"
    )
    print("| mode | samples/s | games/s | vs one process | Ray start-up |")
    print("|---|---|---|---|---|")
    for row in rows:
        startup = f"{row['ray_startup_s']:.1f} s" if "ray_startup_s" in row else "-"
        print(
            f"| {row['mode']} | {row['samples_per_s']:.1f} | {row['games_per_s']:.2f} | "
            f"{row['samples_per_s'] / base:.2f}x | {startup} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
