"""Policy-value evaluators for the CodeCup bot, and their registry (standard library only).

The seam: an evaluator has ``evaluate(position) -> (priors, value)``:

- ``priors``: dict {move: probability} over the legal moves of ``position`` (summing to 1);
- ``value``: float in [-1, 1], the expected result for the side to move.

A position computes its sight and territory once, when a move is played (the CodeCup end test
needs them), and keeps them, so evaluators read them from the position at no cost.

A class may also declare ``evaluate_groups(position) -> (groups, value)``: the same priors as a
list of ``(moves, probability of each)`` groups, highest first, where ``moves`` is a bitboard of
cells (``rules.py``) or a list of moves.  The search then uses it below the root and turns a
group into moves only when it needs the next one (most nodes never get a second child).  The
fast path is the class's own declaration, never inherited alone: the search uses it only when
the class that defines ``evaluate`` defines ``evaluate_groups`` too (``grouped_priors``), so a
subclass that overrides ``evaluate`` alone is asked ``evaluate`` everywhere.

The search never calls an evaluator on a finished position.

A new evaluator is one class and one ``register_evaluator(name, factory)``: ``factory(weights,
board_size) -> evaluator``, where ``weights`` is the weights file the bot was given (``--weights
FILE``, else the student shipped for the board, ``weights.default_weights``; None with
``--no-weights`` or where none is shipped).  The bot's command line chooses one by name
(``--evaluator NAME``; ``evaluator_named``).  Registered here:

- ``territory``: ``TerritoryEvaluator`` (no weights; see below);
- ``network``: the student network of the weights file (``network.NetworkEvaluator``, a
  pure-Python forward pass); a file that is not a valid weights file for this board is refused
  with one line (``WeightsError``, an ``EvaluatorError``; both live in ``errors.py`` and are
  importable from here).

``make_evaluator(weights_path=None, board_size=None)`` is the bot's default: the network of a
weights file, the territory evaluator without one.

``TerritoryEvaluator`` (no weights):

- value = tanh(k * (T + C) / (2 * cells)) for the side to move, with
  T = territory margin: sizes of the two CodeCup territories (the judge's simulations), mine
      minus theirs.  A side's territory is what it keeps even when the opponent moves first
      everywhere: the settled cells.  Early on both are empty, so T alone is blind there (a
      1-ply greedy on T is no better than random play).
  C = control margin: cell by cell, a stack counts for its owner unless the other side may
      capture it now; an empty cell counts for the side that sees it more often (the official
      game's "controlled" cells).
  k = 12 (tuned in short matches; T + C and k: ``docs/results/standings.md``, "Design choices
  of the bot").  A 10-cell lead in both margins on the 91-cell
  board is worth tanh(1.3) = 0.86; the search still reaches true terminal values (+-1).
- priors ("heuristic", the default; see ``_weight_groups``): by move type from the sight
  planes, then scaled down in a settled territory.  Contested empty cells, captures and
  threatened stacks first; quiet moves in cells already ours last.  Costs one pass over the
  legal moves; its match against uniform priors is on the same page.  ("uniform": equal priors.)

Everything is computed on the rules engine's bitboards (``rules.py``): the margins are
population counts of bit-sliced comparisons, the priors a handful of masks.
"""

import math
import os

from tw_rl.codecup.errors import EvaluatorError, WeightsError
from tw_rl.codecup.network import NetworkEvaluator
from tw_rl.codecup.rules import RED
from tw_rl.codecup.weights import default_weights

__all__ = [
    "EVALUATORS",
    "EvaluatorError",
    "TerritoryEvaluator",
    "WeightsError",
    "default_weights",
    "evaluator_named",
    "grouped_priors",
    "make_evaluator",
    "register_evaluator",
]


def _sides(position):
    """(mine, theirs, neutral, my sight, their sight, comparisons) for the side to move, where
    comparisons = (my sight > theirs, theirs > mine, my sight > height, theirs > height)."""
    red, white, neutral, _ = position.stacks()
    rc, wc = position.counts()
    red_up, white_up, red_more, white_more = position.comparisons()
    if position.to_move == RED:
        return red, white, neutral, rc, wc, (red_more, white_more, red_up, white_up)
    return white, red, neutral, wc, rc, (white_more, red_more, white_up, red_up)


def _control(mask, mine, theirs, neutral, comparisons):
    """Cells the side to move controls minus those the opponent controls, stack by stack: a
    stack is its owner's unless the other side may capture it now (sight above its height and
    the capture not suicidal); an empty or neutral cell belongs to the side that sees it more
    often (and, for the neutral stack, could take it)."""
    a_more, b_more, a_up, b_up = comparisons
    empty = mask & ~(mine | theirs | neutral)
    return (
        (empty & a_more).bit_count()
        - (empty & b_more).bit_count()
        + (mine & ~(b_up & ~a_more)).bit_count()
        - (theirs & ~(a_up & ~b_more)).bit_count()
        + (neutral & a_more & a_up).bit_count()
        - (neutral & b_more & b_up).bit_count()
    )


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

    def evaluate(self, position):
        groups, value = self._groups(position)
        cells = position.board.cells
        priors = {}
        for moves, p in groups:
            priors.update(dict.fromkeys(cells(moves) if type(moves) is int else moves, p))
        return priors, value

    def evaluate_groups(self, position):
        """(groups, value): the priors as (bitboard or list of moves, probability of each)
        groups, highest probability first; see the module docstring."""
        return self._groups(position)

    def _groups(self, position):
        board = position.board
        tr, tw = position.territory_bits()
        mine, theirs, neutral, _, b, comparisons = _sides(position)
        a_more, b_more, a_up, b_up = comparisons
        t_mine, t_theirs = (tr, tw) if position.to_move == RED else (tw, tr)
        t_margin = t_mine.bit_count() - t_theirs.bit_count()
        wt = self.territory_weight
        wc = self.control_weight
        c_margin = _control(board.mask, mine, theirs, neutral, comparisons) if wc else 0
        n = board.num_cells
        value = math.tanh(self.k * (wt * t_margin + wc * c_margin) / ((wt + wc) * n))
        legal = a_up if position.variant == "official" else a_up & ~b_more
        if not legal:
            return [([n], 1.0)], value
        if self.priors == "uniform" or position.variant == "official":
            if position.variant == "official":
                moves = board.cells(legal) + [n]
                return [(moves, 1.0 / len(moves))], value
            return [(legal, 1.0 / legal.bit_count())], value
        groups = _weight_groups(legal, mine, theirs, neutral, b, a_more, b_up, t_mine, t_theirs)
        inv = 1.0 / sum(cells.bit_count() * w for cells, w in groups)
        groups.sort(key=lambda g: -g[1])  # stable: equal weights keep their order
        return [(cells, w * inv) for cells, w in groups], value


def _weight_groups(legal, mine, theirs, neutral, b, a_more, b_up, t_mine, t_theirs):
    """[(cells, weight)]: the legal placements grouped by their prior weight, empty groups left
    out.  Empty cell: 1.0 when the opponent sees it as often as we do (contested), 0.5 when it
    sees it less, 0.15 when it does not see it at all (ours anyway).  Capture: 1.5 (of a neutral
    stack: 0.7).  Reinforcement: 1.0 when the stack is under threat, else 0.05.  Then x0.1 in
    our own territory (already safe) and x0.3 in the opponent's."""
    empty = legal & ~(mine | theirs | neutral)
    b_sees = b[0] | b[1] | b[2]
    less = empty & a_more & b_sees
    unseen = empty & a_more & ~b_sees
    capture = legal & theirs
    neutral &= legal
    safe = legal & mine & ~b_up
    # the rest, weight 1.0: contested empty cells and threatened stacks
    contested = legal & ~(less | unseen | capture | neutral | safe)
    t_theirs &= ~t_mine
    elsewhere = ~(t_mine | t_theirs)
    groups = []
    base = ((capture, 1.5), (contested, 1.0), (neutral, 0.7), (less, 0.5), (unseen, 0.15), (safe, 0.05))
    for cells, w in base:
        if cells:
            # x0.1 in our own territory (already safe), x0.3 in the opponent's (ours first)
            for part, f in ((cells & elsewhere, 1.0), (cells & t_mine, 0.1), (cells & t_theirs, 0.3)):
                if part:
                    groups.append((part, w * f))
    return groups


def grouped_priors(evaluator):
    """The evaluator's ``evaluate_groups`` when the class that defines its ``evaluate`` declares
    it too, else None (the search then asks ``evaluate`` everywhere)."""

    def owner(name):
        return next((k for k in type(evaluator).__mro__ if name in vars(k)), None)

    grouped = getattr(evaluator, "evaluate_groups", None)
    if grouped is None or owner("evaluate_groups") is not owner("evaluate"):
        return None
    return grouped


# name -> factory(weights, board_size) -> evaluator (see the module docstring)
EVALUATORS = {}


def register_evaluator(name, factory):
    """Make ``factory`` the evaluator called ``name`` (``--evaluator NAME``); returns it."""
    if not name or name in EVALUATORS:
        raise ValueError(f"evaluator name {name!r} is empty or taken")
    EVALUATORS[name] = factory
    return factory


def _network(weights, board_size):
    if weights is None:
        where = f" for the size-{board_size} board" if board_size is not None else ""
        raise EvaluatorError(f"the network evaluator needs a weights file: none given, none shipped{where}")
    if not os.path.isfile(weights):
        raise EvaluatorError(f"weights file not found: {weights}")
    return NetworkEvaluator(weights, board_size)


register_evaluator("territory", lambda weights, board_size: TerritoryEvaluator())
register_evaluator("network", _network)


def evaluator_named(name, weights=None, board_size=None):
    """The registered evaluator ``name`` for this weights file and board; EvaluatorError (one
    line) for an unknown name or a file it refuses."""
    factory = EVALUATORS.get(name)
    if factory is None:
        raise EvaluatorError(f"unknown evaluator {name!r}; one of {', '.join(sorted(EVALUATORS))}")
    return factory(weights, board_size)


def make_evaluator(weights_path=None, board_size=None, **options):
    """The evaluator for a weights file (the network); the territory evaluator when there is
    none (``options``: its settings).  With ``board_size`` a weights file made for another board
    is refused here, at start-up."""
    if weights_path is None:
        return TerritoryEvaluator(**options)
    return evaluator_named("network", weights_path, board_size)
