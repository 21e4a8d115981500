"""The settings of an expert-iteration run (``configs/expert.yaml``, ``scripts/expert.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tw_rl.config import DistillConfig


def _train_defaults() -> DistillConfig:
    # fine-tuning from the current student: fewer steps and a lower rate than a fresh distillation;
    # half of the policy and value targets are the teacher network's outputs (teacher_weight 0.5:
    # 128-72 over the search's own targets alone after 5 generations each, docs/expert.md)
    return DistillConfig(steps=600, learning_rate=1e-3, teacher_weight=0.5, holdout_every=200)


@dataclass
class ExpertConfig:
    """An expert-iteration run; see ``tw_rl.expert.loop.run`` for what each generation does."""

    run_dir: str = ""  # the run folder (Hydra's output dir); the same folder again resumes
    generations: int = 10  # generations to reach (a finished run extended by raising it)
    start_weights: str = ""  # the first generation's student (.twnet); "" = the shipped student
    seed: int = 0
    # self-play: the native bot's --selfplay
    games_per_generation: int = 200  # ~13k positions; ~50 s on 2 cores at 800 sims
    processes: int = 2  # bot processes at once (one per core)
    sims: int = 800  # simulations per searched move
    temperature_moves: int = 8  # plies drawn in proportion to the visits, then the most visited
    window_samples: int = 40000  # training reads the newest this many positions (all generations)
    # training: distill's step; policy target = the visit distribution, value = the game result,
    # territory = the final territory (auxiliary head); teacher_weight > 0 mixes in the outputs
    # of the network ``teacher`` (a training checkpoint, "default" = the shipped teacher; "" = none,
    # with train.teacher_weight=0)
    train: DistillConfig = field(default_factory=_train_defaults)
    teacher: str = "default"
    # rating: the new student against the previous one, both in the native bot at fixed sims
    rate_games: int = 20  # 0 = no rating
    rate_sims: int = 200
    rate_time: float = 60.0  # each program's clock (s); fixed sims decide, the clock only guards


def register_schema() -> None:
    """Store ``ExpertConfig`` as ``expert_schema`` in Hydra's ConfigStore (heads
    ``configs/expert.yaml``); Hydra is imported here only."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="expert_schema", node=ExpertConfig)
