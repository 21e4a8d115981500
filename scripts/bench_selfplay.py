"""Benchmark self-play: positions and MCTS simulations per second, and where the time goes.

Runs the batched search with a freshly initialised network (default: the ``small`` preset) on
``--batch`` games at once, for ``--moves`` moves of every game, with ``--sims`` simulations
per move, and splits the time into the network (encoding + forward pass), the rules (moves and
legal masks), the end detection (territory simulations) and the tree bookkeeping (the rest).
Each precision in ``--precision`` runs the same games, so the old (float32) and the new path
are compared side by side in one invocation; so is each forward-pass backend of ``--candidates``
(``tw_rl.training.inference``: eager, compile, onnx, onnx-int8; float32 on the CPU only). Each
report gives the backend's set-up time (compilation or export, in the warm-up), the network's
FLOPs per position (as executed on the padded grid, from its layers) and the FLOP/s it reached.

    python scripts/bench_selfplay.py                     # small net, batch 256, 64 sims; float32 vs auto
    python scripts/bench_selfplay.py --precision float32,bfloat16 --threads 1
    python scripts/bench_selfplay.py --net tiny --batch 64 --sims 32
    python scripts/bench_selfplay.py --precision float32 --candidates eager,compile,onnx,onnx-int8 --threads 1
    python scripts/bench_selfplay.py --isa avx2 --precision float32 --candidates eager,compile --threads 1

``--isa avx2`` stands in for a CPU without AVX-512 (and so without native bfloat16) on one that
has it: the script runs again with ``ATEN_CPU_CAPABILITY=avx2`` (torch's own kernels and the code
``torch.compile`` generates) and ``ONEDNN_MAX_CPU_ISA=AVX2`` (oneDNN's convolutions and matrix
products), which both must see before torch is loaded. The report names the capability torch
ran with. ONNX Runtime has no such cap: its figures under ``--isa avx2`` still use AVX-512.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

import tw_rl.core.rules as rules_module
from tw_rl.config import group_option
from tw_rl.core.mcts import BatchedMCTS, SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.training.inference import BACKENDS, BackendUnavailable
from tw_rl.training.net import PRECISIONS, NetPolicyValue, build_net, resolve_device

CONFIGS = Path(__file__).resolve().parents[1] / "configs"  # the net presets: configs/net/*.yaml
TERRITORY = ("simulate_territory", "sight_and_territory")


class Timer:
    """Wraps callables and adds up the seconds spent inside them."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

        return timed


def flops_per_position(net: torch.nn.Module, size: int) -> int:
    """Multiply-adds x 2 of the network's convolutions and linear layers for one position, as
    executed (every cell of the padded square, all nine taps of the hexagonal 3x3 kernels)."""
    total = 0

    def count(module, inputs, output):
        nonlocal total
        if isinstance(module, torch.nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1] * module.in_channels // module.groups
            total += 2 * k * output[0].numel()
        elif isinstance(module, torch.nn.Linear):
            total += 2 * module.in_features * module.out_features

    hooks = [
        m.register_forward_hook(count)
        for m in net.modules()
        if isinstance(m, torch.nn.Conv2d | torch.nn.Linear)
    ]
    width = 2 * size - 1
    with torch.no_grad():
        net.eval()(torch.zeros(1, net.in_planes, width, width))
    for hook in hooks:
        hook.remove()
    return total


def measure(args: argparse.Namespace, precision: str, backend: str = "eager") -> dict:
    """One timed self-play run with forward passes in ``precision`` by ``backend``; the report as a dict."""
    device = resolve_device(args.device)
    rules = Rules(args.size)
    torch.manual_seed(args.seed)
    net = build_net(group_option("net", args.net, CONFIGS), args.size).to(device)
    flops = flops_per_position(net, args.size)
    policy_value = NetPolicyValue(net, rules, device, precision=precision, backend=backend)
    rng = np.random.default_rng(args.seed)
    mcts = BatchedMCTS(rules, SearchConfig(simulations=args.sims))

    timer = Timer()
    network = timer.wrap("network", policy_value)
    original_step, original_mask = Rules.step, Rules.legal_mask
    # The territory simulations, where the rules call them (sight_and_territory, which also
    # gives the position's sight, exists from the compiled kernel on; the script still times
    # older checkouts).
    territory = {name: getattr(rules_module, name) for name in TERRITORY if hasattr(rules_module, name)}
    Rules.step = timer.wrap("rules", original_step)
    Rules.legal_mask = timer.wrap("legal masks", original_mask)
    for name, fn in territory.items():
        setattr(rules_module, name, timer.wrap("end detection", fn))
    try:
        state = rules.init(args.batch, rng)
        setup = time.perf_counter()
        mcts.search(state[: min(8, args.batch)], network, rng, simulations=2)  # warm-up
        setup = time.perf_counter() - setup
        timer.seconds.clear()
        start = time.perf_counter()
        positions = 0
        for move in range(args.moves):
            result = mcts.search(state, network, rng)
            positions += int((~state.terminated).sum())
            state = original_step(rules, state, BatchedMCTS.sample_action(result, 1.0, rng))
            print(f"{precision}/{backend}: move {move + 1}/{args.moves}", file=sys.stderr, flush=True)
        elapsed = time.perf_counter() - start
    finally:
        Rules.step, Rules.legal_mask = original_step, original_mask
        for name, fn in territory.items():
            setattr(rules_module, name, fn)

    simulations = positions * args.sims
    shares = dict(timer.seconds)
    # rules.step includes the end detection; report them apart.
    shares["rules"] = shares.get("rules", 0.0) - shares.get("end detection", 0.0)
    # The network call computes legal masks for its encoding too; those count as network.
    shares["tree bookkeeping"] = elapsed - sum(shares.values())
    return {
        "net": args.net,
        "device": str(device),
        "precision": precision,
        "backend": backend,
        "setup_s": round(setup, 2),
        "dtype": str(policy_value.dtype).removeprefix("torch."),
        "threads": torch.get_num_threads(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "batch": args.batch,
        "sims": args.sims,
        "positions_per_s": positions / elapsed,
        "simulations_per_s": simulations / elapsed,
        "network_evaluations_per_s": policy_value.evaluations / elapsed,
        "flops_per_position": flops,
        # the FLOP/s of the forward passes while they ran (the network share includes the encoding)
        "network_flops_per_s": flops
        * policy_value.evaluations
        / max(timer.seconds.get("network", 0.0), 1e-9),
        "share": {k: round(v / elapsed, 3) for k, v in sorted(shares.items(), key=lambda kv: -kv[1])},
    }


ISA_CAPS = {  # --isa: the environment that caps torch and oneDNN at an instruction set
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "avx512": {"ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
}


def run_capped(isa: str, argv: list[str]) -> None:
    """Run this script again with torch and oneDNN capped at ``isa`` (they read the cap when
    torch is loaded, which this process has already done); does not return."""
    env = {**os.environ, **ISA_CAPS[isa]}
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv], env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    nets = sorted(p.stem for p in (CONFIGS / "net").glob("*.yaml"))
    parser.add_argument("--net", default="small", choices=nets)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--sims", type=int, default=64)
    parser.add_argument("--moves", type=int, default=6, help="moves played in every game")
    parser.add_argument("--size", type=int, default=6, choices=(6, 8, 10, 11))
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--precision",
        default="float32,auto",
        help="comma-separated forward-pass precisions, run one after the other on the same games "
        "(float32 = the 0.1 path; auto = bfloat16 where the hardware has it)",
    )
    parser.add_argument(
        "--candidates",
        default="eager",
        help=f"comma-separated forward-pass backends, each run with every precision ({', '.join(BACKENDS)})",
    )
    parser.add_argument(
        "--peak-gflops",
        type=float,
        default=0.0,
        help="the core's peak GFLOP/s (e.g. clock GHz x 64 for AVX-512 with two FMA units): "
        "adds the network's share of it",
    )
    parser.add_argument(
        "--isa",
        default="",
        choices=("", *ISA_CAPS),
        help="cap torch's and oneDNN's instruction set (avx2: a stand-in for a CPU without "
        "AVX-512 or native bfloat16); ONNX Runtime is not capped",
    )
    args = parser.parse_args(argv)
    if args.isa and any(os.environ.get(k) != v for k, v in ISA_CAPS[args.isa].items()):
        run_capped(args.isa, sys.argv[1:] if argv is None else argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    precisions = args.precision.split(",")
    for precision in precisions:
        if precision not in PRECISIONS:
            parser.error(f"--precision: {precision!r} is not one of {', '.join(PRECISIONS)}")
    backends = args.candidates.split(",")
    for backend in backends:
        if backend not in BACKENDS:
            parser.error(f"--candidates: {backend!r} is not one of {', '.join(BACKENDS)}")
    try:
        reports = [measure(args, p, b) for p in precisions for b in backends]
    except BackendUnavailable as error:
        parser.error(str(error))
    for report in reports:
        if args.peak_gflops:
            report["network_share_of_peak"] = round(
                report["network_flops_per_s"] / (args.peak_gflops * 1e9), 3
            )
    for report in reports:
        print(json.dumps(report))
    base = reports[0]["simulations_per_s"]
    print(f"torch CPU capability: {reports[0]['cpu_capability']}")
    header = ("precision", "backend", "dtype", "simulations/s", "positions/s", "vs first", "set-up s")
    print("{:<10} {:<10} {:<9} {:>14} {:>12} {:>9} {:>9}  network share, GFLOP/s".format(*header))
    for r in reports:
        peak = f" ({r['network_share_of_peak']:.0%} of peak)" if "network_share_of_peak" in r else ""
        print(
            f"{r['precision']:<10} {r['backend']:<10} {r['dtype']:<9} {r['simulations_per_s']:>14,.0f} "
            f"{r['positions_per_s']:>12,.1f} "
            f"{r['simulations_per_s'] / base:>8.2f}x {r['setup_s']:>9.1f}  "
            f"{r['share'].get('network', 0):.0%}, "
            f"{r['network_flops_per_s'] / 1e9:.1f}{peak}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
