"""The soak of a CodeCup submission (its command line: ``scripts/soak.py``): many refereed games
at the real clock against a mix of opponents, every game filed and stored in the rating's results
database, faults, time and memory reported. Resumable: run the same command again and it
continues where it stopped.

    python scripts/soak.py --games 1000                          # builds soak/submission.py (tw-rl export)
    python scripts/soak.py --games 1000 --submission sub.py      # a given submission
    python scripts/soak.py --games 6 --time 3 --out /tmp/soak    # a short check
    python scripts/soak.py --games 0 --out soak                  # only the report of what is there

Opponents (``--opponents``, default all four): ``random`` and ``greedy`` (``python -m tw_rl.codecup
--player random|greedy``), ``release`` (the frozen ``baselines/tw_rl-0.1.py``, ``--release``
to pick another) and ``mirror`` (the submission itself, under another seed). Game pairs go to
the opponents in turn; within a pair the opening is the same and the colours swap.

The soak folder (``--out``, default ``soak/``) holds the submission (when built here),
``soak.json`` (the settings: a rerun with another submission, clock or opponent list is
refused), one ``tw-rl referee`` results folder per opponent (``matches/<opponent>/``: game
records with their JSON summaries, ``results.jsonl``, stderr logs; each game written
atomically as it ends) and ``report.json``. Each game is also stored in the results database
(``--db``, default the rating run's ``arena/results.sqlite``) as it ends, through
``tw_rl.rating.referee_import`` (the record replayed first), so ``tw-rl rate --games 0``
rates the submission with them. On a restart the results lines are rebuilt from the game
records and every game not yet in the database is stored, then the missing games are played.
One soak works in a folder at a time (``soak/.lock``, released by the kernel even when the
soak is killed): a second is refused in one line, and its ``--games 0`` prints the figures
filed so far without writing anything.

Reported: per opponent the wins, draws, losses and score with a Wilson 95% interval; faults
by kind and program; the bot's largest thinking time per game and per move (with the game),
its mean time per game, games past 95% of its clock (28.5 s of 30), and its peak memory (VmHWM
of its process, sampled by the referee). ``--jobs`` games run at once (default: one per CPU
core this process may use; each game keeps about one core busy, as the two programs take
turns): the clock is wall time, so more jobs than free cores inflate the measured times.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.codecup.weights import CODECUP_SIZE, default_weights
from tw_rl.config import RatingConfig, RefereeConfig
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES
from tw_rl.export.submission import SubmissionError, build_submission
from tw_rl.files import FolderInUse, append_line, file_sha256, folder_lock, write_atomic
from tw_rl.machine import usable_cores
from tw_rl.rating.kinds import PlayerSpec
from tw_rl.rating.player_specs import parse_player
from tw_rl.rating.referee_import import import_referee
from tw_rl.rating.results_db import ResultsDB
from tw_rl.referee.game import GameResult, draw_opening, play_game
from tw_rl.referee.match import GAME_FILE, game_record, game_summary, play_parallel
from tw_rl.referee.process import Cancel, Program
from tw_rl.stats import wilson_interval

OPPONENTS = ("random", "greedy", "release", "mirror")
SETTINGS = "soak.json"
REPORT = "report.json"
OVER_LIMIT = 0.95  # share of the clock past which a game is counted as too close to a time fault
BOT = "bot"  # the submission's program name in the records


class SoakError(ValueError):
    """A setting or folder the soak cannot use: one line for the user."""


@dataclass(frozen=True)
class Opponent:
    name: str  # the folder under matches/ and the program's name in the records
    command: str
    rating_name: str  # its name in the results database


@dataclass
class SoakConfig:
    """One soak (the command line's options, same names)."""

    games: int = 1000  # games in the soak
    submission: str | None = None  # the submission to soak (None: build one in the folder)
    out: str = "soak"  # the soak folder
    db: str = RatingConfig().db  # the results database
    time: float = DEFAULT_BUDGET  # seconds per program per game
    jobs: int = field(default_factory=usable_cores)  # games at once
    opponents: list[str] = field(default_factory=lambda: list(OPPONENTS))
    release: str = "0.1"  # the frozen release to play
    seed: int = RefereeConfig().seed  # seed of the openings
    memory: int = RefereeConfig().memory  # address-space limit per program, MiB


def python() -> str:
    return shlex.quote(sys.executable)


def opponent_commands(names: list[str], submission: Path, seconds: float, release: str) -> list[Opponent]:
    out = []
    tag = file_sha256(submission)[:8]
    for name in names:
        if name in ("random", "greedy"):
            out.append(Opponent(name, f"{python()} -m tw_rl.codecup --player {name}", f"codecup-{name}"))
        elif name == "release":
            spec = parse_player(f"release:{release}@{seconds:g}")[0]
            out.append(Opponent(f"release-{release}", spec.options["command"], spec.name))
        elif name == "mirror":
            out.append(Opponent(name, f"{bot_command(submission, seconds)} --seed 1", f"mirror-{tag}"))
        else:
            raise SoakError(f"unknown opponent {name!r}; choose from {', '.join(OPPONENTS)}")
    return out


def bot_command(submission: Path, seconds: float) -> str:
    return f"{python()} {shlex.quote(str(submission.resolve()))} --time {seconds:g}"


# ------------------------------------------------------------------------------ the folder


def prepare(args: SoakConfig) -> tuple[Path, list[Opponent], dict]:
    """The submission, the opponents and the settings; ``soak.json`` written or matched."""
    out = Path(args.out)  # made, and locked, by soak()
    settings_path = out / SETTINGS
    old = json.loads(settings_path.read_text()) if settings_path.is_file() else None
    if args.submission:
        submission = Path(args.submission)
        if not submission.is_file():
            raise SoakError(f"--submission {submission}: no such file")
    else:
        submission = out / "submission.py"
        if not submission.is_file():
            if old is not None:
                raise SoakError(f"{submission} is gone; the games in {out} were played by it")
            try:
                weights = default_weights(CODECUP_SIZE)
                info = build_submission(None if weights is None else Path(weights), submission)
            except SubmissionError as err:
                raise SoakError(str(err)) from None
            for line in info.summary_lines():
                print(line, file=sys.stderr)
    opponents = opponent_commands(args.opponents, submission, args.time, args.release)
    settings = {
        "submission": str(submission.resolve()),
        "submission_sha256": file_sha256(submission),
        "time": args.time,
        "size": CODECUP_SIZE,
        "seed": args.seed,
        "memory_mb": args.memory,
        "bot": bot_command(submission, args.time),
        "opponents": {o.name: o.command for o in opponents},
    }
    if old is not None:
        differing = [k for k in settings if k != "submission" and old.get(k) != settings[k]]
        if differing:
            raise SoakError(
                f"{out} holds a soak with other settings ({', '.join(differing)} differ; see "
                f"{settings_path}); choose another --out or the same settings"
            )
    write_atomic(settings_path, json.dumps(settings, indent=2) + "\n")
    return submission, opponents, settings


def game_numbers(total: int, count: int) -> list[list[int]]:
    """Game numbers per opponent: pair p (games 2p+1, 2p+2 overall) goes to opponent p % count,
    as that opponent's next pair; the split of a shorter soak is the start of a longer one's."""
    numbers: list[list[int]] = [[] for _ in range(count)]
    for pair in range((total + 1) // 2):
        mine = numbers[pair % count]
        first = len(mine) + 1
        mine.extend(n for n in (first, first + 1) if 2 * pair + (n - first) < total)
    return numbers


def stored_summaries(folder: Path, repair: bool = True) -> dict[int, dict]:
    """The games filed in a match folder, by number, read from the records themselves (each
    record's last line is its summary); ``results.jsonl`` is rebuilt from them, so a game whose
    results line a kill cut off is counted once and only once. ``repair=False`` (the folder's
    soak is still running) only reads: nothing is deleted or rewritten."""
    games = {}
    for path in sorted(folder.glob("game-*.txt")):
        try:
            summary = json.loads(path.read_text(encoding="utf-8").splitlines()[-1].removeprefix("# "))
            games[int(summary["game"])] = summary
        except (ValueError, KeyError, IndexError, OSError):
            if repair:
                print(f"warning: {path} is not a whole game record; it will be played again", file=sys.stderr)
                path.unlink(missing_ok=True)
    if repair:
        lines = "".join(json.dumps(games[n]) + "\n" for n in sorted(games))
        write_atomic(folder / "results.jsonl", lines)
    return games


# ------------------------------------------------------------------------------ playing


def play_one(
    rules: Rules, bot: Program, opponent: Program, number: int, args, folder: Path, cancel: Cancel
) -> tuple[Path, int, GameResult]:
    """Game ``number`` against one opponent (the bot is red in odd ones; opening (number - 1) // 2
    of ``args.seed``, so every opponent meets the same openings)."""
    red, white = (bot, opponent) if number % 2 == 1 else (opponent, bot)
    red_start, white_start = draw_opening(rules, args.seed, (number - 1) // 2)
    stem = folder / "stderr" / GAME_FILE.format(number)[: -len(".txt")]
    result = play_game(
        rules,
        red,
        white,
        red_start,
        white_start,
        args.time,
        cancel=cancel,
        stderr_paths=(Path(f"{stem}-{red.name}.txt"), Path(f"{stem}-{white.name}.txt")),
        memory_mb=args.memory,
    )
    return folder, number, result


def report(out: Path, opponents: list[str], settings: dict, running: bool = False) -> dict:
    """Figures of every filed game: results per opponent (their folder names), faults, the
    bot's time and memory; written to ``report.json`` unless the soak is ``running``."""
    budget = float(settings["time"])
    figures: dict = {"games": 0, "per_opponent": {}, "faults": {}, "bot": {}}
    slowest_game = (0.0, "")
    slowest_move = (0.0, "")
    peak = (0, "")
    over_limit = 0  # games past 95% of the clock: the judge's overheads would come next
    thinking_sum = 0.0
    for opponent in opponents:
        folder = out / "matches" / opponent
        games = stored_summaries(folder, repair=not running) if folder.is_dir() else {}
        wins = draws = losses = 0
        for number, game in sorted(games.items()):
            where = f"{opponent} game {number}"
            colour = next(word for word in COLOUR_NAMES.values() if game[word]["program"] == BOT)
            if game["winner"] == BOT:
                wins += 1
            elif game["winner"] == "draw":
                draws += 1
            else:
                losses += 1
            if game["fault"]:
                who = "bot" if game["fault"]["program"] == BOT else opponent
                key = f"{game['fault']['kind']} by {who}"
                figures["faults"][key] = figures["faults"].get(key, 0) + 1
            thinking = float(game["thinking"][colour])
            slowest_game = max(slowest_game, (thinking, where))
            slowest_move = max(slowest_move, (float(game["slowest"][colour]["seconds"]), where))
            peak = max(peak, (int(game.get("max_rss_kib", {}).get(colour, 0)), where))
            over_limit += thinking > OVER_LIMIT * budget
            thinking_sum += thinking
        count = wins + draws + losses
        low, high = wilson_interval(wins + draws / 2, count)
        figures["per_opponent"][opponent] = {
            "games": count,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "score": round((wins + draws / 2) / count, 4) if count else None,
            "score_95": [round(low, 4), round(high, 4)],
        }
        figures["games"] += count
    figures["bot"] = {
        "slowest_game_s": round(slowest_game[0], 3),
        "slowest_game": slowest_game[1],
        "slowest_move_s": round(slowest_move[0], 3),
        "slowest_move": slowest_move[1],
        "mean_game_s": round(thinking_sum / figures["games"], 3) if figures["games"] else None,
        "games_over_95pct_of_the_clock": over_limit,
        "peak_memory_mib": round(peak[0] / 1024, 1),
        "peak_memory_game": peak[1],
    }
    if not running:
        write_atomic(out / REPORT, json.dumps({"settings": settings, **figures}, indent=2) + "\n")
    return figures


def report_lines(figures: dict, settings: dict) -> list[str]:
    lines = [f"{'opponent':<14}{'games':>6}{'won':>6}{'drawn':>6}{'lost':>6}  score, 95% CI"]
    for name, f in figures["per_opponent"].items():
        score = "-" if f["score"] is None else f"{100 * f['score']:.1f}%"
        low, high = f["score_95"]
        lines.append(
            f"{name:<14}{f['games']:>6}{f['wins']:>6}{f['draws']:>6}{f['losses']:>6}  "
            f"{score} [{100 * low:.1f}%, {100 * high:.1f}%]"
        )
    faults = ", ".join(f"{k} {v}" for k, v in sorted(figures["faults"].items())) or "none"
    bot = figures["bot"]
    lines += [
        f"faults: {faults}",
        f"bot, at {settings['time']:g} s a game: "
        f"slowest game {bot['slowest_game_s']:.2f} s ({bot['slowest_game']}), "
        f"slowest move {bot['slowest_move_s']:.3f} s ({bot['slowest_move']}), "
        f"mean game {'-' if bot['mean_game_s'] is None else format(bot['mean_game_s'], '.2f')} s, "
        f"{bot['games_over_95pct_of_the_clock']} games past 95% of the clock; "
        f"peak memory {bot['peak_memory_mib']:.1f} MiB ({bot['peak_memory_game']})",
    ]
    return lines


def soak(
    args: SoakConfig, interrupts: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
) -> int:
    """Play the soak ``args`` asks for (resuming what is filed), report it; the exit status.
    ``interrupts``: a context in which a stop signal becomes KeyboardInterrupt while games run
    (the command line passes ``tw_rl.cli.common.sigterm_as_interrupt``)."""
    if args.games < 0 or args.jobs < 1 or not args.time > 0 or args.memory < 0:
        raise SoakError("--games and --memory must be >= 0, --jobs >= 1 and --time positive")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(folder_lock(out))
        except FolderInUse as err:
            if args.games == 0:
                return report_while_running(out)
            raise SoakError(
                f"{out} is in use by another soak (pid {err.pid}); wait for it to end "
                "(--games 0 reports what it has filed so far)"
            ) from None
        return soak_locked(args, out, interrupts)


def report_while_running(out: Path) -> int:
    """The report of a folder whose soak is still playing: read only, from its settings."""
    settings_path = out / SETTINGS
    try:
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
        opponents = list(settings["opponents"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise SoakError(f"{settings_path} cannot be read ({err})") from None
    figures = report(out, opponents, settings, running=True)
    for line in report_lines(figures, settings):
        print(line)
    print(f"(the soak in {out} is still running: figures so far, nothing written)", file=sys.stderr)
    return 0


def soak_locked(args: SoakConfig, out: Path, interrupts=contextlib.nullcontext) -> int:
    """The soak, with the folder's lock held."""
    submission, opponents, settings = prepare(args)
    rules = Rules(CODECUP_SIZE, "codecup")
    bot = Program.parse(BOT, settings["bot"])
    programs = [Program.parse(o.name, o.command) for o in opponents]
    bot_name = f"submission-{settings['submission_sha256'][:8]}"
    specs = [PlayerSpec("program", bot_name, {"command": bot.command}, bot.sha256)]
    specs += [
        PlayerSpec("program", o.rating_name, {"command": p.command}, p.sha256)
        for o, p in zip(opponents, programs, strict=True)
    ]
    numbers = game_numbers(args.games, len(opponents))
    db = ResultsDB(args.db)
    todo = []
    done = 0
    try:
        for index, opponent in enumerate(opponents):
            folder = out / "matches" / opponent.name
            (folder / "stderr").mkdir(parents=True, exist_ok=True)
            filed = stored_summaries(folder)
            import_referee(db, folder, specs, log=lambda line: print(line, file=sys.stderr))  # catch up
            done += sum(n in filed for n in numbers[index])
            todo += [(index, n) for n in numbers[index] if n not in filed]
        todo.sort(key=lambda item: (item[1], item[0]))  # the opponents in turn, pair by pair
        print(
            f"soak: {args.games} games, {done} already played, {len(todo)} to play, {args.jobs} at a time, "
            f"{args.time:g} s a game; results in {out}, database {args.db}",
            file=sys.stderr,
        )
        bar = tqdm(
            total=args.games, initial=done, unit="game", file=sys.stderr, dynamic_ncols=True, disable=None
        )
        faults = 0
        slowest = 0.0

        def finished(item: tuple[Path, int, GameResult]) -> None:
            nonlocal faults, slowest
            folder, number, game = item
            write_atomic(folder / GAME_FILE.format(number), game_record(number, game, args.seed, "diff"))
            append_line(folder / "results.jsonl", json.dumps(game_summary(number, game, args.seed)))
            import_referee(db, folder, specs, log=lambda line: print(line, file=sys.stderr), only={number})
            colour = 0 if game.red.name == BOT else 1
            slowest = max(slowest, game.thinking[colour])
            faults += game.fault is not None
            bar.set_postfix_str(f"faults {faults}, slowest bot game {slowest:.1f} s", refresh=False)
            bar.update(1)

        cancel = Cancel()
        calls = []
        for index, number in todo:

            def call(index=index, number=number):
                folder = out / "matches" / opponents[index].name
                return play_one(rules, bot, programs[index], number, args, folder, cancel)

            calls.append(call)
        interrupted = False
        try:
            with interrupts():
                play_parallel(calls, args.jobs, cancel, finished, "soak-game")
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
    finally:
        db.close()
    figures = report(out, [o.name for o in opponents], settings)
    for line in report_lines(figures, settings):
        print(line)
    if interrupted:
        print("interrupted: every finished game is filed; run the same command to continue", file=sys.stderr)
        return 130
    anchor = next((o.rating_name for o in opponents if o.name == "random"), None)
    rate = f"tw-rl rate --games 0 --db {args.db}" + (f" --anchor {anchor}" if anchor else "")
    print(f"report: {out / REPORT}; ratings: {rate}", file=sys.stderr)
    return 0
