"""A referee for CodeCup-protocol programs: plays and scores games between two command lines.

Each game runs both programs as subprocesses, each in a process group of its own, speaks the
CodeCup protocol to them over stdin/stdout, judges every answer with the batched engine and
scores it by the CodeCup rules, faults included (an illegal move, a pass while a placement
exists, a garbage line, a crash, a time-out: the offender 0, the other the forfeit formula).

Clocks: a player's clock runs from the moment the referee starts writing a request to it until
its answer line has been read; a reader thread per program stamps each line as it arrives, so
the referee's own work (judging, the other program's thinking) is never charged to a player.
A player whose total passes its budget is killed the moment it does, answer or no answer.

A match (``run_match``) plays pairs of games on one judge-drawn opening each, with colours
swapped inside the pair (A is red in games 1, 3, 5, ...), optionally with parallel games; it
writes each finished game atomically as a record with a JSON summary, appends it to
``results.jsonl``, and ends with ``summary.json``.
"""

from __future__ import annotations

import json
import math
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NamedTuple

import numpy as np

from tw_rl.core.hexgrid import SIZES, hexgrid
from tw_rl.core.notation import NOTATIONS, PASS, cell_name, format_record, parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE, State
from tw_rl.files import file_sha256, write_atomic

FAULT_KINDS = ("illegal", "pass", "garbage", "crash", "timeout")
COLOUR_WORDS = {RED: "red", WHITE: "white"}
QUIT_GRACE_S = 1.0  # how long a program may take to exit after "Quit" before it is killed
POLL_S = 0.25  # how often a waiting game looks at the cancel switch
MAX_LINE = 4096  # an answer longer than this is garbage; the reader stops buffering it
CELL_WORD = re.compile(r"[A-Z][1-9][0-9]*")  # the shape of a cell name (ASCII digits only)
Z95 = 1.959963984540054  # the two-sided 95% normal quantile
GAME_FILE = "game-{:05d}.txt"


class RefereeError(ValueError):
    """A bad match setting (program, option, results folder): a message for the user."""


class MatchInterrupted(Exception):
    """The match was cancelled while this game was in progress; the game is dropped."""


# ------------------------------------------------------------------------------ programs


@dataclass(frozen=True)
class Program:
    """A player program: a label (A or B) and the command line that starts it (no shell)."""

    name: str
    command: str
    argv: tuple[str, ...]
    sha256: str = ""  # of the script it runs (the first argument that is a file), "" if none

    @classmethod
    def parse(cls, name: str, command: str) -> Program:
        """Split ``command`` like a shell would; RefereeError if it is empty or not found."""
        try:
            argv = tuple(shlex.split(command))
        except ValueError as err:
            raise RefereeError(f"program {name}: cannot split the command {command!r}: {err}") from None
        if not argv:
            raise RefereeError(f"program {name}: the command is empty")
        if shutil.which(argv[0]) is None:
            raise RefereeError(f"program {name}: no such program {argv[0]!r} (command {command!r})")
        return cls(name, command, argv, script_sha256(argv))


def script_sha256(argv: tuple[str, ...]) -> str:
    """sha256 of the first argument that is a file (the script of ``python bot.py``), else ''."""
    for arg in argv[1:] or argv:
        if os.path.isfile(arg):
            return file_sha256(arg)
    return ""


class Cancel:
    """A switch that stops games in progress: setting it kills every registered program group."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def set(self) -> None:
        with self._lock:
            self._event.set()
            for proc in self._procs:
                _kill_group(proc)

    def register(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.add(proc)
            if self._event.is_set():
                _kill_group(proc)

    def unregister(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the program's process group. Only called before the leader is reaped, so the
    group id cannot have been reused."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Answer(NamedTuple):
    text: str | None  # the line the program printed, stripped (None when there is none)
    kind: str | None  # a fault found before the line could be judged: garbage, crash, timeout
    detail: str


class _Player:
    """One running program: pipes, a reader thread, the lines it is owed, its clock."""

    def __init__(self, program: Program, stderr_path: Path | None, cancel: Cancel | None) -> None:
        self.program = program
        self.cancel = cancel
        self.lines: queue.Queue[tuple[float, bytes | None]] = queue.Queue()
        self.pending: list[str] = []  # protocol lines to send with the next request
        self.used = 0.0  # seconds of thinking so far
        self.slowest = (0.0, -1)  # (seconds, ply) of its slowest answer
        self.start_error: str | None = None
        self.stderr_path = stderr_path
        self.stderr: IO[bytes] = open(stderr_path, "w+b") if stderr_path else tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.reader: threading.Thread | None = None
        try:
            self.proc = subprocess.Popen(
                program.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as err:
            self.start_error = f"cannot start {program.argv[0]!r}: {err.strerror or err}"
            self.lines.put((time.monotonic(), None))
            return
        if cancel is not None:
            cancel.register(self.proc)
        self.reader = threading.Thread(target=self._read, name=f"referee-read-{program.name}", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Queue (arrival time, line) for every line of output, then (time, None) at its end."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buffer = b""
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                now = time.monotonic()
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    self.lines.put((now, line))
                if len(buffer) > MAX_LINE:
                    self.lines.put((now, buffer))
                    buffer = b""
        except OSError:
            pass
        finally:
            if buffer:
                self.lines.put((time.monotonic(), buffer))
            self.lines.put((time.monotonic(), None))
            self.proc.stdout.close()

    def send(self, lines: list[str]) -> bool:
        """Write protocol lines; False when the program's input is closed (it has gone)."""
        if self.proc is None or self.proc.stdin is None:
            return False
        data = "".join(line + "\n" for line in lines).encode()
        try:
            fd = self.proc.stdin.fileno()
            while data:
                data = data[os.write(fd, data) :]
        except (OSError, ValueError):
            return False
        return True

    def ask(self, budget: float, ply: int) -> _Answer:
        """Send the pending lines and wait for one answer line, charging the clock."""
        try:
            _, early = self.lines.get_nowait()
        except queue.Empty:
            pass
        else:
            if early is None:
                return _Answer(None, "crash", self.exit_detail())
            text = _decode(early)
            return _Answer(text, "garbage", f"printed {_shorten(text)!r} before it was asked for a move")
        lines, self.pending = self.pending, []
        start = time.monotonic()
        if not self.send(lines):
            return _Answer(None, "crash", self.exit_detail())
        deadline = start + budget - self.used
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._time_out(time.monotonic() - start, budget, ply)
            try:
                stamp, line = self.lines.get(timeout=min(left, POLL_S))
            except queue.Empty:
                if self.cancel is not None and self.cancel.is_set():
                    raise MatchInterrupted from None
                continue
            break
        if self.cancel is not None and self.cancel.is_set():
            raise MatchInterrupted
        seconds = stamp - start
        if self.used + seconds > budget:
            return self._time_out(seconds, budget, ply)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        if line is None:
            return _Answer(None, "crash", self.exit_detail())
        return _Answer(_decode(line), None, "")

    def _time_out(self, seconds: float, budget: float, ply: int) -> _Answer:
        assert self.proc is not None
        _kill_group(self.proc)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        return _Answer(None, "timeout", f"used {self.used:.3f} s of its {budget:g} s and was killed")

    def exit_detail(self) -> str:
        """Why the program is gone: its exit status (if known soon) and its last stderr line."""
        if self.start_error:
            return self.start_error
        assert self.proc is not None
        status = "closed its output"
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            # Peek without reaping, so the process group id stays ours until ``close``.
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                break
            if info is not None:
                if info.si_code == os.CLD_EXITED:
                    status = f"exited with status {info.si_status}"
                else:
                    status = f"was killed by signal {info.si_status}"
                break
            time.sleep(0.01)
        last = self.stderr_tail()
        return f"{status}{f' ({last})' if last else ''}"

    def stderr_tail(self, limit: int = 200) -> str:
        """The last non-empty line the program wrote to stderr, shortened."""
        fd = self.stderr.fileno()
        size = os.fstat(fd).st_size
        tail = os.pread(fd, min(size, 4096), max(0, size - 4096)).decode("utf-8", "replace")
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return _shorten(lines[-1], limit) if lines else ""

    def finish(self, wait: float) -> None:
        """Wait up to ``wait`` seconds for the program to close its output (after Quit)."""
        if self.reader is not None:
            self.reader.join(max(0.0, wait))

    def close(self) -> None:
        """Kill the program's group, reap it, and drop an empty stderr log."""
        if self.proc is not None:
            _kill_group(self.proc)
            if self.cancel is not None:
                self.cancel.unregister(self.proc)
            self.proc.wait()
            if self.reader is not None:
                self.reader.join(1.0)
            if self.proc.stdin is not None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
        empty = os.fstat(self.stderr.fileno()).st_size == 0
        self.stderr.close()
        if empty and self.stderr_path is not None:
            self.stderr_path.unlink(missing_ok=True)


def _decode(line: bytes) -> str:
    return line.decode("utf-8", "replace").strip()


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------------------- a game


@dataclass(frozen=True)
class Fault:
    """How a game was forfeited: the kind (one of FAULT_KINDS), who, when and what."""

    kind: str
    colour: int  # RED or WHITE: the offender
    ply: int  # the ply it failed to play (0 = red's first move)
    answer: str | None  # the line it printed, if any
    detail: str

    def describe(self, program: Program) -> str:
        who = f"{COLOUR_WORDS[self.colour]} ({program.name})"
        said = f" answered {_shorten(self.answer)!r}" if self.answer is not None else ""
        return (
            f"ply {self.ply}: {who}{said}: {self.kind}: {self.detail}; {COLOUR_WORDS[self.colour]} forfeits"
        )


@dataclass
class GameResult:
    """One finished game, by colour: red's figures first, white's second."""

    red: Program
    white: Program
    size: int
    red_start: int
    white_start: int
    moves: list[int]  # the moves played; an offending move is not among them
    points: tuple[int, int]
    winner: int  # RED, WHITE, or 0 for a draw
    end: str  # "end rule", "two passes" or "fault"
    fault: Fault | None
    thinking: tuple[float, float]  # seconds of thinking
    slowest: tuple[tuple[float, int], tuple[float, int]]  # (seconds, ply) of the slowest answer; ply -1: none

    def program(self, colour: int) -> Program:
        return self.red if colour == RED else self.white


def _judge(rules: Rules, state: State, answer: _Answer, ply: int, notation: str) -> tuple[int, Fault | None]:
    """The action an answer names (-1 for none) and the fault it commits, if any."""
    grid = rules.grid
    mover = int(state.to_move[0])
    if answer.kind is not None:
        return -1, Fault(answer.kind, mover, ply, answer.text, answer.detail)
    text = answer.text
    assert text is not None
    if text == PASS:
        action = grid.num_cells
    elif CELL_WORD.fullmatch(text):
        try:
            action = parse_cell(grid, text, notation, allow_pass=False)
        except ValueError:
            return -1, Fault("illegal", mover, ply, text, f"{text} is not a cell of the board")
    else:
        what = "an empty line" if not text else f"{_shorten(text)!r}"
        return -1, Fault(
            "garbage", mover, ply, text, f"{what} is not a move (a cell name such as F6, or Pass)"
        )
    if not rules.legal_mask(state)[0, action]:
        kind = "pass" if action == grid.num_cells else "illegal"
        return action, Fault(kind, mover, ply, text, rules.why_illegal(state, action))
    return action, None


def play_game(
    rules: Rules,
    red: Program,
    white: Program,
    red_start: int,
    white_start: int,
    time_limit: float = 30.0,
    *,
    notation: str = "diff",
    cancel: Cancel | None = None,
    stderr_paths: tuple[Path | None, Path | None] = (None, None),
) -> GameResult:
    """Play one game between two programs and judge it (CodeCup rules and protocol).

    ``time_limit`` is each player's thinking budget in seconds. ``stderr_paths`` keep what the
    programs write to stderr (files left only when not empty). Raises MatchInterrupted when
    ``cancel`` is set during the game. Both programs are dead when this returns or raises.
    """
    if not rules.codecup:
        raise ValueError("the referee plays the codecup variant")
    grid = rules.grid
    state = rules.start(red_start, white_start)
    starts = [cell_name(grid, red_start, notation), cell_name(grid, white_start, notation)]
    players: list[_Player] = []
    try:
        players.append(_Player(red, stderr_paths[0], cancel))
        players.append(_Player(white, stderr_paths[1], cancel))
        players[0].pending = [*starts, "Start"]
        players[1].pending = list(starts)
        moves: list[int] = []
        fault = None
        while not state.terminated[0]:
            mover = int(state.to_move[0])
            ply = len(moves)
            answer = players[mover - 1].ask(time_limit, ply)
            action, fault = _judge(rules, state, answer, ply, notation)
            state = rules.step(state, action)  # an illegal action (or -1) is a forfeit
            if fault is not None:
                break
            moves.append(action)
            players[2 - mover].pending.append(cell_name(grid, action, notation))
        # Both get Quit, except a program that crashed or was killed for its time.
        quitters = [
            p
            for colour, p in zip((RED, WHITE), players, strict=True)
            if fault is None or fault.kind not in ("crash", "timeout") or fault.colour != colour
        ]
        for player in quitters:
            player.send(["Quit"])
        deadline = time.monotonic() + QUIT_GRACE_S
        for player in quitters:
            player.finish(deadline - time.monotonic())
        points = rules.score(state)[0]
        end = "fault" if fault is not None else "two passes" if state.passes[0] >= 2 else "end rule"
        return GameResult(
            red=red,
            white=white,
            size=rules.size,
            red_start=red_start,
            white_start=white_start,
            moves=moves,
            points=(int(points[0]), int(points[1])),
            winner=int(rules.winner(state)[0]),
            end=end,
            fault=fault,
            thinking=(players[0].used, players[1].used),
            slowest=(players[0].slowest, players[1].slowest),
        )
    finally:
        for player in players:
            player.close()


# ---------------------------------------------------------------------------------- a match


def draw_opening(rules: Rules, seed: int, opening: int) -> tuple[int, int]:
    """The start cells of opening ``opening``, drawn as the judge draws them; the same for any
    number of games, so a longer match extends a shorter one."""
    red, white = rules.draw_starts(1, np.random.default_rng([seed, opening]))
    return int(red[0]), int(white[0])


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success rate (``successes`` may be fractional: a draw
    counts half). (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in [0, {trials}], got {successes}")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class ProgramStats:
    """One program's record over a match."""

    name: str
    command: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count, its own faults only
    points: int = 0
    slowest_move: tuple[float, int, int] = (0.0, 0, -1)  # (seconds, game, ply)
    slowest_game: tuple[float, int] = (0.0, 0)  # (thinking seconds, game)

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    def to_json(self) -> dict:
        low, high = self.interval
        return {
            "command": self.command,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "faults": dict(self.faults),
            "mean_points": round(self.mean_points, 3),
            "win_rate": round(self.win_rate, 4),
            "win_rate_95": [round(low, 4), round(high, 4)],
            "slowest_move": {
                "seconds": round(self.slowest_move[0], 4),
                "game": self.slowest_move[1],
                "ply": self.slowest_move[2],
            },
            "slowest_game": {"seconds": round(self.slowest_game[0], 4), "game": self.slowest_game[1]},
        }


@dataclass
class MatchResult:
    """The finished games of a match (by game number, from 1) and its settings."""

    programs: tuple[Program, Program]
    settings: dict
    games: dict[int, GameResult]
    out_dir: Path | None = None
    interrupted: bool = False

    def stats(self) -> dict[str, ProgramStats]:
        stats = {p.name: ProgramStats(p.name, p.command) for p in self.programs}
        for number, game in sorted(self.games.items()):
            for colour in (RED, WHITE):
                s = stats[game.program(colour).name]
                i = colour - 1
                s.games += 1
                s.points += game.points[i]
                if game.winner == 0:
                    s.draws += 1
                elif game.winner == colour:
                    s.wins += 1
                else:
                    s.losses += 1
                if game.fault is not None and game.fault.colour == colour:
                    s.faults[game.fault.kind] = s.faults.get(game.fault.kind, 0) + 1
                seconds, ply = game.slowest[i]
                s.slowest_move = max(s.slowest_move, (seconds, number, ply), key=lambda m: m[0])
                s.slowest_game = max(s.slowest_game, (game.thinking[i], number), key=lambda m: m[0])
        return stats

    def crash_hint(self) -> str | None:
        """A hint when every game ended with a program crashing before its first move."""
        if not self.games:
            return None
        first = {}
        for game in self.games.values():
            fault = game.fault
            if fault is None or fault.kind != "crash" or fault.ply != fault.colour - 1:
                return None
            first.setdefault(game.program(fault.colour).name, fault.detail)
        names = " and ".join(sorted(first))
        details = "; ".join(f"{name}: {detail}" for name, detail in sorted(first.items()))
        where = f" (stderr logs in {self.out_dir / 'stderr'})" if self.out_dir else ""
        return (
            f"every game ended with {names} crashing before its first move ({details}){where}. "
            "Check that the command runs from this folder: start it by hand and type "
            "a start cell, another start cell and Start."
        )


def game_summary(number: int, game: GameResult, seed: int, notation: str = "diff") -> dict:
    """The JSON summary of one game of a match (the last line of its record, a results line)."""
    grid = hexgrid(game.size)
    names = {RED: game.red.name, WHITE: game.white.name}
    fault = None
    if game.fault is not None:
        f = game.fault
        fault = {
            "kind": f.kind,
            "colour": COLOUR_WORDS[f.colour],
            "program": names[f.colour],
            "ply": f.ply,
            "answer": f.answer,
            "detail": f.detail,
        }
    return {
        "game": number,
        "seed": seed,
        "opening": (number - 1) // 2,
        "size": game.size,
        "red": {"program": game.red.name, "command": game.red.command, "sha256": game.red.sha256},
        "white": {"program": game.white.name, "command": game.white.command, "sha256": game.white.sha256},
        "start": {
            "red": cell_name(grid, game.red_start, notation),
            "white": cell_name(grid, game.white_start, notation),
        },
        "winner": names.get(game.winner, "draw"),
        "winner_colour": COLOUR_WORDS.get(game.winner),
        "end": game.end,
        "points": {"red": game.points[0], "white": game.points[1]},
        "program_points": {names[RED]: game.points[0], names[WHITE]: game.points[1]},
        "fault": fault,
        "thinking": {"red": round(game.thinking[0], 4), "white": round(game.thinking[1], 4)},
        "slowest": {
            COLOUR_WORDS[c]: {"seconds": round(game.slowest[c - 1][0], 4), "ply": game.slowest[c - 1][1]}
            for c in (RED, WHITE)
        },
        "plies": len(game.moves),
    }


def game_record(number: int, game: GameResult, seed: int, notation: str = "diff") -> str:
    """The record of a game (the ``tw-rl analyze`` format), a fault comment, the JSON summary."""
    grid = hexgrid(game.size)
    text = format_record(grid, game.red_start, game.white_start, game.moves, notation)
    if game.fault is not None:
        text += f"# fault at {game.fault.describe(game.program(game.fault.colour))}\n"
    return text + "# " + json.dumps(game_summary(number, game, seed, notation)) + "\n"


def prepare_out_dir(out_dir: Path) -> None:
    """Create the results folder; RefereeError if it cannot be made or already holds results."""
    if out_dir.exists() and not out_dir.is_dir():
        raise RefereeError(f"--out {out_dir} exists and is not a folder")
    if out_dir.is_dir():
        results = ("results.jsonl", "summary.json")
        taken = sorted(p.name for p in out_dir.iterdir() if p.name.startswith("game-") or p.name in results)
        if taken:
            raise RefereeError(f"{out_dir} already holds results ({taken[0]}, ...); choose another --out")
    try:
        (out_dir / "stderr").mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RefereeError(f"cannot create {out_dir}: {err.strerror or err}") from None


def _progress_text(stats: dict[str, ProgramStats]) -> str:
    return " ".join(f"{s.name} {s.wins}-{s.draws}-{s.losses}" for s in stats.values())


def run_match(
    a: Program,
    b: Program,
    *,
    games: int = 2,
    seed: int = 0,
    size: int = 6,
    time_limit: float = 30.0,
    jobs: int = 1,
    notation: str = "diff",
    out_dir: Path | str | None = None,
    progress: bool = False,
) -> MatchResult:
    """Play ``games`` games between A and B and return them with the settings.

    Game n (from 1) uses opening (n - 1) // 2; A is red in odd-numbered games. With ``out_dir``
    every finished game is written as it ends (``game-00001.txt``, a line of ``results.jsonl``)
    and ``summary.json`` at the end, also after Ctrl-C, which kills every program and re-raises.
    ``progress`` shows a tqdm bar on stderr. Bad settings raise RefereeError before anything runs.
    """
    if games < 1 or jobs < 1:
        raise RefereeError(f"--games and --jobs must be at least 1 (got {games} and {jobs})")
    if not time_limit > 0 or math.isinf(time_limit):
        raise RefereeError(f"--time must be a positive number of seconds, got {time_limit}")
    if seed < 0:
        raise RefereeError(f"--seed must be >= 0, got {seed}")
    if size not in SIZES or notation not in NOTATIONS:
        raise RefereeError(f"size must be one of {SIZES} and notation one of {NOTATIONS}")
    if a.name == b.name:
        raise RefereeError("the two programs need different names")
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        prepare_out_dir(out)
    rules = Rules(size, "codecup")
    settings = {
        "games": games,
        "seed": seed,
        "size": size,
        "time": time_limit,
        "jobs": jobs,
        "notation": notation,
    }
    match = MatchResult((a, b), settings, {}, out)
    cancel = Cancel()
    write_lock = threading.Lock()
    results_file = open(out / "results.jsonl", "a", encoding="utf-8") if out is not None else None

    def one(number: int) -> tuple[int, GameResult]:
        red, white = (a, b) if number % 2 == 1 else (b, a)
        red_start, white_start = draw_opening(rules, seed, (number - 1) // 2)
        stderr_paths = (None, None)
        if out is not None:
            stem = out / "stderr" / GAME_FILE.format(number)[: -len(".txt")]
            stderr_paths = (Path(f"{stem}-{red.name}.txt"), Path(f"{stem}-{white.name}.txt"))
        game = play_game(
            rules,
            red,
            white,
            red_start,
            white_start,
            time_limit,
            notation=notation,
            cancel=cancel,
            stderr_paths=stderr_paths,
        )
        if out is not None and results_file is not None:
            write_atomic(out / GAME_FILE.format(number), game_record(number, game, seed, notation))
            line = json.dumps(game_summary(number, game, seed, notation)) + "\n"
            with write_lock:
                results_file.write(line)
                results_file.flush()
                os.fsync(results_file.fileno())
        return number, game

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", file=sys.stderr, disable=None, dynamic_ncols=True)
    executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="referee-game")
    futures = []
    try:
        futures = [executor.submit(one, number) for number in range(1, games + 1)]
        for future in as_completed(futures):
            number, game = future.result()
            match.games[number] = game
            if bar is not None:
                bar.set_postfix_str(_progress_text(match.stats()), refresh=False)
                bar.update(1)
    except BaseException:
        match.interrupted = True
        cancel.set()
        executor.shutdown(wait=True, cancel_futures=True)
        # Games that finished while the others were being stopped still count.
        for future in futures:
            if future.done() and not future.cancelled() and future.exception() is None:
                number, game = future.result()
                match.games[number] = game
        raise
    finally:
        executor.shutdown(wait=True)
        if bar is not None:
            bar.close()
        if results_file is not None:
            results_file.close()
        if out is not None:
            write_summary(match)
    return match


def write_summary(match: MatchResult) -> None:
    """Write ``summary.json`` (settings, per-program figures) into the match's folder."""
    assert match.out_dir is not None
    summary = {
        "programs": {p.name: p.command for p in match.programs},
        "settings": match.settings,
        "games_finished": len(match.games),
        "interrupted": match.interrupted,
        "win_rate_note": "wins plus half the draws per game; 95% Wilson score interval",
        "stats": {name: s.to_json() for name, s in match.stats().items()},
    }
    write_atomic(match.out_dir / "summary.json", json.dumps(summary, indent=2) + "\n")


def format_table(match: MatchResult) -> str:
    """The final table: one row per program, then the faults and the commands."""
    stats = match.stats()
    header = (
        f"{'program':<8}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'faults':>7}"
        f"{'mean pts':>10}{'win rate':>10}  {'95% CI':<16}{'slowest move':>20}{'slowest game':>20}"
    )
    rows = [header]
    for s in stats.values():
        low, high = s.interval
        move = f"{s.slowest_move[0]:.3f} s (g{s.slowest_move[1]})" if s.games else "-"
        game = f"{s.slowest_game[0]:.3f} s (g{s.slowest_game[1]})" if s.games else "-"
        rows.append(
            f"{s.name:<8}{s.games:>6}{s.wins:>6}{s.draws:>6}{s.losses:>7}{sum(s.faults.values()):>7}"
            f"{s.mean_points:>10.1f}{100 * s.win_rate:>9.1f}%  "
            f"{f'[{100 * low:.1f}%, {100 * high:.1f}%]':<16}{move:>20}{game:>20}"
        )
    rows.append("win rate = (wins + draws / 2) / games; 95% CI: Wilson score interval")
    for s in stats.values():
        faults = ", ".join(f"{kind} {count}" for kind, count in sorted(s.faults.items())) or "none"
        rows.append(f"{s.name}: {s.command}  [faults: {faults}]")
    if match.out_dir is not None:
        rows.append(f"results in {match.out_dir}")
    return "\n".join(rows)
