"""The native bot's self-play data mode run as several processes (``bot --selfplay``).

``native_binary`` compiles the native tools binary once (``tw_rl.native.build.build_native_tools``:
the bot's parts with its self-play mode; no weights embedded: each process is given
``--weights FILE``); ``generate`` shares the games out among the processes
(``tw_rl.stats.shares``, none empty), each writing its own shards
(``shard-g<generation>-w<worker>-...``) into one folder, and reports each finished game through
``on_game``.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tw_rl.native import build
from tw_rl.stats import shares


class SelfPlayError(RuntimeError):
    """A bot process failed; the message is its one-line error."""


def native_binary(folder: Path) -> Path:
    """The compiled native tools binary in ``folder`` (built when missing or older than its parts)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "bot"
    if binary.is_file() and binary.stat().st_mtime >= build.sources_mtime():
        return binary
    source = build.build_native_tools(None, folder / "bot.cpp").path
    partial = folder / "bot.partial"
    build.compile_source(source, partial)
    partial.replace(binary)
    return binary


@dataclass
class SelfPlayTotals:
    """What the processes of one call wrote."""

    games: int = 0
    positions: int = 0
    cpu_seconds: float = 0.0  # summed over the processes


def generate(
    binary: Path,
    weights: Path,
    out: Path,
    *,
    games: int,
    processes: int,
    generation: int,
    sims: int,
    temperature_moves: int,
    seed: int,
    on_game: Callable[[dict], None] | None = None,
) -> SelfPlayTotals:
    """Play ``games`` self-play games with ``processes`` bot processes; shards land in ``out``.

    Worker k of the call plays with seed ``seed + k`` (callers pick seeds that differ between
    calls); a process that fails raises SelfPlayError once all have ended."""
    totals = SelfPlayTotals()
    lock = threading.Lock()
    procs = []
    for worker, count in enumerate(shares(games, processes)):
        command = [
            str(binary),
            "--weights",
            str(weights),
            "--selfplay",
            str(count),
            "--out",
            str(out),
            "--sims",
            str(sims),
            "--temperature-moves",
            str(temperature_moves),
            "--generation",
            str(generation),
            "--worker",
            str(worker),
            "--seed",
            str(seed + worker),
        ]
        procs.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))

    def follow(proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            record = json.loads(line)
            if "game" not in record:
                continue
            with lock:
                totals.games += 1
                totals.positions += int(record["positions"])
                totals.cpu_seconds += float(record["seconds"])
                if on_game is not None:
                    on_game(record)

    threads = [threading.Thread(target=follow, args=(p,), daemon=True) for p in procs]
    for t in threads:
        t.start()
    try:
        for p in procs:
            p.wait()
        for t in threads:
            t.join()
    finally:
        for p in procs:  # interrupted: no bot outlives its caller
            if p.poll() is None:
                p.kill()
                p.wait()
    for p in procs:
        if p.returncode != 0:
            message = (p.stderr.read().strip().splitlines() or [f"exit code {p.returncode}"])[0]
            raise SelfPlayError(f"native self-play failed: {message}")
    return totals
