"""Rate players against each other in the arena: the Hydra front end of
``tw_rl.rating.evaluation.run_evaluation``.

The config is ``configs/evaluate.yaml``, checked against ``tw_rl.config.EvaluateConfig`` (a
mistyped key or a wrong type fails before anything runs). Every game is stored in ``db`` as it
ends; a later call adds to the same history (stored games count toward ``games``).

    python scripts/evaluate.py                                           # random vs greedy
    python scripts/evaluate.py 'players=[random,greedy,"ckpt:runs/x/checkpoints/*.pt@32"]' games=400
    python scripts/evaluate.py 'players=[greedy,"program:python -m tw_rl.codecup --player mcts"]' jobs=2
    python scripts/evaluate.py games=0                                   # only rate the stored games
    python scripts/evaluate.py ray_address=auto jobs=32                  # games as tasks on a Ray cluster
    python scripts/evaluate.py --cfg job                                 # print the config, run nothing

Same as ``tw-rl evaluate --players ... --games N --db FILE --anchor NAME --out DIR [--ray-address A]``.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from tw_rl.config import EvaluateConfig, from_composed, register_configs

register_configs()


def to_evaluate_config(cfg: DictConfig) -> EvaluateConfig:
    """The composed config as an ``EvaluateConfig`` (an appended unknown key fails)."""
    return from_composed(cfg, EvaluateConfig)


@hydra.main(version_base="1.3", config_path="../configs", config_name="evaluate")
def main(cfg: DictConfig) -> int:
    from tw_rl.rating.evaluation import ArenaError, run_evaluation  # here: --cfg / --help stay quick
    from tw_rl.rating.results_db import ResultsDBError

    eval_cfg = to_evaluate_config(cfg)
    try:
        result = run_evaluation(eval_cfg, log=lambda line: print(line, file=sys.stderr))
    except (ArenaError, ResultsDBError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    print(result.report(eval_cfg.db))
    if result.stopped == "interrupted":
        sys.exit(130)
    return 0


if __name__ == "__main__":
    main()
