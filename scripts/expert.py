"""Expert iteration for the CodeCup student: the Hydra front end of ``tw_rl.expert.loop.run``.

The config is ``configs/expert.yaml``, checked against ``tw_rl.expert.config.ExpertConfig`` (a
mistyped key or a wrong type fails before anything runs). The run lives in Hydra's output dir
(``runs/expert`` unless ``hydra.run.dir=...``); the same command again continues a killed run.

    python scripts/expert.py                                   # 10 generations of 200 games, 800 sims
    python scripts/expert.py generations=20                    # extend a finished run
    python scripts/expert.py hydra.run.dir=runs/e2 sims=200 processes=1 rate_games=0
    python scripts/expert.py --cfg job                         # print the config, run nothing
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from tw_rl.config import ConfigError, from_composed
from tw_rl.expert.config import ExpertConfig, register_schema

register_schema()


@hydra.main(version_base="1.3", config_path="../configs", config_name="expert")
def main(cfg: DictConfig) -> None:
    expert_cfg = from_composed(cfg, ExpertConfig)
    if not expert_cfg.run_dir:
        expert_cfg.run_dir = HydraConfig.get().runtime.output_dir
    from tw_rl.codecup.errors import WeightsError
    from tw_rl.expert.loop import run  # here, so that --cfg / --help stay quick
    from tw_rl.expert.selfplay import SelfPlayError
    from tw_rl.native.build import NativeBuildError
    from tw_rl.referee.process import RefereeError
    from tw_rl.training.checkpoint import CheckpointError
    from tw_rl.training.replay_buffer import ShardFormatError

    log = lambda line: print(line, file=sys.stderr)  # noqa: E731
    try:
        run(expert_cfg, log=log)
    except (
        ConfigError,
        SelfPlayError,
        NativeBuildError,
        RefereeError,
        CheckpointError,
        WeightsError,
        ShardFormatError,
        FileNotFoundError,
    ) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; finished games and generations are kept. Resume with:\n"
            f"  python scripts/expert.py hydra.run.dir={expert_cfg.run_dir} <the same overrides>",
            file=sys.stderr,
        )
        sys.exit(130)


if __name__ == "__main__":
    main()
