"""Guards of the bot's promises that a change of the engine or the search must not lose (issue
17; the planted bugs of ``python scripts/mutate.py --set bot`` check that these tests notice):

- the protocol never forfeits for its player: a player that raises, or answers an illegal
  move, gets a legal fallback move printed (the first legal move) and one stderr line;
- the start-up (interpreter, imports, weights) is charged to the game clock, seen from outside
  in a bot run as a program: with the start-up past its plan, it answers every move at once
  from its fallback, exactly as the same bot does with no time left.
"""

import io
import os
import subprocess
import sys
import time

import pytest

from tw_rl.codecup.clock import DEFAULT_SAFETY
from tw_rl.codecup.players import BotPlayer
from tw_rl.codecup.protocol import converse, run
from tw_rl.codecup.rules import NEUTRAL, RED, WHITE, Board, Position

B6 = Board(6)
C3, H8 = B6.parse("C3"), B6.parse("H8")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def name(move):
    return "Pass" if move == B6.num_cells else B6.name(move)


def first_legal_game(plies=None):
    """The moves of a game from C3 / H8 where both sides play their first legal move."""
    pos = Position.start(B6, C3, H8)
    moves = []
    while not pos.over and (plies is None or len(moves) < plies):
        move = pos.legal_moves()[0]
        moves.append(move)
        pos.play(move)
    return moves


class Raising:
    """A player that fails at every move (``kind``: how)."""

    def __init__(self, kind):
        self.kind = kind
        self.calls = 0

    def choose(self, position, seconds_left=None):
        self.calls += 1
        if self.kind == "raises":
            raise RuntimeError("boom")
        if self.kind == "illegal-cell":  # a cell of the board where it may not place
            legal = position.legal_moves()
            return next(c for c in range(position.board.num_cells) if c not in legal)
        if self.kind == "pass":
            return position.board.num_cells  # a pass while placements exist
        if self.kind == "off-board":
            return 10_000
        if self.kind == "none":
            return None
        if self.kind == "name":
            return "D4"  # a name, not a cell index
        raise AssertionError(self.kind)

    def observe(self, position):
        if self.kind == "raises":
            raise RuntimeError("observe boom")


FAILURES = ["raises", "illegal-cell", "pass", "off-board", "none", "name"]


@pytest.mark.parametrize("kind", FAILURES)
@pytest.mark.parametrize("colour", [RED, WHITE])
def test_a_failing_player_still_answers_legal_moves_for_a_whole_game(kind, colour):
    """Every answer is the first legal move, the game is played out to its end by the rules,
    and each failure is one stderr line (no traceback, exit code 0 after Quit)."""
    moves = first_legal_game()
    ours = moves[colour - 1 :: 2]
    theirs = moves[2 - colour :: 2]
    first = "Start\n" if colour == RED else ""
    text = f"C3\nH8\n{first}" + "".join(name(m) + "\n" for m in theirs) + "Quit\n"
    expected = [name(m) for m in ours]
    if len(moves) % 2 != colour % 2:  # the game ended on their move: the bot answers anyway
        final = Position.start(B6, C3, H8)
        for m in moves:
            final.play(m)
        final.over = False  # as the protocol does, in case the judge goes on
        expected.append(name(final.legal_moves()[0]))
    player = Raising(kind)
    out, err = io.StringIO(), io.StringIO()
    assert run(player, io.StringIO(text), out, err, budget=5.0) == 0
    assert out.getvalue().splitlines() == expected
    lines = err.getvalue().splitlines()
    # a forced pass (only one legal move) is still asked for: one line per answer
    assert player.calls == len(expected)
    if kind == "none":  # no move at all: the fallback, silently
        assert lines == []
    else:
        assert len(lines) == len(expected)
    if kind == "raises":
        assert all(line == "player failed (RuntimeError: boom); playing a fallback move" for line in lines)
    elif kind != "none":
        assert all(line.startswith("player chose an illegal move ") for line in lines), lines[:2]
        assert all(line.endswith("; playing a fallback move") for line in lines)
    assert "Traceback" not in err.getvalue()


def test_one_failure_mid_game_then_the_player_goes_on():
    """A player that fails once: that answer is the fallback, the next ones are its own."""

    class OnceBroken:
        def __init__(self):
            self.calls = 0

        def choose(self, position, seconds_left=None):
            self.calls += 1
            if self.calls == 2:
                raise ValueError("once")
            return position.legal_moves()[-1]

    pos = Position.start(B6, C3, H8)
    script, expected = [], []
    for k in range(3):  # three red answers; white answers with its first legal move
        legal = pos.legal_moves()
        move = legal[0] if k == 1 else legal[-1]
        expected.append(name(move))
        pos.play(move)
        if k < 2:
            reply = pos.legal_moves()[0]
            script.append(name(reply))
            pos.play(reply)
    out, err = io.StringIO(), io.StringIO()
    text = "C3\nH8\nStart\n" + "\n".join(script) + "\nQuit\n"
    assert run(OnceBroken(), io.StringIO(text), out, err, budget=5.0) == 0
    assert out.getvalue().splitlines() == expected
    assert err.getvalue().splitlines() == ["player failed (ValueError: once); playing a fallback move"]


def test_a_failing_player_in_a_forced_pass():
    """Where the only legal move is the pass (red has no stack), a failing player's answer is
    that pass."""
    pos = Position(B6)
    for cell, owner, height in (("F6", NEUTRAL, 2), ("C3", WHITE, 1)):
        pos.owner[B6.parse(cell)] = owner
        pos.height[B6.parse(cell)] = height
    pos.to_move = RED
    assert pos.legal_moves() == [B6.num_cells]
    for kind in FAILURES:
        out, err = io.StringIO(), io.StringIO()
        assert converse(Raising(kind), pos.copy(), RED, io.StringIO("Quit\n"), out, err, budget=5.0) == 0
        assert out.getvalue() == "Pass\n", kind
        # None is replaced silently; a pass is the legal move here
        assert len(err.getvalue().splitlines()) == (0 if kind in ("none", "pass") else 1), kind


# ------------------------------------------------------------------ start-up charge
def test_the_command_line_bot_gets_its_share_and_its_start_up(monkeypatch):
    """``python -m tw_rl.codecup``: the bot plans with the default share of the budget given,
    or the share asked for, and the game clock starts with the process's CPU time so far."""
    from tw_rl.codecup import __main__ as command

    seen = []

    def fake_run(player, **options):
        seen.append((player, options))
        return 0

    monkeypatch.setattr(command, "run", fake_run)
    before = time.process_time()
    assert command.main(["--time", "10", "--no-weights"]) == 0
    assert command.main(["--time", "12", "--safety", "0.5", "--no-weights"]) == 0
    after = time.process_time()
    (bot, options), (other, other_options) = seen
    assert (bot.time_control.budget, bot.time_control.safety) == (10.0, DEFAULT_SAFETY)
    assert bot.time_control.reserve == pytest.approx(10.0 * (1 - DEFAULT_SAFETY))
    assert (other.time_control.budget, other.time_control.safety) == (12.0, 0.5)
    assert options["budget"] == 10.0 and other_options["budget"] == 12.0
    assert before <= options["startup"] <= other_options["startup"] <= after and before > 0
    # The search and clock settings of a tuning match reach the bot; the defaults otherwise.
    assert (bot.mcts.c_puct, bot.mcts.fpu_reduction, bot.time_control.per_empty) == (1.5, 0.2, 0.7)
    assert command.main(["--c-puct", "2.5", "--fpu", "0.1", "--per-empty", "0.5", "--no-weights"]) == 0
    tuned = seen[-1][0]
    assert (tuned.mcts.c_puct, tuned.mcts.fpu_reduction, tuned.time_control.per_empty) == (2.5, 0.1, 0.5)
    with pytest.raises(SystemExit):
        command.main(["--per-empty", "0"])


# Burns CPU until the process has used BURN seconds (the start-up of a slow machine), then runs
# the bot's command line exactly as `python -m tw_rl.codecup` does.
SLOW_START = """\
import runpy, sys, time
while time.process_time() < BURN:
    pass
runpy.run_module("tw_rl.codecup", run_name="__main__", alter_sys=True)
"""


def test_the_start_up_is_charged_to_the_game_clock_of_a_bot_program():
    """A bot program whose start-up (1 s of CPU) uses its whole 1 s budget answers every move
    from its fallback, exactly as an in-process bot with no time left; a bot that did not
    charge its start-up would search with the time it thinks it has, and answer otherwise."""
    budget = 1.0
    moves = []
    pos = Position.start(B6, C3, H8)
    reference = BotPlayer(budget=budget, safety=1.0)
    while not pos.over:
        if pos.to_move == RED:
            move = reference.choose(pos.copy(), 0.0)  # nothing left: the fallback at once
            assert reference.log[-1][2] == 0  # no search
        else:
            move = pos.legal_moves()[0]
        moves.append(move)
        pos.play(move)
    whites = moves[1::2]
    text = "C3\nH8\nStart\n" + "".join(name(m) + "\n" for m in whites) + "Quit\n"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SLOW_START.replace("BURN", repr(budget)),
            "--time",
            str(budget),
            "--safety",
            "1.0",
            "--no-weights",
        ],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [name(m) for m in moves[0::2]]
