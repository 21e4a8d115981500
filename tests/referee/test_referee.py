"""The referee: protocol, end rule, every fault and its score, clocks, files, the CLI, Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from helpers import forfeit_points

from tw_rl import cli
from tw_rl.core.notation import cell_name, parse_cell, parse_record
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE
from tw_rl.files import file_sha256
from tw_rl.referee.game import draw_opening, play_game
from tw_rl.referee.match import run_match
from tw_rl.referee.process import Program

ROOT = Path(__file__).resolve().parents[2]
FIRST_LEGAL = Path(__file__).resolve().parents[1] / "programs" / "first_legal.py"
RULES = Rules(6, "codecup")
GRID = RULES.grid
C3, H8 = parse_cell(GRID, "C3"), parse_cell(GRID, "H8")


def command(*options: str) -> str:
    return shlex.join([sys.executable, str(FIRST_LEGAL), *options])


def program(name: str, *options: str) -> Program:
    return Program.parse(name, command(*options))


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def first_legal_moves(red: int, white: int) -> list[int]:
    """The game two first-legal players play, by the batched engine."""
    state = RULES.start(red, white)
    moves = []
    while not state.terminated[0]:
        action = int(np.flatnonzero(RULES.legal_mask(state)[0])[0])
        moves.append(action)
        state = RULES.step(state, action)
    return moves


def gone(pid: int, wait: float = 3.0) -> bool:
    """True once the process has exited (a zombie waiting for init counts as gone)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------------------------- games


def test_normal_game_ends_by_the_end_rule():
    game = play_game(RULES, program("A"), program("B"), C3, H8, time_limit=10)
    assert game.fault is None and game.end == "end rule"
    assert game.moves == first_legal_moves(C3, H8)
    state = RULES.start(C3, H8)
    for move in game.moves:
        assert not state.terminated[0]
        state = RULES.step(state, move)
    assert state.terminated[0] and state.forfeit[0] == 0
    assert game.points == tuple(int(p) for p in RULES.score(state)[0])
    assert game.winner == int(RULES.winner(state)[0])
    # 142 answers each from a program that answers in milliseconds, plus one start-up: well
    # under 3 s (a 10 s budget would hide a clock that counts wall time or double-charges).
    assert all(0.0 < seconds < 3.0 for seconds in game.thinking), game.thinking
    assert all(0 < seconds <= total for (seconds, _), total in zip(game.slowest, game.thinking, strict=True))
    assert all(0 <= ply < len(game.moves) and ply % 2 == c for c, (_, ply) in enumerate(game.slowest))


FAULTS = [
    ("illegal", "illegal"),
    ("offboard", "illegal"),
    ("garbage", "garbage"),
    ("crash", "crash"),
    ("pass", "pass"),
    ("double", "garbage"),  # the unsolicited second line is found at its next turn
]


@pytest.mark.parametrize("offender", [RED, WHITE])
@pytest.mark.parametrize(("fault", "kind"), FAULTS)
def test_faults_are_detected_and_scored(fault, kind, offender):
    bad, good = program("A", "--fault", fault, "--at", "2"), program("B")
    red, white = (bad, good) if offender == RED else (good, bad)
    game = play_game(RULES, red, white, C3, H8, time_limit=10)
    assert game.fault is not None and game.end == "fault"
    assert (game.fault.kind, game.fault.colour) == (kind, offender)
    own_move = 3 if fault == "double" else 2
    assert game.fault.ply == 2 * own_move + (offender - 1)
    assert len(game.moves) == game.fault.ply  # the offending move is not recorded
    assert game.moves == first_legal_moves(C3, H8)[: game.fault.ply]
    assert game.points == forfeit_points(C3, H8, game.moves, offender)
    assert game.winner == 3 - offender
    if fault == "crash":
        assert "status 3" in game.fault.detail and "crashing on purpose" in game.fault.detail


def test_hung_program_times_out_and_its_whole_group_is_killed(tmp_path):
    pidfile = tmp_path / "pids"
    hung = program("A", "--fault", "hang", "--at", "1", "--pidfile", str(pidfile))
    start = time.monotonic()
    game = play_game(RULES, hung, program("B"), C3, H8, time_limit=1.5)
    elapsed = time.monotonic() - start
    assert elapsed < 1.5 + 3.0  # the budget, start-up and the Quit grace
    assert game.fault is not None and (game.fault.kind, game.fault.colour, game.fault.ply) == (
        "timeout",
        RED,
        2,
    )
    assert 1.5 <= game.thinking[0] < 1.5 + 0.5
    assert game.points == forfeit_points(C3, H8, game.moves, RED)
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2  # the program and the child it started
    assert all(gone(pid) for pid in pids)


def test_clock_is_cumulative():
    slow = program("B", "--delay", "0.3")
    game = play_game(RULES, program("A"), slow, C3, H8, time_limit=1.0)
    assert game.fault is not None and (game.fault.kind, game.fault.colour) == ("timeout", WHITE)
    assert game.fault.ply in (5, 7)  # white's third or fourth answer passes 1 s
    assert game.thinking[1] >= 1.0 and game.slowest[1][0] >= 0.3


def test_program_that_cannot_run_is_a_crash():
    dead = Program.parse("A", shlex.join([sys.executable, "-c", "import sys; sys.exit(5)"]))
    game = play_game(RULES, program("B"), dead, C3, H8, time_limit=5)
    assert game.fault is not None and (game.fault.kind, game.fault.colour, game.fault.ply) == (
        "crash",
        WHITE,
        1,
    )
    assert "status 5" in game.fault.detail
    assert game.points == forfeit_points(C3, H8, game.moves, WHITE)


def test_a_program_is_identified_by_the_file_it_runs_with_or_without_options(tmp_path):
    binary = tmp_path / "bot"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    weights = tmp_path / "net.twnet"
    weights.write_bytes(b"other")
    script, bot = file_sha256(FIRST_LEGAL), file_sha256(binary)
    assert Program.parse("A", command()).sha256 == script  # an interpreter: its script
    assert Program.parse("A", command("--delay", "0.1")).sha256 == script
    assert Program.parse("A", str(binary)).sha256 == bot  # a program: its own file
    assert Program.parse("A", f"{binary} --weights {weights}").sha256 == bot  # options aside
    assert Program.parse("A", shlex.join([sys.executable, "-c", "pass"])).sha256 == ""


# ---------------------------------------------------------------------------------- matches


def test_match_files_colours_and_analyze(tmp_path):
    out = tmp_path / "match"
    code, stdout, stderr = run_cli(
        "referee", command(), command(), "--games", "4", "--jobs", "2", "--time", "10", "--out", str(out)
    )
    assert code == 0, stderr
    assert "win rate" in stdout and "Wilson" in stdout and "hint" not in stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["game"] for r in results) == [1, 2, 3, 4]
    summaries = {}
    for number in range(1, 5):
        text = (out / f"game-{number:05d}.txt").read_text()
        summary = json.loads(text.splitlines()[-1].removeprefix("# "))
        summaries[number] = summary
        assert summary == next(r for r in results if r["game"] == number)
        assert summary["red"]["program"] == ("A" if number % 2 else "B")  # colours alternate
        assert summary["fault"] is None and summary["end"] == "end rule"
        record = parse_record(GRID, text)
        assert summary["plies"] == len(record.moves)
        assert record.moves == first_legal_moves(record.red_start, record.white_start)
        # The record replays to the same end and score with tw-rl analyze.
        code, analysed, _ = run_cli("analyze", str(out / f"game-{number:05d}.txt"))
        final = json.loads(analysed.splitlines()[-1])
        assert code == 0 and final["over"] and final["plies"] == summary["plies"]
        assert final["score"] == summary["points"] and final["winner"] == summary["winner_colour"]
    # A pair of games shares an opening; the next pair has another.
    assert summaries[1]["start"] == summaries[2]["start"] != summaries[3]["start"] == summaries[4]["start"]
    first = draw_opening(RULES, 0, 0)
    assert summaries[1]["start"]["red"] == cell_name(GRID, first[0])
    stats = json.loads((out / "summary.json").read_text())
    assert stats["games_finished"] == 4 and not stats["interrupted"]
    for name in ("A", "B"):
        s = stats["stats"][name]
        assert s["games"] == 4 and s["wins"] + s["draws"] + s["losses"] == 4 and s["faults"] == {}
        points = [r["program_points"][name] for r in results]
        assert s["mean_points"] == pytest.approx(sum(points) / 4, abs=1e-3)
    assert not list(out.glob(".tmp-*"))
    assert not list((out / "stderr").iterdir())  # empty logs are dropped


def test_match_records_faults_per_program(tmp_path):
    match = run_match(
        program("A", "--fault", "garbage", "--at", "1"),
        program("B"),
        games=2,
        time_limit=10,
        out_dir=tmp_path,
    )
    stats = match.stats()
    assert stats["A"].faults == {"garbage": 2} and stats["A"].losses == 2 and stats["A"].points == 0
    assert stats["B"].wins == 2 and stats["B"].faults == {}
    text = (tmp_path / "game-00002.txt").read_text()
    assert "# fault at ply 3: white (A) answered 'hello, judge': garbage" in text
    assert json.loads(text.splitlines()[-1][2:])["fault"]["kind"] == "garbage"
    assert match.crash_hint() is None


def test_all_games_crashing_give_a_hint(tmp_path):
    crash = shlex.join([sys.executable, "-c", "import sys; sys.exit('no weights file')"])
    code, stdout, stderr = run_cli(
        "referee", crash, command(), "--games", "2", "--time", "5", "--out", str(tmp_path / "m")
    )
    assert code == 0
    assert "hint: every game ended with A crashing before its first move" in stderr
    assert "no weights file" in stderr
    assert sorted(p.name for p in (tmp_path / "m" / "stderr").iterdir()) == [
        "game-00001-A.txt",
        "game-00002-A.txt",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such-program-xyz", "--games", "1"], "no such program 'no-such-program-xyz'"),
        (["'unbalanced", "--games", "1"], "cannot split the command"),
        (["PROGRAM", "--games", "0"], "--games and --jobs must be at least 1"),
        (["PROGRAM", "--time", "-1"], "--time must be a positive number"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, argv, message):
    argv = [command() if a == "PROGRAM" else a for a in argv]
    code, stdout, stderr = run_cli("referee", argv[0], command(), *argv[1:], "--out", str(tmp_path / "m"))
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("error: ") and message in stderr


def test_cli_refuses_a_folder_with_results(tmp_path):
    (tmp_path / "game-00001.txt").write_text("C3\nH8\n")
    code, _, stderr = run_cli("referee", command(), command(), "--out", str(tmp_path))
    assert code == 2 and "already holds results" in stderr


@pytest.fixture
def ctrl_c_heard():
    """Ctrl-C raises KeyboardInterrupt here and in the programs started meanwhile, even when the
    suite was started with SIGINT ignored (a shell's background job, ``cmd &``, is): an ignored
    signal stays ignored across exec, and Python then installs no handler for it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_kills_every_program_and_keeps_the_summary(tmp_path, ctrl_c_heard):
    pidfile, out = tmp_path / "pids", tmp_path / "m"
    argv = [
        sys.executable,
        "-m",
        "tw_rl.cli",
        "referee",
        command("--fault", "hang", "--pidfile", str(pidfile)),
    ]
    argv += [
        command("--pidfile", str(pidfile)),
        "--games",
        "4",
        "--jobs",
        "2",
        "--time",
        "60",
        "--out",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60  # generous bounds: a loaded machine starts programs slowly
        while (
            time.monotonic() < deadline and len(pidfile.read_text().split() if pidfile.exists() else []) < 6
        ):
            time.sleep(0.05)  # two games: two hung programs, their children, two opponents
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 6 and all(gone(pid) for pid in pids)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] and summary["games_finished"] == 0
    assert not list(out.glob("game-*"))


def test_ctrl_c_that_lands_on_a_game_thread_still_stops_the_match_at_once(ctrl_c_heard):
    """The kernel may hand a process's SIGINT to any thread; the main thread must still notice
    it while the games go on, not only once a game has ended."""
    import threading

    from tw_rl.referee.match import play_parallel
    from tw_rl.referee.process import Cancel, MatchInterrupted

    cancel = Cancel()
    seen_cancel = []
    submitted = threading.Event()

    def game(signal_self: bool) -> str:
        if signal_self:
            assert submitted.wait(30)  # a Ctrl-C during the submissions is another case
            time.sleep(0.2)  # let the main thread go to sleep waiting for a result
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        for _ in range(400):  # 20 s unless the cancel comes
            if cancel.is_set():
                seen_cancel.append(signal_self)
                raise MatchInterrupted
            time.sleep(0.05)
        return "played out"

    def games():
        yield lambda: game(True)
        yield lambda: game(False)
        submitted.set()  # play_parallel asked for more: both games are submitted

    finished = []
    with pytest.raises(KeyboardInterrupt):
        play_parallel(games(), 2, cancel, finished.append)
    assert sorted(seen_cancel) == [False, True] and finished == []
