"""Where a training run's games come from, as its loop sees them: the ``SelfPlaySource`` protocol,
and the source that plays in the training process itself.

The loop (``tw_rl.training.loop``) has one shape whatever plays the games; a run has one of four
ways to play, behind three sources (the loop's ``open_source`` picks and starts one):

- **Taking turns, in this process** (the default): ``InProcessTurns``, here.
- **Taking turns, on Ray** (``ray.address``): ``RayTurns`` (``tw_rl.training.ray_selfplay``).
- **Overlapped, processes of this machine** (``selfplay.overlap_workers``): ``Overlapped``
  (``tw_rl.training.overlap``) over ``SelfPlayProcesses``.
- **Overlapped, Ray actors** (both): ``Overlapped`` over ``OverlapPool``
  (``tw_rl.training.ray_selfplay``); the two sets of workers share the ``OverlapWorkers`` protocol.

Taking turns, a generation's games are played first (``play``, stopped early past the time
limit), then the learner takes all its steps at once (``turn_step_due``). Overlapped, the workers
play all along: ``play`` only marks the start of the generation, and ``step_due`` waits until the
samples written since the run's start earn the next step (``learner.sample_reuse``), stopping
the workers once the time limit has passed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

import numpy as np

from tw_rl.config import TrainConfig
from tw_rl.training.net import NetPolicyValue, TumbleweedNet
from tw_rl.training.replay_buffer import ReplayWindow, shard_games, write_shard
from tw_rl.training.run_clock import RunClock
from tw_rl.training.selfplay import SelfPlayStats, play_games

log = logging.getLogger(__name__)  # its lines go to train.log too (tw_rl.training.loop.run_log)


class SelfPlaySource(Protocol):
    """The games of a run's generations, as the training loop asks for them, in this order: ``play``
    at a generation's start, ``step_due`` before each of its gradient steps, ``generation_done``
    after its last, ``cpu_seconds`` at its end. Workers a source runs are started when it is made
    and stopped when the loop's ``open_source`` context ends."""

    def play(self, generation: int, rng: np.random.Generator, clock: RunClock) -> tuple[dict, float]:
        """Self-play before the generation's learning: its metrics (``selfplay/*``, ``perf/*``;
        none when nothing was played) and the share of a whole generation's samples it got (1,
        less when the time limit stopped it early; the learner takes as many steps per sample)."""
        ...

    def step_due(self, window: ReplayWindow, taken: int, clock: RunClock) -> bool | None:
        """Whether the learner, ``taken`` steps into the generation, takes another now (waiting
        for samples if it must): True, take it; False, the generation's learning ends here (the
        time limit: its grace for the learner passed, or overlapped workers stopped and no step
        is due); None, the window holds too few samples to learn from (``learner.min_samples``):
        the generation takes no step and logs only the window's size."""
        ...

    def generation_done(self, generation: int, net: TumbleweedNet, steps: int, seconds: float) -> dict:
        """After the generation's learning (``steps`` steps, ``seconds`` since its start): the
        network handed to the workers that play on, and the metrics of games played meanwhile."""
        ...

    def cpu_seconds(self) -> float | None:
        """CPU seconds of self-play outside this process so far (0 when there is none; None when
        it cannot be seen from here: the run then logs no ``time/cpu_hours``)."""
        ...


class InProcessTurns:
    """``SelfPlaySource``: each generation's games played in this process with the learner's own
    network, then the learner's turn."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, policy_value: NetPolicyValue):
        self.cfg, self.folder, self.policy_value = cfg, Path(run_dir) / "selfplay", policy_value

    def play(self, generation: int, rng: np.random.Generator, clock: RunClock) -> tuple[dict, float]:
        done = shard_games(self.folder, generation)
        remaining = self.cfg.selfplay.games_per_generation - done
        if remaining <= 0:
            return {}, 1.0
        if done:
            log.info(f"generation {generation}: {done} games already on disk, {remaining} to play")
        evaluations_before = self.policy_value.evaluations

        def store(games: int, samples) -> None:
            write_shard(self.folder, generation, games, samples)

        parallel = self.cfg.selfplay.parallel_games
        stats = play_games(
            self.policy_value.rules,
            self.policy_value,
            self.cfg.search,
            remaining,
            parallel,
            rng,
            store,
            chunk_games=max(1, parallel // 4),
            stop=clock.out_of_time,
        )
        out = selfplay_metrics(stats, stats.seconds, self.policy_value.evaluations - evaluations_before)
        return out, turn_share(self.cfg, self.folder, generation, done, stats, stats.stopped_early)

    def step_due(self, window: ReplayWindow, taken: int, clock: RunClock) -> bool | None:
        return turn_step_due(self.cfg, window, clock)

    def generation_done(self, generation: int, net: TumbleweedNet, steps: int, seconds: float) -> dict:
        return {}

    def cpu_seconds(self) -> float | None:
        return 0.0


def turn_step_due(cfg: TrainConfig, window: ReplayWindow, clock: RunClock) -> bool | None:
    """``step_due`` of the sources that take turns: every step is due at once (the generation's
    samples are in), unless the window holds too few (None) or the learner's grace past the
    time limit has passed (False)."""
    if len(window.samples or ()) < cfg.learner.min_samples:
        return None
    return not clock.past_grace()


def turn_share(
    cfg: TrainConfig, folder: Path, generation: int, done: int, stats: SelfPlayStats, stopped: bool
) -> float:
    """The share of a whole generation's samples that its self-play got (``stats``, after ``done``
    games from before a resume): the share of its games on disk, and if the time limit
    ``stopped`` it, no more than the samples say: the games played out after the stop recorded
    only their first moves (a whole game records ``full_search_fraction`` x its mean length)."""
    played = min(1.0, shard_games(folder, generation) / cfg.selfplay.games_per_generation)
    if not stopped or not stats.game_lengths:
        return played
    per_game = max(cfg.search.full_search_fraction * float(np.mean(stats.game_lengths)), 1e-9)
    return min(played, (done + stats.samples / per_game) / cfg.selfplay.games_per_generation)


def selfplay_metrics(stats: SelfPlayStats, seconds: float, evaluations: int) -> dict:
    """The metrics of a generation's games (``selfplay/*``) and their speed (``perf/*``)."""
    seconds = max(seconds, 1e-9)
    return {
        "selfplay/games": stats.games,
        "selfplay/samples": stats.samples,
        "selfplay/game_length": float(np.mean(stats.game_lengths)) if stats.game_lengths else 0.0,
        "selfplay/red_win_rate": stats.red_wins / max(stats.games, 1),
        "perf/games_per_s": stats.games / seconds,
        "perf/samples_per_s": stats.samples / seconds,
        "perf/moves_per_s": stats.moves / seconds,
        "perf/simulations_per_s": stats.simulations / seconds,
        "perf/evaluations_per_s": evaluations / seconds,
    }
