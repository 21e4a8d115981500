"""Batched matches between in-process players, with colours balanced.

A player is the one in-process protocol (``tw_rl.core.player.Player``: ``(rules, state, rng) ->
actions [B]`` for a batch of games in which it is to act). ``search_player`` wraps a
policy-value function in a search without noise that plays its best move; the baselines of
``tw_rl.core.baselines`` are players as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tw_rl.core.mcts import BatchedMCTS, PolicyValue, SearchConfig
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.core.state import State


def search_player(policy_value: PolicyValue, config: SearchConfig) -> Player:
    """A player that searches ``config.simulations`` per move (no noise) and plays the best."""

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        return BatchedMCTS(rules, config).search(state, policy_value, rng, noise=False).action

    return play


def raw_policy_player(policy_value: PolicyValue) -> Player:
    """A player that plays the policy's most likely legal move, without search."""

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        priors, _ = policy_value(state)
        return np.argmax(np.where(rules.legal_mask(state), priors, -1.0), axis=1)

    return play


@dataclass
class MatchScore:
    """The outcome of a batched match, from player A's side (the referee's ``MatchResult`` is
    another thing: a match between programs, game by game)."""

    wins: int  # games won by player A
    draws: int
    losses: int
    points_a: float  # mean CodeCup points of A
    points_b: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's share of the points (a draw counts half)."""
        return (self.wins + 0.5 * self.draws) / max(self.games, 1)


def play_match(
    rules: Rules, player_a: Player, player_b: Player, games: int, rng: np.random.Generator
) -> MatchScore:
    """``games`` games at once: A plays red in the even games and white in the odd ones."""
    state = rules.init(games, rng)
    a_seat = (np.arange(games) % 2).astype(np.int8)  # seat 0 plays red (no pie in 'judge' set-up)
    while not state.terminated.all():
        live = ~state.terminated
        a_turn = live & (state.current_seat() == a_seat)
        b_turn = live & ~a_turn
        actions = np.zeros(games, dtype=np.int64)
        for mask, player in ((a_turn, player_a), (b_turn, player_b)):
            idx = np.flatnonzero(mask)
            if idx.size:
                actions[idx] = player(rules, state[idx], rng)
        state = rules.step(state, actions)
    rewards = rules.rewards(state)
    a_reward = rewards[np.arange(games), a_seat]
    points = rules.score(state)
    a_colour = np.where(state.seat_of(np.full(games, 1)) == a_seat, 0, 1)
    return MatchScore(
        wins=int((a_reward > 0).sum()),
        draws=int((a_reward == 0).sum()),
        losses=int((a_reward < 0).sum()),
        points_a=float(points[np.arange(games), a_colour].mean()),
        points_b=float(points[np.arange(games), 1 - a_colour].mean()),
    )
