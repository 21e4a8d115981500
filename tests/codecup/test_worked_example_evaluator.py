"""Worked example: a new evaluator for the bot, one class and one registration, chosen by name
on the bot's command line; a subclass that overrides ``evaluate`` alone is asked ``evaluate``
everywhere (the grouped fast path it inherits is not its own)."""

from __future__ import annotations

import io
import sys

import pytest

from tw_rl.codecup import __main__ as bot_main
from tw_rl.codecup import evaluation
from tw_rl.codecup.evaluation import TerritoryEvaluator, grouped_priors, register_evaluator
from tw_rl.codecup.players import BotPlayer
from tw_rl.codecup.rules import Board, Position


class StackCount(TerritoryEvaluator):
    """The example: the territory evaluator's priors, valued by stacks on the board (mine - theirs)."""

    calls = 0

    def evaluate(self, position):
        StackCount.calls += 1
        priors, _ = super().evaluate(position)
        mine = sum(1 for o in position.owner if o == position.to_move)
        theirs = sum(1 for o in position.owner if o == 3 - position.to_move)
        return priors, (mine - theirs) / position.board.num_cells


@pytest.fixture
def stack_count():
    register_evaluator("stack-count", lambda weights, board_size: StackCount())  # the one registration
    StackCount.calls = 0
    yield StackCount
    del evaluation.EVALUATORS["stack-count"]


def test_an_evaluate_override_is_used_everywhere_not_only_at_the_root(stack_count):
    assert grouped_priors(TerritoryEvaluator()) is not None  # the class's own fast path
    assert grouped_priors(StackCount()) is None  # inherited alone: not used
    board = Board(6)
    position = Position.start(board, board.parse("C3"), board.parse("H8"))
    bot = BotPlayer(evaluator=StackCount(), max_sims=30)
    bot.choose(position)
    # The root, and then one evaluation per simulation (a new leaf each, before any game end).
    assert StackCount.calls == 1 + bot.mcts.last_sims == 31


def test_the_bot_command_line_chooses_the_evaluator_by_name(stack_count, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("C3\nH8\nStart\nQuit\n"))
    monkeypatch.setattr(bot_main.time, "process_time", lambda: 0.0)  # the test run's CPU is not the bot's
    assert bot_main.main(["--evaluator", "stack-count", "--time", "2"]) == 0
    move = capsys.readouterr().out.split()
    assert len(move) == 1 and StackCount.calls > 0
    with pytest.raises(SystemExit) as exit_:
        bot_main.main(["--evaluator", "no-such-evaluator"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err
