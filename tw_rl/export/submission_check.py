"""The check of a built submission: whole games against it in a fresh, isolated interpreter (or, for
the C++ target, its binary compiled in an empty folder).

``check_submission`` runs the file (``python -I -S``, numpy, torch and any ``tw_rl`` outside
the file blocked) in an empty temporary folder and plays one game as red and one as white
against it (``play_check_game``: random legal answers, every answer of the file checked for
legality and time); ``format_check`` sums the games up in one line (``tw-rl export --check``).
Standard library plus ``tw_rl.codecup``, like the builder (``tw_rl.export.submission``).
"""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tw_rl.codecup.rules import RED, WHITE, Board, Position, judge_start
from tw_rl.core.state import COLOUR_NAMES
from tw_rl.native import build as native_build

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
    pass


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

    The opponent (this process) draws the start cells as the judge does, follows the game
    with ``tw_rl.codecup.rules``, answers with a random legal move (seeded), checks every
    answer of the program for legality, and sends ``Quit`` when the game is over.  The game is
    ``ok`` when every answer came in time and was legal, the program exited with code 0 after
    ``Quit``, printed nothing more, and wrote nothing on stderr.
    """
    if colour not in COLOUR_NAMES.values():
        raise ValueError(f"colour must be {' or '.join(map(repr, COLOUR_NAMES.values()))}, got {colour!r}")
    mine = RED if colour == COLOUR_NAMES[RED] else WHITE
    board = Board(size)
    rng = random.Random(seed)
    red_cell, white_cell = judge_start(board, rng)
    pos = Position.start(board, red_cell, white_cell)
    answers = 0
    problem = None
    start = time.monotonic()

    def name(move: int) -> str:
        return "Pass" if move == board.num_cells else board.name(move)

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err_file:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err_file,
            text=True,
            cwd=cwd,
        )
        lines: queue.Queue[str | None] = queue.Queue()

        def pump() -> None:
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()

        def send(text: str) -> None:
            try:
                proc.stdin.write(text + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise _Failed(f"the program closed its input (exit code {proc.poll()})") from None

        def receive() -> str:
            try:
                line = lines.get(timeout=move_timeout)
            except queue.Empty:
                raise _Failed(f"no answer within {move_timeout:g} s at ply {pos.ply}") from None
            if line is None:
                raise _Failed(
                    f"the program ended (exit code {proc.wait()}) instead of answering at ply {pos.ply}"
                )
            return line.strip()

        try:
            send(board.name(red_cell))
            send(board.name(white_cell))
            if mine == RED:
                send("Start")
            else:
                move = rng.choice(pos.legal_moves())
                pos.play(move)
                send(name(move))
            while True:
                text = receive()
                try:
                    move = board.num_cells if text == "Pass" else board.parse(text)
                except ValueError:
                    raise _Failed(f"not a move at ply {pos.ply}: {text[:40]!r}") from None
                if move not in pos.legal_moves():
                    raise _Failed(f"illegal move {text!r} at ply {pos.ply}")
                answers += 1
                pos.play(move)
                if pos.over:
                    break
                move = rng.choice(pos.legal_moves())
                pos.play(move)
                if pos.over:
                    break
                send(name(move))
            send("Quit")
            try:
                proc.wait(timeout=move_timeout)
            except subprocess.TimeoutExpired:
                raise _Failed("the program did not exit after Quit") from None
            reader.join(timeout=5)
            extra = []
            while not lines.empty():
                item = lines.get()
                if item is not None:
                    extra.append(item.strip())
            if extra:
                raise _Failed(f"output after the game: {extra[0][:40]!r}")
            if proc.returncode != 0:
                raise _Failed(f"exit code {proc.returncode} after Quit")
        except _Failed as failure:
            problem = str(failure)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        err_file.seek(0)
        stderr = err_file.read()
    if stderr.strip():
        first = stderr.strip().splitlines()[0][:200]
        problem = f"stderr: {first}" if problem is None else f"{problem}; stderr: {first}"
    return GameReport(
        colour=colour,
        ok=problem is None,
        plies=pos.ply,
        answers=answers,
        returncode=proc.returncode,
        seconds=time.monotonic() - start,
        problem=problem,
        stderr=stderr,
    )


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
