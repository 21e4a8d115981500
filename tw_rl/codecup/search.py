"""Monte Carlo tree search with PUCT for the CodeCup bot (standard library only).

Design
------
- AlphaZero-style PUCT without rollouts: a leaf is valued by the evaluator's value (see
  ``evaluation.py``), a finished game by its true result (+1 win, -1 loss, 0 draw for the side to
  move there).  Selection maximises  Q + c_puct * P * sqrt(N_parent) / (1 + N).  Unvisited
  moves get the first-play urgency Q = (mean value of the parent) - fpu_reduction.
- Why PUCT and not a Gumbel root: the bot gets a few hundred to a few thousand simulations a
  move (CodeCup: 30 s for the whole game in pure Python), enough for PUCT to settle, and PUCT
  keeps the tree across moves, which sequential halving at the root does not use well.  The root
  is expanded in full on its first visit (every legal move is played and evaluated once, deadline
  permitting): that finds an immediate win at once (it is returned without more search) and
  gives every move one honest evaluation before the priors steer the rest.
- Every node stores its Position (a copy: a few ints, the bitboards of ``rules.py``).  Moves are
  played with ``advance`` (a copy, then ``Position.play``); the position keeps the sight and
  territory that ``play`` computes for the CodeCup end test, so the evaluator reads them at no
  cost (the territory is the larger part of a simulation's rules work).
- Values along a path alternate sign (every move, a pass too, hands the turn over).
- The search stops at a deadline (time.monotonic, checked before every simulation) or after a
  fixed number of simulations (tests).  It returns the most visited root move (ties: higher
  Q, then higher prior); the root's moves come from ``Position.legal_moves``, so the answer is
  always legal.
- Children are made in the order of their priors (highest first), so selection scores the
  visited moves and just one unvisited move; with an evaluator's prior groups the moves are
  listed a group at a time, when a child needs them (see ``Node``).
- Tree reuse: after a search the subtree of the chosen move is kept; the next search looks
  for the new position among that node's children (by the opponent's last move, then by
  comparing stacks) and keeps its statistics.  Nodes hold no parent links, so a dropped
  subtree is freed by reference counting.
"""

import math
import time

from tw_rl.codecup.evaluation import grouped_priors
from tw_rl.codecup.rules import RED, WHITE

DEFAULT_C_PUCT = 1.5  # exploration weight of PUCT
DEFAULT_FPU_REDUCTION = 0.2  # an unvisited move starts at the parent's mean value minus this


def advance(position, move):
    """A copy of position with the move played (``Position.play``; it keeps its territory)."""
    position.comparisons()  # kept by the parent: play's legality check is nearly free
    child = position.copy()
    child.play(move)
    return child


def result_value(position):
    """+1 / -1 / 0: the finished game's result for the side to move in position."""
    if position.forfeit or position.variant != "codecup":
        w = position.winner()
    else:
        red, white = position.territory_bits()
        r, wh = red.bit_count(), white.bit_count()
        w = RED if r > wh else WHITE if wh > r else 0
    if w == 0:
        return 0.0
    return 1.0 if w == position.to_move else -1.0


class Node:
    """A search node: its position, the evaluator's output, and per-move edge statistics.

    The moves are listed in the order of their priors, highest first, and children are made in
    that order, so the children made so far are a prefix of the moves (``children`` grows by
    appending): selection scores only the visited moves and the one unvisited move with the
    highest prior, the only unvisited move that can win it (they all share the same
    first-play urgency).  With an evaluator's prior groups (``grouped_priors``) the moves are
    listed group by group, when the next child needs them (``grow``); ``size`` counts them all.
    """

    __slots__ = (
        "pos",
        "terminal",
        "value",
        "moves",
        "priors",
        "groups",
        "size",
        "children",
        "n",
        "w",
        "q",
        "a",
        "visits",
        "wsum",
    )

    def __init__(self, pos):
        self.pos = pos
        self.terminal = pos.over
        self.value = 0.0
        self.moves = None  # None: not expanded yet
        self.priors = None
        self.groups = None  # prior groups not listed yet, highest first
        self.size = 0  # all the moves, listed or not
        self.children = None
        self.n = None  # per listed move: visits,
        self.w = None  # sum of values (for the side to move here),
        self.q = None  # mean value w / n (0 while unvisited),
        self.a = None  # prior / (1 + n): the exploration term without its common factor
        self.visits = 0  # simulations through this node (its own evaluation included)
        self.wsum = 0.0  # sum of their values, for the side to move here

    def expand(self, evaluator, legal=None, grouped=None):
        """Evaluate the node (terminal: its result); returns the value for its side to move.
        ``grouped``: the evaluator's prior groups (``grouped_priors``), used below the root."""
        self.children = []
        if self.terminal:
            self.value = result_value(self.pos)
            self.moves = []
            return self.value
        if grouped is not None and legal is None:
            groups, value = grouped(self.pos)
            self.groups = groups
            self.size = sum(m.bit_count() if type(m) is int else len(m) for m, _ in groups)
            self.moves, self.priors, self.n, self.w, self.q, self.a = [], [], [], [], [], []
        else:
            priors, value = evaluator.evaluate(self.pos)
            if legal is not None:  # the root: trust the rules engine, not the evaluator
                total = sum(max(0.0, priors.get(m, 0.0)) for m in legal)
                if total > 0.0:
                    probs = [max(0.0, priors.get(m, 0.0)) / total for m in legal]
                else:
                    probs = [1.0 / len(legal)] * len(legal)
                moves = list(legal)
            else:
                moves = list(priors)
                probs = list(priors.values())
            if len(moves) > 1:  # highest prior first (a stable sort: ties keep the evaluator's order)
                order = sorted(range(len(moves)), key=probs.__getitem__, reverse=True)
                moves = [moves[i] for i in order]
                probs = [probs[i] for i in order]
            m = len(moves)
            self.moves, self.priors, self.size = moves, probs, m
            self.n, self.w, self.q, self.a = [0] * m, [0.0] * m, [0.0] * m, list(probs)
        self.value = max(-1.0, min(1.0, float(value)))
        return self.value

    def grow(self):
        """List the next prior group's moves."""
        moves, p = self.groups.pop(0)
        if type(moves) is int:
            moves = self.pos.board.cells(moves)
        m = len(moves)
        self.moves += moves
        self.priors += [p] * m
        self.n += [0] * m
        self.w += [0.0] * m
        self.q += [0.0] * m
        self.a += [p] * m

    def list_all(self):
        """List every move (before the node serves as a root)."""
        while self.groups:
            self.grow()


class MCTS:
    """PUCT search over Position copies, guided by an evaluator, with tree reuse."""

    def __init__(
        self,
        evaluator,
        c_puct=DEFAULT_C_PUCT,
        fpu_reduction=DEFAULT_FPU_REDUCTION,
        reuse=True,
        now=time.monotonic,
    ):
        self.evaluator = evaluator
        self.grouped = grouped_priors(evaluator)  # the class's own fast path, or None
        self.c_puct = float(c_puct)
        self.fpu_reduction = float(fpu_reduction)
        self.reuse = reuse
        self.now = now
        self.root = None
        self.last_sims = 0
        self.last_reused = 0
        self.last_stats = []  # [(move, visits, mean value, prior)] of the last root, most visited first

    # ------------------------------------------------------------ tree reuse
    @staticmethod
    def _same(a, b):
        return (
            a.to_move == b.to_move and a.stacks() == b.stacks() and a.passes == b.passes and a.over == b.over
        )

    def _find(self, position):
        """The kept node for position, or None."""
        node = self.root
        if node is None:
            return None
        if self._same(node.pos, position):
            return node
        if node.children is None:
            return None
        last = position.last_move
        for m, c in zip(node.moves, node.children, strict=False):  # the children: a prefix
            if m == last and self._same(c.pos, position):
                return c
        return None

    def observe(self, position):
        """Move the kept tree to position if it is there (else drop it)."""
        self.root = self._find(position) if self.reuse else None

    def reset(self):
        self.root = None

    # ---------------------------------------------------------------- search
    def _root_for(self, position):
        node = self._find(position) if self.reuse else None
        legal = position.legal_moves()
        if node is not None and node.moves is not None and not node.terminal:
            node.list_all()
            if sorted(node.moves) == legal:
                return node
        node = Node(position.copy())
        value = node.expand(self.evaluator, legal)
        node.visits = 1
        node.wsum = value
        return node

    def _make_child(self, node):
        """The next child of node (the unvisited move with the highest prior), evaluated."""
        k = len(node.children)
        if k == len(node.moves):
            node.grow()
        child = Node(advance(node.pos, node.moves[k]))
        node.children.append(child)
        value = child.expand(self.evaluator, grouped=self.grouped)
        child.visits = 1
        child.wsum = value
        return child, value

    def _backup(self, path, value):
        """value is for the side to move at the end of path."""
        for node, i in reversed(path):
            value = -value
            n = node.n[i] + 1
            w = node.w[i] + value
            node.n[i] = n
            node.w[i] = w
            node.q[i] = w / n
            node.a[i] = node.priors[i] / (1 + n)
            node.visits += 1
            node.wsum += value

    def _simulate(self, root):
        node = root
        path = []
        c = self.c_puct
        red_fpu = self.fpu_reduction
        sqrt = math.sqrt
        while True:
            if node.terminal:
                value = node.value
                node.visits += 1
                node.wsum += value
                break
            p = node.priors
            kids = node.children
            k = len(kids)
            sq = c * sqrt(node.visits)
            best = -1e30
            bi = k
            # PUCT: q + c * sqrt(N) * prior / (1 + n) over the visited moves ...
            for i, q, a in zip(range(k), node.q, node.a, strict=False):
                u = q + sq * a
                if u > best:
                    best = u
                    bi = i
            # ... and the best unvisited one, at the first-play urgency
            if k < node.size:
                pk = p[k] if k < len(p) else node.groups[0][1]
                if node.wsum / node.visits - red_fpu + sq * pk > best:
                    bi = k
            path.append((node, bi))
            if bi == k:
                value = self._make_child(node)[1]
                break
            node = kids[bi]
        self._backup(path, value)

    def search(self, position, deadline=None, max_sims=None):
        """Best move for position's side to move; stops at the deadline or after max_sims."""
        if position.over:
            raise ValueError("the game is over")
        if deadline is None and max_sims is None:
            raise ValueError("give a deadline or a simulation count")
        now = self.now
        root = self._root_for(position)
        self.last_reused = root.visits - 1
        sims = 0
        if len(root.moves) > 1:
            # full expansion of the root: one evaluation per move; stop at an immediate win
            for i in range(len(root.children), len(root.moves)):
                if (deadline is not None and now() >= deadline) or (
                    max_sims is not None and sims >= max_sims
                ):
                    break
                child, value = self._make_child(root)
                self._backup([(root, i)], value)
                sims += 1
                if child.terminal and value < 0.0:  # the opponent has lost: we won
                    self.root = child if self.reuse else None
                    self.last_sims = sims
                    self.last_stats = [(root.moves[i], 1, 1.0, root.priors[i])]
                    return root.moves[i]
            while True:
                if max_sims is not None and sims >= max_sims:
                    break
                if deadline is not None and now() >= deadline:
                    break
                self._simulate(root)
                sims += 1
        self.last_sims = sims
        bi = self._best_index(root)
        self.last_stats = [
            (m, root.n[i], root.w[i] / root.n[i] if root.n[i] else 0.0, root.priors[i])
            for i, m in enumerate(root.moves)
        ]
        self.last_stats.sort(key=lambda t: -t[1])
        self.root = root.children[bi] if self.reuse and bi < len(root.children) else None
        return root.moves[bi]

    @staticmethod
    def _best_index(root):
        best = None
        bi = 0
        for i in range(len(root.moves)):
            ni = root.n[i]
            key = (ni, root.w[i] / ni if ni else -2.0, root.priors[i])
            if best is None or key > best:
                best = key
                bi = i
        return bi
