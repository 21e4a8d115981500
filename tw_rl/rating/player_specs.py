"""Player specs: the arena's player language, parsed into PlayerSpecs (who plays, not how).

Players (``parse_players``), each a string or a mapping:

- ``random``, ``greedy``: the batched baselines of ``tw_rl.core.baselines``;
- ``mcts`` or ``mcts@N``: the standard-library UCT player (``tw_rl.codecup.players.UctPlayer``,
  N playouts per move, default 200), played in-process one game at a time;
- ``ckpt:PATH[@N]``: training checkpoints, PATH a file, a folder (a run folder or its
  ``checkpoints/``), a glob, or ``default`` (the teacher shipped in the package); each searches
  N simulations per move (default: the config's ``simulations``; ``@0`` or ``@raw``: the raw
  policy's best move, no search);
- ``weights:PATH[@SECONDS]``: the CodeCup bot with an exported weights file, on a clock of
  SECONDS per game (default: the CodeCup clock), played through the referee like a program; PATH
  ``default`` is the student shipped in the package, ``none`` the bot without a network
  (``--no-weights``);
- ``student:PATH``: the raw policy of a student weights file (its most likely legal move, no
  search), in-process with the torch twin of the pure-Python network (``default``: the shipped
  student);
- ``program:COMMAND``: an outside program speaking the CodeCup protocol, played through
  the referee (e.g. ``program:python -m tw_rl.codecup --player greedy --time 5``);
- ``release:VERSION[@SECONDS]``: a frozen released submission, ``baselines/tw_rl-VERSION.py`` of
  the source checkout, on a clock of SECONDS per game (default: the CodeCup clock), played as a
  program; the fixed opponents of every strength claim.

``NAME=SPEC`` gives a player its display name. A mapping has ``kind`` (``ckpt`` / ``checkpoint``,
``weights``, ``student``, ``baseline``, ``program``, ``release``) and ``path``, ``simulations``,
``seconds``, ``label`` (random, greedy, mcts), ``playouts``, ``command``, ``version``, ``name``
as fits the kind.
"""

from __future__ import annotations

import glob as _glob
import json
import re
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.codecup.evaluation import DEFAULT_WEIGHTS
from tw_rl.codecup.weights import WeightsError, read_weights
from tw_rl.files import file_sha256
from tw_rl.rating.results_db import Identity
from tw_rl.referee.process import script_sha256
from tw_rl.training.checkpoint import CHECKPOINT_PATTERN, DEFAULT_TEACHER, CheckpointError, load_checkpoint

# The player kinds, defined here only: the string form names one by a prefix (``ckpt:PATH``) or
# a baseline name, the mapping form by ``kind``. A weights: bot becomes a program spec.
PREFIXES = {
    "ckpt": "checkpoint",
    "checkpoint": "checkpoint",
    "weights": "weights",
    "student": "student",
    "program": "program",
    "cmd": "program",
    "release": "release",
}
KIND_ALIASES = {**PREFIXES, "baseline": "baseline"}  # the mapping form's ``kind``
BASELINE_NAMES = ("random", "greedy", "mcts")
DEFAULT_PLAYOUTS = 200  # mcts without @N
USAGE = (
    "use random, greedy, mcts[@N], ckpt:PATH[@N], weights:PATH[@SECONDS], student:PATH, "
    "release:VERSION[@SECONDS] or program:COMMAND (optionally NAME=...)"
)
# Frozen released submissions (``release:VERSION``): in the source checkout, beside the package.
RELEASES_DIR = Path(__file__).resolve().parents[2] / "baselines"
_NAME_PREFIX = re.compile(  # NAME=SPEC; the name is checked against _NAME
    r"^([^=:]+)=(?=(?:" + "|".join(map(re.escape, [*PREFIXES, *BASELINE_NAMES])) + r")\b)"
)
_NAME = re.compile(r"[A-Za-z0-9_.+\-/~]+")


class ArenaError(ValueError):
    """A bad player, setting or file: a one-line message for the user."""


@dataclass
class PlayerSpec:
    """One concrete player (a checkpoint glob expands into one spec per file)."""

    kind: str  # checkpoint, student, baseline or program
    name: str  # display name proposed for the results database
    label: str = ""  # baseline: random, greedy or mcts
    path: str = ""  # checkpoint / student weights file
    simulations: int = 0  # checkpoint: search simulations per move (0 = raw policy)
    playouts: int = 0  # mcts: playouts per move
    command: str = ""  # program: the command line
    sha256: str = ""  # of the file
    generation: int | None = None  # checkpoint
    step: int | None = None  # checkpoint
    size: int | None = None  # checkpoint's board size
    run_dir: str = ""  # checkpoint: the training run folder it belongs to ("" if none)

    @property
    def in_process(self) -> bool:
        return self.kind != "program"

    def identity(self) -> Identity:
        if self.kind == "checkpoint":
            return Identity("checkpoint", sha256=self.sha256, search={"simulations": self.simulations})
        if self.kind == "baseline":
            search = {"playouts": self.playouts} if self.label == "mcts" else {}
            return Identity("baseline", label=self.label, search=search)
        if self.kind == "program":
            return Identity("program", sha256=self.sha256, command=self.command)
        if self.kind == "student":  # the raw policy of a weights file
            return Identity("weights", sha256=self.sha256, search={"policy": "raw"})
        return Identity(self.kind, sha256=self.sha256)

    def serve_json(self) -> str:
        """What ``python -m tw_rl.rating.serve`` needs to rebuild this player."""
        return json.dumps(
            {
                "kind": self.kind,
                "label": self.label,
                "path": self.path,
                "simulations": self.simulations,
                "playouts": self.playouts,
            },
            sort_keys=True,
        )


# ---------------------------------------------------------------------- one kind each


def _simulations_suffix(text: str, default: int) -> tuple[str, int]:
    """Split ``PATH@N`` (or ``PATH@raw``) into the path and the simulations."""
    head, at, tail = text.rpartition("@")
    if at and (tail.isdigit() or tail == "raw"):
        return head, 0 if tail == "raw" else int(tail)
    return text, default


def _checkpoint_files(pattern: str) -> list[Path]:
    if pattern == "default":  # the shipped teacher
        if not DEFAULT_TEACHER.is_file():
            raise ArenaError(f"the shipped teacher {DEFAULT_TEACHER} is missing from this install")
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
        raise ArenaError(f"no checkpoint file, folder or glob matches {pattern!r}")
    files = [f for f in files if f.is_file()]
    if not files:
        raise ArenaError(f"no checkpoint files in {pattern!r}")

    def order(p: Path):
        m = CHECKPOINT_PATTERN.search(p.name)
        return (str(p.parent), int(m.group(1)) if m else -1, p.name)

    return sorted(files, key=order)


def _run_dir_of(path: Path) -> str:
    """The training run a checkpoint belongs to: the folder above ``checkpoints/``."""
    parent = path.resolve().parent
    return str(parent.parent) if parent.name == "checkpoints" else ""


def checkpoint_spec(path: str | Path, simulations: int, name: str = "") -> PlayerSpec:
    """A checkpoint player: reads its generation, step and board size, hashes the file."""
    path = Path(path)
    try:
        payload = load_checkpoint(path)
    except CheckpointError as err:
        raise ArenaError(str(err)) from None
    run_dir = _run_dir_of(path)
    generation = int(payload.get("generation", -1))
    budget = "raw" if simulations == 0 else str(simulations)
    label = name or f"{Path(run_dir).name if run_dir else path.stem}/g{generation}@{budget}"
    return PlayerSpec(
        kind="checkpoint",
        name=label,
        path=str(path.resolve()),
        simulations=simulations,
        sha256=file_sha256(path),
        generation=generation,
        step=int(payload.get("step", 0)),
        size=int(payload["size"]),
        run_dir=run_dir,
    )


def _checkpoint_specs(pattern: str, simulations: int, name: str = "") -> list[PlayerSpec]:
    """One checkpoint player per file of ``pattern``; a name fits one file only."""
    files = _checkpoint_files(pattern)
    if name and len(files) > 1:
        raise ArenaError(f"player {name}: a name fits one checkpoint, {pattern} has {len(files)}")
    return [checkpoint_spec(f, simulations, name) for f in files]


def _program_sha(command: str) -> str:
    """sha256 of the script a command runs (``script_sha256``), else ''."""
    try:
        return script_sha256(tuple(shlex.split(command)))
    except ValueError:
        return ""


def _baseline_spec(label: str, playouts: int = 0, name: str = "") -> PlayerSpec:
    if label not in BASELINE_NAMES:
        raise ArenaError(f"unknown baseline {label!r}; one of {', '.join(BASELINE_NAMES)}")
    if label == "mcts":
        playouts = playouts or DEFAULT_PLAYOUTS
        if playouts < 1:
            raise ArenaError(f"mcts needs at least 1 playout, got {playouts}")
        return PlayerSpec("baseline", name or f"mcts@{playouts}", label="mcts", playouts=playouts)
    return PlayerSpec("baseline", name or label, label=label)


def program_spec(command: str, name: str = "") -> PlayerSpec:
    """An outside program: its command line, named after it unless ``name`` is given."""
    command = command.strip()
    if not command:
        raise ArenaError("program: the command is empty")
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ArenaError(f"program: cannot split {command!r}: {err}") from None
    if shutil.which(argv[0]) is None:
        raise ArenaError(f"program: no such program {argv[0]!r} (command {command!r})")
    default = "prog:" + " ".join(a for a in argv if not a.startswith("-") and "python" not in a)[:40]
    return PlayerSpec("program", name or default, command=command, sha256=_program_sha(command))


def _weights_file(path: str, label: str) -> Path:
    """A student weights file that the bot can read (``default``: the shipped one)."""
    if path == "default":
        path = DEFAULT_WEIGHTS
    try:
        read_weights(path)
    except WeightsError as err:
        raise ArenaError(f"player {label}: {err}") from None
    return Path(path).resolve()


def _seconds_suffix(text: str, label: str) -> tuple[str, float]:
    """Split ``X@SECONDS`` into X and the clock (default: the CodeCup clock)."""
    head, at, tail = text.rpartition("@")
    matched = at and re.fullmatch(r"\d+(\.\d*)?", tail)
    head, seconds = (head, float(tail)) if matched else (text, DEFAULT_BUDGET)
    if not seconds > 0:
        raise ArenaError(f"player {label}: the clock must be positive")
    return head, seconds


def release_file(version: str) -> Path:
    """``baselines/tw_rl-VERSION.py``, or a one-line ``ArenaError`` naming the versions there."""
    path = RELEASES_DIR / f"tw_rl-{version}.py"
    if not path.is_file():
        known = sorted(p.stem.removeprefix("tw_rl-") for p in RELEASES_DIR.glob("tw_rl-*.py"))
        there = (
            f"releases here: {', '.join(known)}" if known else f"no {RELEASES_DIR} (a source checkout has it)"
        )
        raise ArenaError(f"player release:{version}: no {path.name}; {there}")
    return path


def _release_spec(text: str, name: str = "") -> PlayerSpec:
    """``VERSION[@SECONDS]``: a frozen released submission on its own clock, as a program."""
    version, seconds = _seconds_suffix(text, f"release:{text}")
    argv = (sys.executable, str(release_file(version)), "--time", f"{seconds:g}")
    command = shlex.join(argv)
    return PlayerSpec(
        "program", name or f"release-{version}@{seconds:g}s", command=command, sha256=_program_sha(command)
    )


def _weights_spec(text: str, name: str = "") -> PlayerSpec:
    """``PATH[@SECONDS]``: the CodeCup bot searching with an exported weights file (``default``:
    the shipped student, ``none``: no network), on its own clock of SECONDS per game (default:
    the CodeCup clock), played as a protocol program."""
    path, seconds = _seconds_suffix(text, f"weights:{text}")
    if path == "none":
        weights_args: tuple[str, ...] = ("--no-weights",)
        default = f"bot-noweights@{seconds:g}s"
    else:
        weights = _weights_file(path, f"weights:{text}")
        weights_args = ("--weights", str(weights))
        default = f"bot+{weights.stem}@{seconds:g}s"
    argv = (sys.executable, "-m", "tw_rl.codecup", *weights_args, "--time", f"{seconds:g}")
    command = shlex.join(argv)
    return PlayerSpec("program", name or default, command=command, sha256=_program_sha(command))


def _student_spec(path: str, name: str = "") -> PlayerSpec:
    """``student:PATH``: the raw policy of a student weights file, played in-process."""
    weights = _weights_file(path, f"student:{path}")
    return PlayerSpec(
        "student", name or f"{weights.stem}@raw", path=str(weights), sha256=file_sha256(weights)
    )


# ------------------------------------------------------------------------ the language


def _from_mapping(item: Mapping, simulations: int) -> list[PlayerSpec]:
    kind = KIND_ALIASES.get(str(item.get("kind", "")))
    name = str(item.get("name", "") or "")
    path = str(item.get("path", ""))
    if kind is None:
        raise ArenaError(f"player {dict(item)}: kind must be one of {', '.join(sorted(KIND_ALIASES))}")
    if kind == "checkpoint":
        return _checkpoint_specs(path, int(item.get("simulations", simulations)), name)
    if kind == "weights":
        seconds = item.get("seconds")
        return [_weights_spec(f"{path}@{seconds}" if seconds else path, name)]
    if kind == "student":
        return [_student_spec(path, name)]
    if kind == "release":
        seconds = item.get("seconds")
        version = str(item.get("version", ""))
        return [_release_spec(f"{version}@{seconds}" if seconds else version, name)]
    if kind == "baseline":
        return [_baseline_spec(str(item.get("label", "")), int(item.get("playouts", 0)), name)]
    return [program_spec(str(item.get("command", "")), name)]


def _from_text(text: str, simulations: int) -> list[PlayerSpec]:
    name = ""
    match = _NAME_PREFIX.match(text)
    if match:
        if not _NAME.fullmatch(match.group(1)):
            raise ArenaError(
                f"player {text!r}: the name {match.group(1)!r} may only use letters, digits and _ . + - / ~"
            )
        name, text = match.group(1), text[match.end() :]
    word, colon, rest = text.partition(":")
    if not colon and word.split("@")[0] in BASELINE_NAMES:
        label, at, budget = text.partition("@")
        if at and (not budget.isdigit() or label != "mcts"):
            raise ArenaError(f"player {text!r}: only mcts takes @PLAYOUTS (e.g. mcts@200)")
        return [_baseline_spec(label, int(budget) if at else 0, name)]
    kind = PREFIXES.get(word) if colon else None
    if kind is None and (text.endswith(".pt") or any(ch in text for ch in "*?[") or Path(text).is_dir()):
        kind, rest = "checkpoint", text
    if kind == "checkpoint":
        path, sims = _simulations_suffix(rest, simulations)
        if sims < 0:
            raise ArenaError(f"player {text!r}: simulations must be >= 0")
        return _checkpoint_specs(path, sims, name)
    if kind == "weights":
        return [_weights_spec(rest, name)]
    if kind == "student":
        return [_student_spec(rest, name)]
    if kind == "release":
        return [_release_spec(rest, name)]
    if kind == "program":
        return [program_spec(rest, name)]
    raise ArenaError(f"player {text!r} is not understood; {USAGE}")


def parse_player(item: str | Mapping, simulations: int = 64) -> list[PlayerSpec]:
    """The players one list entry stands for (a checkpoint glob may stand for many)."""
    if isinstance(item, Mapping):
        return _from_mapping(item, simulations)
    return _from_text(str(item).strip(), simulations)


def parse_players(items: Sequence[str | Mapping], simulations: int = 64) -> list[PlayerSpec]:
    """Every player of the list, globs expanded, duplicates (same identity) dropped."""
    out: list[PlayerSpec] = []
    seen: set[str] = set()
    for item in items:
        for spec in parse_player(item, simulations):
            key = spec.identity().key()
            if key not in seen:
                seen.add(key)
                out.append(spec)
    return out
