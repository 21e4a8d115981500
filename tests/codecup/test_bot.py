"""Tests of the CodeCup bot: protocol, clock, evaluator, search (tw_rl.codecup)."""

import io
import os
import random
import select
import subprocess
import sys
import time

import pytest

from tw_rl.codecup import evaluation
from tw_rl.codecup.clock import DEFAULT_BUDGET, DEFAULT_SAFETY, GameClock, TimeControl, expected_own_moves
from tw_rl.codecup.evaluation import EvaluatorError, TerritoryEvaluator, default_weights, make_evaluator
from tw_rl.codecup.players import BotPlayer, RandomPlayer
from tw_rl.codecup.protocol import converse, run
from tw_rl.codecup.rules import NEUTRAL, RED, WHITE, Board, Position, judge_start
from tw_rl.codecup.search import MCTS, advance, result_value

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B6 = Board(6)


def make(stacks, to_move=RED, board=B6):
    """Position from a table {name: (owner, height)}."""
    pos = Position(board)
    for name, (o, h) in stacks.items():
        i = board.parse(name)
        pos.owner[i] = o
        pos.height[i] = h
    pos.to_move = to_move
    return pos


def random_position(rng, plies, board=B6):
    pos = Position.start(board, *judge_start(board, rng))
    for _ in range(plies):
        if pos.over:
            break
        pos.play(rng.choice(pos.legal_moves()))
    return pos


def winning_position():
    """One move before the end of a fixed random game, where exactly one move wins at once."""
    rng = random.Random(5)
    pos = Position.start(B6, *judge_start(B6, rng))
    before = None
    while not pos.over:
        before = pos.copy()
        pos.play(rng.choice(pos.legal_moves()))
    return before


def wins_at_once(pos, move):
    child = advance(pos, move)
    return child.over and result_value(child) < 0


# ------------------------------------------------------------------ protocol, in-process
def test_forced_pass_is_printed():
    # red has no stack at all: its only legal move is the pass
    pos = make({"F6": (NEUTRAL, 2), "C3": (WHITE, 1)})
    assert pos.legal_moves() == [B6.num_cells]
    for player in (BotPlayer(budget=1.0), RandomPlayer(seed=1)):
        out, err = io.StringIO(), io.StringIO()
        code = converse(player, pos.copy(), RED, io.StringIO("Quit\n"), out, err, budget=1.0)
        assert code == 0
        assert out.getvalue() == "Pass\n"
        assert err.getvalue() == ""


def test_opponent_pass_accepted_and_illegal_pass_rejected():
    # white has no stack: its pass is legal and ends the game by our rules engine; were the
    # judge to go on anyway, red answers with a legal placement instead of hanging
    pos = make({"F6": (NEUTRAL, 2), "C3": (RED, 1)}, to_move=WHITE)
    out, err = io.StringIO(), io.StringIO()
    code = converse(RandomPlayer(seed=3), pos.copy(), RED, io.StringIO("Pass\nQuit\n"), out, err, budget=1.0)
    assert code == 0
    answer = out.getvalue().strip()
    after = pos.copy()
    after.play(B6.num_cells)
    assert after.over
    after.over = False
    assert B6.parse(answer) in after.legal_moves()
    # a pass when a placement exists is illegal: one stderr line, exit 1, nothing printed
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    pos.play(B6.parse("C4"))
    out, err = io.StringIO(), io.StringIO()
    assert converse(RandomPlayer(seed=3), pos, RED, io.StringIO("Pass\n"), out, err, budget=1.0) == 1
    assert out.getvalue() == ""
    assert len(err.getvalue().splitlines()) == 1


@pytest.mark.parametrize(
    "text,code,printed",
    [
        ("", 0, 0),  # EOF at once
        ("Quit\n", 0, 0),
        ("C3\nQuit\n", 0, 0),
        ("C3\nH8\n", 0, 0),  # EOF before Start
        ("hello\n", 1, 0),
        ("C3\nC3\nStart\n", 1, 0),  # same start cells
        ("C3\nF6\nStart\n", 1, 0),  # centre
        ("C3\nH8\nStart\nZZ99\n", 1, 1),  # garbage after our move
        ("C3\nH8\nStart\nF6\n", 1, 1),  # illegal: white cannot take the neutral 2-stack
        ("C3\nH8\nStart\n", 0, 1),  # EOF after our move
        ("C3\nH8\nI9\n", 1, 0),  # white: red's first move is illegal (red cannot see I9)
    ],
)
def test_protocol_bad_input(text, code, printed):
    out, err = io.StringIO(), io.StringIO()
    assert run(RandomPlayer(seed=1), io.StringIO(text), out, err, budget=1.0) == code
    assert len(out.getvalue().splitlines()) == printed
    lines = err.getvalue().splitlines()
    assert len(lines) == (0 if text.endswith("Quit\n") else 1)
    assert "Traceback" not in err.getvalue()


def test_protocol_in_process_white_and_red():
    start = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    # white: reads red's first move, answers it, then Quit
    first = B6.name(RandomPlayer(seed=5).choose(start))
    out, err = io.StringIO(), io.StringIO()
    assert run(RandomPlayer(seed=1), io.StringIO(f"C3\nH8\n{first}\nQuit\n"), out, err, budget=1.0) == 0
    answers = out.getvalue().split()
    assert len(answers) == 1 and err.getvalue() == ""
    pos = start.copy()
    pos.play(B6.parse(first))
    assert B6.parse(answers[0]) in pos.legal_moves()
    # red with the bot: answers Start with a legal move
    out, err = io.StringIO(), io.StringIO()
    assert run(BotPlayer(budget=1.0), io.StringIO("C3\nH8\nStart\nQuit\n"), out, err, budget=1.0) == 0
    assert B6.parse(out.getvalue().strip()) in start.legal_moves() and err.getvalue() == ""


# ------------------------------------------------------------------ protocol, subprocess
def _spawn(*args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen(
        [sys.executable, "-m", "tw_rl.codecup", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _send(proc, line):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _answer(proc, timeout=10.0):
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the bot did not answer in time"
    line = proc.stdout.readline()
    assert line.endswith("\n")
    return line.strip()


@pytest.mark.parametrize("colour", [RED, WHITE])
def test_subprocess_game(colour):
    """A whole game of the bot (2 s budget) against a random opponent, then Quit."""
    rng = random.Random(colour)
    red_cell, white_cell = judge_start(B6, rng)
    pos = Position.start(B6, red_cell, white_cell)
    opponent = RandomPlayer(seed=7)
    proc = _spawn("--time", "2")
    try:
        _send(proc, B6.name(red_cell))
        _send(proc, B6.name(white_cell))
        if colour == RED:
            _send(proc, "Start")
        else:
            m = opponent.choose(pos)
            pos.play(m)
            _send(proc, B6.name(m))
        while True:
            text = _answer(proc)
            move = B6.num_cells if text == "Pass" else B6.parse(text)
            assert move in pos.legal_moves(), text
            pos.play(move)
            if pos.over:
                break
            m = opponent.choose(pos)
            pos.play(m)
            if pos.over:
                break
            _send(proc, "Pass" if m == B6.num_cells else B6.name(m))
        _send(proc, "Quit")
        assert proc.wait(timeout=10) == 0
        assert proc.stderr.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_subprocess_garbage_and_eof():
    proc = _spawn("--time", "2", "--player", "random", "--seed", "1")
    out, err = proc.communicate("C3\nH8\nStart\nnonsense\n", timeout=30)
    assert proc.returncode == 1
    assert len(out.splitlines()) == 1
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    proc = _spawn("--time", "2")
    out, err = proc.communicate("C3\nH8\nStart\n", timeout=30)
    assert proc.returncode == 0
    assert B6.parse(out.strip()) in Position.start(B6, B6.parse("C3"), B6.parse("H8")).legal_moves()
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--size", "7"],
        ["--player", "nobody"],
        ["--time", "0"],
        ["--safety", "2"],
        ["--bogus"],
        ["--playouts", "0"],
    ],
)
def test_bad_options(args):
    proc = _spawn(*args)
    out, err = proc.communicate("", timeout=30)
    assert proc.returncode == 2
    assert out == ""
    assert len(err.splitlines()) == 1


def test_weights_option(tmp_path):
    proc = _spawn("--weights", str(tmp_path / "missing.bin"))
    out, err = proc.communicate("", timeout=30)
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and "not found" in err
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"\0")
    proc = _spawn("--weights", str(weights))
    out, err = proc.communicate("", timeout=30)
    assert (
        proc.returncode == 2 and len(err.splitlines()) == 1 and "too short to be a tw_rl weights file" in err
    )


def test_the_bot_searches_with_the_shipped_student_unless_told_otherwise(tmp_path):
    from tw_rl.codecup.__main__ import _parser, bot_evaluator
    from tw_rl.codecup.network import NetworkEvaluator

    def evaluator(*args):
        return bot_evaluator(_parser().parse_args(list(args)))

    assert os.path.isfile(default_weights(6))  # package data: installed with the package
    assert isinstance(evaluator(), NetworkEvaluator)
    assert type(evaluator("--no-weights")) is TerritoryEvaluator
    assert type(evaluator("--size", "8")) is TerritoryEvaluator  # a student is shipped for the 6-board only
    assert type(evaluator("--evaluator", "territory")) is TerritoryEvaluator
    assert isinstance(evaluator("--evaluator", "network"), NetworkEvaluator)
    assert evaluator("--player", "greedy") is None
    for args in (("--evaluator", "network", "--no-weights"), ("--evaluator", "network", "--size", "8")):
        with pytest.raises(EvaluatorError, match="the network evaluator needs a weights file"):
            evaluator(*args)
    with pytest.raises(EvaluatorError, match="not found"):
        evaluator("--weights", str(tmp_path / "nope.twnet"))
    proc = _spawn("--weights", default_weights(6), "--no-weights")
    out, err = proc.communicate("", timeout=30)
    assert proc.returncode == 2 and "not allowed with argument" in err and len(err.splitlines()) == 1


def test_other_players_and_sizes_over_subprocess():
    for args in (
        ["--player", "greedy", "--seed", "2"],
        ["--player", "mcts", "--playouts", "5", "--seed", "2"],
        ["--size", "8", "--time", "2"],
    ):
        size = int(args[args.index("--size") + 1]) if "--size" in args else 6
        board = Board(size)
        red_cell, white_cell = judge_start(board, random.Random(3))
        pos = Position.start(board, red_cell, white_cell)
        proc = _spawn(*args)
        out, err = proc.communicate(
            f"{board.name(red_cell)}\n{board.name(white_cell)}\nStart\nQuit\n", timeout=60
        )
        assert proc.returncode == 0, err
        assert board.parse(out.strip()) in pos.legal_moves()


# ------------------------------------------------------------------ clock
def test_game_clock_and_allotment():
    t = [100.0]
    clock = GameClock(10.0, now=lambda: t[0])
    clock.start()
    t[0] += 2.5
    assert clock.seconds_left() == pytest.approx(7.5)
    assert clock.stop() == pytest.approx(2.5)
    assert clock.used == pytest.approx(2.5) and clock.seconds_left() == pytest.approx(7.5)
    tc = TimeControl(budget=30.0, safety=0.6)
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    a = tc.allotment(30.0, pos)
    assert 0.0 < a <= tc.ceiling
    assert a == pytest.approx(18.0 / expected_own_moves(pos))
    # A lower per_empty expects fewer moves left and gives each more (the tuning knob).
    assert TimeControl(budget=30.0, safety=0.6, per_empty=0.5).allotment(30.0, pos) == pytest.approx(
        18.0 / expected_own_moves(pos, 0.5)
    )
    assert expected_own_moves(pos, 0.5) < expected_own_moves(pos)
    assert tc.allotment(12.0, pos) == 0.0  # nothing left above the 40 % reserve
    assert tc.allotment(12.005, pos) == pytest.approx(0.005)  # never above what is left
    with pytest.raises(ValueError, match=r"the safety fraction must be in \(0, 1\], got 0.0"):
        TimeControl(safety=0.0)
    # Start-up time (interpreter, imports, weights) is charged like a move.
    assert GameClock(10.0, startup=0.75).seconds_left() == pytest.approx(9.25)
    with pytest.raises(ValueError, match="the start-up time must be >= 0, got -1.0"):
        GameClock(10.0, startup=-1.0)


def test_run_charges_the_start_up_to_the_game_clock():
    """With all but 0.1 s of the plan spent at start-up the bot answers at once, from its fallback."""
    seen = []

    class Spy(BotPlayer):
        def choose(self, position, seconds_left=None):
            seen.append(seconds_left)
            return super().choose(position, seconds_left)

    bot = Spy(budget=10.0, safety=0.5)
    out, err = io.StringIO(), io.StringIO()
    assert run(bot, io.StringIO("C3\nH8\nStart\nQuit\n"), out, err, budget=10.0, startup=4.9) == 0
    assert seen and seen[0] < 5.1 and len(bot.log) == 1 and bot.log[0][0] < 0.1


class SlowEvaluator(TerritoryEvaluator):
    calls = 0

    def evaluate(self, position):
        SlowEvaluator.calls += 1
        time.sleep(0.005)
        return super().evaluate(position)


class FakeTime:
    """A clock that moves by ``tick`` seconds each time it is read, and when told to."""

    def __init__(self, tick=0.001):
        self.t = 1000.0
        self.tick = tick

    def __call__(self):
        self.t += self.tick
        return self.t


class CostlyEvaluator(TerritoryEvaluator):
    """A slowed evaluator: every evaluation costs ``cost`` seconds of the fake clock."""

    def __init__(self, clock, cost):
        super().__init__()
        self.clock = clock
        self.cost = cost

    def evaluate(self, position):
        self.clock.t += self.cost
        return super().evaluate(position)


def test_default_share_is_ninety_percent():
    tc = TimeControl()
    assert DEFAULT_SAFETY == 0.9 and tc.budget == DEFAULT_BUDGET == 30.0
    assert tc.reserve == pytest.approx(3.0)  # plans up to 27 s of the 30 s, start-up included
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    assert tc.allotment(30.0, pos) == pytest.approx(27.0 / expected_own_moves(pos))
    assert tc.allotment(2.999, pos) == 0.0  # nothing above the reserve: answer at once


@pytest.mark.parametrize("cost", [0.005, 0.05])
def test_the_default_clock_never_plans_past_its_share(cost):
    """A whole game on the default 30 s clock, each evaluation costing ``cost`` (fake) seconds
    and each clock reading a millisecond: every move's plan stays within what is left above the
    reserve, a move overruns its plan by at most the one evaluation under way at the deadline
    (and a few clock readings), and the game uses at most 90% of the budget (plus as much)."""
    fake = FakeTime()
    bot = BotPlayer(evaluator=CostlyEvaluator(fake, cost), now=fake)
    tc = bot.time_control
    assert tc.safety == DEFAULT_SAFETY
    clock = GameClock(DEFAULT_BUDGET, now=fake)
    opponent = RandomPlayer(seed=4)
    pos = Position.start(B6, *judge_start(B6, random.Random(4)))
    planned = []
    while not pos.over:
        if pos.to_move == RED:
            clock.start()
            left = clock.seconds_left()
            m = bot.choose(pos.copy(), left)
            spent = clock.stop()
            allot = bot.log[-1][0]
            assert allot <= max(0.0, left - tc.reserve) + 1e-9
            assert spent <= allot + cost + 5 * fake.tick
            planned.append(allot)
        else:
            m = opponent.choose(pos)
        assert m in pos.legal_moves()
        pos.play(m)
    assert len(planned) > 10 and sum(planned) > 0.3 * DEFAULT_BUDGET  # it does use its time
    assert clock.used <= DEFAULT_BUDGET * DEFAULT_SAFETY + cost + 5 * fake.tick


def test_clock_never_exceeds_budget_on_a_slow_search():
    budget = 1.0
    bot = BotPlayer(evaluator=SlowEvaluator(), budget=budget)
    opponent = RandomPlayer(seed=4)
    clock = GameClock(budget)
    pos = Position.start(B6, *judge_start(B6, random.Random(4)))
    moves = 0
    while not pos.over:
        if pos.to_move == RED:
            clock.start()
            m = bot.choose(pos.copy(), clock.seconds_left())
            clock.stop()
            moves += 1
        else:
            m = opponent.choose(pos)
        assert m in pos.legal_moves()
        pos.play(m)
    assert moves > 10 and SlowEvaluator.calls > 0
    assert clock.used < budget


# ------------------------------------------------------------------ evaluator
def test_evaluator_priors_and_value():
    rng = random.Random(8)
    ev = TerritoryEvaluator()
    for _ in range(40):
        pos = random_position(rng, rng.randrange(0, 60))
        if pos.over:
            continue
        priors, value = ev.evaluate(pos)
        assert sorted(priors) == pos.legal_moves()  # grouped by weight, not in cell order
        assert sum(priors.values()) == pytest.approx(1.0)
        assert all(p > 0 for p in priors.values())
        assert -1.0 <= value <= 1.0
        # the value is antisymmetric in the side to move
        flipped = pos.copy()
        flipped.to_move = 3 - pos.to_move
        assert TerritoryEvaluator().evaluate(flipped)[1] == pytest.approx(-value)


def test_make_evaluator(tmp_path, monkeypatch):
    assert isinstance(make_evaluator(), TerritoryEvaluator)
    with pytest.raises(EvaluatorError, match="not found"):
        make_evaluator(str(tmp_path / "nope"))
    weights = tmp_path / "w"
    weights.write_bytes(b"x")
    with pytest.raises(EvaluatorError, match="too short to be a tw_rl weights file"):
        make_evaluator(str(weights))
    sentinel = TerritoryEvaluator(k=1.0)
    monkeypatch.setitem(evaluation.EVALUATORS, "network", lambda path, size: sentinel)
    assert make_evaluator(str(weights)) is sentinel


# ------------------------------------------------------------------ search
def test_advance_matches_play():
    rng = random.Random(9)
    for _ in range(6):
        pos = Position.start(B6, *judge_start(B6, rng))
        while not pos.over:
            m = rng.choice(pos.legal_moves())
            parent = pos.copy()
            child = advance(pos, m)
            assert pos.stacks() == parent.stacks() and pos.ply == parent.ply  # untouched
            pos.play(m)
            for f in ("variant", "to_move", "passes", "quiet", "ply", "over", "forfeit", "last_move"):
                assert getattr(child, f) == getattr(pos, f), f
            assert child.stacks() == pos.stacks()
            assert child.territory() == pos.territory()
            assert (child.owner, child.height) == (pos.owner, pos.height)


def test_search_finds_the_immediate_win():
    pos = winning_position()
    wins = [m for m in pos.legal_moves() if wins_at_once(pos, m)]
    assert len(wins) == 1 and len(pos.legal_moves()) > 10
    for sims in (len(pos.legal_moves()), 400):
        assert MCTS(TerritoryEvaluator()).search(pos, max_sims=sims) == wins[0]
    assert MCTS(TerritoryEvaluator()).search(pos, deadline=time.monotonic() + 0.5) == wins[0]


def test_search_never_returns_an_illegal_move():
    rng = random.Random(10)
    mcts = MCTS(TerritoryEvaluator(), reuse=False)
    for k in range(60):
        pos = random_position(rng, rng.randrange(0, 120))
        if pos.over:
            continue
        if k % 3 == 0:
            m = mcts.search(pos, deadline=time.monotonic() + 0.005)
        else:
            m = mcts.search(pos, max_sims=rng.choice((1, 5, 40)))
        assert m in pos.legal_moves()
    with pytest.raises(ValueError, match="give a deadline or a simulation count"):
        mcts.search(random_position(rng, 3))  # neither a deadline nor a count


def test_tree_reuse():
    rng = random.Random(12)
    pos = random_position(rng, 6)
    mcts = MCTS(TerritoryEvaluator())
    m = mcts.search(pos, max_sims=300)
    pos.play(m)
    # the opponent answers with the search's own favourite: its subtree is kept
    reply = max(range(len(mcts.root.moves)), key=lambda i: mcts.root.n[i])
    pos.play(mcts.root.moves[reply])
    mcts.observe(pos)
    assert mcts.root is not None and mcts.root.visits > 1
    m2 = mcts.search(pos, max_sims=50)
    assert mcts.last_reused > 0 and m2 in pos.legal_moves()
    # an unrelated position starts a fresh tree
    other = random_position(rng, 4)
    m3 = mcts.search(other, max_sims=20)
    assert mcts.last_reused == 0 and m3 in other.legal_moves()


@pytest.mark.slow
def test_bot_beats_random():
    for g in range(10):
        rng = random.Random(100 + g)
        bot_colour = RED if g % 2 == 0 else WHITE
        bot = BotPlayer(budget=0.5)
        opponent = RandomPlayer(seed=g)
        pos = Position.start(B6, *judge_start(B6, rng))
        while not pos.over:
            player = bot if pos.to_move == bot_colour else opponent
            pos.play(player.choose(pos.copy()))
        assert pos.winner() == bot_colour, g


def test_bot_own_clock_restarts_with_a_new_game():
    bot = BotPlayer(budget=2.0)
    for _ in range(2):
        pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
        moves = 0
        while not pos.over:
            pos.play(bot.choose(pos.copy()))
            moves += 1
        # A fresh clock and log per game (the second game would not fit the first one's clock).
        assert len(bot.log) == moves
        assert bot._own_clock.used < 2.0


def test_weights_for_another_board_are_refused_at_start_up():
    student = default_weights(6)
    proc = _spawn("--weights", str(student), "--size", "8")
    out, err = proc.communicate("", timeout=30)
    assert proc.returncode == 2 and out == ""
    assert len(err.splitlines()) == 1 and "size-6 board, not size 8" in err
