"""Command line: play one CodeCup game over stdin/stdout (standard library only).

    python -m tw_rl.codecup [--player bot|random|greedy|mcts] [--playouts N]
                            [--rollout random|territory] [--time 30] [--safety 0.9]
                            [--evaluator NAME] [--weights FILE | --no-weights]
                            [--size 6] [--seed S]

The bot's evaluator is chosen by name among the registered ones (``evaluation.EVALUATORS``:
``network``, ``territory``, ...); without ``--evaluator`` it is the network when there are
weights (``--weights FILE``, else the student shipped for the board, ``weights.DEFAULT_NETWORKS``)
and the territory evaluator otherwise (``--no-weights``, or a board without a shipped student).
An evaluator gets the weights file (or None) and the board size.

``main(argv, embedded_weights=DATA)`` is the entry of the one-file submission
(``tw_rl.export.submission``): ``DATA``, the bytes of the weights file it embeds, stands in for
the shipped student (which a submission does not carry as a file), so no file is written; a
``--weights FILE`` or ``--no-weights`` of the command line still wins.

Bad options: one line on stderr, exit code 2.
"""

import argparse
import sys
import time

from tw_rl.codecup.clock import DEFAULT_BUDGET, DEFAULT_PER_EMPTY, DEFAULT_SAFETY
from tw_rl.codecup.evaluation import EVALUATORS, EvaluatorError, default_weights, evaluator_named
from tw_rl.codecup.players import PLAYERS, make_player
from tw_rl.codecup.protocol import run
from tw_rl.codecup.rules import SIZES
from tw_rl.codecup.search import DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION
from tw_rl.codecup.weights import CODECUP_SIZE


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
    p.add_argument(
        "--evaluator",
        choices=sorted(EVALUATORS),
        default=None,
        help="bot: the evaluator (default: network with weights, else territory)",
    )
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
    p.add_argument(
        "--size",
        type=int,
        choices=SIZES,
        default=CODECUP_SIZE,
        help="cells per board side (default %(default)s)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the random players")
    return p


def bot_evaluator(args, embedded_weights=None):
    """The evaluator the options ask for (None for the players without one); EvaluatorError
    for an evaluator or weights file it cannot use.  ``embedded_weights`` (a weights file's
    bytes) replaces the shipped student: ``--weights FILE`` and ``--no-weights`` still win."""
    if args.player != "bot":
        return None
    if args.no_weights:
        weights = None
    else:
        weights = args.weights or embedded_weights or default_weights(args.size)
    name = args.evaluator or ("network" if weights is not None else "territory")
    return evaluator_named(name, weights, args.size)


def main(argv=None, embedded_weights=None):
    """Play one game with the options ``argv`` (default: the command line); the exit code.
    ``embedded_weights``: see the module docstring."""
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
        evaluator = bot_evaluator(args, embedded_weights)
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
