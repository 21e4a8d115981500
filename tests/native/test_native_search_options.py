"""The native bot's options for the CodeCup's points (issue 43), all off by default: the points
utility's sign and scale from each side to move; the exact endgame solver against exhaustive
play on hand-made small endings (and its bounds still proven when cut short); the evaluation
cache, which changes no search; their command-line errors; whole games with every option on;
and the clock kept on a machine slowed down (the bot stopped and resumed as a CPU quota does)."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import threading
import time

import pytest
from native_crosscheck import BOARD, ask, position, random_games, text

from tw_rl.codecup.rules import RED, WHITE, judge_start
from tw_rl.export.submission_check import play_check_game
from tw_rl.scalar_position import scalar_position

ALL_OPTIONS = [
    "--utility",
    "points",
    "--endgame",
    "8",
    "--time-extend",
    "2",
    "--early-stop",
    "--eval-cache-mib",
    "16",
]


def margin(pos) -> int:
    """The judge's count, own cells minus the opponent's, for the side to move."""
    red, white = pos.territory_bits()
    d = red.bit_count() - white.bit_count()
    return d if pos.to_move == RED else -d


def fields(line: str) -> dict[str, str]:
    words = line.split()
    return dict(zip(words[0::2], words[1::2], strict=True))


# ------------------------------------------------------------------------------ utility
def test_the_points_utility_has_the_sign_and_scale_of_the_side_to_move(native_tools_bin):
    records = random_games(3, seed=43)[::3] + [r for r in random_games(3, seed=43) if position(r).over]
    commands = [f"utility {mix} 20 {text(r)}" for r in records for mix in (0, 20, 100)]
    answers = iter(ask(native_tools_bin, commands))
    seen = set()
    for record in records:
        pos = position(record)
        (u0, u20, u100) = (fields(next(answers)) for _ in range(3))
        m = margin(pos)
        value = float(u0["value"])
        assert float(u0["margin"]) == m == float(u100["margin"])
        assert float(u0["utility"]) == pytest.approx(max(-1.0, min(1.0, value)), abs=1e-15)
        assert float(u100["utility"]) == pytest.approx(math.tanh(m / 20), abs=1e-15)
        assert float(u20["utility"]) == pytest.approx(0.8 * value + 0.2 * math.tanh(m / 20), abs=1e-12)
        assert all(-1.0 <= float(u["utility"]) <= 1.0 for u in (u0, u20, u100))
        if pos.over:  # an end: the result for the side to move, and its sign is the margin's
            assert value == (m > 0) - (m < 0)
            assert (float(u20["utility"]) > 0) == (m > 0) and (float(u20["utility"]) < 0) == (m < 0)
        seen.add((pos.to_move, pos.over, (m > 0) - (m < 0)))
    # both sides to move, ends and not, ahead and behind were all checked
    assert {RED, WHITE} == {s[0] for s in seen}
    assert {True, False} == {s[1] for s in seen}
    assert {1, -1} <= {s[2] for s in seen}


# ------------------------------------------------------------------------------ endgame
def ending(seed: int, empty: int, low: int):
    """A hand-made small ending: height-6 stacks (no placement can take them), ``empty`` empty
    cells and ``low`` low stacks (heights 1 to 3: they can be taken), random owners."""
    rng = random.Random(seed)
    owner = [rng.choice((RED, WHITE)) for _ in range(BOARD.num_cells)]
    height = [6] * BOARD.num_cells
    cells = rng.sample(range(BOARD.num_cells), empty + low)
    for c in cells[:empty]:
        owner[c], height[c] = 0, 0
    for c in cells[empty:]:
        height[c] = rng.randint(1, 3)
    return owner, height, rng.choice((RED, WHITE))


def exhaustive(pos, memo):
    """(best final margin for the side to move, its best moves) by trying every line."""
    key = (tuple(pos.owner), tuple(pos.height), pos.to_move, pos.passes)
    if key not in memo:
        best, moves = None, []
        for move in pos.legal_moves():
            child = pos.copy()
            child.play(move)
            value = -margin(child) if child.over else -exhaustive(child, memo)[0]
            if best is None or value > best:
                best, moves = value, [move]
            elif value == best:
                moves.append(move)
        memo[key] = (best, moves)
    return memo[key]


ENDINGS = [(seed, 4, 2) for seed in range(10)] + [(seed, 6, 5) for seed in (0, 2, 3, 4, 5, 7, 8, 9)]


def _solve_commands(nodes: int):
    out = []
    for seed, empty, low in ENDINGS:
        owner, height, to_move = ending(seed, empty, low)
        out.append(f"solve {nodes} {to_move} {''.join(map(str, owner))} {''.join(map(str, height))}")
    return out


def _ending_positions():
    return [scalar_position(BOARD, *ending(seed, empty, low)) for seed, empty, low in ENDINGS]


def test_the_endgame_solver_agrees_with_exhaustive_play(native_tools_bin):
    answers = ask(native_tools_bin, _solve_commands(1_000_000))
    depths = []
    for pos, answer in zip(_ending_positions(), answers, strict=True):
        best, moves = exhaustive(pos, {})
        got = fields(answer)
        assert int(got["lower"]) == best == int(got["upper"]), answer
        assert int(got["move"]) in moves, (answer, moves)
        depths.append(int(got["depth"]))
    assert max(depths) >= 5  # some endings needed several plies of play


def test_a_solve_cut_short_still_proves_its_bounds(native_tools_bin):
    """With a node limit too small to finish, the bounds hold and the move keeps the lower one."""
    answers = ask(native_tools_bin, _solve_commands(30))
    unfinished = 0
    for pos, answer in zip(_ending_positions(), answers, strict=True):
        memo: dict = {}
        best, _ = exhaustive(pos, memo)
        got = fields(answer)
        lower, upper, move = int(got["lower"]), int(got["upper"]), int(got["move"])
        assert lower <= best <= upper, answer
        if move >= 0:
            child = pos.copy()
            child.play(move)
            kept = -margin(child) if child.over else -exhaustive(child, memo)[0]
            assert kept >= lower, answer
        unfinished += lower < upper
    assert unfinished >= 3  # the limit did cut some solves short


def test_the_solver_is_answered_on_a_bad_request(native_tools_bin):
    answers = ask(native_tools_bin, ["solve 10 3 " + "0" * 91 + " " + "0" * 91, "solve 10 1 00 00"])
    assert answers == [
        "error the side to move is 1 (red) or 2 (white)",
        "error owners and heights need one digit per cell",
    ]


# ------------------------------------------------------------------------------ cache
@pytest.mark.parametrize("network", [True, False], ids=["student", "territory"])
def test_the_evaluation_cache_changes_no_search_and_is_hit(native_tools_bin, network):
    """A hit answers what the evaluator answered: the searches are the same, visit for visit."""
    lines = "".join(text(r) + "\n" for r in random_games(2, seed=5)[5:40:5])
    options = [] if network else ["--no-weights"]

    def bench(*extra):
        done = subprocess.run(
            [str(native_tools_bin), "--bench", "300", *options, *extra],
            input=lines,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(done.stdout)

    plain, cached = bench(), bench("--eval-cache-mib", "8")
    assert cached["signature"] == plain["signature"] and cached["sims"] == plain["sims"]
    assert cached["cache_hits"] > 0 and cached["cache_misses"] > 0
    assert "cache_hits" not in plain


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["--utility", "money"],
            "argument --utility: invalid choice: 'money' (choose from 'auto', 'win', 'points')",
        ),
        (["--points-mix", "1.5"], "--points-mix must be in [0, 1]"),
        (["--margin-scale", "0"], "--margin-scale must be positive"),
        (["--endgame", "-1"], "--endgame must be in [0, 91]"),
        (["--endgame-share", "0"], "--endgame-share must be in (0, 1]"),
        (["--endgame-nodes", "0"], "--endgame-nodes must be at least 1"),
        (["--time-extend", "0.5"], "--time-extend must be in [1, 10]"),
        (["--eval-cache-mib", "-1"], "--eval-cache-mib must be in [0, 1024]"),
    ],
)
def test_a_bad_search_option_is_one_line_and_exit_2(native_bin, options, message):
    done = subprocess.run([str(native_bin), *options], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"tw_rl.native: {message}\n"
    assert done.stdout == ""


@pytest.mark.parametrize("colour", ["red", "white"])
def test_a_whole_game_with_every_search_option(native_bin, tmp_path, colour):
    report = play_check_game([str(native_bin), "--time", "2", *ALL_OPTIONS], colour, seed=11, cwd=tmp_path)
    assert report.ok, report.problem
    assert report.answers > 10


# ------------------------------------------------------------------------------ clock
def test_time_goes_where_the_choice_is_unsettled_and_stops_when_it_is_settled(native_tools_bin):
    """`timed MS EXTEND EARLY`: past its 200 ms a search goes on (up to 3 x) only while its
    choice is unsettled, and with early stop it ends once the leader cannot be overtaken."""
    records = [r for r in random_games(4, seed=8)[6::9] if len(position(r).legal_moves()) > 1][:12]
    runs = {
        "extend": ask(native_tools_bin, [f"timed 200 3 0 {text(r)}" for r in records]),
        "early": ask(native_tools_bin, [f"timed 200 1 1 {text(r)}" for r in records]),
        "plain": ask(native_tools_bin, [f"timed 200 1 0 {text(r)}" for r in records]),
    }
    got = {kind: [fields(a) for a in answers] for kind, answers in runs.items()}
    slack = 250.0  # ms: a shared machine may hold the process back past a deadline
    assert all(a["early"] == "0" and float(a["ms"]) <= 600 + slack for a in got["extend"])
    assert any(a["extended"] == "1" for a in got["extend"])  # some choices were close
    assert all(float(a["ms"]) <= 200 + slack for a in got["early"] + got["plain"])
    assert sum(a["early"] == "1" for a in got["early"]) >= len(records) // 2
    assert all(a["extended"] == "0" for a in got["early"] + got["plain"])
    assert all(a["early"] == "0" for a in got["plain"])


def _throttle(pid: int, stop: threading.Event, run_s: float = 0.02, paused_s: float = 0.03) -> None:
    """Stop and resume process ``pid``: it gets 40% of the time, as under a CPU quota."""
    while not stop.is_set():
        time.sleep(run_s)
        try:
            os.kill(pid, signal.SIGSTOP)
            time.sleep(paused_s)
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            return


def _thinking_time(command: list[str], seed: int) -> tuple[float, int]:
    """Seconds the bot took over its answers in one game against random moves (time from each
    request sent to its answer read), and how many answers; the bot runs throttled."""
    rng = random.Random(seed)
    red, white = judge_start(BOARD, rng)
    pos = position((red, white, []))
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    stop = threading.Event()
    throttle = threading.Thread(target=_throttle, args=(proc.pid, stop), daemon=True)
    throttle.start()
    spent, answers = 0.0, 0
    try:
        proc.stdin.write(f"{BOARD.name(red)}\n{BOARD.name(white)}\nStart\n")
        proc.stdin.flush()
        sent = time.monotonic()
        while True:
            line = proc.stdout.readline().strip()
            spent += time.monotonic() - sent
            answers += 1
            move = BOARD.num_cells if line == "Pass" else BOARD.parse(line)
            assert move in pos.legal_moves(), line
            pos.play(move)
            if pos.over:
                break
            reply = rng.choice(pos.legal_moves())
            pos.play(reply)
            if pos.over:
                break
            sent = time.monotonic()
            proc.stdin.write(("Pass" if reply == BOARD.num_cells else BOARD.name(reply)) + "\n")
            proc.stdin.flush()
        proc.stdin.write("Quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        stop.set()
        throttle.join()
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.wait()
    return spent, answers


def test_the_bot_keeps_its_clock_on_a_slowed_machine(native_bin):
    """At 40% of a core, with the clock stretched (--time-extend) and the solver on, the bot's
    answers take no more than its game budget: its clock is the wall clock, not its CPU's."""
    budget = 3.0
    spent, answers = _thinking_time([str(native_bin), "--time", str(budget), *ALL_OPTIONS], seed=2)
    assert answers > 10
    assert spent <= budget, f"{spent:.2f} s over {answers} answers"
