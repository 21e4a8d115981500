"""Every config schema of tw_rl, one dataclass each, one line per field: the training run (one
per config group), the rating run (``RatingConfig``), a head-to-head match
(``HeadToHeadConfig``), the referee match (``RefereeConfig``) and the student export. The field
defaults here are the only home of the defaults: the flags of ``tw-rl`` and ``scripts/`` and the
files of ``configs/`` take them from these classes.

The search settings are one record, ``tw_rl.core.mcts.SearchConfig`` (the ``search`` group
takes it as it is, so a field added there is settable from YAML at once); the training run's
default search differs from it only in its root (``gumbel``). The files of ``configs/`` hold
only what differs from these defaults (a test fails on a restated default), so each default has
one home; ``configs/net/`` holds the network presets, ``group_option`` reads one for a script.

These are the schemas Hydra validates ``configs/`` against (registered by
``register_configs``), so a mistyped key or a wrong type fails with a clear message. The
library itself takes these dataclasses and never imports Hydra.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.core.mcts import SearchConfig


class ConfigError(ValueError):
    """A config value that cannot work; the message says which one, in one line."""


@dataclass
class BoardConfig:
    size: int = 6  # cells per side: 6, 8, 10 or 11
    variant: str = "codecup"  # "codecup" or "official"
    setup: str = ""  # "" = the variant's own set-up (judge / pie); or "judge", "pie", "free"
    stale_end: bool = False  # BGA stale-game end (official only)


@dataclass
class NetConfig:
    name: str = "small"  # label of the preset, for logs
    blocks: int = 4  # residual blocks
    channels: int = 32  # channels of the trunk
    pool_every: int = 2  # a global-pooling block every k blocks (0 = none)
    head_channels: int = 32  # channels of the policy / territory heads and the pooled features


@dataclass
class SelfPlayConfig:
    games_per_generation: int = 128  # games finished per generation when self-play and learning take
    # turns (overlapped workers play batches of parallel_games, and a generation is learner steps)
    parallel_games: int = 128  # games searched together (the batch of the search; per worker with Ray)
    workers: int = 0  # Ray self-play actors (needs ray.address); 0 = one per CPU Ray offers
    overlap_workers: int = 0  # > 0: that many self-play processes play while the learner trains, on
    # this machine (tw_rl.training.overlap), or Ray actors with ray.address (selfplay.workers must
    # then be 0); 0 = self-play and learning take turns (the generational loop); -1 (auto) = one
    # process per core this process may use, when it may use two or more, runs on the CPU and
    # Ray is off; else 0 (tw_rl.training.overlap.overlap_worker_count)


@dataclass
class LearnerConfig:
    batch_size: int = 256  # samples per gradient step
    steps_per_generation: int = 100  # gradient steps after each generation of self-play (overlapped:
    # between two publications of the network, each with a checkpoint)
    sample_reuse: float = 8.0  # overlapped runs: gradient samples (steps x batch) per new self-play sample
    # (the reference run's generations had about 7.8)
    learning_rate: float = 2e-3  # AdamW learning rate
    weight_decay: float = 1e-4  # AdamW weight decay
    replay_window: int = 100000  # newest samples the learner draws from
    min_samples: int = 512  # samples needed before the first training step
    value_weight: float = 1.0  # loss weights per head
    territory_weight: float = 0.5
    score_weight: float = 0.5


@dataclass
class ArenaConfig:
    """The arena games inside a training run (config group ``arena``); not ``RatingConfig``."""

    every: int = 10  # play the arena every k generations (0 = never)
    games: int = 24  # games per opponent (each opening twice, colours swapped; odd: rounded up)
    simulations: int = 32  # simulations per move of the network in the arena
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])  # or "previous"


@dataclass
class RayConfig:
    """Self-play on Ray (``tw_rl.training.ray_selfplay``); off unless ``address`` is set. On a cluster the run
    folder must be on a filesystem every node sees at the same path, and tw_rl installed on each."""

    address: str = ""  # "" = no Ray, one process; "local" = start Ray here; "auto", "HOST:PORT": a cluster
    cpus_per_worker: float = 1.0  # CPUs Ray reserves for each self-play worker
    gpus_per_worker: float = 0.0  # GPUs (or a fraction) Ray reserves for each worker (with device=auto/cuda)
    max_restarts: int = 10  # worker deaths a run survives (each worker replaced at once) before it stops


@dataclass
class TrainConfig:
    board: BoardConfig = field(default_factory=BoardConfig)
    net: NetConfig = field(default_factory=NetConfig)
    # The search group is tw_rl.core.mcts.SearchConfig itself; a run's default root is Gumbel's.
    search: SearchConfig = field(default_factory=lambda: SearchConfig(root="gumbel"))
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    arena: ArenaConfig = field(default_factory=ArenaConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    generations: int = 20  # self-play + training cycles (the run stops after these)
    max_minutes: float = 0.0  # stop after this wall time (0 = no limit); resumable
    seed: int = 0  # seeds numpy and torch
    device: str = "auto"  # "auto" (cuda if present), "cpu" or "cuda"
    threads: int = 1  # torch CPU threads (0 = torch default); 1: small batches gain little from more, and
    # two threads slowed self-play 14x here whenever another process shared the 2 cores
    init_from: str = ""  # start a new run from this checkpoint's network ("default" = the shipped teacher);
    # its net config replaces net.*; a run that already has checkpoints resumes from its own
    precision: str = "auto"  # self-play forward passes: "float32", "bfloat16", or "auto" (bfloat16 where the
    # CPU (AVX-512 BF16 / AMX) or GPU computes it natively; see tw_rl.training.net.NetPolicyValue)
    backend: str = "eager"  # self-play forward passes: "eager" (torch), or float32 on the CPU only
    # "compile" (torch.compile), "onnx" / "onnx-int8" (ONNX Runtime, pip install 'tw_rl[onnx]'); see
    # tw_rl.training.inference
    run_dir: str = ""  # where the run lives; scripts/train.py fills it from Hydra
    progress: bool = True  # a progress bar in the terminal


@dataclass
class RatingConfig:
    """A rating run (``tw-rl rate``, ``scripts/rate.py``, ``configs/rate.yaml``)."""

    players: list[Any] = field(
        default_factory=lambda: ["random", "greedy"]
    )  # specs: see tw_rl.rating.player_specs
    games: int = 200  # game budget among the players, games already in the database included
    ci_width: float = 0.0  # stop early once every 95% rating interval is at most this wide (Elo; 0 = off)
    db: str = "arena/results.sqlite"  # SQLite file holding every game (created if missing, shared by runs)
    anchor: str = "random"  # the player rated 0 Elo
    batch_size: int = 32  # in-process games played at once per pairing
    jobs: int = 1  # referee games (outside programs) played at once; with Ray: game batches at once
    seed: int = 0  # seeds the openings and the players' random choices
    out: str = "arena"  # folder for ratings.csv, ratings.json and the Elo pictures
    size: int = 6  # cells per board side (CodeCup rules)
    simulations: int = 64  # search budget of a checkpoint given without @N (0 = its raw policy)
    time: float = DEFAULT_BUDGET  # referee games: thinking seconds per program per game (CodeCup: 30)
    memory: int = 2048  # referee games: address-space limit per program in MiB (0 = none)
    device: str = "cpu"  # torch device of the checkpoint players: "cpu", "cuda" or "auto"
    threads: int = 0  # torch CPU threads (0 = torch's default)
    ray_address: str = ""  # "" = play here; "local", "auto", "HOST:PORT": games as Ray tasks there
    import_referee: list[str] = field(default_factory=list)  # tw-rl referee folders stored first
    tensorboard: bool = True  # also log the Elo curve to the run's tb/ when checkpoints belong to a run
    progress: bool = True  # a progress bar in the terminal


@dataclass
class RefereeConfig:
    """A ``tw-rl referee`` match between two CodeCup-protocol programs."""

    games: int = 2  # games in the match (pairs share a drawn opening, colours swapped)
    jobs: int = 1  # games played at once
    seed: int = 0  # seeds the drawn openings
    size: int = 6  # cells per board side (CodeCup rules)
    time: float = DEFAULT_BUDGET  # thinking seconds per program per game (the CodeCup clock, 30)
    notation: str = "diff"  # cell-name reading: "diff" or "sum"
    out: str = ""  # results folder ("" = referee-results/<time stamp>)
    memory: int = 2048  # address-space limit per program in MiB (RLIMIT_AS; 0 = none): past it, a crash


@dataclass
class HeadToHeadConfig:
    """One player against another, unrated and unstored (``scripts/match.py``): a player is
    ``random``, ``greedy`` or a checkpoint file."""

    player: str = ""  # the player whose score is reported (scripts/match.py's first argument)
    opponent: str = ""  # its opponent (the second argument)
    games: int = 100  # each opening twice, colours swapped (odd: rounded up); draws count half
    simulations: int = 64  # search simulations per move of a checkpoint player
    raw: bool = False  # the first player plays its raw policy (no search)
    size: int = 6  # cells per board side (CodeCup rules, judge-drawn openings)
    batch: int = 50  # games played at once (whole openings: odd is rounded up)
    seed: int = 0  # seeds the openings and the players' random choices
    threads: int = 0  # torch CPU threads (0 = torch's default)


@dataclass
class StudentConfig:
    """The student network of the CodeCup bot (``tw_rl.export.student.StudentNet``)."""

    width: int = 32  # per-cell embedding width W
    hidden: int = 32  # hidden units of the value / pass MLP
    mixing: str = "mean"  # neighbourhood step: "mean" (symmetric) or "directional" (hex conv)


@dataclass
class DistillConfig:
    """Training the student on a teacher's self-play (``tw_rl.export.distill.distill``)."""

    steps: int = 3000  # gradient steps
    batch_size: int = 256  # samples per step
    learning_rate: float = 3e-3  # AdamW, cosine decay to 5% over the steps
    weight_decay: float = 1e-4  # AdamW weight decay
    value_weight: float = 1.0  # loss weights: value (squared error) and the auxiliary territory
    territory_weight: float = 0.25
    teacher_weight: float = 0.5  # share of the teacher's own policy / value in the targets (0: none)
    symmetries: bool = True  # a random one of the 12 board symmetries per drawn sample
    holdout: float = 0.05  # share of the newest samples kept aside to measure the fit
    holdout_every: int = 250  # steps between holdout scores (0 = only at the end)


@dataclass
class ExportConfig:
    """A student export (``scripts/export.py``, ``configs/export.yaml``, ``tw-rl export --run``;
    ``tw_rl.export.pipeline.export_student``)."""

    run_dir: str = ""  # a training run: shards from <run_dir>/selfplay, teacher <run_dir>/checkpoints
    teacher: str = ""  # teacher checkpoint ("" = newest in <run_dir>/checkpoints; "default" = shipped one)
    samples: str = ""  # shard folder ("" = <run_dir>/selfplay)
    window: int = 100000  # newest samples used
    baseline_games: int = 0  # games the teacher (with search) plays against each baseline for more positions
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy"])  # of tw_rl.core.baselines
    baseline_simulations: int = 32  # the teacher's search in those games (full searches; cheap ones: 1/4)
    size: int = 6  # cells per board side (must match the shards and the teacher)
    out: str = ""  # weights file ("" = <hydra output dir>/student.twnet)
    quantization: str = "float16"  # "float16" or "int8" (per-row scales)
    student: StudentConfig = field(default_factory=StudentConfig)
    distill: DistillConfig = field(default_factory=DistillConfig)
    verify: int = 64  # holdout positions compared: file (pure Python) vs the float32 student
    seed: int = 0  # seeds numpy and torch
    threads: int = 1  # torch CPU threads (0 = torch's default)
    progress: bool = True  # a progress bar in the terminal
    tensorboard: str = ""  # TensorBoard log folder ("" = <hydra output dir>/tb; "none" = off)


SCHEMAS = {
    "board": BoardConfig,
    "net": NetConfig,
    "search": SearchConfig,
    "selfplay": SelfPlayConfig,
    "learner": LearnerConfig,
    "arena": ArenaConfig,
    "ray": RayConfig,
}  # config group -> its schema


def group_option(group: str, name: str, config_dir: str | Path) -> Any:
    """The option ``name`` of a training config group (``<config_dir>/<group>/<name>.yaml``,
    e.g. the net preset ``tiny``) as its schema's instance, as a training run composes it: the
    file over ``TrainConfig``'s defaults. ConfigError (one line) for a missing option.
    OmegaConf is imported here only, so that the library never needs it."""
    from omegaconf import OmegaConf

    path = Path(config_dir) / group / f"{name}.yaml"
    if group not in SCHEMAS or not path.is_file():
        there = ", ".join(sorted(p.stem for p in path.parent.glob("*.yaml"))) or "none"
        raise ConfigError(f"no {group} option {name!r} in {path.parent} (there: {there})")
    base = OmegaConf.structured(getattr(TrainConfig(), group))
    return OmegaConf.to_object(OmegaConf.merge(base, OmegaConf.load(path)))


def from_composed(cfg: Any, schema: type) -> Any:
    """A config composed by Hydra (a ``DictConfig`` over ``schema``) as a ``schema`` instance.

    Hydra's ``+key=value`` can add a key the schema lacks, which ``OmegaConf.to_object`` would
    drop silently; merging into the strict schema first makes it fail like ``key=value`` does.
    OmegaConf is imported here only, so that the library never needs it.
    """
    from omegaconf import OmegaConf

    OmegaConf.merge(OmegaConf.structured(schema), OmegaConf.to_container(cfg, resolve=True))
    return OmegaConf.to_object(cfg)


def register_configs() -> None:
    """Store the schemas in Hydra's ConfigStore (call before composing ``configs/``).

    ``train_schema`` (``TrainConfig``) is the first entry of the defaults list of
    ``configs/train.yaml``, so every group file, experiment and override merges into a typed
    node. Each group's schema is also stored in its group as ``<group>_schema`` (e.g.
    ``board/board_schema``), for configs that extend a single group; ``rate_schema`` and
    ``export_schema`` head ``configs/rate.yaml`` and ``configs/export.yaml``. Hydra is
    imported here only, so that the library never needs it.
    """
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    store.store(name="train_schema", node=TrainConfig)
    store.store(name="rate_schema", node=RatingConfig)
    store.store(name="export_schema", node=ExportConfig)
    for group, schema in SCHEMAS.items():
        store.store(group=group, name=f"{group}_schema", node=schema)
