"""Policy-value evaluators for the CodeCup bot (standard library only).

The seam: an evaluator has ``evaluate(position, territory=None) -> (priors, value)``:

- ``priors``: dict {move: probability} over the legal moves of ``position`` (summing to 1);
- ``value``: float in [-1, 1], the expected result for the side to move;
- ``territory`` is an optional hint: ``position.territory()`` when the caller already has it
  (the search computes it anyway to detect the game end), so it is not computed twice.
  An evaluator that does not need it ignores it.

The search never calls an evaluator on a finished position.

``TerritoryEvaluator`` (no weights):

- value = tanh(k * (T + C) / (2 * cells)) for the side to move, with
  T = territory margin: sizes of the two CodeCup territories (the judge's simulations), mine
      minus theirs.  A side's territory is what it keeps even when the opponent moves first
      everywhere: the settled cells.  Early on both are empty, so T alone is blind there (a
      1-ply greedy on T is no better than random play).
  C = control margin (``control_margin``): cell by cell, a stack counts for its owner unless
      the other side may capture it now; an empty cell counts for the side that sees it more
      often (the official game's "controlled" cells).  A 1-ply greedy on C beats random play
      and the T-greedy 20-0 each.
  k = 12 (tuned in 20-game matches at 200 simulations a move: k = 12 beat k = 6 14-6 and
  k = 24 13-7; C alone and T + C were even).  A 10-cell lead in both margins on the 91-cell
  board is worth tanh(1.3) = 0.86; the search still reaches true terminal values (+-1).
- priors ("heuristic", the default; see ``move_weights``): by move type from the sight
  tables, then scaled down in a settled territory.  Contested empty cells, captures and
  threatened stacks first; quiet moves in cells already ours last.  Costs one pass over the
  legal moves; beat uniform priors 18-2 at 200 simulations a move.  ("uniform": equal priors.)

``DEFAULT_WEIGHTS`` is the student shipped inside the package (``student-default.twnet``, for the
6-board; ``default_weights(size)`` says whether it is there and fits): ``python -m tw_rl.codecup``
and ``tw-rl export`` use it unless told ``--no-weights``.

``make_evaluator(weights_path=None)`` returns a ``TerritoryEvaluator`` without a weights file.
With one it returns the student network of that file (``network.NetworkEvaluator``, a
pure-Python forward pass) through the module-level hook ``NETWORK_EVALUATOR_FACTORY``, a
callable ``factory(path) -> evaluator``; a file that is not a valid weights file for this
board is refused with one line (``weights.WeightsError``, an ``EvaluatorError``).
"""

import math
import os

from tw_rl.codecup.rules import EMPTY, NEUTRAL, RED, WHITE


def _network_evaluator(weights_path, board_size=None):
    """The student network of a weights file (network.py; imported here: no import cycle)."""
    from tw_rl.codecup.network import NetworkEvaluator

    return NetworkEvaluator(weights_path, board_size)


# A callable factory(weights_path) -> evaluator; None: weights files are refused.
NETWORK_EVALUATOR_FACTORY = _network_evaluator


# The student shipped with the package (package data; absent inside a submission built without it).
DEFAULT_WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "student-default.twnet")
DEFAULT_WEIGHTS_SIZE = 6  # the board the shipped student was trained for


def default_weights(board_size=DEFAULT_WEIGHTS_SIZE):
    """The shipped weights file for this board size, or None (other sizes, or not installed)."""
    if board_size == DEFAULT_WEIGHTS_SIZE and os.path.isfile(DEFAULT_WEIGHTS):
        return DEFAULT_WEIGHTS
    return None


class EvaluatorError(Exception):
    """An evaluator could not be made (missing weights file, no network evaluator built in)."""


def sight_tables(position):
    """[unused, red sight, white sight]: how many of the 6 rays from each cell see that colour first."""
    n = position.board.num_cells
    red = [0] * n
    white = [0] * n
    owner = position.owner
    rays = position.board.rays
    for x in range(n):
        o = owner[x]
        if o == RED or o == WHITE:
            s = red if o == RED else white
            for ray in rays[x]:
                for z in ray:
                    s[z] += 1
                    if owner[z]:
                        break
    return [None, red, white]


def control_margin(position, sg=None):
    """Cells the side to move controls minus those the opponent controls, stack by stack.

    A stack is its owner's unless the other side may capture it now (sight above its height
    and the capture not suicidal); an empty or neutral cell belongs to the side that sees
    it more often (and, for the neutral stack, could take it).
    """
    if sg is None:
        sg = sight_tables(position)
    me = position.to_move
    sm = sg[me]
    so = sg[3 - me]
    owner = position.owner
    height = position.height
    total = 0
    for y in range(len(owner)):
        o = owner[y]
        a = sm[y]
        b = so[y]
        if o == EMPTY:
            if a > b:
                total += 1
            elif b > a:
                total -= 1
        elif o == me:
            if not (b > height[y] and b >= a):
                total += 1
        elif o == NEUTRAL:
            h = height[y]
            if a > b and a > h:
                total += 1
            elif b > a and b > h:
                total -= 1
        elif not (a > height[y] and a >= b):
            total -= 1
    return total


class TerritoryEvaluator:
    """Value from the territory and control margins; priors from a cheap move-type heuristic."""

    def __init__(self, k=12.0, territory_weight=1.0, control_weight=1.0, priors="heuristic"):
        if priors not in ("heuristic", "uniform"):
            raise ValueError(f"priors must be 'heuristic' or 'uniform', got {priors!r}")
        if territory_weight < 0 or control_weight < 0 or territory_weight + control_weight <= 0:
            raise ValueError("the margin weights must be >= 0 and not both 0")
        self.k = float(k)
        self.territory_weight = float(territory_weight)
        self.control_weight = float(control_weight)
        self.priors = priors

    def evaluate(self, position, territory=None):
        if territory is None:
            territory = position.territory()
        me = position.to_move
        sg = sight_tables(position)
        red, white = territory
        t_margin = len(red) - len(white)
        if me == WHITE:
            t_margin = -t_margin
        wt = self.territory_weight
        wc = self.control_weight
        c_margin = control_margin(position, sg) if wc else 0
        n = position.board.num_cells
        value = math.tanh(self.k * (wt * t_margin + wc * c_margin) / ((wt + wc) * n))
        moves = legal_moves_from(position, sg)
        if len(moves) == 1:
            return {moves[0]: 1.0}, value
        if self.priors == "uniform":
            p = 1.0 / len(moves)
            return {m: p for m in moves}, value
        raw = move_weights(position, moves, sg, territory)
        inv = 1.0 / sum(raw)
        return {m: w * inv for m, w in zip(moves, raw, strict=True)}, value


def legal_moves_from(position, sg):
    """position.legal_moves() (CodeCup variant) from precomputed sight tables."""
    me = position.to_move
    sm = sg[me]
    so = sg[3 - me]
    height = position.height
    moves = [y for y in range(len(height)) if sm[y] > height[y] and so[y] <= sm[y]]
    if not moves:
        moves.append(len(height))
    return moves


def move_weights(position, moves, sg, territory):
    """Unnormalised prior weights of the legal moves, by move type.

    Empty cell: 1.0 when the opponent sees it as often as we do (contested), 0.5 when it
    sees it less, 0.15 when it does not see it at all (ours anyway).  Capture: 1.5 (of a
    neutral stack: 0.7).  Reinforcement: 1.0 when the stack is under threat, else 0.05.
    Then x0.1 in our own territory (already safe) and x0.3 in the opponent's.
    """
    me = position.to_move
    opp = 3 - me
    sm = sg[me]
    so = sg[opp]
    owner = position.owner
    height = position.height
    n = len(owner)
    cls = bytearray(n + 1)  # 0 contested, 1 mine, 2 theirs (index n: the pass)
    red, white = territory
    mine, theirs = (red, white) if me == RED else (white, red)
    for y in theirs:
        cls[y] = 2
    for y in mine:
        cls[y] = 1
    factor = (1.0, 0.1, 0.3)
    out = []
    for y in moves:
        if y == n:
            out.append(1.0)
            continue
        o = owner[y]
        b = so[y]
        if o == EMPTY:
            w = 1.0 if b >= sm[y] else 0.5 if b else 0.15
        elif o == opp:
            w = 1.5
        elif o == NEUTRAL:
            w = 0.7
        else:
            w = 1.0 if b > height[y] else 0.05
        out.append(w * factor[cls[y]])
    return out


def make_evaluator(weights_path=None, board_size=None, **options):
    """The evaluator for a weights file; the territory evaluator when there is none.

    With ``board_size`` a weights file made for another board is refused here, at start-up.
    """
    if weights_path is None:
        return TerritoryEvaluator(**options)
    if not os.path.isfile(weights_path):
        raise EvaluatorError(f"weights file not found: {weights_path}")
    if NETWORK_EVALUATOR_FACTORY is None:
        raise EvaluatorError(
            f"cannot use weights file {weights_path}: no network evaluator is installed in this build"
        )
    if board_size is None:
        return NETWORK_EVALUATOR_FACTORY(weights_path)
    return NETWORK_EVALUATOR_FACTORY(weights_path, board_size)
