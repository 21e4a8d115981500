"""The bot's own clock (standard library only).

Two pieces:

- ``GameClock`` is the bookkeeping of one game, kept by the protocol loop: a move's time runs
  from the moment its request line was read until the answer has been written and flushed,
  so it includes everything the bot does (parsing, playing the opponent's move, searching);
  the start-up before the first request (the process's CPU time then: interpreter, imports,
  loading the weights, about 0.1 s for the submission with the student) is charged to it as well.
  ``seconds_left()`` is what is left of the game budget, counting the move in progress.
- ``TimeControl`` is the bot's policy: given ``seconds_left`` and the position, how long may
  this move think?  It never touches the reserve ``budget * (1 - safety)`` (10 % of the budget
  by default: 3 s of the 30 s for the pipe, the scheduler and a judge machine a little slower
  than ours), and shares what is above the reserve over the own moves it still expects:

      allotment = (seconds_left - reserve) * share / expected_own_moves(position)

  clamped to [floor, ceiling] and never above what is left above the reserve.  When nothing
  is left above the reserve the allotment is 0 and the bot answers from a cheap fallback.

The expected number of own moves left is estimated from the empty cells (see
``expected_own_moves``); games on the 6-board take 26-43 own moves.
"""

import time

DEFAULT_BUDGET = 30.0  # the CodeCup clock: seconds a program has for a whole game (its one home)
# Plan at most 90% of the 30 s (27 s, start-up included); the other 3 s absorb the pipe, the
# scheduler and a judge machine somewhat slower than ours.  (Release 0.1 planned 48%.)
DEFAULT_SAFETY = 0.9


class GameClock:
    """Thinking time used by one side in one game, measured with time.monotonic."""

    def __init__(self, budget=DEFAULT_BUDGET, now=time.monotonic, startup=0.0):
        """``startup``: seconds already spent before the first request (interpreter start,
        imports, loading the weights), charged to the game like a move."""
        if not budget > 0:
            raise ValueError(f"the time budget must be positive, got {budget!r}")
        if not startup >= 0:
            raise ValueError(f"the start-up time must be >= 0, got {startup!r}")
        self.budget = float(budget)
        self.now = now
        self.used = float(startup)
        self.moves = 0
        self.longest = 0.0
        self._started = None

    def start(self, t=None):
        """A move request was read at time t (default: now)."""
        self._started = self.now() if t is None else t

    def stop(self):
        """The answer is out: add the move's time to the total; returns it."""
        if self._started is None:
            return 0.0
        spent = max(0.0, self.now() - self._started)
        self._started = None
        self.used += spent
        self.moves += 1
        if spent > self.longest:
            self.longest = spent
        return spent

    def seconds_left(self):
        """Budget left, counting the move in progress."""
        running = 0.0 if self._started is None else max(0.0, self.now() - self._started)
        return self.budget - self.used - running


DEFAULT_PER_EMPTY = 0.7  # own moves expected per empty cell above the end (expected_own_moves)


def expected_own_moves(position, per_empty=DEFAULT_PER_EMPTY, end_share=0.35, minimum=6.0):
    """How many moves the side to move can expect to make from here on.

    Fitted to bot-against-bot games on the 6-board (52-86 plies; territory decides while
    30-40 cells are still empty): the moves left average 0.68 * (empty - 35), e.g. 36 at the
    start, 17 with 60 empty cells.  The estimate here is a little longer than that average;
    the floor ``minimum`` keeps the last moves fed when a game runs long.  The empty cells
    at the end scale with the board: ``end_share`` of the cells (32 of 91).
    """
    red, white, neutral, _ = position.stacks()
    cells = position.board.num_cells
    empty = cells - (red | white | neutral).bit_count()
    return max(minimum, per_empty * (empty - end_share * cells))


class TimeControl:
    """Per-move thinking allotment for a bot with a game budget."""

    def __init__(
        self,
        budget=DEFAULT_BUDGET,
        safety=DEFAULT_SAFETY,
        floor=0.01,
        ceiling=None,
        share=1.0,
        per_empty=DEFAULT_PER_EMPTY,
    ):
        if not budget > 0:
            raise ValueError(f"the time budget must be positive, got {budget!r}")
        if not 0.0 < safety <= 1.0:
            raise ValueError(f"the safety fraction must be in (0, 1], got {safety!r}")
        self.budget = float(budget)
        self.safety = float(safety)
        self.reserve = self.budget * (1.0 - self.safety)
        self.floor = float(floor)
        # default ceiling: an eighth of the usable budget on any one move
        self.ceiling = self.budget * self.safety / 8.0 if ceiling is None else float(ceiling)
        self.share = float(share)
        if not per_empty > 0:
            raise ValueError(f"per_empty must be positive, got {per_empty!r}")
        self.per_empty = float(per_empty)  # lower: expect fewer moves, spend more on each

    def allotment(self, seconds_left, position):
        """Seconds this move may think (0.0: answer at once from a fallback)."""
        usable = seconds_left - self.reserve
        if usable <= 0.0:
            return 0.0
        allot = usable * self.share / expected_own_moves(position, self.per_empty)
        allot = min(max(allot, self.floor), self.ceiling)
        return min(allot, usable)
