"""The soak (tw_rl.reliability.soak, run as scripts/soak.py; issue 15): a short soak, killed
outright and started again, ends with every game filed once and stored once; other settings on
the same folder are refused; nothing is left running."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tw_rl.reliability import soak

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "soak.py"


def living(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def test_game_numbers_take_the_opponents_in_turn_and_extend():
    assert soak.game_numbers(10, 3) == [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2]]
    assert soak.game_numbers(5, 2) == [[1, 2, 3], [1, 2]]
    for total in range(12):  # a shorter soak's games are the start of a longer one's
        short, long = soak.game_numbers(total, 3), soak.game_numbers(total + 5, 3)
        assert all(s == lo[: len(s)] for s, lo in zip(short, long, strict=True))
        assert sum(map(len, short)) == total


def test_soak_killed_and_resumed_files_and_stores_every_game_once(tmp_path):
    out, db = tmp_path / "soak", tmp_path / "results.sqlite"
    argv = [sys.executable, str(SCRIPT), "--games", "6", "--time", "1.5", "--jobs", "2"]
    argv += ["--opponents", "random", "greedy", "--out", str(out), "--db", str(db)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list(out.glob("matches/*/game-*.txt")):
            time.sleep(0.05)
        assert list(out.glob("matches/*/game-*.txt")), "no game finished in time"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
        proc.communicate()
    time.sleep(0.3)
    assert living(str(out)) == []  # the programs died with the soak (parent-death signal)
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "already played" in done.stderr and "faults:" in done.stdout
    thinking = []
    for name, count in (("random", 4), ("greedy", 2)):  # pairs 1 and 3 to random, 2 to greedy
        folder = out / "matches" / name
        numbers = list(range(1, count + 1))
        assert sorted(p.name for p in folder.glob("game-*.txt")) == [f"game-{n:05d}.txt" for n in numbers]
        lines = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
        assert sorted(line["game"] for line in lines) == numbers
        for line in lines:
            bot = "red" if line["red"]["program"] == "bot" else "white"
            assert line["max_rss_kib"][bot] > 0 and line["thinking"][bot] < 1.5
            thinking.append(line["thinking"][bot])
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6
        names = {row[0] for row in conn.execute("SELECT name FROM players")}
    assert {"codecup-random", "codecup-greedy"} <= names and any(n.startswith("submission-") for n in names)
    report = json.loads((out / "report.json").read_text())
    assert report["games"] == 6 and report["bot"]["peak_memory_mib"] > 0
    assert report["bot"]["mean_game_s"] == pytest.approx(sum(thinking) / 6, abs=1e-3)
    assert report["bot"]["slowest_game_s"] == pytest.approx(max(thinking), abs=1e-3)
    assert report["bot"]["games_over_95pct_of_the_clock"] == sum(t > 0.95 * 1.5 for t in thinking)
    # The same command again: nothing to play, nothing stored twice.
    again = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "6 already played, 0 to play" in again.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6
    # Another clock on the same folder is refused in one line.
    other = subprocess.run([*argv, "--time", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert other.returncode == 2 and other.stderr.startswith("error: ") and "time" in other.stderr
    assert other.stderr.count("\n") == 1
    # While a soak holds the folder (here: this test), a second one is refused in one line and
    # --games 0 reports what is filed without writing anything.
    from tw_rl.files import folder_lock

    report_before = (out / "report.json").read_bytes()
    with folder_lock(out):
        busy = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert busy.returncode == 2 and busy.stderr.count("\n") == 1
        assert f"is in use by another soak (pid {os.getpid()})" in busy.stderr
        peek = subprocess.run([*argv, "--games", "0"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert peek.returncode == 0 and "still running" in peek.stderr
        games = {line.split()[0]: int(line.split()[1]) for line in peek.stdout.splitlines()[1:3]}
        assert games == {"random": 4, "greedy": 2}
        assert "faults:" in peek.stdout and "mean game" in peek.stdout
    assert (out / "report.json").read_bytes() == report_before
    assert living(str(out)) == []
