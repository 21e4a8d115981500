"""Batched Monte Carlo tree search in numpy: one tree per game, all games searched in step.

The search knows nothing of networks: it asks a policy-value function for priors over the
actions and a value (for the side to act, in [-1, 1]) of a batch of positions::

    policy_value(state) -> (priors [B, A] float32, values [B] float32)

Two root rules, both with PUCT below the root:

- ``puct``: AlphaZero. Dirichlet noise on the root priors (self-play), the target policy is
  the visit distribution, the move is drawn from visits ** (1 / temperature).
- ``gumbel``: Gumbel AlphaZero (Danihelka et al., 2022). Gumbel noise on the root logits picks
  m candidate actions, sequential halving spends the simulations on them, and the move is the
  survivor with the best g + logit + sigma(q). The target policy is softmax(logit + sigma(q))
  with completed q-values, which is a policy improvement even with very few simulations.
  ``gumbel_rescale`` first maps the completed q-values of the legal moves onto [0, 1].

A noised PUCT root can also take KataGo's forced playouts with policy-target pruning (Wu, 2019,
section 3.1; ``forced_playouts`` = k > 0): a root child c with fewer than sqrt(k P(c) N) visits
is visited next (N: the root's visits so far), and afterwards every child but the most visited
one gives back as many of those forced visits as it can without its PUCT score reaching the
best child's; a child left with one visit is dropped. The target policy (and the temperature
draw) is the pruned visit distribution, so the noise explores without teaching its own moves.

Trees are dense arrays [B, M, A] (M = simulations + 1 nodes per game). Each simulation
descends every tree in lockstep, expands one leaf per game with one batched ``Rules.step`` and
one batched policy-value call, and backs the value up. Values on edges are stored for the
seat acting at the edge's parent, so set-up turns and the pie (same seat twice) need no
special case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tw_rl.core.rules import Rules
from tw_rl.core.state import State

PolicyValue = Callable[[State], tuple[np.ndarray, np.ndarray]]


@dataclass
class SearchConfig:
    """Settings of the search, the one record of them: the training config's ``search`` group
    is this class (every field settable from YAML as ``search.<field>``), and a player that
    searches takes one. ``cheap_simulations``, ``full_search_fraction`` and
    ``temperature_moves`` are read by self-play (``tw_rl.training.selfplay``), the rest here."""

    simulations: int = 32  # leaf expansions per move (per game); in self-play: of a full search
    cheap_simulations: int = 8  # self-play, playout-cap randomization: simulations of a cheap move
    full_search_fraction: float = 0.25  # self-play: share of moves searched fully (and trained on)
    root: str = "puct"  # "puct" or "gumbel"
    c_puct: float = 1.5  # exploration weight of PUCT
    dirichlet_alpha: float = 0.3  # root noise concentration (puct, self-play only)
    dirichlet_fraction: float = 0.25  # share of the noise in the root priors (puct)
    fpu_reduction: float = 0.2  # unvisited children start at parent value minus this
    gumbel_actions: int = 16  # candidate actions m at the root (gumbel)
    gumbel_c_visit: float = 50.0  # sigma(q) = (c_visit + max visits) * c_scale * q (gumbel)
    gumbel_c_scale: float = 0.1
    gumbel_rescale: bool = True  # min-max rescale the completed q-values to [0, 1] before sigma (as
    # DeepMind's mctx does), so that sigma's reach no longer shrinks with the q spread (its A/B:
    # docs/results/standings.md); False = the sigma of before
    forced_playouts: float = 0.0  # k of forced playouts + policy-target pruning at a noised puct root
    # (KataGo uses 2); 0 = off
    temperature_moves: int = 12  # self-play: moves per game drawn from the search policy, then the best

    def check(self) -> None:
        """Refuse settings the search cannot run with (``ValueError``, one line naming the setting)."""
        if self.root not in ("puct", "gumbel"):
            raise ValueError(f"search.root must be puct or gumbel, got {self.root!r}")
        if self.forced_playouts < 0 or (self.forced_playouts and self.root != "puct"):
            raise ValueError(
                f"search.forced_playouts={self.forced_playouts} needs search.root=puct and k >= 0 "
                f"(the {self.root} root does its own exploration)"
            )


@dataclass
class SearchResult:
    """What the search found for each game."""

    policy: np.ndarray  # [B, A] float32 improved policy (training target)
    visits: np.ndarray  # [B, A] float32 root visit counts
    root_value: np.ndarray  # [B] float32 search value for the side to act
    action: np.ndarray  # [B] int64 the move to play (before any temperature)
    prior: np.ndarray  # [B, A] float32 raw network priors at the root


class BatchedMCTS:
    """Search many games at once with one tree per game."""

    def __init__(self, rules: Rules, config: SearchConfig | None = None):
        self.rules = rules
        self.config = config or SearchConfig()
        self.config.check()

    # ------------------------------------------------------------------ public

    def search(
        self,
        state: State,
        policy_value: PolicyValue,
        rng: np.random.Generator,
        simulations: int | np.ndarray | None = None,
        noise: bool | np.ndarray = True,
    ) -> SearchResult:
        """Search every (unfinished) game of ``state`` and return policies, values and moves.

        ``simulations`` and ``noise`` may be given per game (arrays of length B): games with
        fewer simulations simply stop earlier, so cheap and full searches share one call.
        """
        cfg = self.config
        batch = state.batch_size
        sims = np.broadcast_to(np.asarray(cfg.simulations if simulations is None else simulations), (batch,))
        sims = np.maximum(sims.astype(np.int64), 1)
        noise = np.broadcast_to(np.asarray(noise, dtype=bool), (batch,))
        tree = _Tree(self.rules, state, int(sims.max()) + 1, rng)
        legal = self.rules.legal_mask(state)
        priors, values = policy_value(state)
        priors = _normalise(priors, legal)
        tree.expand(np.arange(batch), np.zeros(batch, dtype=np.int64), priors, legal, state)
        tree.root_value[:] = values

        if cfg.root == "gumbel":
            return self._gumbel(tree, policy_value, rng, sims, priors, legal, values, noise)
        if noise.any():
            tree.prior[noise, 0] = self._noisy(priors[noise], legal[noise], rng)
        forcing = noise if cfg.forced_playouts > 0 else None
        for k in range(int(sims.max())):
            self._simulate(tree, policy_value, forced_root=None, searching=sims > k, forcing=forcing)
        visits = tree.visits[:, 0].copy()
        target = visits if forcing is None else np.where(forcing[:, None], self._pruned(tree), visits)
        policy = _normalise(target, legal)
        return SearchResult(policy, visits, tree.node_value(0), tree.best_root_action(), priors)

    @staticmethod
    def sample_action(
        result: SearchResult, temperature: np.ndarray | float, rng: np.random.Generator
    ) -> np.ndarray:
        """Draw moves from the search policy: visits ** (1 / T); T = 0 takes the best move."""
        temperature = np.broadcast_to(np.asarray(temperature, dtype=np.float64), result.action.shape)
        actions = result.action.copy()
        warm = temperature > 0
        if warm.any():
            weights = result.policy[warm].astype(np.float64) ** (1.0 / temperature[warm, None])
            weights /= weights.sum(axis=1, keepdims=True)
            cumulative = weights.cumsum(axis=1)
            draws = rng.random((int(warm.sum()), 1))
            actions[warm] = np.minimum((cumulative < draws).sum(axis=1), weights.shape[1] - 1)
        return actions

    # --------------------------------------------------------------- internals

    def _noisy(self, priors: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        cfg = self.config
        noise = rng.gamma(cfg.dirichlet_alpha, 1.0, size=priors.shape) * legal
        noise /= np.maximum(noise.sum(axis=1, keepdims=True), 1e-12)
        return (1 - cfg.dirichlet_fraction) * priors + cfg.dirichlet_fraction * noise

    def _forced_visits(self, tree: _Tree, games: np.ndarray) -> np.ndarray:
        """[len(games), A] KataGo's forced visits sqrt(k P(c) N) of each root child."""
        total = tree.visits[games, 0].sum(axis=1, keepdims=True)
        return np.sqrt(self.config.forced_playouts * tree.prior[games, 0] * total)

    def _pruned(self, tree: _Tree) -> np.ndarray:
        """[B, A] root visits less the forced ones the best child's PUCT score allows back."""
        cfg = self.config
        games = np.arange(tree.batch)
        visits = tree.visits[:, 0].astype(np.float64)
        total = visits.sum(axis=1, keepdims=True)
        q = np.where(visits > 0, tree.value_sum[:, 0] / np.maximum(visits, 1), 0.0)
        explore = cfg.c_puct * tree.prior[:, 0] * np.sqrt(total + 1)
        best = np.argmax(np.where(tree.legal[:, 0], visits, -1), axis=1)
        best_score = q[games, best] + explore[games, best] / (1 + visits[games, best])
        # The fewest visits n' with q + explore / (1 + n') still below the best child's score.
        gap = (best_score[:, None] - q).clip(min=1e-12)
        floor_visits = np.where(best_score[:, None] > q, np.floor(explore / gap), visits)
        forced = self._forced_visits(tree, games)
        pruned = np.clip(np.maximum(floor_visits, np.ceil(visits - forced)), 0, visits)
        pruned[pruned <= 1] = 0
        pruned[games, best] = visits[games, best]
        return pruned.astype(np.float32)

    def _simulate(
        self,
        tree: _Tree,
        policy_value: PolicyValue,
        forced_root: np.ndarray | None,
        searching: np.ndarray,
        forcing: np.ndarray | None = None,
    ) -> None:
        """One simulation in every tree still ``searching``: select, expand one leaf, back up.
        ``forcing`` [B]: the roots that take forced playouts (see the module docstring)."""
        cfg = self.config
        batch = tree.batch
        rows = np.arange(batch)
        node = np.zeros(batch, dtype=np.int64)
        path_nodes, path_actions = [], []
        descending = searching & ~tree.terminal[rows, 0]
        leaf_action = np.full(batch, -1, dtype=np.int64)
        depth = 0
        while descending.any():
            idx = np.flatnonzero(descending)
            n = node[idx]
            if depth == 0 and forced_root is not None:
                action = forced_root[idx]
            else:
                action = tree.select(idx, n, cfg.c_puct, cfg.fpu_reduction)
            if depth == 0 and forcing is not None:
                forced_rows = np.flatnonzero(forcing[idx])
                if forced_rows.size:
                    # A root child short of its forced visits goes first (the one furthest short).
                    games = idx[forced_rows]
                    deficit = self._forced_visits(tree, games) - tree.visits[games, 0]
                    deficit = np.where(tree.legal[games, 0], deficit, -np.inf)
                    take = deficit.max(axis=1) > 0
                    action[forced_rows[take]] = np.argmax(deficit[take] + tree.jitter[games[take]], axis=1)
            path_nodes.append((idx, n))
            path_actions.append(action)
            child = tree.child[idx, n, action]
            new_leaf = child < 0
            leaf_action[idx[new_leaf]] = action[new_leaf]
            node[idx[~new_leaf]] = child[~new_leaf]
            at_terminal = np.zeros(len(idx), dtype=bool)
            at_terminal[~new_leaf] = tree.terminal[idx[~new_leaf], child[~new_leaf]]
            descending[idx[new_leaf | at_terminal]] = False
            depth += 1
        if not path_nodes:
            return

        # Expand the new leaves with one rules step and one policy-value call.
        expand = np.flatnonzero(leaf_action >= 0)
        seat_values = np.zeros((batch, 2), dtype=np.float32)
        if expand.size:
            parent = node[expand]
            child_state = self.rules.step(tree.state_of(expand, parent), leaf_action[expand])
            new_node = tree.add_child(expand, parent, leaf_action[expand], child_state)
            done = child_state.terminated
            child_legal = self.rules.legal_mask(child_state)
            values = np.zeros(expand.size, dtype=np.float32)
            priors = np.zeros(child_legal.shape, dtype=np.float32)
            live = np.flatnonzero(~done)
            if live.size:
                p, v = policy_value(child_state[live])
                priors[live] = _normalise(p, child_legal[live])
                values[live] = v
            tree.expand(expand, new_node, priors, child_legal, child_state)
            seat = child_state.current_seat()
            seat_values[expand, seat] = values
            seat_values[expand, 1 - seat] = -values
            finished = np.flatnonzero(done)
            if finished.size:
                rewards = self.rules.rewards(child_state[finished])
                seat_values[expand[finished]] = rewards
                tree.terminal_value[expand[finished], new_node[finished]] = rewards
            node[expand] = new_node
        # Leaves that were terminal already: their stored result.
        old = np.flatnonzero(searching & (leaf_action < 0) & tree.terminal[rows, node])
        seat_values[old] = tree.terminal_value[old, node[old]]

        for (idx, n), action in zip(path_nodes, path_actions, strict=True):
            acting = tree.seat[idx, n]
            tree.visits[idx, n, action] += 1
            tree.value_sum[idx, n, action] += seat_values[idx, acting]

    def _gumbel(self, tree, policy_value, rng, sims, priors, legal, values, noise) -> SearchResult:
        cfg = self.config
        batch, num_actions = priors.shape
        logits = np.where(legal, np.log(np.maximum(priors, 1e-12)), -np.inf)
        gumbel = np.where(noise[:, None], rng.gumbel(size=priors.shape), 0.0)
        score = np.where(legal, gumbel + logits, -np.inf)
        m = np.minimum(cfg.gumbel_actions, legal.sum(axis=1))
        order = np.argsort(-score, axis=1)
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(num_actions)[None, :], axis=1)
        considered = (rank < m[:, None]) & legal
        phases = max(1, int(np.ceil(np.log2(max(2, cfg.gumbel_actions)))))
        budget = int(sims.max())
        used = 0
        while used < budget:
            k = np.maximum(considered.sum(axis=1), 1)
            per_action = max(1, (budget // phases) // int(k.max()))
            for _ in range(per_action * int(k.max())):
                if used >= budget:
                    break
                # Visit the considered action with the fewest visits (ties: best score).
                visits = tree.visits[:, 0]
                key = np.where(considered, -visits * 1e6 + score, -np.inf)
                forced = np.argmax(key, axis=1)
                self._simulate(tree, policy_value, forced_root=forced, searching=sims > used)
                used += 1
            # Halve: keep the better half by g + logit + sigma(q).
            q = self._completed_q(tree, priors, values, legal)
            total = np.where(considered, score + self._sigma(q, tree), -np.inf)
            keep = np.maximum(k // 2, 1)
            order = np.argsort(-total, axis=1)
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.arange(num_actions)[None, :], axis=1)
            considered &= rank < keep[:, None]
        q = self._completed_q(tree, priors, values, legal)
        sigma = self._sigma(q, tree)
        final = np.where(considered, score + sigma, -np.inf)
        action = np.argmax(final, axis=1)
        improved = np.where(legal, logits + sigma, -np.inf)
        improved = np.exp(improved - improved.max(axis=1, keepdims=True))
        policy = _normalise(improved.astype(np.float32), legal)
        visits = tree.visits[:, 0].copy()
        return SearchResult(policy, visits, tree.node_value(0), action, priors)

    def _completed_q(self, tree: _Tree, priors, values, legal) -> np.ndarray:
        """Root q-values; unvisited actions get the prior-weighted mix of value and visited q."""
        visits = tree.visits[:, 0]
        q = np.where(visits > 0, tree.value_sum[:, 0] / np.maximum(visits, 1), 0.0)
        visited = visits > 0
        weight = (priors * visited).sum(axis=1)
        mixed_q = (priors * q * visited).sum(axis=1) / np.maximum(weight, 1e-12)
        total = visits.sum(axis=1)
        v_mix = (values + total * np.where(weight > 0, mixed_q, 0.0)) / (1 + total)
        return np.where(visited, q, v_mix[:, None])

    def _sigma(self, q: np.ndarray, tree: _Tree) -> np.ndarray:
        cfg = self.config
        if cfg.gumbel_rescale:
            legal = tree.legal[:, 0]
            low = np.where(legal, q, np.inf).min(axis=1, keepdims=True)
            high = np.where(legal, q, -np.inf).max(axis=1, keepdims=True)
            q = np.where(legal, (q - low) / np.maximum(high - low, 1e-8), 0.0)
        max_visits = tree.visits[:, 0].max(axis=1, keepdims=True)
        return (cfg.gumbel_c_visit + max_visits) * cfg.gumbel_c_scale * q


class _Tree:
    """Dense search trees for a batch of games."""

    def __init__(self, rules: Rules, root: State, capacity: int, rng: np.random.Generator):
        self.batch = root.batch_size
        self.capacity = capacity
        b, m, a = self.batch, capacity, rules.num_actions
        self.child = np.full((b, m, a), -1, dtype=np.int32)
        self.prior = np.zeros((b, m, a), dtype=np.float32)
        self.legal = np.zeros((b, m, a), dtype=bool)
        self.visits = np.zeros((b, m, a), dtype=np.float32)
        self.value_sum = np.zeros((b, m, a), dtype=np.float32)
        self.seat = np.zeros((b, m), dtype=np.int8)
        self.terminal = np.zeros((b, m), dtype=bool)
        self.terminal_value = np.zeros((b, m, 2), dtype=np.float32)  # per seat
        self.root_value = np.zeros(b, dtype=np.float32)
        self.size = np.ones(b, dtype=np.int64)
        # Ties (equal priors and values, common before any learning) are broken at random,
        # not towards low cell indices.
        self.jitter = rng.random((b, a)).astype(np.float32) * 1e-6
        # Node states, flattened to B * M games (row b * M + node).
        self.states = State.concatenate([root] * capacity)
        order = np.arange(b * m).reshape(m, b).T.reshape(-1)
        self.states = self.states[order]
        self.terminal[:, 0] = root.terminated

    def state_of(self, games: np.ndarray, nodes: np.ndarray) -> State:
        return self.states[games * self.capacity + nodes]

    def add_child(self, games, parents, actions, state: State) -> np.ndarray:
        new = self.size[games].copy()
        self.size[games] += 1
        self.child[games, parents, actions] = new
        self.states.replace(games * self.capacity + new, state)
        return new

    def expand(self, games, nodes, priors, legal, state: State) -> None:
        self.prior[games, nodes] = priors
        self.legal[games, nodes] = legal
        self.seat[games, nodes] = state.current_seat()
        self.terminal[games, nodes] = state.terminated

    def select(self, games, nodes, c_puct: float, fpu_reduction: float) -> np.ndarray:
        visits = self.visits[games, nodes]
        total = visits.sum(axis=1, keepdims=True)
        value_sum = self.value_sum[games, nodes]
        parent_q = np.where(total[:, 0] > 0, value_sum.sum(axis=1) / np.maximum(total[:, 0], 1), 0.0)
        fpu = (parent_q - fpu_reduction)[:, None]
        q = np.where(visits > 0, value_sum / np.maximum(visits, 1), fpu)
        u = c_puct * self.prior[games, nodes] * np.sqrt(total + 1) / (1 + visits)
        score = np.where(self.legal[games, nodes], q + u + self.jitter[games], -np.inf)
        return np.argmax(score, axis=1)

    def best_root_action(self) -> np.ndarray:
        """[B] the most visited root action; equal visits go to the better mean value."""
        visits = self.visits[:, 0]
        q = np.where(visits > 0, self.value_sum[:, 0] / np.maximum(visits, 1), -1.0)
        key = np.where(self.legal[:, 0], visits + 0.1 * (q + 1) + self.jitter, -np.inf)
        return np.argmax(key, axis=1)

    def node_value(self, node: int) -> np.ndarray:
        visits = self.visits[:, node].sum(axis=1)
        mean = self.value_sum[:, node].sum(axis=1) / np.maximum(visits, 1)
        return np.where(visits > 0, (self.root_value + mean * visits) / (1 + visits), self.root_value).astype(
            np.float32
        )


def _normalise(weights: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Weights restricted to legal actions and summing to 1 (uniform if they sum to 0)."""
    masked = np.where(legal, np.maximum(weights, 0), 0).astype(np.float32)
    total = masked.sum(axis=1, keepdims=True)
    uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
    return np.where(total > 0, masked / np.maximum(total, 1e-12), uniform).astype(np.float32)
