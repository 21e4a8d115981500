"""Rate players against each other (the rating run): the Hydra front end of
``tw_rl.rating.rating_run.run_rating``.

The config is ``configs/rate.yaml``, checked against ``tw_rl.config.RatingConfig`` (a
mistyped key or a wrong type fails before anything runs). Every game is stored in ``db`` as it
ends; a later call adds to the same history (stored games count toward ``games``).

    python scripts/rate.py                                           # random vs greedy
    python scripts/rate.py 'players=[random,greedy,"ckpt:runs/x/checkpoints/*.pt@32"]' games=400
    python scripts/rate.py 'players=[greedy,"program:python -m tw_rl.codecup --player mcts"]' jobs=2
    python scripts/rate.py games=0                                   # only rate the stored games
    python scripts/rate.py ray_address=auto jobs=32                  # games as tasks on a Ray cluster
    python scripts/rate.py --cfg job                                 # print the config, run nothing

Same as ``tw-rl rate --players ... --games N --db FILE --anchor NAME --out DIR [--ray-address A]``.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from tw_rl.config import RatingConfig, from_composed, register_configs

register_configs()


def to_rating_config(cfg: DictConfig) -> RatingConfig:
    """The composed config as an ``RatingConfig`` (an appended unknown key fails)."""
    return from_composed(cfg, RatingConfig)


@hydra.main(version_base="1.3", config_path="../configs", config_name="rate")
def main(cfg: DictConfig) -> int:
    from tw_rl.rating.rating_run import RatingError, run_rating  # here: --cfg / --help stay quick
    from tw_rl.rating.results_db import ResultsDBError

    rating_cfg = to_rating_config(cfg)
    try:
        result = run_rating(rating_cfg, log=lambda line: print(line, file=sys.stderr))
    except (RatingError, ResultsDBError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    print(result.report(rating_cfg.db))
    if result.stopped == "interrupted":
        sys.exit(130)
    return 0


if __name__ == "__main__":
    main()
