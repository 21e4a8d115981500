"""The check of a built submission: whole games against it in a fresh, isolated interpreter (or, for
the C++ target, its binary compiled in an empty folder).

``check_submission`` runs the file (``python -I -S``, numpy, torch and any ``tw_rl`` outside
the file blocked) in an empty temporary folder and plays one game as red and one as white
against it (``play_check_game``: random legal answers, every answer of the file checked for
legality and time); ``format_check`` sums the games up in one line (``tw-rl export --check``).
The program runs on the referee's process layer (``tw_rl.referee.process``); the game is
followed with ``tw_rl.codecup.rules``, so the check needs no numpy.
"""

from __future__ import annotations

import random
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tw_rl.codecup.rules import RED, WHITE, Board, Position, judge_start
from tw_rl.core.state import COLOUR_NAMES
from tw_rl.native import build as native_build
from tw_rl.referee.process import REAP_S, Answer, PlayerProcess, Program, decode

QUIT_READ_S = 5.0  # how long the check waits for the program's output to close after it exited

# Run a file with numpy, torch and any tw_rl outside the file unimportable.  With ``-I -S``
# (no site-packages, no script or working directory on sys.path) they are missing anyway;
# the finder makes sure and names the culprit.  The submission's own finder goes in front
# of it, so only the embedded tw_rl modules get through.
ISOLATION_WRAPPER = """\
import runpy, sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "torch", "tw_rl"):
            raise ImportError("blocked in the isolated check: " + name)
        return None
sys.meta_path.insert(0, _Block())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def isolated_command(path: Path, *options: str) -> list[str]:
    """The command line running submission ``path`` in a fresh, isolated interpreter."""
    return [sys.executable, "-I", "-S", "-c", ISOLATION_WRAPPER, str(Path(path).resolve()), *options]


@dataclass
class GameReport:
    """One check game: whether the program played it cleanly and, if not, why."""

    colour: str  # the colour the program played
    ok: bool
    plies: int
    answers: int  # moves the program made
    returncode: int | None
    seconds: float
    problem: str | None  # why not ok
    stderr: str


class _Failed(Exception):
    """Why the check game failed (the message of ``GameReport.problem``)."""


def play_check_game(
    command: list[str],
    colour: str,
    *,
    size: int = 6,
    seed: int = 0,
    cwd: str | Path | None = None,
    move_timeout: float = 30.0,
) -> GameReport:
    """Play one whole CodeCup game against the program ``command`` playing ``colour``.

    The program runs as the referee runs one (``tw_rl.referee.process``: its own session, a
    clocked reader, every process of it killed at the end). The opponent (this process) draws
    the start cells as the judge does, follows the game with ``tw_rl.codecup.rules``, answers
    with a random legal move (seeded), checks every answer of the program for legality, and
    sends ``Quit`` when the game is over. The game is ``ok`` when every answer came within
    ``move_timeout`` seconds and was legal, the program exited with code 0 after ``Quit``,
    printed nothing more, and wrote nothing on stderr.
    """
    if colour not in COLOUR_NAMES.values():
        raise ValueError(f"colour must be {' or '.join(map(repr, COLOUR_NAMES.values()))}, got {colour!r}")
    game = _CheckGame(Board(size), RED if colour == COLOUR_NAMES[RED] else WHITE, random.Random(seed))
    problem = None
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tw_rl-check-log-") as logs:
        log = Path(logs) / "stderr.txt"
        program = Program("checked", shlex.join(command), tuple(command))
        player = PlayerProcess(program, log, None, cwd=cwd)
        try:
            game.play(player, move_timeout)
            _quit(player, move_timeout)
        except _Failed as failure:
            problem = str(failure)
        finally:
            player.close()
        stderr = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    if stderr.strip():
        first = stderr.strip().splitlines()[0][:200]
        problem = f"stderr: {first}" if problem is None else f"{problem}; stderr: {first}"
    return GameReport(
        colour=colour,
        ok=problem is None,
        plies=game.pos.ply,
        answers=game.answers,
        returncode=player.proc.returncode if player.proc is not None else None,
        seconds=time.monotonic() - start,
        problem=problem,
        stderr=stderr,
    )


class _CheckGame:
    """The game of a check: the position, the seeded opponent, and the answers checked."""

    def __init__(self, board: Board, mine: int, rng: random.Random) -> None:
        self.board = board
        self.mine = mine
        self.rng = rng
        red_cell, white_cell = judge_start(board, rng)
        self.pos = Position.start(board, red_cell, white_cell)
        self.opening = [board.name(red_cell), board.name(white_cell)]
        self.answers = 0

    def name(self, move: int) -> str:
        return "Pass" if move == self.board.num_cells else self.board.name(move)

    def reply(self) -> str:
        """The opponent's random legal move, played."""
        move = self.rng.choice(self.pos.legal_moves())
        self.pos.play(move)
        return self.name(move)

    def play(self, player: PlayerProcess, move_timeout: float) -> None:
        """Ask the program for its moves, each answered by the opponent, until the game is over;
        _Failed at the first answer that is late, not a move, or illegal."""
        player.pending = [*self.opening, "Start" if self.mine == RED else self.reply()]
        while True:
            self.check(player.ask(player.used + move_timeout, self.pos.ply), player, move_timeout)
            if self.pos.over:
                return
            move = self.reply()
            if self.pos.over:
                return
            player.pending.append(move)

    def check(self, answer: Answer, player: PlayerProcess, move_timeout: float) -> None:
        """Play the program's answer; _Failed when it is none, late, not a move, or illegal."""
        ply = self.pos.ply
        if answer.kind == "timeout":
            raise _Failed(f"no answer within {move_timeout:g} s at ply {ply}")
        if answer.kind == "crash":
            if player.proc is None:
                raise _Failed(answer.detail)
            code = player.exit_code(wait=REAP_S)
            raise _Failed(f"the program ended (exit code {code}) instead of answering at ply {ply}")
        if answer.kind is not None:  # a line printed before it was asked for
            raise _Failed(f"{answer.detail} at ply {ply}")
        text = answer.text or ""
        try:
            move = self.board.num_cells if text == "Pass" else self.board.parse(text)
        except ValueError:
            raise _Failed(f"not a move at ply {ply}: {text[:40]!r}") from None
        if move not in self.pos.legal_moves():
            raise _Failed(f"illegal move {text!r} at ply {ply}")
        self.answers += 1
        self.pos.play(move)


def _quit(player: PlayerProcess, move_timeout: float) -> None:
    """Send ``Quit``; _Failed unless the program then exits with code 0 and prints nothing more."""
    if not player.send(["Quit"]):
        raise _Failed(f"the program closed its input (exit code {player.exit_code(wait=REAP_S)})")
    code = player.exit_code(wait=move_timeout)
    if code is None:
        raise _Failed("the program did not exit after Quit")
    player.finish(QUIT_READ_S)
    extra = []
    while not player.lines.empty():
        _, line = player.lines.get()
        if line is not None:
            extra.append(decode(line))
    if extra:
        raise _Failed(f"output after the game: {extra[0][:40]!r}")
    if code != 0:
        raise _Failed(f"exit code {code} after Quit")


def check_submission(path: Path, budget: float = 3.0, seed: int = 0) -> list[GameReport]:
    """One whole game as red and one as white of the file at ``path``, each isolated, in a
    fresh interpreter run in an empty temporary directory with ``--time budget``."""
    reports = []
    with tempfile.TemporaryDirectory(prefix="tw_rl-check-") as tmp:
        for i, colour in enumerate(COLOUR_NAMES.values()):
            command = isolated_command(path, "--time", f"{budget:g}")
            reports.append(play_check_game(command, colour, seed=seed + i, cwd=tmp, move_timeout=budget + 30))
    return reports


def check_native_submission(path: Path, budget: float = 3.0, seed: int = 0) -> list[GameReport]:
    """The C++ file at ``path`` compiled (``-Wall -Wextra``, no warning allowed) in an empty
    temporary folder, then one whole game as red and one as white of the binary run there with
    ``--time budget``; ``NativeBuildError`` (one line) when it does not compile cleanly."""
    reports = []
    with tempfile.TemporaryDirectory(prefix="tw_rl-check-") as tmp:
        binary = native_build.compile_source(Path(path), Path(tmp) / "bot")
        for i, colour in enumerate(COLOUR_NAMES.values()):
            command = [str(binary), "--time", f"{budget:g}"]
            reports.append(play_check_game(command, colour, seed=seed + i, cwd=tmp, move_timeout=budget + 30))
    return reports


def format_check(reports: list[GameReport]) -> str:
    """One line: 'check: ok (...)' or 'check: FAIL (...)'."""
    parts = []
    for r in reports:
        if r.ok:
            parts.append(f"{r.colour}: {r.plies} plies, {r.answers} answers, {r.seconds:.1f} s")
        else:
            parts.append(f"{r.colour}: {r.problem}")
    if all(r.ok for r in reports):
        return "check: ok (" + "; ".join(parts) + "; every answer legal, exit 0 after Quit)"
    return "check: FAIL (" + "; ".join(parts) + ")"
