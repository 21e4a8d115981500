"""The arena: players of every kind in one list, games stored as they finish, Elo ratings.

Players (``parse_players``), each a string or a mapping:

- ``random``, ``greedy``: the batched baselines of ``tw_rl.core.baselines``;
- ``mcts`` or ``mcts@N``: the standard-library UCT player (``tw_rl.codecup.players.UctPlayer``,
  N playouts per move, default 200), played in-process one game at a time;
- ``ckpt:PATH[@N]``: training checkpoints, PATH a file, a folder (a run folder or its
  ``checkpoints/``) or a glob; each searches N simulations per move (default: the config's
  ``simulations``; ``@0`` or ``@raw``: the raw policy's best move, no search);
- ``weights:PATH[@SECONDS]``: the CodeCup bot with an exported weights file, on a clock of
  SECONDS per game (default 30), played through the referee like a program; PATH ``default``
  is the student shipped in the package, ``none`` the bot without a network (``--no-weights``);
- ``student:PATH``: the raw policy of a student weights file (its most likely legal move, no
  search), in-process with the torch twin of the pure-Python network (``default``: the shipped
  student);
- ``program:COMMAND``: an outside program speaking the CodeCup protocol, played through
  ``tw_rl.referee`` (e.g. ``program:python -m tw_rl.codecup --player greedy --time 5``).

``NAME=SPEC`` gives a player its display name. A mapping has ``kind`` (``ckpt`` / ``checkpoint``,
``weights``, ``baseline``, ``program``) and ``path``, ``simulations``, ``label`` (random,
greedy, mcts), ``playouts``, ``command``, ``name`` as fits the kind.

Games between two in-process players are played batched (``play_batch``): many games at once,
each player called once per ply on the games where it is to move. A game with an outside
program goes through ``tw_rl.referee.play_game``; an in-process opponent then runs as a
CodeCup-protocol program itself: ``python -m tw_rl.rating.arena serve SPEC_JSON``.

With ``ray_address`` set (``local``, ``auto``, ``HOST:PORT``) the games of each pairing run as Ray
tasks (``tw_rl.rating.ray_games``), ``jobs`` at once; this process still picks the pairings and alone
writes the database.

``import_referee`` folders (``tw-rl referee`` matches) are stored first
(``tw_rl.rating.referee_import``), so their games count like the arena's own.

``evaluate`` plays pairings until the game budget or the target interval width is reached.
The next pairing is the one whose rating difference is most uncertain, weighted by how close
the two players are: the largest ``se(r_a - r_b) * 4 p (1 - p)`` (``p`` the expected score of a
against b, so ``4 p (1 - p)`` is 1 for equal players and falls towards 0 for a mismatch, as
does the information one game brings). Each pairing has numbered slots: slot k is opening
k // 2 with the lower-id player red when k is even, so colours are balanced, two games of an
opening swap colours, and a later run fills the free slots (games already stored count toward
the budget and are never replayed).
"""

from __future__ import annotations

import contextlib
import glob as _glob
import hashlib
import io
import json
import math
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tw_rl.config import EvaluateConfig
from tw_rl.core.notation import cell_name
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE, State
from tw_rl.files import file_sha256
from tw_rl.rating.elo import Outcome, Ratings, expected_score, fit, write_ratings
from tw_rl.rating.results_db import GameRow, Identity, PlayerRow, ResultsDB

Player = Callable[[Rules, State, np.random.Generator], np.ndarray]

BASELINE_NAMES = ("random", "greedy", "mcts")
DEFAULT_PLAYOUTS = 200  # mcts without @N
PAIRING_PRIOR = 0.5  # virtual drawn games per pair in the fit that picks pairings (not in the ratings)
KIND_ALIASES = {
    "ckpt": "checkpoint",
    "checkpoint": "checkpoint",
    "weights": "weights",
    "student": "student",
    "program": "program",
    "cmd": "program",
    "baseline": "baseline",
}
_NAME_PREFIX = re.compile(
    r"^([A-Za-z0-9_.+\-/~]+)=(?=(?:ckpt|checkpoint|weights|student|program|cmd|random|greedy|mcts)\b)"
)


class ArenaError(ValueError):
    """A bad player, setting or file: a one-line message for the user."""


# ------------------------------------------------------------------------------- players


@dataclass
class PlayerSpec:
    """One concrete player (a checkpoint glob expands into one spec per file)."""

    kind: str  # checkpoint, student, baseline, program (a weights: bot is a program)
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
        """What ``python -m tw_rl.rating.arena serve`` needs to rebuild this player."""
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


def _simulations_suffix(text: str, default: int) -> tuple[str, int]:
    """Split ``PATH@N`` (or ``PATH@raw``) into the path and the simulations."""
    head, at, tail = text.rpartition("@")
    if at and (tail.isdigit() or tail == "raw"):
        return head, 0 if tail == "raw" else int(tail)
    return text, default


def _checkpoint_files(pattern: str) -> list[Path]:
    from tw_rl.training.learner import CHECKPOINT_PATTERN

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
    from tw_rl.training.learner import CheckpointError, load_checkpoint

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


def _program_sha(command: str) -> str:
    """sha256 of the script a command runs (``tw_rl.referee.script_sha256``), else ''."""
    from tw_rl.referee import script_sha256

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


def _program_spec(command: str, name: str = "") -> PlayerSpec:
    command = command.strip()
    if not command:
        raise ArenaError("program: the command is empty")
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ArenaError(f"program: cannot split {command!r}: {err}") from None
    import shutil

    if shutil.which(argv[0]) is None:
        raise ArenaError(f"program: no such program {argv[0]!r} (command {command!r})")
    default = "prog:" + " ".join(a for a in argv if not a.startswith("-") and "python" not in a)[:40]
    return PlayerSpec("program", name or default, command=command, sha256=_program_sha(command))


def _weights_file(path: str, label: str) -> Path:
    """A student weights file that the bot can read (``default``: the shipped one)."""
    from tw_rl.codecup.evaluation import DEFAULT_WEIGHTS
    from tw_rl.codecup.weights import WeightsError, read_weights

    if path == "default":
        path = DEFAULT_WEIGHTS
    try:
        read_weights(path)
    except WeightsError as err:
        raise ArenaError(f"player {label}: {err}") from None
    return Path(path).resolve()


def _weights_spec(text: str, name: str = "") -> PlayerSpec:
    """``PATH[@SECONDS]``: the CodeCup bot searching with an exported weights file (``default``:
    the shipped student, ``none``: no network), on its own clock of SECONDS per game (default
    30, the CodeCup clock), played as a protocol program."""
    head, at, tail = text.rpartition("@")
    path, seconds = (head, float(tail)) if at and re.fullmatch(r"\d+(\.\d*)?", tail) else (text, 30.0)
    if not seconds > 0:
        raise ArenaError(f"player weights:{text}: the clock must be positive")
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


def parse_player(item: str | Mapping, simulations: int = 64) -> list[PlayerSpec]:
    """The players one list entry stands for (a checkpoint glob may stand for many)."""
    if isinstance(item, Mapping):
        kind = KIND_ALIASES.get(str(item.get("kind", "")))
        name = str(item.get("name", "") or "")
        if kind is None:
            raise ArenaError(f"player {dict(item)}: kind must be one of {', '.join(sorted(KIND_ALIASES))}")
        if kind == "checkpoint":
            sims = int(item.get("simulations", simulations))
            files = _checkpoint_files(str(item.get("path", "")))
            if name and len(files) > 1:
                raise ArenaError(
                    f"player {name}: a name fits one checkpoint, {item.get('path')} has {len(files)}"
                )
            return [checkpoint_spec(f, sims, name) for f in files]
        if kind == "weights":
            seconds = item.get("seconds")
            path = str(item.get("path", ""))
            return [_weights_spec(f"{path}@{seconds}" if seconds else path, name)]
        if kind == "student":
            return [_student_spec(str(item.get("path", "")), name)]
        if kind == "baseline":
            return [_baseline_spec(str(item.get("label", "")), int(item.get("playouts", 0)), name)]
        return [_program_spec(str(item.get("command", "")), name)]
    text = str(item).strip()
    name = ""
    match = _NAME_PREFIX.match(text)
    if match:
        name, text = match.group(1), text[match.end() :]
    kind, colon, rest = text.partition(":")
    if not colon and kind.split("@")[0] in BASELINE_NAMES:
        label, at, budget = text.partition("@")
        if at and (not budget.isdigit() or label != "mcts"):
            raise ArenaError(f"player {text!r}: only mcts takes @PLAYOUTS (e.g. mcts@200)")
        return [_baseline_spec(label, int(budget) if at else 0, name)]
    kind = KIND_ALIASES.get(kind) if colon else None
    if kind is None and (text.endswith(".pt") or any(ch in text for ch in "*?[") or Path(text).is_dir()):
        kind, rest = "checkpoint", text
    if kind == "checkpoint":
        path, sims = _simulations_suffix(rest, simulations)
        if sims < 0:
            raise ArenaError(f"player {text!r}: simulations must be >= 0")
        files = _checkpoint_files(path)
        if name and len(files) > 1:
            raise ArenaError(f"player {name}: a name fits one checkpoint, {path} has {len(files)}")
        return [checkpoint_spec(f, sims, name) for f in files]
    if kind == "weights":
        return [_weights_spec(rest, name)]
    if kind == "student":
        return [_student_spec(rest, name)]
    if kind == "program":
        return [_program_spec(rest, name)]
    raise ArenaError(
        f"player {text!r} is not understood; use random, greedy, mcts[@N], ckpt:PATH[@N], "
        "weights:PATH[@SECONDS], student:PATH or program:COMMAND (optionally NAME=...)"
    )


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


# ------------------------------------------------------------------ in-process players


def uct_player(playouts: int = DEFAULT_PLAYOUTS) -> Player:
    """The standard-library UCT player as a batched player (one game after the other)."""
    from tw_rl.codecup.players import UctPlayer
    from tw_rl.codecup.rules import Board, Position

    boards: dict[int, Board] = {}

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        board = boards.setdefault(rules.size, Board(rules.size))
        actions = np.zeros(state.batch_size, dtype=np.int64)
        for g in range(state.batch_size):
            if state.terminated[g]:
                continue
            position = Position(board)
            position.owner = state.owner[g].tolist()
            position.height = state.height[g].tolist()
            position.to_move = int(state.to_move[g])
            position.passes = int(state.passes[g])
            position.ply = int(state.ply[g])
            position.last_move = int(state.last_move[g]) if state.last_move[g] >= 0 else None
            player = UctPlayer(playouts=playouts, seed=int(rng.integers(2**31)))
            actions[g] = player.choose(position)
        return actions

    return play


def make_player(spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
    """The batched in-process player of a spec (checkpoints are loaded here)."""
    if spec.kind == "baseline":
        if spec.label == "mcts":
            return uct_player(spec.playouts)
        from tw_rl.core.baselines import BASELINES

        return BASELINES[spec.label]
    if spec.kind == "checkpoint":
        from tw_rl.core.mcts import SearchConfig
        from tw_rl.training.learner import CheckpointError, load_checkpoint, net_from_checkpoint
        from tw_rl.training.match import raw_policy_player, search_player
        from tw_rl.training.net import NetPolicyValue, resolve_device

        try:
            payload = load_checkpoint(Path(spec.path))
        except CheckpointError as err:
            raise ArenaError(str(err)) from None
        if int(payload["size"]) != rules.size:
            raise ArenaError(
                f"{spec.path} is for board size {payload['size']}, the arena plays size {rules.size}"
            )
        dev = resolve_device(device)
        policy_value = NetPolicyValue(net_from_checkpoint(payload, dev), rules, dev)
        if spec.simulations <= 0:
            return raw_policy_player(policy_value)
        return search_player(policy_value, SearchConfig(simulations=spec.simulations))
    if spec.kind == "student":
        return student_player(spec.path, rules)
    raise ArenaError(f"{spec.name}: a {spec.kind} player cannot play in-process")


def student_player(path: str | Path, rules: Rules) -> Player:
    """The raw policy of a student weights file: its most likely legal move, batched."""
    from tw_rl.codecup.weights import WeightsError
    from tw_rl.export.weights_file import load_student, torch_outputs

    try:
        net = load_student(Path(path), rules.size)
    except WeightsError as err:
        raise ArenaError(f"student:{path}: {err}") from None

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        logits, _, legal = torch_outputs(net, rules, state)
        return np.argmax(np.where(legal, logits, -np.inf), axis=1)

    return play


# --------------------------------------------------------------------------- games


@dataclass
class Slot:
    """A game to play: who plays which colour, from which start cells."""

    red: str  # player names
    white: str
    red_start: int
    white_start: int
    opening: int = 0


@dataclass
class ArenaGame:
    """One finished game, by colour."""

    slot: Slot
    moves: list[int]
    winner: int  # RED, WHITE or 0 (draw)
    points: tuple[int, int]  # red's, white's
    end: str  # "end rule", "two passes" or "fault"
    fault: str | None = None

    @property
    def result(self) -> float:
        """Red's score: 1 win, 0.5 draw, 0 loss."""
        return 1.0 if self.winner == RED else 0.0 if self.winner == WHITE else 0.5


def play_batch(
    rules: Rules,
    players: Mapping[str, Player],
    slots: Sequence[Slot],
    rng: np.random.Generator,
    on_finish: Callable[[int, ArenaGame], None] | None = None,
) -> list[ArenaGame]:
    """Play every slot at once; each player acts on all the games where it is to move.

    ``on_finish(i, game)`` is called as soon as game ``i`` ends (to store it), before the
    others have finished. Returns the games in the order of ``slots``.
    """
    if not slots:
        return []
    if rules.setup != "judge":
        raise ArenaError("the arena plays judge-drawn starts (the codecup set-up)")
    state = rules.start([s.red_start for s in slots], [s.white_start for s in slots])
    count = len(slots)
    names = sorted({s.red for s in slots} | {s.white for s in slots})
    red_of = np.array([names.index(s.red) for s in slots])
    white_of = np.array([names.index(s.white) for s in slots])
    moves: list[list[int]] = [[] for _ in slots]
    games: list[ArenaGame | None] = [None] * count
    done = np.zeros(count, dtype=bool)
    while True:
        live = ~state.terminated
        if not live.any():
            break
        mover = np.where(state.to_move == RED, red_of, white_of)
        actions = np.zeros(count, dtype=np.int64)
        for k, name in enumerate(names):
            idx = np.flatnonzero(live & (mover == k))
            if idx.size:
                actions[idx] = players[name](rules, state[idx], rng)
        legal = rules.legal_mask(state)
        illegal = live & ~legal[np.arange(count), np.clip(actions, 0, rules.num_actions - 1)]
        illegal |= live & ((actions < 0) | (actions >= rules.num_actions))
        for g in np.flatnonzero(live & ~illegal):
            moves[g].append(int(actions[g]))
        before = state
        state = rules.step(state, actions)
        finished = np.flatnonzero(state.terminated & ~done)
        if finished.size:
            points = rules.score(state[finished])
            winners = rules.winner(state[finished])
            for k, g in enumerate(finished.tolist()):
                fault = None
                if illegal[g]:
                    who = slots[g].red if before.to_move[g] == RED else slots[g].white
                    fault = f"{who} played the illegal action {int(actions[g])} at ply {len(moves[g])}"
                end = "fault" if fault else "two passes" if state.passes[g] >= 2 else "end rule"
                game = ArenaGame(
                    slots[g], moves[g], int(winners[k]), (int(points[k, 0]), int(points[k, 1])), end, fault
                )
                games[g] = game
                done[g] = True
                if on_finish is not None:
                    on_finish(g, game)
    return [g for g in games if g is not None]


def balanced_slots(rules: Rules, a: str, b: str, games: int, rng: np.random.Generator) -> list[Slot]:
    """``games`` slots for a against b: openings drawn as the judge draws them, each played with
    both colours (a is red in the even slots)."""
    red, white = rules.draw_starts((games + 1) // 2, rng)
    out = []
    for k in range(games):
        o = k // 2
        first, second = (a, b) if k % 2 == 0 else (b, a)
        out.append(Slot(first, second, int(red[o]), int(white[o]), o))
    return out


def play_pair(
    rules: Rules,
    player_a: Player,
    player_b: Player,
    games: int,
    rng: np.random.Generator,
    names: tuple[str, str] = ("A", "B"),
) -> list[ArenaGame]:
    """``games`` colour-balanced games between two in-process players, batched; per-game records."""
    slots = balanced_slots(rules, names[0], names[1], games, rng)
    return play_batch(rules, {names[0]: player_a, names[1]: player_b}, slots, rng)


def game_text(rules: Rules, moves: Sequence[int]) -> str:
    """Moves as text: cell names (diff notation) and Pass, space-separated."""
    return " ".join(cell_name(rules.grid, int(m)) for m in moves)


def parse_moves(rules: Rules, text: str) -> list[int]:
    """The inverse of ``game_text``."""
    from tw_rl.core.notation import parse_cell

    return [parse_cell(rules.grid, word) for word in text.split()]


# ---------------------------------------------------------------- referee games


def _serve_argv(spec: PlayerSpec, size: int, seed: int) -> tuple[str, ...]:
    return (
        sys.executable,
        "-m",
        "tw_rl.rating.arena",
        "serve",
        spec.serve_json(),
        "--size",
        str(size),
        "--seed",
        str(seed),
    )


def _program(spec: PlayerSpec, size: int, seed: int):
    from tw_rl import referee

    if spec.kind == "program":
        try:
            return referee.Program.parse(spec.name, spec.command)
        except referee.RefereeError as err:
            raise ArenaError(str(err)) from None
    argv = _serve_argv(spec, size, seed)
    return referee.Program(spec.name, shlex.join(argv), argv)


def play_referee_game(
    rules: Rules, red: PlayerSpec, white: PlayerSpec, slot: Slot, time_limit: float, seed: int, cancel=None
) -> ArenaGame:
    """One game through the referee (in-process players are served as protocol programs)."""
    from tw_rl import referee

    result = referee.play_game(
        rules,
        _program(red, rules.size, seed),
        _program(white, rules.size, seed + 1),
        slot.red_start,
        slot.white_start,
        time_limit,
        cancel=cancel,
    )
    fault = None
    if result.fault is not None:
        f = result.fault
        fault = f"{f.kind} by {'red' if f.colour == RED else 'white'} at ply {f.ply}: {f.detail}"
    return ArenaGame(slot, list(result.moves), int(result.winner), tuple(result.points), result.end, fault)


# ---------------------------------------------------------------------- pairing


def pairing_ratings(outcomes: Sequence[Outcome], names: Sequence[str], anchor: str) -> Ratings:
    """The fit that picks pairings: every pair of players gets ``PAIRING_PRIOR`` virtual drawn
    games (half per colour), so every difference has a finite estimate and error."""
    prior = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            prior.append(Outcome(a, b, 0.5, PAIRING_PRIOR / 2))
            prior.append(Outcome(b, a, 0.5, PAIRING_PRIOR / 2))
    keep = set(names)
    games = [o for o in outcomes if o.red in keep and o.white in keep]
    ref = anchor if anchor in keep else names[0]
    return fit(games + prior, ref, players=names)


def pair_priority(ratings: Ratings, a: str, b: str) -> float:
    """se(r_a - r_b) * 4 p (1 - p): uncertainty of the difference, weighted by closeness."""
    diff = ratings.difference(a, b)
    if diff is None:
        return math.inf
    p = float(expected_score(diff.elo))
    return diff.se * 4.0 * p * (1.0 - p)


def choose_pair(
    ratings: Ratings, names: Sequence[str], counts: Mapping[tuple[str, str], int]
) -> tuple[str, str]:
    """The pair with the largest priority (ties: fewer games, then the order of ``names``)."""
    best, best_key = None, None
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            key = (pair_priority(ratings, a, b), -counts.get((a, b), 0) - counts.get((b, a), 0))
            if best_key is None or key > best_key:
                best, best_key = (a, b), key
    assert best is not None
    return best


# ---------------------------------------------------------------------- evaluate


@dataclass
class Evaluation:
    """What ``evaluate`` did and found."""

    ratings: Ratings
    played: int  # games played by this call
    total: int  # games among the chosen players now stored
    stopped: str  # "budget", "interval", "interrupted"
    players: list[PlayerRow] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def report(self, db: str | Path) -> str:
        """The ranked table, what was played and stored, and the files written."""
        lines = [
            self.ratings.table(),
            f"{self.played} games played, {self.total} stored among these players; "
            f"stopped: {self.stopped}; database {db}",
        ]
        lines += [f"wrote {path}" for path in self.files]
        return "\n".join(lines)


def _pair_seed(seed: int, a: PlayerRow, b: PlayerRow, identity: Mapping[int, str]) -> int:
    text = f"{seed}|{identity[a.id]}|{identity[b.id]}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "big")


def _free_slots(
    db: ResultsDB, a: PlayerRow, b: PlayerRow, size: int, count: int
) -> list[tuple[int, int, int]]:
    """(opening, red id, white id) of the next ``count`` free slots of pairing a-b (a.id < b.id)."""
    taken = db.taken_slots(a.id, b.id, size)
    out, k = [], 0
    while len(out) < count:
        opening = k // 2
        red, white = (a.id, b.id) if k % 2 == 0 else (b.id, a.id)
        if (opening, red) not in taken:
            out.append((opening, red, white))
        k += 1
    return out


def _record(db_row_ids: tuple[int, int], game: ArenaGame, rules: Rules, seed: int, source: str) -> GameRow:
    grid = rules.grid
    return GameRow(
        red=db_row_ids[0],
        white=db_row_ids[1],
        size=rules.size,
        opening=game.slot.opening,
        seed=seed,
        red_start=cell_name(grid, game.slot.red_start),
        white_start=cell_name(grid, game.slot.white_start),
        result=game.result,
        red_points=int(game.points[0]),
        white_points=int(game.points[1]),
        end_reason=game.end,
        fault=game.fault,
        moves=game_text(rules, game.moves),
        plies=len(game.moves),
        source=source,
    )


def _ci_reached(ratings: Ratings, names: Sequence[str], width: float) -> bool:
    if width <= 0 or ratings.regularized:
        return False
    for name in names:
        if name not in ratings or not ratings.connected(name, ratings.anchor):
            return False
        p = ratings[name]
        if name != ratings.anchor and p.high - p.low > width:
            return False
    return True


def evaluate(cfg: EvaluateConfig, *, log: Callable[[str], None] = print) -> Evaluation:
    """Play games as ``cfg`` asks, store each as it ends, fit and write the ratings.

    Ctrl-C (KeyboardInterrupt) stops the games in progress; the finished ones are stored and
    the ratings are still fitted and written. Raises ArenaError for bad settings.
    """
    if cfg.games < 0 or cfg.batch_size < 1 or cfg.jobs < 1:
        raise ArenaError(
            f"games must be >= 0, batch_size and jobs >= 1 (got {cfg.games}, {cfg.batch_size}, {cfg.jobs})"
        )
    if not cfg.time > 0 or cfg.ci_width < 0:
        raise ArenaError(f"time must be positive and ci_width >= 0 (got {cfg.time}, {cfg.ci_width})")
    try:
        rules = Rules(cfg.size, "codecup")
    except (ValueError, KeyError) as err:
        raise ArenaError(f"board size {cfg.size}: {err}") from None
    specs = parse_players(list(cfg.players), cfg.simulations)
    if cfg.anchor.split("@")[0] in BASELINE_NAMES and not any(s.name == cfg.anchor for s in specs):
        anchor = parse_player(cfg.anchor)[0]
        if not any(s.identity() == anchor.identity() for s in specs):
            log(f"note: the anchor {cfg.anchor} joins the players")
            specs = [anchor, *specs]
    for spec in specs:
        if spec.kind == "checkpoint" and spec.size != cfg.size:
            raise ArenaError(f"{spec.path} is for board size {spec.size}; the arena plays size {cfg.size}")
    if cfg.threads > 0 and any(s.kind == "checkpoint" for s in specs):
        import torch

        torch.set_num_threads(cfg.threads)
    with contextlib.ExitStack() as stack:
        if cfg.ray_address and cfg.games > 0:
            from tw_rl.cluster import RayUnavailable, ray_session

            local_cpus = cfg.jobs if cfg.ray_address == "local" else None
            try:
                stack.enter_context(ray_session(cfg.ray_address, local_cpus))
            except RayUnavailable as err:
                raise ArenaError(str(err)) from None
        db = stack.enter_context(ResultsDB(cfg.db))
        if cfg.import_referee:
            from tw_rl.rating.referee_import import import_referee

            for folder in cfg.import_referee:
                log(import_referee(db, folder, specs, log=log).line())
        session = _Session(cfg, rules, db, specs)
        try:
            session.run(log)
        finally:
            session.close()
        ratings = fit(db.outcomes(cfg.size), cfg.anchor, players=session.names)
        if session.stopped == "budget" and _ci_reached(ratings, session.names, cfg.ci_width):
            session.stopped = "interval"
        players = db.players()
    out_dir = Path(cfg.out)
    files = list(write_ratings(ratings, out_dir))
    files += write_pictures(ratings, players, session.rows, out_dir, cfg.tensorboard)
    return Evaluation(ratings, session.played, session.total, session.stopped, session.rows, files)


class _Session:
    """The state of one ``evaluate`` call: players, loaded nets, counters, progress bar."""

    def __init__(self, cfg: EvaluateConfig, rules: Rules, db: ResultsDB, specs: list[PlayerSpec]):
        self.cfg, self.rules, self.db = cfg, rules, db
        self.rows: list[PlayerRow] = []
        for spec in specs:
            self.rows.append(
                db.register(
                    spec.identity(),
                    spec.name,
                    path=spec.path,
                    run_dir=spec.run_dir,
                    generation=spec.generation,
                    step=spec.step,
                    size=spec.size,
                )
            )
        if len({r.id for r in self.rows}) < 2 and cfg.games > 0:
            raise ArenaError("the arena needs at least two different players")
        self.spec_of = {row.id: spec for row, spec in zip(self.rows, specs, strict=True)}
        self.identity = {row.id: spec.identity().key() for row, spec in zip(self.rows, specs, strict=True)}
        self.by_name = {row.name: row for row in self.rows}
        self.names = [row.name for row in self.rows]
        self.ids = [row.id for row in self.rows]
        self.total = db.count_games(self.ids, cfg.size)
        self.played = 0
        self.stopped = "budget"
        self.loaded: dict[int, Player] = {}
        self.cancel = None
        self.bar = None
        if cfg.progress and cfg.games > self.total:
            from tqdm import tqdm

            self.bar = tqdm(
                total=cfg.games, initial=self.total, unit="game", file=sys.stderr, dynamic_ncols=True
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def store(self, game: ArenaGame, seed: int, source: str) -> None:
        ids = (self.by_name[game.slot.red].id, self.by_name[game.slot.white].id)
        if self.db.add_game(_record(ids, game, self.rules, seed, source)) is not None:
            self.played += 1
            self.total += 1
            if self.bar is not None:
                self.bar.update(1)

    def run(self, log: Callable[[str], None]) -> None:
        cfg = self.cfg
        try:
            while self.total < cfg.games:
                outcomes = self.db.outcomes(cfg.size)
                if cfg.ci_width > 0 and _ci_reached(fit(outcomes, cfg.anchor), self.names, cfg.ci_width):
                    self.stopped = "interval"
                    return
                counts: dict[tuple[str, str], int] = {}
                for o in outcomes:
                    counts[(o.red, o.white)] = counts.get((o.red, o.white), 0) + 1
                pick = choose_pair(pairing_ratings(outcomes, self.names, cfg.anchor), self.names, counts)
                self.play_pairing(*sorted((self.by_name[pick[0]], self.by_name[pick[1]]), key=lambda r: r.id))
        except KeyboardInterrupt:
            self.stopped = "interrupted"
            if self.cancel is not None:
                self.cancel.set()
            log("interrupted: every finished game is stored")

    def play_pairing(self, a: PlayerRow, b: PlayerRow) -> None:
        cfg, rules = self.cfg, self.rules
        seed = _pair_seed(cfg.seed, a, b, self.identity)
        in_process = self.spec_of[a.id].in_process and self.spec_of[b.id].in_process
        count = cfg.batch_size if in_process else max(2, cfg.jobs + cfg.jobs % 2)
        if cfg.ray_address and in_process:
            count = cfg.batch_size * cfg.jobs  # jobs batches at once, one Ray task each
        # Spread the budget: no pairing takes more than about half its share at once.
        pairs = len(self.names) * (len(self.names) - 1) // 2
        share = max(2, math.ceil(cfg.games / (2 * pairs)))
        count = min(count, share + share % 2, cfg.games - self.total)
        name = {a.id: a.name, b.id: b.name}
        slots = []
        for opening, red, white in _free_slots(self.db, a, b, cfg.size, count):
            red_start, white_start = _opening(rules, seed, opening)
            slots.append(Slot(name[red], name[white], red_start, white_start, opening))
        if self.bar is not None:
            self.bar.set_postfix_str(f"{a.name} vs {b.name}", refresh=False)
        if cfg.ray_address:
            from tw_rl.rating.ray_games import play_slots_on_ray

            specs = {a.name: self.spec_of[a.id], b.name: self.spec_of[b.id]}
            source = "batched" if in_process else "referee"
            play_slots_on_ray(
                rules, specs, slots, cfg, seed, in_process, lambda g: self.store(g, seed, source)
            )
            return
        if in_process:
            for row in (a, b):
                if row.id not in self.loaded:
                    self.loaded[row.id] = make_player(self.spec_of[row.id], rules, cfg.device)
            players = {a.name: self.loaded[a.id], b.name: self.loaded[b.id]}
            rng = np.random.default_rng([seed, slots[0].opening])
            play_batch(rules, players, slots, rng, lambda i, game: self.store(game, seed, "batched"))
            return
        from tw_rl import referee

        self.cancel = referee.Cancel()
        specs = {a.name: self.spec_of[a.id], b.name: self.spec_of[b.id]}
        _referee_batch(
            rules, specs, slots, cfg, seed, self.cancel, lambda game: self.store(game, seed, "referee")
        )
        self.cancel = None


def _opening(rules: Rules, seed: int, opening: int) -> tuple[int, int]:
    red, white = rules.draw_starts(1, np.random.default_rng([seed, opening]))
    return int(red[0]), int(white[0])


def referee_slot_game(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    k: int,
    slot: Slot,
    time_limit: float,
    seed: int,
    cancel=None,
) -> ArenaGame:
    """Slot number ``k`` of a pairing through the referee, the players seeded from the pairing's
    seed, the opening and the colour (the same game wherever it is played)."""
    player_seed = (seed + 4 * slot.opening + 2 * (k % 2)) % 2**31  # white gets player_seed + 1
    return play_referee_game(rules, specs[slot.red], specs[slot.white], slot, time_limit, player_seed, cancel)


def _referee_batch(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    slots: Sequence[Slot],
    cfg: EvaluateConfig,
    seed: int,
    cancel,
    store: Callable[[ArenaGame], None],
) -> None:
    """Play slots through the referee, ``cfg.jobs`` games at once; store each as it ends."""
    from tw_rl import referee

    def one(k: int, slot: Slot) -> ArenaGame:
        return referee_slot_game(rules, specs, k, slot, cfg.time, seed, cancel)

    executor = ThreadPoolExecutor(max_workers=cfg.jobs, thread_name_prefix="arena-game")
    futures = [executor.submit(one, k, slot) for k, slot in enumerate(slots)]
    try:
        for future in as_completed(futures):
            try:
                game = future.result()
            except referee.MatchInterrupted:
                continue
            store(game)
    except BaseException:
        cancel.set()
        executor.shutdown(wait=True, cancel_futures=True)
        for future in futures:  # games that ended while the others were stopped still count
            if future.done() and not future.cancelled() and future.exception() is None:
                store(future.result())
        raise
    finally:
        executor.shutdown(wait=True)


# ---------------------------------------------------------------------- pictures


def elo_figure(
    ratings: Ratings, checkpoints: Sequence[PlayerRow], baselines: Sequence[str] = (), title: str = ""
):
    """Elo (95% intervals) of a run's checkpoints against training step (generation when no step
    is known), with the baselines as horizontal lines. Returns a matplotlib Figure."""
    from matplotlib.figure import Figure  # no pyplot: no backend, no global figure list

    rated = [c for c in checkpoints if c.name in ratings and ratings.connected(c.name, ratings.anchor)]
    by_step = any((c.step or 0) > 0 for c in rated)
    rated.sort(key=lambda c: ((c.step or 0) if by_step else (c.generation or 0), c.name))
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot(1, 1, 1)
    groups: dict[str, list[PlayerRow]] = {}
    for c in rated:
        groups.setdefault(json.dumps(c.search, sort_keys=True), []).append(c)
    for key, members in groups.items():
        xs = [(c.step or 0) if by_step else (c.generation or 0) for c in members]
        ys = [ratings[c.name].elo for c in members]
        lows = [ratings[c.name].elo - ratings[c.name].low for c in members]
        highs = [ratings[c.name].high - ratings[c.name].elo for c in members]
        sims = json.loads(key).get("simulations", 0)
        label = f"checkpoints ({sims} sims)" if sims else "checkpoints (raw policy)"
        axes.errorbar(xs, ys, yerr=[lows, highs], marker="o", capsize=3, label=label)
    colours = ["#555555", "#2e7d32", "#c62828", "#6a1b9a", "#ef6c00"]
    for k, name in enumerate(baselines):
        if name in ratings and ratings.connected(name, ratings.anchor):
            p = ratings[name]
            colour = colours[k % len(colours)]
            axes.axhline(p.elo, color=colour, linestyle="--", linewidth=1, label=f"{name} ({p.elo:.0f})")
            if p.high > p.low:
                axes.axhspan(p.low, p.high, color=colour, alpha=0.08)
    axes.set_xlabel("training step" if by_step else "generation")
    axes.set_ylabel(f"Elo ({ratings.anchor} = 0)")
    axes.set_title(title or "Elo of the checkpoints (95% intervals)")
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(loc="best", fontsize=8)
    figure.tight_layout()
    return figure


def write_pictures(
    ratings: Ratings,
    players: Sequence[PlayerRow],
    chosen: Sequence[PlayerRow],
    out_dir: Path,
    tensorboard: bool,
) -> list[Path]:
    """One PNG per training run among the chosen checkpoints (all of its rated checkpoints in
    the database are drawn), also logged to the run's TensorBoard (``tb/``, ``arena/elo``)."""
    from tw_rl.files import write_atomic

    runs = sorted({p.run_dir for p in chosen if p.kind == "checkpoint" and p.run_dir})
    baselines = [p.name for p in players if p.kind in ("baseline", "program") and p.name in ratings]
    files = []
    for run in runs:
        members = [p for p in players if p.kind == "checkpoint" and p.run_dir == run]
        figure = elo_figure(ratings, members, baselines, title=f"{Path(run).name}: Elo of the checkpoints")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100)
        path = out_dir / f"elo-{_safe(Path(run).name)}.png"
        out_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(path, buffer.getvalue())
        files.append(path)
        if tensorboard and Path(run).is_dir():
            from torch.utils.tensorboard import SummaryWriter

            writer = SummaryWriter(str(Path(run) / "tb"))
            try:
                last = 0
                for p in sorted(members, key=lambda m: (m.generation or 0, m.name)):
                    if p.name in ratings and ratings.connected(p.name, ratings.anchor):
                        writer.add_scalar("arena/elo", ratings[p.name].elo, p.generation or 0)
                        last = max(last, p.generation or 0)
                writer.add_figure("arena/elo_curve", figure, global_step=last, close=False)
            finally:
                writer.close()
    return files


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", text) or "run"


def games_of(db: ResultsDB, rules: Rules) -> list[ArenaGame]:
    """The stored games of one board size as ArenaGames (for pictures and replays), oldest first."""
    from tw_rl.core.notation import parse_cell

    names = {p.id: p.name for p in db.players()}
    out = []
    for row in db.games(rules.size):
        red_start = parse_cell(rules.grid, row.red_start, allow_pass=False)
        white_start = parse_cell(rules.grid, row.white_start, allow_pass=False)
        slot = Slot(names[row.red], names[row.white], red_start, white_start, row.opening)
        winner = RED if row.result == 1.0 else WHITE if row.result == 0.0 else 0
        points = (row.red_points, row.white_points)
        out.append(ArenaGame(slot, parse_moves(rules, row.moves), winner, points, row.end_reason, row.fault))
    return out


def replay(rules: Rules, game: ArenaGame) -> list[State]:
    """The positions of a game, from the start to the end (batches of one)."""
    state = rules.start(game.slot.red_start, game.slot.white_start)
    states = [state]
    for move in game.moves:
        state = rules.step(state, move)
        states.append(state)
    return states


# ------------------------------------------------------------------------- serve


class _ServedPlayer:
    """A batched in-process player behind the CodeCup protocol (``codecup.protocol.run``)."""

    def __init__(self, player: Player, rules: Rules, seed: int):
        self.player, self.rules = player, rules
        self.rng = np.random.default_rng(seed)

    def choose(self, position, seconds_left=None) -> int:
        state = self.rules.position(position.owner, position.height, position.to_move, position.passes)
        return int(self.player(self.rules, state, self.rng)[0])


def serve(spec_json: str, size: int = 6, seed: int = 0) -> int:
    """Play one CodeCup-protocol game on stdin/stdout as the in-process player ``spec_json``."""
    from tw_rl.codecup.protocol import run

    data = json.loads(spec_json)
    spec = PlayerSpec(
        kind=data["kind"],
        name="served",
        label=data.get("label", ""),
        path=data.get("path", ""),
        simulations=int(data.get("simulations", 0)),
        playouts=int(data.get("playouts", 0)),
    )
    rules = Rules(size, "codecup")
    if spec.kind == "checkpoint":
        import torch

        torch.set_num_threads(1)
    player = make_player(spec, rules)
    return run(_ServedPlayer(player, rules, seed), size=size, budget=1e9)


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tw_rl.rating.arena", description="Arena helpers.")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="play one CodeCup-protocol game as an in-process player")
    s.add_argument("spec", help="the player as JSON (PlayerSpec.serve_json)")
    s.add_argument("--size", type=int, default=6)
    s.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return serve(args.spec, args.size, args.seed)


if __name__ == "__main__":
    sys.exit(_main())
