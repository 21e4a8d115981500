"""Hostile programs in the referee: each misbehaviour is the offender's fault with its reason, the
game gets the CodeCup forfeit score, the other program is not held up, and no process of the
hostile program (children included) is left when the game is over.

The programs are ``tests/programs/hostile.py MODE``; each is started with a ``--pidfile`` in the
test's own folder, which also tags its command line, so the process check below finds exactly
this test's processes (forked children share the parent's command line)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from helpers import forfeit_points

from tw_rl.core.notation import parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE
from tw_rl.referee.game import play_game
from tw_rl.referee.match import run_match
from tw_rl.referee.process import MAX_ANSWER, Program

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
HOSTILE = PROGRAMS / "hostile.py"
FIRST_LEGAL = PROGRAMS / "first_legal.py"
RULES = Rules(6, "codecup")
C3, H8 = parse_cell(RULES.grid, "C3"), parse_cell(RULES.grid, "H8")
CLOCK = 2.0  # seconds per player: the hang and no-newline cases wait this long


def hostile(name: str, mode: str, pidfile: Path, *options: str) -> Program:
    return Program.parse(
        name, shlex.join([sys.executable, str(HOSTILE), mode, "--pidfile", str(pidfile), *options])
    )


def first_legal(name: str, pidfile: Path, *options: str) -> Program:
    return Program.parse(
        name, shlex.join([sys.executable, str(FIRST_LEGAL), "--pidfile", str(pidfile), *options])
    )


def living(tag: str) -> list[int]:
    """Processes (zombies excluded) whose command line contains ``tag``."""
    found = []
    for name in Path("/proc").iterdir():
        if not name.name.isdigit():
            continue
        try:
            cmdline = (name / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (name / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in cmdline and state != "Z":
            found.append(int(name.name))
    return found


def assert_nothing_left(tag: str, wait: float = 3.0) -> None:
    deadline = time.monotonic() + wait
    while living(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert living(tag) == [], f"processes left behind: {living(tag)}"


# mode, colour of the hostile program, fault kind, its ply, words of the detail, options, memory
CASES = [
    ("startup-crash", RED, "crash", 0, "status 4", (), 0),
    ("startup-crash", WHITE, "crash", 1, "crashing at start-up", (), 0),
    ("hang", RED, "timeout", 0, "was killed", (), 0),
    ("flood-line", RED, "garbage", 0, "is not a move", ("--mb", "4"), 0),
    ("flood-lines", WHITE, "garbage", 1, "is not a move", ("--mb", "4"), 0),
    ("flood-forever", WHITE, "garbage", 1, "", (), 0),
    ("no-newline", RED, "timeout", 0, "without a newline", (), 0),
    ("early", WHITE, "garbage", 1, "before it was asked", (), 0),
    ("fork-exit", RED, "crash", 0, "exited", (), 0),
    ("fork-escape", WHITE, "crash", 1, "exited", (), 0),
    ("memory", RED, "crash", 0, "memory limit 512 MiB", ("--mb", "1024"), 512),
]


@pytest.mark.parametrize(
    ("mode", "colour", "kind", "ply", "words", "options", "memory"),
    CASES,
    ids=[f"{c[0]}-{'red' if c[1] == RED else 'white'}" for c in CASES],
)
def test_hostile_program_is_a_fault_and_leaves_nothing(
    tmp_path, mode, colour, kind, ply, words, options, memory
):
    pidfile = tmp_path / f"pids-{mode}"
    bad = hostile("bad", mode, pidfile, *options)
    # "early" prints at its start-up: red takes a second over its first move, so that the line
    # surely comes before white is asked (the game ends at white's first turn).
    good = first_legal("good", pidfile, *(("--delay", "1.0") if mode == "early" else ()))
    red, white = (bad, good) if colour == RED else (good, bad)
    started = time.monotonic()
    game = play_game(RULES, red, white, C3, H8, time_limit=CLOCK, memory_mb=memory)
    elapsed = time.monotonic() - started
    assert game.fault is not None and game.end == "fault"
    assert (game.fault.kind, game.fault.colour, game.fault.ply) == (kind, colour, ply), game.fault
    assert words in game.fault.detail
    assert game.fault.answer is None or len(game.fault.answer) <= MAX_ANSWER
    assert game.points == forfeit_points(C3, H8, game.moves, colour)
    assert game.winner == 3 - colour
    # The other program is not held up: its clock holds only its own (quick) answers.
    assert game.thinking[2 - colour] < 1.5 + (mode == "early")
    if kind != "timeout":  # found at once, not by waiting out the clock
        assert elapsed < CLOCK + 1.5
        assert game.thinking[colour - 1] < CLOCK
    assert elapsed < CLOCK + 3.0  # the clock, start-up and the Quit grace at most
    assert_nothing_left(str(pidfile))
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) >= 2 + mode.startswith("fork")  # both programs (and the forked child) ran


def test_memory_peak_is_recorded_per_program(tmp_path):
    pidfile = tmp_path / "pids"
    game = play_game(
        RULES, first_legal("A", pidfile), hostile("B", "stderr-flood", pidfile, "--mb", "1"), C3, H8, CLOCK
    )
    assert game.fault is None
    # A Python interpreter with the scalar engine: some MiB, far from a GiB.
    assert all(4 * 1024 < kib < 512 * 1024 for kib in game.max_rss_kib), game.max_rss_kib
    assert_nothing_left(str(pidfile))


def test_a_stderr_flood_past_the_file_limit_is_a_crash_and_the_log_stays_bounded(tmp_path, monkeypatch):
    """RLIMIT_FSIZE: the flood stops at the limit (Python ignores SIGXFSZ: its write fails and it
    exits), the offender's fault says why, and
    its stderr log is no larger than the limit (here lowered to 1 MiB; the default is 64 MiB)."""
    from tw_rl.referee import process

    monkeypatch.setattr(process, "FILE_LIMIT_BYTES", 1 << 20)
    pidfile = tmp_path / "pids"
    logs = tmp_path / "logs"
    logs.mkdir()
    game = play_game(
        RULES,
        first_legal("A", pidfile),
        hostile("B", "stderr-flood", pidfile, "--mb", "8"),
        C3,
        H8,
        CLOCK,
        stderr_paths=(logs / "A.log", logs / "B.log"),
    )
    assert game.fault is not None and game.fault.kind == "crash" and game.fault.colour == WHITE
    assert "stderr reached the 1 MiB limit" in game.fault.detail
    assert (logs / "B.log").stat().st_size <= 1 << 20
    assert_nothing_left(str(pidfile))


def test_match_of_hostile_programs_keeps_going_and_files_every_fault(tmp_path):
    """Through ``run_match`` (two at a time): every game is scored and filed, with the fault,
    the memory peaks and the stderr log of the crash; nothing is left running."""
    pidfile = tmp_path / "pids"
    out = tmp_path / "match"
    match = run_match(
        hostile("A", "fork-escape", pidfile),
        first_legal("B", pidfile),
        games=4,
        time_limit=CLOCK,
        jobs=2,
        out_dir=out,
        memory_mb=1024,
    )
    stats = match.stats()
    assert stats["A"].faults == {"crash": 4} and stats["B"].wins == 4
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["game"] for r in results) == [1, 2, 3, 4]
    for r in results:
        assert r["fault"]["kind"] == "crash" and r["fault"]["program"] == "A"
        assert r["max_rss_kib"]["red" if r["red"]["program"] == "B" else "white"] > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["memory_mb"] == 1024
    assert summary["stats"]["B"]["peak_memory"]["mib"] > 0
    assert_nothing_left(str(pidfile))


def test_flooding_opponent_does_not_fill_the_referees_memory(tmp_path):
    """A program flooding its output while the other one thinks is blocked on its pipe (the
    referee buffers a bounded number of lines), and loses when its turn comes."""
    import resource

    pidfile = tmp_path / "pids"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    slow = first_legal("slow", pidfile, "--delay", "1.0")
    game = play_game(RULES, slow, hostile("flood", "flood-forever", pidfile), C3, H8, time_limit=CLOCK)
    assert game.fault is not None and (game.fault.kind, game.fault.colour) == ("garbage", WHITE)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 64, f"the referee grew by {grown_mib:.0f} MiB"
    assert_nothing_left(str(pidfile))


def test_a_referee_killed_outright_leaves_no_program_running(tmp_path):
    """SIGKILL of the referee itself (no chance to clean up): its programs die with it
    (parent-death signal), the hung ones included."""
    import os
    import signal
    import subprocess

    pidfile = tmp_path / "pids"
    argv = [sys.executable, "-m", "tw_rl.cli", "referee"]
    argv += [shlex.join([sys.executable, str(HOSTILE), "hang", "--pidfile", str(pidfile)])]
    argv += [shlex.join([sys.executable, str(FIRST_LEGAL), "--pidfile", str(pidfile)])]
    argv += ["--games", "2", "--jobs", "2", "--time", "60", "--out", str(tmp_path / "m")]
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while (
            time.monotonic() < deadline and len(pidfile.read_text().split() if pidfile.exists() else []) < 4
        ):
            time.sleep(0.05)
        time.sleep(0.3)  # both games under way: the hung programs past their start-up
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    assert len(pidfile.read_text().split()) == 4
    assert_nothing_left(str(pidfile))


def test_stragglers_are_the_writers_of_the_pipe_only():
    """Only a process holding the program's output pipe for writing is a straggler: a child the
    referee forks for another game holds the reading end until its exec and must be spared."""
    import os
    import subprocess

    from tw_rl.referee.process import stragglers

    read, write = os.pipe()
    pipe = f"pipe:[{os.fstat(read).st_ino}]"
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    reader = subprocess.Popen(sleeper, pass_fds=(read,))
    writer = subprocess.Popen(sleeper, pass_fds=(write,))
    try:
        found = stragglers(-1, pipe)
        assert writer.pid in found and reader.pid not in found
        assert stragglers(writer.pid, "pipe:[0]") == []  # its own session leader: not a member
    finally:
        for proc in (reader, writer):
            proc.kill()
            proc.wait()
        os.close(read)
        os.close(write)
