"""A small mutation-testing job: plant known bugs one at a time and see whether the tests notice.

    python scripts/mutate.py [--set rules] [--source head|worktree] [--only NAME ...]
                             [--tests PATH ...] [--list] [--timeout S] [--keep]

Each mutant is an exact snippet of a source file and its replacement. The job copies the
repository's ``tw_rl``, ``tests`` and ``pyproject.toml`` into a temporary folder (``head``: the
last commit, via ``git archive``; ``worktree``: the files as they are now), checks that Python
run there imports ``tw_rl`` from the copy and not from the installed (editable) package, runs
the tests once unmutated (they must pass), then for every mutant: writes the mutated file, runs
the mutant's tests with pytest (``-x``), and puts the file back. No bytecode is written, so a
mutant never runs stale ``.pyc`` files.

Outcome per mutant: ``killed`` (a test failed, or collection failed), ``survived`` (all passed),
``stale`` (the snippet is not in any of its files, or is there more than once), ``timeout``
(counted as killed: the tests noticed something), ``error`` (pytest could not run). A mutant
marked ``equivalent`` is expected to survive; its ``note`` says why. The report is a table on
stdout; the exit status is 0 whatever the outcomes (2 when the unmutated tests fail).

Mutant lists live in ``MUTANT_SETS`` (name -> list of ``Mutant``): ``rules`` (the rules engines
and the referee's scoring) and ``bot`` (issue 17: the bot's clock share and start-up charge, the
protocol's fallback, the submission's embedded weights, the two-pass end); run one with
``--set NAME``.

Run it niced on a shared machine: ``nice -n 10 python scripts/mutate.py --set rules``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("tw_rl", "tests", "pyproject.toml")


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in the first of ``files`` that holds ``old`` (exactly once), write ``new``."""

    name: str
    files: tuple[str, ...]  # candidate paths, relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]  # test files (or node ids) to run against it
    equivalent: bool = False  # expected to survive: ``note`` says why
    note: str = ""
    more: tuple[tuple[tuple[str, ...], str, str], ...] = ()  # further (files, old, new) edits, same mutant

    @property
    def edits(self) -> list[tuple[tuple[str, ...], str, str]]:
        return [(self.files, self.old, self.new), *self.more]


TABLES = "tests/core/test_rule_tables.py"
FAULTS = "tests/referee/test_fault_scoring_table.py"
CORE_RULES = ("tw_rl/core/rules.py",)
SIGHT = ("tw_rl/core/sight.py",)
TERRITORY = ("tw_rl/core/territory.py",)
SCALAR = ("tw_rl/codecup/rules.py",)
# The referee is being split into tw_rl/referee/{process,game,match}.py; either place will do.
REFEREE = ("tw_rl/referee/game.py", "tw_rl/referee/__init__.py")
BOTH = (TABLES, FAULTS)

RULES_MUTANTS = [
    # ---------------------------------------------------------------- core/rules.py: scores
    Mutant(
        "forfeit-territory-swapped-numpy",  # planted bug 1 (numpy half)
        CORE_RULES,
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, 1 - off[rows]]",
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, off[rows]]",
        BOTH,
    ),
    Mutant(
        "forfeit-no-territory-numpy",  # planted bug 2 (numpy half)
        CORE_RULES,
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, 1 - off[rows]]",
        "points[rows, 1 - off[rows]] = bonus[rows]",
        BOTH,
    ),
    Mutant(
        "forfeit-territory-swapped-both-engines",  # planted bug 1 as issue 16 planted it
        CORE_RULES,
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, 1 - off[rows]]",
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, off[rows]]",
        BOTH,
        more=(
            (
                ("tw_rl/codecup/rules.py",),
                "own = red.bit_count() if self.forfeit == WHITE else white.bit_count()",
                "own = red.bit_count() if self.forfeit == RED else white.bit_count()",
            ),
        ),
    ),
    Mutant(
        "forfeit-no-territory-both-engines",  # planted bug 2 as issue 16 planted it
        CORE_RULES,
        "points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, 1 - off[rows]]",
        "points[rows, 1 - off[rows]] = bonus[rows]",
        BOTH,
        more=(
            (
                ("tw_rl/codecup/rules.py",),
                "points = 200 + own + (9 * neutral) // 10",
                "points = 200 + (9 * neutral) // 10",
            ),
        ),
    ),
    Mutant(
        "forfeit-neutral-rounded",
        CORE_RULES,
        "bonus = 200 + (9 * neutral) // 10",
        "bonus = 200 + (9 * neutral + 5) // 10",
        (TABLES,),
    ),
    Mutant(
        "forfeit-neutral-from-overlap",
        CORE_RULES,
        "neutral = self.num_cells - (terr[:, 0] | terr[:, 1]).sum(axis=1, dtype=np.int32)",
        "neutral = self.num_cells - (terr[:, 0] & terr[:, 1]).sum(axis=1, dtype=np.int32)",
        (TABLES,),
    ),
    Mutant(
        "forfeit-offender-keeps-points",
        CORE_RULES,
        "points[rows, off[rows]] = 0",
        "points[rows, off[rows]] = points[rows, off[rows]]",
        BOTH,
    ),
    Mutant(
        "forfeit-blames-the-other-colour",
        CORE_RULES,
        "np.where(seat == state.red_seat[bad], RED, WHITE)",
        "np.where(seat == state.red_seat[bad], WHITE, RED)",
        BOTH,
    ),
    Mutant(
        "draw-bonus-to-red",
        CORE_RULES,
        "points[counts[:, 0] > counts[:, 1], 0] += 100",
        "points[counts[:, 0] >= counts[:, 1], 0] += 100",
        (TABLES,),
    ),
    Mutant(
        "winner-ties-to-red",
        CORE_RULES,
        "win = np.where(counts[:, 0] > counts[:, 1], RED,",
        "win = np.where(counts[:, 0] >= counts[:, 1], RED,",
        (TABLES,),
    ),
    Mutant(
        "controlled-on-equal-sight",
        CORE_RULES,
        "red = (state.owner == RED) | (empty & (red_sees > white_sees))",
        "red = (state.owner == RED) | (empty & (red_sees >= white_sees))",
        (TABLES,),
    ),
    # ---------------------------------------------------------------- core/rules.py: moves
    Mutant(
        "equal-sight-is-suicide-numpy",
        CORE_RULES,
        "mask &= state.sight[rows, 1 - me] <= s_me",
        "mask &= state.sight[rows, 1 - me] < s_me",
        (TABLES,),
    ),
    Mutant(
        "suicide-rule-in-the-wrong-variant",
        CORE_RULES,
        "        if self.codecup:\n            mask &= state.sight[rows, 1 - me] <= s_me",
        "        if not self.codecup:\n            mask &= state.sight[rows, 1 - me] <= s_me",
        (TABLES,),
    ),
    Mutant(
        "capture-with-equal-height",
        CORE_RULES,
        "mask = (s_me >= 1) & (s_me > state.height)",
        "mask = (s_me >= 1) & (s_me >= state.height)",
        (TABLES,),
    ),
    Mutant(
        "friendly-sight-test-dropped",
        CORE_RULES,
        "mask = (s_me >= 1) & (s_me > state.height)",
        "mask = s_me > state.height",
        (TABLES,),
        equivalent=True,
        note="heights are >= 0, so s_me > height already implies s_me >= 1",
    ),
    Mutant(
        "codecup-pass-always-legal",
        CORE_RULES,
        "mask[:, n] = play & (~placements.any(axis=1) if self.codecup else True)",
        "mask[:, n] = play",
        (TABLES,),
    ),
    Mutant(
        "placed-height-off-by-one",
        CORE_RULES,
        "new.height[prow, pcell] = s_me",
        "new.height[prow, pcell] = s_me + 1",
        (TABLES,),
    ),
    Mutant(
        "passes-not-reset-by-a-placement",
        CORE_RULES,
        "new.passes[rows] = np.where(placed, 0, old.passes[rows] + 1)",
        "new.passes[rows] = np.where(placed, old.passes[rows], old.passes[rows] + 1)",
        (TABLES,),
    ),
    Mutant(
        "two-passes-do-not-end-numpy",
        CORE_RULES,
        "over = moved & (new.passes >= 2)",
        "over = moved & (new.passes >= 3)",
        (TABLES,),
    ),
    Mutant(
        "end-rule-one-covered-cell",
        CORE_RULES,
        "over |= moved & covered.all(axis=1)",
        "over |= moved & covered.any(axis=1)",
        (TABLES,),
    ),
    Mutant(
        "official-no-move-end-dropped",
        CORE_RULES,
        "            over |= moved & stuck\n",
        "            over |= moved & stuck & False\n",
        (TABLES,),
    ),
    # ---------------------------------------------------------------- core/sight.py
    Mutant(
        "sight-scan-last-step-dropped",  # planted bug 3
        SIGHT,
        "for k in range(1, width):",
        "for k in range(1, width - 1):",
        (TABLES,),
        equivalent=True,
        note=(
            "the last step (k = width-1) writes only forward slot width-1 and backward slot 0; "
            "a cell reads forward slot k-1 <= width-2 and backward slot k+1 >= 1 of its line "
            "(_line_tables: before/after), so neither value is ever read"
        ),
    ),
    Mutant(
        "sight-scan-first-step-dropped",
        SIGHT,
        "for k in range(1, width):",
        "for k in range(2, width):",
        (TABLES,),
    ),
    Mutant(
        "neutral-stack-does-not-block",
        SIGHT,
        "np.negative((owner_t == EMPTY).view(np.int8), out=pass_cells[:num])",
        "np.negative(((owner_t == EMPTY) | (owner_t == 3)).view(np.int8), out=pass_cells[:num])",
        (TABLES,),
    ),
    Mutant(
        "diagonal-ray-read-twice",
        SIGHT,
        "(before[2], forward), (after[0], backward)",
        "(before[1], forward), (after[0], backward)",
        (TABLES,),
    ),
    # ---------------------------------------------------------------- core/territory.py
    Mutant(
        "territory-fill-allows-suicide-numpy",
        TERRITORY,
        "return (sight_me >= 1) & (sight_me > height) & (sight_other <= sight_me)",
        "return (sight_me >= 1) & (sight_me > height)",
        (TABLES,),
    ),
    Mutant(
        "territory-fill-equal-is-suicide-numpy",
        TERRITORY,
        "return (sight_me >= 1) & (sight_me > height) & (sight_other <= sight_me)",
        "return (sight_me >= 1) & (sight_me > height) & (sight_other < sight_me)",
        (TABLES,),
    ),
    Mutant(
        "territory-owner-fills-first-numpy",
        TERRITORY,
        "mover = (3 - target).astype(np.int8)",
        "mover = target.copy()",
        (TABLES,),
    ),
    Mutant(
        "territory-counts-the-filler-numpy",
        TERRITORY,
        "result[:, cols[stuck]] = own[:, stuck] == target[stuck]",
        "result[:, cols[stuck]] = own[:, stuck] == 3 - target[stuck]",
        (TABLES,),
    ),
    # ---------------------------------------------------------------- codecup/rules.py (scalar)
    # The bot's engine is a bitboard engine (one int per board, bit planes for counts); the
    # mutants below plant the scalar list engine's old bugs in it, the same misreading each.
    Mutant(
        "forfeit-territory-swapped-scalar",  # planted bug 1 (scalar half)
        SCALAR,
        "own = red.bit_count() if self.forfeit == WHITE else white.bit_count()",
        "own = red.bit_count() if self.forfeit == RED else white.bit_count()",
        (TABLES,),
    ),
    Mutant(
        "forfeit-no-territory-scalar",  # planted bug 2 (scalar half)
        SCALAR,
        "points = 200 + own + (9 * neutral) // 10",
        "points = 200 + (9 * neutral) // 10",
        (TABLES,),
    ),
    Mutant(
        "forfeit-winner-is-the-offender-scalar",
        SCALAR,
        "            return 3 - self.forfeit\n",
        "            return self.forfeit\n",
        (TABLES,),
    ),
    # Equal sight read as suicide: a placement is refused unless the mover sees strictly more
    # than the opponent. The list engine had two copies of the test (one cell for play, the
    # whole board for legal_moves); the bitboard engine has one per colour, read by both.
    Mutant(
        "equal-sight-is-suicide-scalar-red",  # was ...-scalar-play
        SCALAR,
        'return red_up & ~white_more if self.variant == "codecup" else red_up',
        'return red_up & red_more if self.variant == "codecup" else red_up',
        (TABLES,),
    ),
    Mutant(
        "equal-sight-is-suicide-scalar-white",  # was ...-scalar-moves
        SCALAR,
        'return white_up & ~red_more if self.variant == "codecup" else white_up',
        'return white_up & white_more if self.variant == "codecup" else white_up',
        (TABLES,),
    ),
    # The territory simulation (territory_bits): lanes 0 and 1 hold red's and white's
    # simulations, "first" the side that fills first in each (white in red's, red in white's).
    Mutant(
        "territory-owner-fills-first-scalar",
        SCALAR,
        # Red's territory read from the lane where red fills first and white second (white's
        # simulation), white's from red's: the owner fills first, then the opponent.
        "return second & lane_mask, second >> lane, start",
        "return first >> lane, first & lane_mask, start",
        (TABLES,),
    ),
    Mutant(
        "territory-fill-allows-suicide-scalar",  # the first filler's (the opponent's) phase
        SCALAR,
        "new = up & ~sui & ~first",
        "new = up & ~first",
        (TABLES,),
        more=(
            (
                SCALAR,
                "fix = first & up & ~sui  # where the first fillers could still reinforce",
                "fix = first & up  # where the first fillers could still reinforce",
            ),
        ),
    ),
    Mutant(
        "territory-owner-phase-allows-suicide-scalar",
        SCALAR,
        "new = up & ~sui & ~second",
        "new = up & ~second",
        (TABLES,),
        equivalent=True,
        note=(
            "after the first filler's phase, no owner move can be suicidal: a non-owner cell "
            "where the owner sees a > h and the first filler b > a would be a legal first-filler "
            "move (b > h, a <= b), and on the filler's own stacks fix sets h = b wherever it "
            "could still reinforce; the owner's own moves only raise a and lower b (identical "
            "territories on 2,500 random official-play positions of sizes 6, 8 and 10)"
        ),
    ),
    Mutant(
        "fill-update-does-not-stop-at-stacks-scalar",
        SCALAR,
        # The simulation's sight after each round: views pass through stacks, in both phases.
        "        second &= ~new\n        neutral &= ~new\n"
        "        empty = mask2 & ~(first | second | neutral)\n",
        "        second &= ~new\n        neutral &= ~new\n        empty = mask2\n",
        (TABLES,),
        more=(
            (
                SCALAR,
                "        first &= ~new\n        neutral &= ~new\n"
                "        empty = mask2 & ~(first | second | neutral)\n",
                "        first &= ~new\n        neutral &= ~new\n        empty = mask2\n",
            ),
        ),
    ),
    Mutant(
        "sight-sees-through-stacks-scalar",
        SCALAR,
        # The position's sight: a view is not stopped by the first stack on the ray.
        "_count_planes(red | (white << lane), empty | (empty << lane), mask2, steps)",
        "_count_planes(red | (white << lane), mask2, mask2, steps)",
        (TABLES,),
    ),
    Mutant(
        "two-passes-do-not-end-scalar",
        SCALAR,
        "if self.passes >= 2:",
        "if self.passes > 2:",
        (TABLES,),
    ),
    Mutant(
        "end-rule-one-cell-short-scalar",
        SCALAR,
        "if red | white == board.mask:",
        "if (red | white).bit_count() >= board.num_cells - 1:",
        (TABLES,),
    ),
    Mutant(
        "controlled-on-equal-sight-scalar",
        SCALAR,
        "red_points = red.bit_count() + (empty & red_more).bit_count()",
        "red_points = red.bit_count() + (empty & ~white_more).bit_count()",
        (TABLES,),
    ),
    Mutant(
        "draw-bonus-to-red-scalar",
        SCALAR,
        "        if r > w:\n            return 200 + r, 100 + w",
        "        if r >= w:\n            return 200 + r, 100 + w",
        (TABLES,),
    ),
    # ---------------------------------------------------------------- the referee's scoring
    Mutant(
        "referee-scores-before-the-forfeit",
        REFEREE,
        "            state = rules.step(state, action)  # an illegal action (or -1) is a forfeit\n"
        "            if fault is not None:\n"
        "                break\n",
        "            if fault is not None:\n"
        "                break\n"
        "            state = rules.step(state, action)  # an illegal action (or -1) is a forfeit\n",
        (FAULTS,),
    ),
    Mutant(
        "referee-points-by-seat-swapped",
        REFEREE,
        "points=(int(points[0]), int(points[1])),",
        "points=(int(points[1]), int(points[0])),",
        (FAULTS,),
    ),
    Mutant(
        "referee-crash-judged-as-a-pass",
        REFEREE,
        "return -1, Fault(answer.kind, mover, ply, answer.text, answer.detail)",
        "return grid.num_cells, Fault(answer.kind, mover, ply, answer.text, answer.detail)",
        (FAULTS,),
    ),
    Mutant(
        "referee-pass-fault-called-illegal",
        REFEREE,
        'kind = "pass" if action == grid.num_cells else "illegal"',
        'kind = "illegal"',
        (FAULTS,),
    ),
]

# ------------------------------------------------------------------------------------ the bot
# Issue 17: the planted bugs that the suite did not notice, and their neighbours: the clock's
# share and start-up charge, the protocol's fallback, the submission's weights, two passes.
CLOCK = ("tw_rl/codecup/clock.py",)
PLAYERS = ("tw_rl/codecup/players.py",)
PROTOCOL = ("tw_rl/codecup/protocol.py",)
BOT_MAIN = ("tw_rl/codecup/__main__.py",)
SUBMISSION = ("tw_rl/export/submission.py",)
EXPORT_CLI = ("tw_rl/cli/export.py",)
BOT_TESTS = ("tests/codecup/test_bot.py", "tests/codecup/test_bot_guards.py")
SUBMISSION_TESTS = ("tests/export/test_submission.py",)

BOT_MUTANTS = [
    # ---------------------------------------------------------------- the clock's share
    Mutant(
        "default-share-95-percent",  # planted: the bot plans 95% of its clock
        CLOCK,
        "DEFAULT_SAFETY = 0.9\n",
        "DEFAULT_SAFETY = 0.95\n",
        BOT_TESTS,
    ),
    Mutant(
        "reserve-5-percent-whatever-the-share",
        CLOCK,
        "self.reserve = self.budget * (1.0 - self.safety)",
        "self.reserve = self.budget * 0.05",
        BOT_TESTS,
    ),
    Mutant(
        "bot-plans-95-percent",  # the bot's own time control ignores the share it is given
        PLAYERS,
        "TimeControl(budget, safety, per_empty=per_empty)",
        "TimeControl(budget, 0.95, per_empty=per_empty)",
        BOT_TESTS,
    ),
    Mutant(
        "command-line-ignores-the-share",
        BOT_MAIN,
        "safety=args.safety,",
        "safety=0.95,",
        BOT_TESTS,
    ),
    Mutant(
        "allotment-above-what-is-left",
        CLOCK,
        "return min(allot, usable)",
        "return allot",
        BOT_TESTS,
    ),
    # ---------------------------------------------------------------- the start-up charge
    Mutant(
        "start-up-not-charged",  # planted: the start-up time is not charged to the game clock
        BOT_MAIN,
        "startup=time.process_time()",
        "startup=0.0",
        BOT_TESTS,
    ),
    Mutant(
        "start-up-dropped-by-the-clock",
        CLOCK,
        "self.used = float(startup)",
        "self.used = 0.0",
        BOT_TESTS,
    ),
    Mutant(
        "start-up-not-handed-to-red's-game",
        PROTOCOL,
        "converse(player, position, RED, inp, out, err, budget, t, notation, startup)",
        "converse(player, position, RED, inp, out, err, budget, t, notation)",
        BOT_TESTS,
    ),
    # ---------------------------------------------------------------- the protocol's fallback
    Mutant(
        "protocol-fallback-removed",  # planted: an exception in the player crashes the bot
        PROTOCOL,
        "    try:\n"
        "        move = player.choose(position.copy(), clock.seconds_left())\n"
        "    except Exception as e:  # a failing player must not lose the game by a crash\n"
        '        _say(err, f"player failed ({type(e).__name__}: {str(e)[:80]}); playing a fallback move")\n'
        "        move = None\n",
        "    move = player.choose(position.copy(), clock.seconds_left())\n",
        BOT_TESTS,
    ),
    Mutant(
        "protocol-prints-an-illegal-answer",
        PROTOCOL,
        "    if move not in legal:\n        if move is not None:",
        "    if move is None:\n        if move is not None:",
        BOT_TESTS,
    ),
    Mutant(
        "protocol-observe-unguarded",
        PROTOCOL,
        "        try:\n            observe(position.copy())\n        except Exception:\n"
        "            pass  # only a hint for tree reuse\n",
        "        observe(position.copy())\n",
        BOT_TESTS,
    ),
    # ---------------------------------------------------------------- the submission's weights
    Mutant(
        "submission-renders-no-weights",  # planted: the submission silently drops its weights
        SUBMISSION,
        "text = _render(sources, packages, weights_data, version, commit)",
        "text = _render(sources, packages, None, version, commit)",
        SUBMISSION_TESTS,
    ),
    Mutant(
        "submission-never-hands-the-weights-over",
        SUBMISSION,
        "if _WEIGHTS_B64 is None or _gives_weights(args):",
        "if True:",
        SUBMISSION_TESTS,
    ),
    Mutant(
        "submission-main-skips-the-hand-over",
        SUBMISSION,
        "sys.argv = [sys.argv[0]] + _weights_args(sys.argv[1:])",
        "sys.argv = list(sys.argv)",
        SUBMISSION_TESTS,
    ),
    Mutant(
        "export-embeds-no-weights-by-default",
        EXPORT_CLI,
        "    weights = Path(DEFAULT_WEIGHTS)\n",
        "    return None\n    weights = Path(DEFAULT_WEIGHTS)\n",
        SUBMISSION_TESTS,
    ),
    Mutant(
        "export-writes-weights-the-bot-would-refuse",
        SUBMISSION,
        "        check_weights(Path(weights))\n",
        "        pass\n",
        SUBMISSION_TESTS,
    ),
    # ---------------------------------------------------------------- two passes end the game
    Mutant(
        "two-passes-do-not-end-numpy",  # planted: the numpy engine's CodeCup two-pass end removed
        CORE_RULES,
        "over = moved & (new.passes >= 2)",
        "over = moved & False",
        (TABLES,),
    ),
    Mutant(
        "two-passes-do-not-end-scalar",
        SCALAR,
        "if self.passes >= 2:",
        "if False:",
        (TABLES,),
    ),
]

MUTANT_SETS: dict[str, list[Mutant]] = {"rules": RULES_MUTANTS, "bot": BOT_MUTANTS}


# ------------------------------------------------------------------------------------ the job


def make_copy(source: str, dest: Path) -> None:
    """The repository's tw_rl, tests and pyproject.toml in ``dest`` (from HEAD or as they are)."""
    dest.mkdir(parents=True)
    if source == "head":
        archive = subprocess.run(
            ["git", "archive", "HEAD", *COPIED], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    else:
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.egg-info")
        for name in COPIED:
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, dest / name, ignore=ignore)
            else:
                shutil.copy2(path, dest / name)
    for cache in list(dest.rglob("__pycache__")):
        shutil.rmtree(cache)


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(copy / "tests")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def check_shadowing(copy: Path, env: dict[str, str]) -> str:
    """Where ``import tw_rl`` resolves inside the copy; SystemExit if not to the copy."""
    code = "import tw_rl, tw_rl.core.rules as r; print(tw_rl.__file__); print(r.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=copy, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    for path in out:
        if not Path(path).resolve().is_relative_to(copy.resolve()):
            raise SystemExit(f"tw_rl is imported from {path}, not from the copy {copy}: cannot mutate")
    return out[1]


def run_tests(copy: Path, env: dict[str, str], tests: tuple[str, ...], timeout: float) -> tuple[int, str]:
    """pytest's exit status (-1 on a time-out) and its output."""
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", *tests]
    try:
        proc = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:g} s"
    return proc.returncode, proc.stdout + proc.stderr


def last_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else ""


Row = tuple[Mutant, str, str, str, float]  # mutant, outcome, file, detail, seconds


def first_failure(output: str) -> str:
    """The first failing test (or collection error) of a pytest run, shortened."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0].split("::", 1)[-1][:100]
    return last_line(output)[:100]


def locate(copy: Path, files: tuple[str, ...], old: str) -> tuple[str | None, str]:
    """The first of ``files`` holding ``old`` exactly once, or (None, why not)."""
    for rel in files:
        path = copy / rel
        if path.exists():
            count = path.read_text(encoding="utf-8").count(old)
            if count == 1:
                return rel, ""
            if count > 1:
                return None, f"snippet found {count} times in {rel}"
    return None, f"snippet not found in {' or '.join(files)}"


def mutate_one(copy: Path, env: dict[str, str], mutant: Mutant, timeout: float) -> tuple[str, str, str]:
    """(outcome, file(s), detail) for one mutant; the copy is left as it was."""
    targets = []
    for files, old, new in mutant.edits:
        rel, why = locate(copy, files, old)
        if rel is None:
            return "stale", files[0], why
        targets.append((rel, old, new))
    originals = {rel: (copy / rel).read_text(encoding="utf-8") for rel, _, _ in targets}
    where = "+".join(dict.fromkeys(rel for rel, _, _ in targets))
    try:
        for rel, old, new in targets:
            path = copy / rel
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        status, output = run_tests(copy, env, mutant.tests, timeout)
    finally:
        for rel, text in originals.items():
            (copy / rel).write_text(text, encoding="utf-8")
    if status == -1:
        return "timeout", where, output
    if status == 0:
        return "survived", where, last_line(output)
    if status in (1, 2):  # a failing test, or a collection error (the mutant broke an import)
        return "killed", where, first_failure(output)
    return "error", where, f"pytest exit {status}: {last_line(output)}"


def format_report(rows: list[Row]) -> str:
    width = max(len(m.name) for m, *_ in rows)
    lines = [f"{'mutant':<{width}}  {'outcome':<9} {'expected':<10} {'sec':>5}  file / detail"]
    for mutant, outcome, rel, detail, seconds in rows:
        expected = "equivalent" if mutant.equivalent else "killed"
        flag = ""
        if outcome == "survived" and not mutant.equivalent:
            flag = "  <-- SURVIVED"
        elif outcome in ("killed", "timeout") and mutant.equivalent:
            flag = "  <-- killed although marked equivalent"
        elif outcome in ("stale", "error"):
            flag = "  <-- " + outcome.upper()
        why = mutant.note if (mutant.equivalent and outcome == "survived") else detail
        lines.append(
            f"{mutant.name:<{width}}  {outcome:<9} {expected:<10} {seconds:5.1f}  {rel}: {why}{flag}"
        )
    counts = {
        k: sum(1 for _, o, *_ in rows if o == k) for k in ("killed", "timeout", "survived", "stale", "error")
    }
    unexpected = sum(1 for m, o, *_ in rows if o == "survived" and not m.equivalent)
    lines.append(
        f"{len(rows)} mutants: {counts['killed'] + counts['timeout']} killed, {counts['survived']} survived "
        f"({counts['survived'] - unexpected} marked equivalent, {unexpected} unexpected), "
        f"{counts['stale']} stale, {counts['error']} error"
    )
    return "\n".join(lines)


def run_job(
    mutants: list[Mutant], source: str = "head", timeout: float = 600.0, keep: bool = False, log=print
) -> list[Row] | None:
    """Run every mutant on a fresh copy; None when the unmutated tests fail."""
    work = Path(tempfile.mkdtemp(prefix="tw_mutate_"))
    copy = work / "repo"
    try:
        make_copy(source, copy)
        env = environment(copy)
        where = check_shadowing(copy, env)
        log(f"copy of {source} in {copy}; tw_rl.core.rules imported from {where}")
        all_tests = tuple(sorted({t for m in mutants for t in m.tests}))
        start = time.monotonic()
        status, tail = run_tests(copy, env, all_tests, timeout)
        log(f"unmutated: {' '.join(all_tests)}: {last_line(tail)} ({time.monotonic() - start:.1f} s)")
        if status != 0:
            return None
        rows = []
        for mutant in mutants:
            start = time.monotonic()
            outcome, rel, detail = mutate_one(copy, env, mutant, timeout)
            seconds = time.monotonic() - start
            rows.append((mutant, outcome, rel, detail, seconds))
            log(f"  {mutant.name}: {outcome} ({seconds:.1f} s)")
        return rows
    finally:
        if keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="rules", choices=sorted(MUTANT_SETS), help="which mutant list")
    parser.add_argument("--source", default="head", choices=("head", "worktree"), help="what to copy")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="run these tests for every mutant instead")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per test run (default 600)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    args = parser.parse_args(argv)

    mutants = MUTANT_SETS[args.set]
    if args.only:
        unknown = set(args.only) - {m.name for m in mutants}
        if unknown:
            parser.error(f"no such mutant(s) in set {args.set}: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in args.only]
    if args.tests:
        mutants = [dataclasses.replace(m, tests=tuple(args.tests)) for m in mutants]
    if args.list:
        for m in mutants:
            mark = " (equivalent)" if m.equivalent else ""
            more = f" (+{len(m.more)} more edits)" if m.more else ""
            print(f"{m.name}{mark}: {m.files[0]}: {m.old.strip()[:60]!r} -> {m.new.strip()[:60]!r}{more}")
        return 0
    rows = run_job(mutants, args.source, args.timeout, args.keep, log=lambda text: print(text, flush=True))
    if rows is None:
        print("the unmutated tests do not pass; no mutant can be judged", file=sys.stderr)
        return 2
    print()
    print(format_report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
