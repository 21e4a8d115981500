"""Players for the CodeCup protocol and the rating run (standard library only).

Every player has ``choose(position, seconds_left=None) -> move`` (a cell index, or
``board.num_cells`` for the pass) and returns a legal move of ``position``; it must not change
``position``.  ``seconds_left`` is what is left of the game's time budget (None: the player
keeps its own clock).  ``observe(position)`` (optional) tells a player the position after the
opponent's move, before it is asked to choose.

- ``BotPlayer``: PUCT search (search.py) + an evaluator (evaluation.py) + the clock (clock.py).
- ``RandomPlayer``: a uniformly random legal move.
- ``GreedyPlayer``: the legal move with the best territory margin (mine - theirs, CodeCup
  territories) of the position after it; ties at random.
- ``UctPlayer``: plain UCT (UCB1, c = 1.4), a fixed number of playouts per move, a fresh tree
  each move; the leaf is valued by a random rollout to the game end ("random") or by the sign
  of its territory margin ("territory").

The random ones take a ``seed`` and are then deterministic.  ``BotPlayer`` without
``seconds_left`` runs its own game clock from its budget; it starts a new game by itself when
the position's ply count drops (or call ``new_game()``).
"""

import math
import random
import time

from tw_rl.codecup.clock import DEFAULT_BUDGET, DEFAULT_PER_EMPTY, DEFAULT_SAFETY, GameClock, TimeControl
from tw_rl.codecup.evaluation import TerritoryEvaluator
from tw_rl.codecup.rules import RED
from tw_rl.codecup.search import DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION, MCTS, advance, result_value


def margin_for(mover, position):
    """Territory margin (mine - theirs) of position for mover."""
    red, white = position.territory_bits()
    d = red.bit_count() - white.bit_count()
    return d if mover == RED else -d


class RandomPlayer:
    """A uniformly random legal move."""

    name = "random"

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def choose(self, position, seconds_left=None):
        return self.rng.choice(position.legal_moves())


class GreedyPlayer:
    """The legal move whose resulting position has the best territory margin for the mover."""

    name = "greedy"

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def scores(self, position):
        """{move: territory margin for the mover after the move}."""
        mover = position.to_move
        out = {}
        for m in position.legal_moves():
            out[m] = margin_for(mover, advance(position, m))
        return out

    def choose(self, position, seconds_left=None):
        scores = self.scores(position)
        top = max(scores.values())
        return self.rng.choice([m for m, s in scores.items() if s == top])


class _UctNode:
    __slots__ = ("pos", "moves", "children", "n", "w", "visits", "tried")

    def __init__(self, pos, rng):
        self.pos = pos
        self.moves = pos.legal_moves()
        rng.shuffle(self.moves)
        self.children = [None] * len(self.moves)
        self.n = [0] * len(self.moves)
        self.w = [0.0] * len(self.moves)  # wins (1, draw 0.5) for the side to move here
        self.visits = 0
        self.tried = 0


class UctPlayer:
    """Plain UCT with UCB1 and a fixed number of playouts per move."""

    name = "mcts"

    def __init__(self, playouts=200, rollout="random", c=1.4, seed=None):
        if rollout not in ("random", "territory"):
            raise ValueError(f"rollout must be 'random' or 'territory', got {rollout!r}")
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts!r}")
        self.playouts = int(playouts)
        self.rollout = rollout
        self.c = float(c)
        self.rng = random.Random(seed)

    def _leaf_score(self, pos):
        """Result in [0, 1] for the side to move in pos (1 win, 0.5 draw, 0 loss)."""
        if pos.over:
            return (result_value(pos) + 1.0) * 0.5
        if self.rollout == "territory":
            m = margin_for(pos.to_move, pos)
            return 1.0 if m > 0 else 0.0 if m < 0 else 0.5
        me = pos.to_move
        p = pos.copy()
        rng = self.rng
        while not p.over:
            p.play(rng.choice(p.legal_moves()))
        v = result_value(p)
        if p.to_move != me:
            v = -v
        return (v + 1.0) * 0.5

    def choose(self, position, seconds_left=None):
        moves = position.legal_moves()
        if len(moves) == 1:
            return moves[0]
        rng = self.rng
        root = _UctNode(position.copy(), rng)
        c = self.c
        for _ in range(self.playouts):
            node = root
            path = []
            while True:
                if node.pos.over:
                    score = (result_value(node.pos) + 1.0) * 0.5
                    break
                if node.tried < len(node.moves):
                    i = node.tried
                    node.tried += 1
                    pos = advance(node.pos, node.moves[i])
                    child = _UctNode(pos, rng)
                    node.children[i] = child
                    path.append((node, i))
                    score = self._leaf_score(pos)
                    child.visits = 1
                    break
                log_n = math.log(node.visits)
                best = -1.0
                bi = 0
                for i in range(len(node.moves)):
                    ni = node.n[i]
                    u = node.w[i] / ni + c * math.sqrt(log_n / ni)
                    if u > best:
                        best = u
                        bi = i
                path.append((node, bi))
                node = node.children[bi]
            # score is for the side to move at the end of the path
            for parent, i in reversed(path):
                score = 1.0 - score
                parent.n[i] += 1
                parent.w[i] += score
                parent.visits += 1
        best = max(range(len(root.moves)), key=lambda i: (root.n[i], root.w[i]))
        return root.moves[best]


class BotPlayer:
    """The CodeCup bot: PUCT search guided by an evaluator, within its own time control."""

    name = "bot"

    def __init__(
        self,
        evaluator=None,
        budget=DEFAULT_BUDGET,
        safety=DEFAULT_SAFETY,
        max_sims=None,
        c_puct=DEFAULT_C_PUCT,
        fpu_reduction=DEFAULT_FPU_REDUCTION,
        reuse=True,
        time_control=None,
        now=time.monotonic,
        per_empty=DEFAULT_PER_EMPTY,
    ):
        """``now``: the clock (seconds) for the deadlines and the own game clock; tests pass a
        fake one."""
        self.evaluator = evaluator if evaluator is not None else TerritoryEvaluator()
        if time_control is None:
            time_control = TimeControl(budget, safety, per_empty=per_empty)
        self.time_control = time_control
        self.max_sims = max_sims
        self.now = now
        self.mcts = MCTS(self.evaluator, c_puct=c_puct, fpu_reduction=fpu_reduction, reuse=reuse, now=now)
        self._quick = TerritoryEvaluator()
        self._own_clock = GameClock(self.time_control.budget, now=now)
        self._last_ply = -1
        self.log = []  # one (allotment, seconds spent, simulations) per move

    def new_game(self):
        """Forget the tree and restart the own clock (done by itself when the ply count drops)."""
        self.mcts.reset()
        self._own_clock = GameClock(self.time_control.budget, now=self.now)
        self._last_ply = -1
        self.log = []

    def observe(self, position):
        self.mcts.observe(position)

    def _fallback(self, position, legal):
        """A move without search: the kept tree's favourite, else the best heuristic prior."""
        node = self.mcts._find(position)
        if node is not None and node.moves and not node.terminal and sum(node.n) > 0:
            best = max(range(len(node.moves)), key=lambda i: (node.n[i], node.priors[i]))
            if node.moves[best] in legal:
                return node.moves[best]
        priors, _ = self._quick.evaluate(position)
        return max(legal, key=lambda m: priors.get(m, 0.0))

    def choose(self, position, seconds_left=None):
        start = self.now()
        if position.ply <= self._last_ply:
            self.new_game()  # a new game with the same player object
        self._last_ply = position.ply
        own = seconds_left is None
        if own:
            self._own_clock.start(start)
            seconds_left = self._own_clock.seconds_left()
        legal = position.legal_moves()
        sims = 0
        allot = 0.0
        if len(legal) == 1:
            move = legal[0]
            self.mcts.reset()
        elif self.max_sims is not None:
            move = self.mcts.search(position, max_sims=self.max_sims)
            sims = self.mcts.last_sims
        else:
            allot = self.time_control.allotment(seconds_left, position)
            if allot <= 0.0:
                move = self._fallback(position, legal)
                self.mcts.reset()
            else:
                move = self.mcts.search(position, deadline=start + allot)
                sims = self.mcts.last_sims
        if move not in legal:  # cannot happen; never answer an illegal move
            move = legal[0]
            self.mcts.reset()
        if own:
            self._own_clock.stop()
        self.log.append((allot, self.now() - start, sims))
        return move


PLAYERS = ("bot", "random", "greedy", "mcts")


def make_player(
    name,
    seed=None,
    playouts=200,
    rollout="random",
    evaluator=None,
    budget=DEFAULT_BUDGET,
    safety=DEFAULT_SAFETY,
    c_puct=DEFAULT_C_PUCT,
    fpu_reduction=DEFAULT_FPU_REDUCTION,
    per_empty=DEFAULT_PER_EMPTY,
):
    """A player by its command-line name (the search and clock settings are the bot's)."""
    if name == "bot":
        return BotPlayer(
            evaluator=evaluator,
            budget=budget,
            safety=safety,
            c_puct=c_puct,
            fpu_reduction=fpu_reduction,
            per_empty=per_empty,
        )
    if name == "random":
        return RandomPlayer(seed)
    if name == "greedy":
        return GreedyPlayer(seed)
    if name == "mcts":
        return UctPlayer(playouts=playouts, rollout=rollout, seed=seed)
    raise ValueError(f"unknown player {name!r}; use one of {', '.join(PLAYERS)}")
