"""The built-in player kinds, each defined once (the seam is ``tw_rl.rating.kinds``).

- ``random``, ``greedy``, ``mcts[@N]`` (``baseline``): the batched baselines of
  ``tw_rl.core.baselines`` and the standard-library UCT player (N playouts a move, default 200);
- ``ckpt:PATH[@N]`` (``checkpoint``): training checkpoints, PATH a file, a folder (a run folder or
  its ``checkpoints/``), a glob, or ``default`` (the shipped teacher); N simulations a move
  (default: the rating run's ``simulations``; ``@0`` or ``@raw``: the raw policy's best move);
- ``student:PATH`` (``student``): the raw policy of a student weights file, in-process;
- ``program:COMMAND`` (``program``): an outside program speaking the CodeCup protocol;
- ``weights:PATH[@SECONDS]``: the CodeCup bot with a weights file (``default``: the shipped
  student of the board, ``none``: no network), a ``program`` on a clock of SECONDS a game;
- ``release:VERSION[@SECONDS]``: a frozen release (``tw_rl.referee.releases``, Python or C++), a
  ``program`` on a clock of SECONDS a game.

Torch is imported only where a checkpoint or a student is read or built (function-level imports of
``tw_rl.rating.players`` and ``tw_rl.training.checkpoint``), so that the registry, and the help
texts taken from it, load without it (``tw-rl --help``).
"""

from __future__ import annotations

import glob as _glob
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from tw_rl.codecup.weights import CODECUP_SIZE, WeightsError, default_weights, read_weights
from tw_rl.core.baselines import BASELINES
from tw_rl.core.rules import Rules
from tw_rl.files import file_sha256
from tw_rl.rating.kinds import (
    Context,
    Player,
    PlayerKind,
    PlayerSpec,
    RatingError,
    count_suffix,
    register,
    seconds_suffix,
    split_suffix,
)
from tw_rl.rating.results_db import Identity
from tw_rl.referee.process import Program, RefereeError, script_sha256
from tw_rl.referee.releases import ReleaseError, cached_sha, release

BASELINE_NAMES = ("random", "greedy", "mcts")
DEFAULT_PLAYOUTS = 200  # mcts without @N


class Baseline(PlayerKind):
    name = "baseline"
    words = ("baseline",)
    syntax = "random, greedy, mcts[@N]"
    summary = f"the baselines; N playouts a move, default {DEFAULT_PLAYOUTS}"

    def claims(self, text: str) -> bool:
        return text.split("@")[0] in BASELINE_NAMES

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        label, tail = split_suffix(text)
        if label != "mcts" and tail is not None:
            raise RatingError(f"player {text!r}: only mcts takes @PLAYOUTS (e.g. mcts@200)")
        if label == "mcts":
            _, playouts = count_suffix(text, text, "playouts a move", DEFAULT_PLAYOUTS, 1)
            return [self.spec("mcts", playouts, name)]
        return [self.spec(label, 0, name)]

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        return [self.spec(str(item.get("label", "")), int(item.get("playouts", 0)), name)]

    def spec(self, label: str, playouts: int, name: str) -> PlayerSpec:
        if label not in BASELINE_NAMES:
            raise RatingError(f"unknown baseline {label!r}; one of {', '.join(BASELINE_NAMES)}")
        if label != "mcts":
            return PlayerSpec(self.name, name or label, {"label": label})
        playouts = playouts or DEFAULT_PLAYOUTS
        if playouts < 1:
            raise RatingError(f"mcts needs at least 1 playout, got {playouts}")
        return PlayerSpec(self.name, name or f"mcts@{playouts}", {"label": "mcts", "playouts": playouts})

    def identity(self, spec: PlayerSpec) -> Identity:
        label = spec.options["label"]
        search = {"playouts": spec.options["playouts"]} if label == "mcts" else {}
        return Identity(self.name, label=label, search=search)

    def build(self, spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
        from tw_rl.rating.players import uct_player  # torch, only to build a player

        label = spec.options["label"]
        return uct_player(spec.options["playouts"]) if label == "mcts" else BASELINES[label]


class Checkpoint(PlayerKind):
    name = "checkpoint"
    words = ("ckpt", "checkpoint")
    syntax = "ckpt:PATH[@N]"
    summary = (
        "a training checkpoint: a file, a run folder, a glob, or default for the shipped teacher; "
        "N simulations a move, @raw: the raw policy"
    )
    uses_torch = True
    curve = True

    def claims(self, text: str) -> bool:
        return text.endswith(".pt") or any(ch in text for ch in "*?[") or Path(text).is_dir()

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        path, sims = count_suffix(text, text, "simulations a move", context.simulations, 0, raw=True)
        return self.specs(path, sims, name)

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        return self.specs(str(item.get("path", "")), int(item.get("simulations", context.simulations)), name)

    def specs(self, pattern: str, simulations: int, name: str = "") -> list[PlayerSpec]:
        """One checkpoint player per file of ``pattern``; a name fits one file only."""
        if simulations < 0:
            raise RatingError(f"player ckpt:{pattern}: simulations must be >= 0")
        files = checkpoint_files(pattern)
        if name and len(files) > 1:
            raise RatingError(f"player {name}: a name fits one checkpoint, {pattern} has {len(files)}")
        return [checkpoint_spec(f, simulations, name) for f in files]

    def identity(self, spec: PlayerSpec) -> Identity:
        return Identity(self.name, sha256=spec.sha256, search={"simulations": spec.options["simulations"]})

    def build(self, spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
        from tw_rl.rating.players import checkpoint_player  # torch, only to build a player

        return checkpoint_player(spec.path, spec.options["simulations"], rules, device)


class Student(PlayerKind):
    name = "student"
    words = ("student",)
    syntax = "student:PATH"
    summary = "the raw policy of a student weights file"
    uses_torch = True

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        weights, size = weights_file(text, f"student:{text}", context.size)
        return [
            PlayerSpec(
                self.name, name or f"{weights.stem}@raw", {}, file_sha256(weights), str(weights), size=size
            )
        ]

    def identity(self, spec: PlayerSpec) -> Identity:
        return Identity(self.name, sha256=spec.sha256, search={"policy": "raw"})

    def build(self, spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
        from tw_rl.rating.players import student_player  # torch, only to build a player

        return student_player(spec.path, rules)


class OutsideProgram(PlayerKind):
    name = "program"
    words = ("program", "cmd")
    syntax = "program:COMMAND"
    summary = "an outside program speaking the CodeCup protocol"
    in_process = False

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        return [program_spec(text, name)]

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        return [program_spec(str(item.get("command", "")), name)]

    def identity(self, spec: PlayerSpec) -> Identity:
        return Identity(self.name, sha256=spec.sha256, command=spec.options["command"])

    def program(self, spec: PlayerSpec) -> Program:
        try:
            parsed = Program.parse(spec.name, spec.options["command"])
        except RefereeError as err:
            raise RatingError(str(err)) from None
        seconds = spec.options.get("seconds")  # a clocked spelling's clock, which the judge keeps
        return Program(parsed.name, parsed.command, parsed.argv, spec.sha256 or parsed.sha256, seconds)


class Weights(PlayerKind):
    """A spelling of ``program``: the CodeCup bot (``python -m tw_rl.codecup``) with a weights file."""

    name = "weights"
    words = ("weights",)
    syntax = "weights:PATH[@SECONDS]"
    summary = (
        "the CodeCup bot with a student weights file, default: the shipped one, none: no network; "
        "a clock of SECONDS a game"
    )

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        path, seconds = seconds_suffix(text, f"weights:{text}")
        if path == "none":
            weights_args: tuple[str, ...] = ("--no-weights",)
            default = f"bot-noweights@{seconds:g}s"
        else:
            weights, _ = weights_file(path, f"weights:{text}", context.size)
            weights_args = ("--weights", str(weights))
            default = f"bot+{weights.stem}@{seconds:g}s"
        board = () if context.size == CODECUP_SIZE else ("--size", str(context.size))  # 6: as it always was
        argv = (sys.executable, "-m", "tw_rl.codecup", *weights_args, *board, "--time", f"{seconds:g}")
        return [program_spec(shlex.join(argv), name or default, seconds)]

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        return self.parse(with_seconds(str(item.get("path", "")), item), name, context)


class Release(PlayerKind):
    """A spelling of ``program``: a frozen release (``tw_rl.referee.releases``) on its clock."""

    name = "release"
    words = ("release",)
    syntax = "release:VERSION[@SECONDS]"
    summary = "a frozen release of baselines/ on a clock of SECONDS a game"

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        version, seconds = seconds_suffix(text, f"release:{text}")
        try:
            found = release(version)
        except ReleaseError as err:
            raise RatingError(f"player {err}") from None
        command = shlex.join(found.command(seconds))
        options = {"command": command, "seconds": seconds}
        return [PlayerSpec("program", name or f"release-{version}@{seconds:g}s", options, found.sha256)]

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        return self.parse(with_seconds(str(item.get("version", "")), item), name, context)


# ------------------------------------------------------------------------- helpers


def with_seconds(text: str, item: Mapping) -> str:
    """``TEXT@SECONDS`` from a mapping's ``seconds`` (TEXT alone without one)."""
    seconds = item.get("seconds")
    return f"{text}@{seconds}" if seconds is not None else text


def checkpoint_files(pattern: str) -> list[Path]:
    """The checkpoint files a pattern stands for (a file, a folder, a glob, ``default``)."""
    from tw_rl.training.checkpoint import CHECKPOINT_PATTERN, DEFAULT_TEACHER  # torch: reading checkpoints

    if pattern == "default":  # the shipped teacher
        if not DEFAULT_TEACHER.is_file():
            raise RatingError(f"the shipped teacher {DEFAULT_TEACHER} is missing from this install")
        return [DEFAULT_TEACHER]
    path = Path(pattern).expanduser()
    if any(ch in pattern for ch in "*?["):
        files = [Path(p) for p in _glob.glob(str(path))]
    elif path.is_dir():
        folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
        files = [p for p in folder.glob("ckpt-g*.pt") if CHECKPOINT_PATTERN.search(p.name)]
    elif path.is_file():
        files = [path]
    else:
        raise RatingError(f"no checkpoint file, folder or glob matches {pattern!r}")
    files = [f for f in files if f.is_file()]
    if not files:
        raise RatingError(f"no checkpoint files in {pattern!r}")

    def order(p: Path):
        m = CHECKPOINT_PATTERN.search(p.name)
        return (str(p.parent), int(m.group(1)) if m else -1, p.name)

    return sorted(files, key=order)


def checkpoint_spec(path: str | Path, simulations: int, name: str = "") -> PlayerSpec:
    """A checkpoint player: reads its generation, step and board size, hashes the file."""
    from tw_rl.training.checkpoint import CheckpointError, load_checkpoint  # torch: reading checkpoints

    path = Path(path)
    try:
        payload = load_checkpoint(path)
    except CheckpointError as err:
        raise RatingError(str(err)) from None
    parent = path.resolve().parent
    run_dir = str(parent.parent) if parent.name == "checkpoints" else ""  # the run above checkpoints/
    generation = int(payload.get("generation", -1))
    budget = "raw" if simulations == 0 else str(simulations)
    label = name or f"{Path(run_dir).name if run_dir else path.stem}/g{generation}@{budget}"
    return PlayerSpec(
        "checkpoint",
        label,
        {"simulations": simulations},
        sha256=file_sha256(path),
        path=str(path.resolve()),
        run_dir=run_dir,
        generation=generation,
        step=int(payload.get("step", 0)),
        size=int(payload["size"]),
    )


def program_spec(command: str, name: str = "", seconds: float | None = None) -> PlayerSpec:
    """An outside program: its command line, named after it unless ``name`` is given; ``seconds``:
    its own clock a game, which the judge keeps for it (None: the rating run's ``time``)."""
    command = command.strip()
    if not command:
        raise RatingError("program: the command is empty")
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise RatingError(f"program: cannot split {command!r}: {err}") from None
    if shutil.which(argv[0]) is None:
        raise RatingError(f"program: no such program {argv[0]!r} (command {command!r})")
    default = "prog:" + " ".join(a for a in argv if not a.startswith("-") and "python" not in a)[:40]
    sha = cached_sha(argv[0]) or script_sha256(tuple(argv))  # a C++ release: its source's
    options: dict = {"command": command} if seconds is None else {"command": command, "seconds": seconds}
    return PlayerSpec("program", name or default, options, sha)


def weights_file(path: str, label: str, size: int) -> tuple[Path, int]:
    """A student weights file that the bot can read (``default``: the one shipped for the
    ``size`` board) and the board it is for."""
    if path == "default":
        path = default_weights(size)
        if path is None:
            raise RatingError(f"player {label}: no student is shipped for the size-{size} board")
    try:
        weights = read_weights(path)
    except WeightsError as err:
        raise RatingError(f"player {label}: {err}") from None
    return Path(path).resolve(), weights.board_size


for _kind in (Baseline(), Checkpoint(), Student(), OutsideProgram(), Weights(), Release()):
    register(_kind)
