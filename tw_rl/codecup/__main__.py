"""Command line: play one CodeCup game over stdin/stdout (standard library only).

    python -m tw_rl.codecup [--player bot|random|greedy|mcts] [--playouts N]
                            [--rollout random|territory] [--time 30] [--safety 0.9]
                            [--weights FILE | --no-weights] [--size 6] [--seed S]

The bot searches with the student network shipped in the package (``student-default.twnet``,
6-board) unless ``--weights FILE`` names another or ``--no-weights`` asks for the territory
evaluator; on other board sizes it has no default network and uses the territory evaluator.

Bad options: one line on stderr, exit code 2.
"""

import argparse
import sys
import time

from tw_rl.codecup.clock import DEFAULT_BUDGET, DEFAULT_PER_EMPTY, DEFAULT_SAFETY
from tw_rl.codecup.evaluation import EvaluatorError, default_weights, make_evaluator
from tw_rl.codecup.players import PLAYERS, make_player
from tw_rl.codecup.protocol import run
from tw_rl.codecup.rules import SIZES
from tw_rl.codecup.search import DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"tw_rl.codecup: {message}\n")
        sys.stderr.flush()
        raise SystemExit(2)


def _parser():
    p = _Parser(
        prog="python -m tw_rl.codecup", description="Play one CodeCup Tumbleweed game on stdin/stdout."
    )
    p.add_argument("--player", choices=PLAYERS, default="bot", help="which player (default: bot)")
    p.add_argument("--playouts", type=int, default=200, help="mcts: playouts per move (default 200)")
    p.add_argument(
        "--rollout", choices=("random", "territory"), default="random", help="mcts: leaf valuation"
    )
    p.add_argument("--time", type=float, default=DEFAULT_BUDGET, help="thinking budget per game in seconds")
    p.add_argument("--safety", type=float, default=DEFAULT_SAFETY, help="share of the budget the bot may use")
    weights = p.add_mutually_exclusive_group()
    weights.add_argument(
        "--weights", default=None, help="bot: network weights file (default: the shipped student, 6-board)"
    )
    weights.add_argument(
        "--no-weights", action="store_true", help="bot: no network, the territory + control evaluator"
    )
    p.add_argument(
        "--c-puct",
        type=float,
        default=DEFAULT_C_PUCT,
        help="bot: PUCT exploration weight (default %(default)s)",
    )
    p.add_argument(
        "--fpu",
        type=float,
        default=DEFAULT_FPU_REDUCTION,
        help="bot: first-play urgency reduction (default %(default)s)",
    )
    p.add_argument(
        "--per-empty",
        type=float,
        default=DEFAULT_PER_EMPTY,
        help="bot clock: own moves expected per empty cell above the end; lower spends more per move "
        "(default %(default)s)",
    )
    p.add_argument("--size", type=int, choices=SIZES, default=6, help="cells per board side (default 6)")
    p.add_argument("--seed", type=int, default=None, help="seed of the random players")
    return p


def bot_evaluator(args):
    """The evaluator the options ask for: --weights FILE, the shipped student, or none (None =
    the player's own default, the territory evaluator); EvaluatorError for a bad file."""
    weights = args.weights
    if weights is None and not args.no_weights and args.player == "bot":
        weights = default_weights(args.size)
    if weights is None:
        return None
    return make_evaluator(weights, board_size=args.size)


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.time > 0:
        parser.error(f"--time must be positive, got {args.time}")
    if not 0 < args.safety <= 1:
        parser.error(f"--safety must be in (0, 1], got {args.safety}")
    if not args.c_puct > 0 or not args.per_empty > 0:
        parser.error("--c-puct and --per-empty must be positive")
    if args.playouts < 1:
        parser.error(f"--playouts must be at least 1, got {args.playouts}")
    try:
        evaluator = bot_evaluator(args)
    except EvaluatorError as e:
        sys.stderr.write(f"tw_rl.codecup: {e}\n")
        sys.stderr.flush()
        return 2
    player = make_player(
        args.player,
        seed=args.seed,
        playouts=args.playouts,
        rollout=args.rollout,
        evaluator=evaluator,
        budget=args.time,
        safety=args.safety,
        c_puct=args.c_puct,
        fpu_reduction=args.fpu,
        per_empty=args.per_empty,
    )
    try:
        # The CPU time so far (interpreter, imports, the weights) counts against the game clock.
        return run(player, size=args.size, budget=args.time, startup=time.process_time())
    except KeyboardInterrupt:
        return 0
    except Exception as e:  # never a traceback
        sys.stderr.write(f"tw_rl.codecup: internal error ({type(e).__name__}: {str(e)[:100]}); exiting\n")
        sys.stderr.flush()
        return 1


if __name__ == "__main__":
    sys.exit(main())
