"""Train a Tumbleweed network by self-play: the Hydra front end of ``tw_rl.training.loop.train``.

The config is ``configs/train.yaml`` and its groups, checked against the dataclasses of
``tw_rl.config`` (a mistyped key or a wrong type fails before anything runs). Each run lives
in ``runs/<date>_<time>/`` (Hydra's output dir, with ``.hydra/`` holding the composed config).

    python scripts/train.py                                  # codecup 6, small net, the reference recipe
    python scripts/train.py max_minutes=5                    # stops within about a minute of 5; resumable
    python scripts/train.py experiment=old_default           # the default recipe before 0.3 (PUCT)
    python scripts/train.py net=tiny search.simulations=32   # groups and single values
    python scripts/train.py debug=default                    # runs in seconds
    python scripts/train.py experiment=gumbel_few_sims       # an experiment: differences only
    python scripts/train.py --cfg job                        # print the composed config, run nothing
    python scripts/train.py -m net=tiny,small seed=0,1       # a sweep under runs/multirun/
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from tw_rl.config import ConfigError, TrainConfig, from_composed, register_configs

register_configs()


def to_train_config(cfg: DictConfig) -> TrainConfig:
    """The composed config as a ``TrainConfig`` (an appended unknown key fails)."""
    return from_composed(cfg, TrainConfig)


@hydra.main(version_base="1.3", config_path="../configs", config_name="train")
def main(cfg: DictConfig) -> None:
    train_cfg = to_train_config(cfg)
    if not train_cfg.run_dir:
        train_cfg.run_dir = HydraConfig.get().runtime.output_dir
    from tw_rl.training.loop import train  # here, so that --cfg / --help work without the training stack

    try:
        train(train_cfg)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; finished games and checkpoints are kept. Resume with:\n"
            f"  python scripts/train.py hydra.run.dir={train_cfg.run_dir} <the same overrides>",
            file=sys.stderr,
        )
        sys.exit(130)


if __name__ == "__main__":
    main()
