"""Distil a training run into the CodeCup bot's student network and write its weights file.

The Hydra front end of ``tw_rl.export.pipeline.export_student``; the config is
``configs/export.yaml``, checked against ``tw_rl.config.ExportConfig`` (a mistyped key or a
wrong type fails before anything runs). The weights file is read by
``python -m tw_rl.codecup --weights FILE`` and embedded by ``tw-rl export --weights FILE``.

    python scripts/export.py run_dir=runs/default-60min                # newest checkpoint as teacher
    python scripts/export.py run_dir=runs/x distill.teacher_weight=0   # search policy + results only
    python scripts/export.py run_dir=runs/x quantization=float16 out=student.twnet
    python scripts/export.py --cfg job                                 # print the config, run nothing

TensorBoard curves go to ``<hydra output dir>/tb`` (``exports/<date>_<time>/tb``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from tw_rl.config import ExportConfig, from_composed, register_configs

register_configs()


def to_export_config(cfg: DictConfig) -> ExportConfig:
    """The composed config as an ``ExportConfig`` (an appended unknown key fails)."""
    return from_composed(cfg, ExportConfig)


@hydra.main(version_base="1.3", config_path="../configs", config_name="export")
def main(cfg: DictConfig) -> None:
    from tw_rl.codecup.weights import WeightsError
    from tw_rl.export.pipeline import export_student  # here, so that --cfg / --help stay quick
    from tw_rl.training.checkpoint import CheckpointError

    export_cfg = to_export_config(cfg)
    try:
        report = export_student(
            export_cfg, Path(HydraConfig.get().runtime.output_dir), log=lambda s: print(s, file=sys.stderr)
        )
    except (ValueError, FileNotFoundError, CheckpointError, WeightsError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    for line in report.lines():
        print(line)


if __name__ == "__main__":
    main()
