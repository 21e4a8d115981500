"""Train a Tumbleweed network by self-play: the Hydra front end of ``tw_rl.training.loop.train``.

The config is ``configs/train.yaml`` and its groups, checked against the dataclasses of
``tw_rl.config`` (a mistyped key or a wrong type fails before anything runs). Each run lives
in ``runs/<date>_<time>/`` (Hydra's output dir, with ``.hydra/`` holding the composed config).

    python scripts/train.py                                  # codecup 6, small net
    python scripts/train.py net=tiny search.simulations=32   # groups and single values
    python scripts/train.py debug=default                    # runs in seconds
    python scripts/train.py experiment=gumbel_few_sims       # an experiment: differences only
    python scripts/train.py --cfg job                        # print the composed config, run nothing
    python scripts/train.py -m net=tiny,small seed=0,1       # a sweep under runs/multirun/
"""

from __future__ import annotations

import sys
from pathlib import Path

# The package of this checkout first, installed or not (an installed copy elsewhere must not win).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from tw_rl.config import ConfigError, TrainConfig, register_configs  # noqa: E402

register_configs()


def to_train_config(cfg: DictConfig) -> TrainConfig:
    """The composed config as a ``TrainConfig``.

    Hydra's ``+key=value`` can add a key the schema lacks, which ``OmegaConf.to_object`` would
    drop silently; merging into the strict schema first makes it fail like ``key=value`` does.
    """
    OmegaConf.merge(OmegaConf.structured(TrainConfig), OmegaConf.to_container(cfg, resolve=True))
    return OmegaConf.to_object(cfg)


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
