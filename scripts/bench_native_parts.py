"""The native bot assembled from its parts against a one-file reference: the same searches, as fast.

The reference (``--reference``, by default the frozen release 0.5, ``baselines/tw_rl-0.5.cpp``:
the last one-file native bot, whose student is the shipped one) and the tools binary assembled
from ``tw_rl/native/src`` with the shipped student (``build.build_native_tools``) are compiled
with the same flags (``g++ -std=c++17 -O2`` and ``--flags``); each runs ``--bench SIMS`` on
``scripts/bench_bot.py``'s positions (the same seed), with the student and with ``--no-weights``
(the territory evaluator), ``--rounds`` times, interleaved, the best figure of each kept (CPU
seconds: the figure holds when other work shares the machine).  The table gives both bench
signatures (equal: the same searches, visit for visit) and the simulations per second as a
ratio of the reference's.  It also writes the submission (``tw-rl export --target cpp``) and
compiles it with ``-Wall -Wextra -pedantic -Werror``, with and without ``-march=native``, and
gives its size against the CodeCup's limit.

    python scripts/bench_native_parts.py                       # 50 positions, 200 simulations, 3 rounds
    python scripts/bench_native_parts.py --flags=-march=native
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "baselines" / "tw_rl-0.5.cpp"
KINDS = {"student": [], "territory": ["--no-weights"]}


def bench(binary: Path, sims: int, lines: str, options: list[str]) -> dict:
    """One --bench run's figures."""
    done = subprocess.run(
        [str(binary), "--bench", str(sims), *options],
        input=lines,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_native_parts: {binary.name} --bench failed: {done.stderr.strip()[:200]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--reference", type=Path, default=REFERENCE, help="one-file C++ bot with --bench (default 0.5)"
    )
    p.add_argument("--positions", type=int, default=50, help="mid-game positions (default 50)")
    p.add_argument("--seed", type=int, default=2024, help="seed of the positions (default 2024)")
    p.add_argument("--sims", type=int, default=200, help="search simulations per position (default 200)")
    p.add_argument("--rounds", type=int, default=3, help="runs of each binary, best kept (default 3)")
    p.add_argument("--flags", default="", help="extra g++ flags for both binaries, e.g. -march=native")
    args = p.parse_args(argv)
    if not args.reference.is_file():
        p.error(f"reference source not found: {args.reference}")
    if args.positions < 1 or args.sims < 1 or args.rounds < 1:
        p.error("--positions, --sims and --rounds must be at least 1")

    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_bot import make_positions

    from tw_rl.codecup.evaluation import default_weights
    from tw_rl.native import build

    records = make_positions(args.positions, args.seed)
    lines = "".join(" ".join(map(str, [red, white, *moves])) + "\n" for red, white, moves in records)
    flags = ("-std=c++17", "-O2", *shlex.split(args.flags))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        try:
            tools = build.build_native_tools(Path(default_weights(6)), folder / "bot-tools.cpp")
            binaries = {
                "reference": build.compile_source(args.reference, folder / "reference", flags),
                "parts": build.compile_source(tools.path, folder / "parts", flags),
            }
            submission = build.build_native_submission(Path(default_weights(6)), folder / "submission.cpp")
            for extra in ((), ("-march=native",)):
                build.compile_source(submission.path, folder / "submission", (*build.STRICT_FLAGS, *extra))
        except build.NativeBuildError as err:
            raise SystemExit(f"bench_native_parts: {err}") from None
        best: dict[tuple[str, str], dict] = {}
        for _ in range(args.rounds):
            for name, binary in binaries.items():
                for kind, options in KINDS.items():
                    figures = bench(binary, args.sims, lines, options)
                    key = (name, kind)
                    if key not in best or figures["sims_per_s"] > best[key]["sims_per_s"]:
                        best[key] = figures

    print(
        f"{len(records)} positions (seed {args.seed}), {args.sims} simulations each, best of {args.rounds} "
        f"rounds, g++ {' '.join(flags)}; reference {args.reference.name}"
    )
    print()
    print("| binary | evaluator | simulations/s | / reference | bench signature |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        ref = best[("reference", kind)]
        for name in binaries:
            fig = best[(name, kind)]
            print(
                f"| {name} | {kind} | {fig['sims_per_s']:,.0f} | {fig['sims_per_s'] / ref['sims_per_s']:.2f} "
                f"| {fig['signature']} |"
            )
    same = all(best[("parts", k)]["signature"] == best[("reference", k)]["signature"] for k in KINDS)
    print()
    print(f"same bench signatures: {'yes' if same else 'NO'}")
    print(
        f"submission: {submission.size:,} bytes of {build.SIZE_LIMIT:,} allowed; compiled with "
        f"{' '.join(build.STRICT_FLAGS)}, with and without -march=native: no warning"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
