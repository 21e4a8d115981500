"""Self-play: many games searched together, producing training samples.

Playout cap randomization (Wu, 2019): each move is searched fully (``simulations``, root noise,
recorded as a training sample) with probability ``full_search_fraction`` and cheaply otherwise
(``cheap_simulations``, no noise, not recorded), so the games are long enough to be good while
most of the compute goes to positions that are trained on. The first ``temperature_moves``
moves of a game are drawn from the search policy, later ones are the best move.

With an ``opponent`` (a batched player such as a baseline of ``tw_rl.core.baselines``) the
network plays one seat (alternating from game to game) and the opponent the other; positions
where the opponent is to move are still searched and, when fully searched, recorded with the
network's search policy, so the samples cover what the network would play in the positions a
weaker player leads it into (used to widen the student's distillation data).

Finished games are handed over in chunks (``on_games``), so a run that is killed loses at most
the games in flight.

A ``stop`` function (asked after every move batch) ends self-play early and quickly: once it
says so no new game starts, and the games in flight are played out with one simulation a move
(the network's own choice, seconds for a whole batch) without recording more samples, so the
samples already recorded keep their real results and nothing played is lost.

Samples are stored without symmetry augmentation; the learner applies a random one of the 12
board symmetries to each sample it draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tw_rl.core.mcts import BatchedMCTS, PolicyValue, SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.core.state import PLAY, RED, State
from tw_rl.training.replay_buffer import Samples


@dataclass
class SelfPlayStats:
    """Counts and timings of a run of ``play_games``."""

    games: int = 0
    samples: int = 0
    moves: int = 0
    simulations: int = 0
    seconds: float = 0.0
    game_lengths: list[int] = field(default_factory=list)
    red_wins: int = 0
    draws: int = 0
    network_wins: int = 0  # games against an opponent: won by the network
    stopped_early: bool = False  # ``stop`` said so while games were left to start or in flight


@dataclass
class _Pending:
    """Samples of one game in progress, waiting for its result."""

    owner: list = field(default_factory=list)
    height: list = field(default_factory=list)
    to_move: list = field(default_factory=list)
    passes: list = field(default_factory=list)
    policy: list = field(default_factory=list)
    seat: list = field(default_factory=list)


def play_games(
    rules: Rules,
    policy_value: PolicyValue,
    search: SearchConfig,
    games: int,
    parallel: int,
    rng: np.random.Generator,
    on_games: Callable[[int, Samples], None],
    chunk_games: int = 16,
    progress: Callable[[int], None] | None = None,
    opponent: Callable[[Rules, State, np.random.Generator], np.ndarray] | None = None,
    stop: Callable[[], bool] | None = None,
) -> SelfPlayStats:
    """Play ``games`` games, ``parallel`` at a time; hand finished games to ``on_games``.

    With ``opponent`` the network plays seat 0 in even-numbered games and seat 1 in odd ones.
    ``stop`` (asked after each move batch) ends it early: see the module docstring."""
    mcts = BatchedMCTS(rules, search)
    stats = SelfPlayStats()
    start = time.perf_counter()
    slots = min(parallel, games)
    state = rules.init(slots, rng)
    pending = [_Pending() for _ in range(slots)]
    started = slots
    active = np.ones(slots, dtype=bool)
    moves_played = np.zeros(slots, dtype=np.int64)
    network_seat = (np.arange(slots) % 2).astype(np.int8)
    chunk: list[Samples] = []
    chunk_count = 0

    def flush() -> None:
        nonlocal chunk, chunk_count
        if chunk_count:
            on_games(chunk_count, Samples.concatenate(chunk))
        chunk, chunk_count = [], 0

    winding_down = False
    while active.any():
        live = np.flatnonzero(active & ~state.terminated)
        full = rng.random(live.size) < search.full_search_fraction
        if winding_down:
            full[:] = False
        actions = np.zeros(slots, dtype=np.int64)
        if live.size:
            sub_state = state[live]
            sims = np.where(full, search.simulations, 1 if winding_down else search.cheap_simulations)
            result = mcts.search(sub_state, policy_value, rng, simulations=sims, noise=full)
            temperature = np.where(moves_played[live] < search.temperature_moves, 1.0, 0.0)
            if search.root == "gumbel":
                actions[live] = result.action  # the Gumbel root samples through its own noise
            else:
                actions[live] = BatchedMCTS.sample_action(result, temperature, rng)
            if opponent is not None:
                theirs = np.flatnonzero(sub_state.current_seat() != network_seat[live])
                if theirs.size:
                    actions[live[theirs]] = opponent(rules, sub_state[theirs], rng)
            stats.simulations += int(sims.sum())
            seats = sub_state.current_seat()
            for k in np.flatnonzero(full & (sub_state.phase == PLAY)):
                # Only fully searched positions are trained on; set-up turns never.
                record = pending[live[k]]
                record.owner.append(sub_state.owner[k])
                record.height.append(sub_state.height[k])
                record.to_move.append(sub_state.to_move[k])
                record.passes.append(sub_state.passes[k])
                record.policy.append(result.policy[k].astype(np.float16))
                record.seat.append(seats[k])
        state = rules.step(state, actions)
        moves_played[live] += 1
        stats.moves += live.size
        if not winding_down and stop is not None and stop():
            winding_down = True
            stats.stopped_early = started < games or bool((active & ~state.terminated).any())
            games = started  # no new game starts; the ones in flight are played out quickly

        for game in np.flatnonzero(active & state.terminated):
            samples = _finish(rules, state[game : game + 1], pending[game])
            stats.games += 1
            stats.samples += len(samples)
            stats.game_lengths.append(int(moves_played[game]))
            winner = int(rules.winner(state[game : game + 1])[0])
            stats.red_wins += winner == RED
            stats.draws += winner == 0
            if opponent is not None and winner != 0:
                won_seat = int(state[game : game + 1].seat_of(np.array([winner]))[0])
                stats.network_wins += won_seat == network_seat[game]
            chunk.append(samples)
            chunk_count += 1
            if progress is not None:
                progress(1)
            if chunk_count >= chunk_games:
                flush()
            if started < games:
                state.replace(np.array([game]), rules.init(1, rng))
                pending[game] = _Pending()
                moves_played[game] = 0
                network_seat[game] = started % 2
                started += 1
            else:
                active[game] = False
    flush()
    stats.seconds = time.perf_counter() - start
    return stats


def _finish(rules: Rules, final: State, record: _Pending) -> Samples:
    """Targets of a finished game for every recorded position."""
    n = rules.num_cells
    count = len(record.seat)
    if not count:
        return _empty_samples(n)
    rules.ensure_territory(final)
    winner = int(rules.winner(final)[0])
    red_seat = int(final.red_seat[0])
    seats = np.array(record.seat, dtype=np.int8)
    # The colour each recorded seat ends the game with, and the final facts from its side.
    colour = np.where(seats == red_seat, 1, 2)
    value = np.where(winner == 0, 0, np.where(colour == winner, 1, -1)).astype(np.int8)
    red_terr = final.territory[0, 0].astype(np.int8)
    white_terr = final.territory[0, 1].astype(np.int8)
    red_view = red_terr - white_terr
    territory = np.where((colour == 1)[:, None], red_view[None], -red_view[None]).astype(np.int8)
    margin = float(red_view.sum()) / n
    score = np.where(colour == 1, margin, -margin).astype(np.float32)
    return Samples(
        owner=np.stack(record.owner).astype(np.int8),
        height=np.stack(record.height).astype(np.int8),
        to_move=np.array(record.to_move, dtype=np.int8),
        passes=np.array(record.passes, dtype=np.int8),
        policy=np.stack(record.policy),
        value=value,
        territory=territory,
        score=score,
    )


def _empty_samples(n: int) -> Samples:
    return Samples(
        owner=np.zeros((0, n), np.int8),
        height=np.zeros((0, n), np.int8),
        to_move=np.zeros(0, np.int8),
        passes=np.zeros(0, np.int8),
        policy=np.zeros((0, n + 1), np.float16),
        value=np.zeros(0, np.int8),
        territory=np.zeros((0, n), np.int8),
        score=np.zeros(0, np.float32),
    )
