"""Train the native bot's own network (arch nnue-1) on its self-play shards; resumable.

    python scripts/train_nnue.py --data runs/nnue/data-g0 --out runs/nnue/train-g0 --steps 8000
    python scripts/train_nnue.py --data runs/nnue/data-g0 runs/nnue/data-g1 --out runs/nnue/train-g1 \\
        --warm-start runs/nnue/train-g0/nnue-float.twnet

Killed, the same command goes on from OUT/checkpoint.pt.  Writes OUT/nnue.twnet (int16 by
default, `--quantization int8` for the coarser grids; what the native bot plays: `--weights`,
or embedded by tw_rl.native.build), OUT/nnue-float.twnet (the float reference),
OUT/summary.json and TensorBoard logs under OUT/tb (see tw_rl/expert/nnue_train.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tw_rl.codecup.errors import WeightsError
from tw_rl.expert.nnue_train import NnueTrainError, TrainConfig, train
from tw_rl.native.nnue_file import DEFAULT_QUANTIZATION, SCHEMES
from tw_rl.training.replay_buffer import ShardFormatError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, nargs="+", required=True, help="folders of self-play shards")
    p.add_argument("--out", type=Path, required=True, help="the run's folder (checkpoint, logs, weights)")
    p.add_argument("--width", type=int, default=128, help="accumulator lanes (default 128)")
    p.add_argument("--hidden", type=int, default=32, help="dense layer lanes (default 32)")
    p.add_argument("--steps", type=int, default=8000, help="optimiser steps (default 8000)")
    p.add_argument("--batch", type=int, default=512, help="positions per step (default 512)")
    p.add_argument("--lr", type=float, default=2e-3, help="Adam's first learning rate (default 2e-3)")
    p.add_argument("--qat-from", type=float, default=0.6, help="share of steps before integer training")
    p.add_argument(
        "--quantization",
        choices=list(SCHEMES),
        default=DEFAULT_QUANTIZATION,
        help=f"the integer scheme of nnue.twnet (default {DEFAULT_QUANTIZATION})",
    )
    p.add_argument("--checkpoint-every", type=int, default=500, help="steps between checkpoints")
    p.add_argument("--margin-weight", type=float, default=1.0, help="weight of the margin loss")
    p.add_argument("--value-weight", type=float, default=0.25, help="weight of the value loss (default 0.25)")
    p.add_argument("--weight-decay", type=float, default=0.01, help="AdamW's weight decay (default 0.01)")
    p.add_argument(
        "--student-share", type=float, default=0.0, help="share of the shipped student's targets (default 0)"
    )
    p.add_argument(
        "--teacher-share",
        type=float,
        default=0.0,
        help="share of the shipped default teacher's targets (default 0; the shares add up to at most 1)",
    )
    p.add_argument(
        "--search-value-share",
        type=float,
        default=0.0,
        help="share of the search's value mixed into each result, where the shard records it (default 0)",
    )
    p.add_argument("--holdout-every", type=int, default=20, help="every k-th game held out (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--symmetries", action="store_true", help="each sample under a random one of the 12 board symmetries"
    )
    p.add_argument(
        "--warm-start",
        type=Path,
        help="an nnue-1 weights file to start from (a narrower dense layer is widened, the same function)",
    )
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.width < 1 or args.width > 1024 or args.hidden < 1 or args.hidden > 256:
        p.error("--width must be in 1..1024 and --hidden in 1..256")
    shares = (args.student_share, args.teacher_share, args.search_value_share)
    if not all(0 <= share <= 1 for share in shares):
        p.error("--student-share, --teacher-share and --search-value-share must be in [0, 1]")
    if args.steps < 1 or args.batch < 1 or args.checkpoint_every < 1 or not 0 <= args.qat_from <= 1:
        p.error("--steps, --batch and --checkpoint-every must be >= 1 and --qat-from in [0, 1]")
    config = TrainConfig(
        data=args.data,
        out=args.out,
        width=args.width,
        hidden=args.hidden,
        steps=args.steps,
        batch=args.batch,
        lr=args.lr,
        qat_from=args.qat_from,
        checkpoint_every=args.checkpoint_every,
        margin_weight=args.margin_weight,
        value_weight=args.value_weight,
        student_share=args.student_share,
        teacher_share=args.teacher_share,
        search_value_share=args.search_value_share,
        symmetries=args.symmetries,
        weight_decay=args.weight_decay,
        holdout_every=args.holdout_every,
        seed=args.seed,
        warm_start=args.warm_start,
        threads=args.threads,
        quantization=args.quantization,
    )
    try:
        summary = train(config, progress=not args.no_progress)
    except (NnueTrainError, WeightsError, ShardFormatError) as err:
        print(f"train_nnue: {err}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
