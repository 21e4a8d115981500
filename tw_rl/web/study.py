"""Studying a finished game on the web page: its positions, and a checkpoint's view of each.

A game to study comes from a rating results database (``--db``: every stored game, CodeCup
rules, by id) or from a record's text (pasted or uploaded; read by
``tw_rl.core.record.replay_record`` as ``tw-rl analyze`` reads it). ``Analyst`` keeps loaded
checkpoints (those the server offers, by name or number; ``default`` = the shipped teacher) and
gives, for one position, the network's policy over the cells (the heat map) and its value for
the side to move (and for red, for the evaluation bar of a game being played).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from tw_rl.core.notation import RecordError, cell_name, record_words
from tw_rl.core.record import IllegalMove, replay_moves, replay_record
from tw_rl.core.rules import VARIANTS, Rules
from tw_rl.core.state import RED, State
from tw_rl.rating.games import stored_game
from tw_rl.rating.results_db import GameRow, ResultsDB, ResultsDBError
from tw_rl.training.checkpoint import CheckpointError, resolve_checkpoint
from tw_rl.training.net import NetPolicyValue
from tw_rl.web.catalogue import Catalogue, NotOffered, Offered
from tw_rl.web.checkpoints import load_policy_value
from tw_rl.web.shelf import Shelf
from tw_rl.web.views import board_view, position_view, status_line

MAX_RECORD_CHARS = 100_000
MAX_STUDIES = 100
MAX_NETS = 4  # loaded checkpoints kept for analysis


class StudyError(ValueError):
    """A game that cannot be opened or analysed (bad record, unknown id, bad checkpoint)."""


class UnknownStudy(StudyError):
    """No opened game, or no stored game, of that id: 404."""


@dataclass
class StudyGame:
    rules: Rules
    states: list[State]
    move_names: list[str]  # the move before each position after the first
    title: str
    note: str = ""  # e.g. where a stored game stopped (a fault)
    notation: str = "diff"
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def summary(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "note": self.note,
            "plies": len(self.states) - 1,
            "board": board_view(self.rules, self.notation),
            "moves": self.move_names,
        }

    def ply(self, k: int) -> dict:
        if not 0 <= k < len(self.states):
            raise StudyError(f"ply {k} is out of range: this game has plies 0 to {len(self.states) - 1}")
        position = position_view(self.rules, self.states[k])
        return {"ply": k, "position": position, "status": status_line(position)}


def study_record(
    text: str, size: int, variant: str, notation: str = "diff", title: str = "record"
) -> StudyGame:
    """A game from a record's text (StudyError naming the line of the first problem)."""
    if variant not in VARIANTS:
        raise StudyError(f"unknown rules {variant!r}: use one of {', '.join(VARIANTS)}")
    if len(text) > MAX_RECORD_CHARS:
        raise StudyError(f"the record is too long ({len(text)} characters; at most {MAX_RECORD_CHARS})")
    try:
        rules = Rules(int(size), variant, setup="judge")
        positions = list(replay_record(rules, record_words(text.splitlines()), notation))
    except (RecordError, ValueError) as err:
        raise StudyError(f"record: {err}") from None
    return StudyGame(
        rules,
        [p.state for p in positions],
        [p.move_name for p in positions[1:]],
        title,
        notation=notation,
    )


class GameLibrary:
    """The stored games of a rating results database (read-only use)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise StudyError(f"results database {self.path}: no such file")
        try:
            with ResultsDB(self.path) as db:
                db.players()
        except ResultsDBError as err:
            raise StudyError(str(err)) from None

    def _open(self) -> ResultsDB:
        try:
            return ResultsDB(self.path)
        except ResultsDBError as err:
            raise StudyError(str(err)) from None

    def listing(self) -> list[dict]:
        with self._open() as db:
            names = {p.id: p.name for p in db.players()}
            games = db.games()
        return [
            {
                "id": g.id,
                "red": names.get(g.red, "?"),
                "white": names.get(g.white, "?"),
                "size": g.size,
                "result": g.result,
                "points": [g.red_points, g.white_points],
                "plies": g.plies,
                "end": g.end_reason,
            }
            for g in games
        ]

    def game(self, game_id: int) -> StudyGame:
        with self._open() as db:
            names = {p.id: p.name for p in db.players()}
            row = db.game(game_id)
        if row is None:
            raise UnknownStudy(f"no game {game_id} in {self.path}")
        return _stored_game(row, names)


def _stored_game(row: GameRow, names: dict[int, str]) -> StudyGame:
    """A stored game, replayed up to its end or to the illegal move of a fault (noted)."""
    rules = Rules(row.size, "codecup")
    note = f"{row.end_reason}; points red {row.red_points}, white {row.white_points}"
    try:
        game = stored_game(row, names, rules)
    except (KeyError, ValueError) as err:
        raise StudyError(f"stored game {row.id} cannot be read: {err}") from None
    title = f"game {row.id}: {game.slot.red} (red) vs {game.slot.white} (white)"
    states: list[State] = []
    try:
        for state in replay_moves(rules, game.slot.red_start, game.slot.white_start, game.moves):
            states.append(state)
    except IllegalMove as err:
        note += f"; stops before ply {err.ply} ({err.reason})"
    if row.fault:
        note += f"; fault: {row.fault}"
    return StudyGame(rules, states, row.moves.split()[: len(states) - 1], title, note=note)


class Analyst:
    """The offered checkpoints, loaded when first asked for, and their policy and value for
    one position."""

    def __init__(self, catalogue: Catalogue | None = None, default: str | None = "default"):
        self.catalogue = catalogue or Catalogue()
        self.default = default
        self._nets: dict[tuple[str, int, Rules], tuple[NetPolicyValue, str]] = {}
        self._lock = threading.Lock()

    def _load(self, offered: Offered, rules: Rules) -> tuple[NetPolicyValue, str]:
        try:  # a checkpoint rewritten on disk (a run in progress) is loaded again
            stamp = Path(resolve_checkpoint(offered.path)).stat().st_mtime_ns
        except (CheckpointError, OSError):
            stamp = 0
        key = (offered.path, stamp, rules)
        with self._lock:
            if key in self._nets:
                return self._nets[key]
        try:
            policy_value, payload = load_policy_value(offered.path, rules, offered.name)
        except CheckpointError as err:
            raise StudyError(str(err)) from None
        trained = str(payload.get("config", {}).get("board", {}).get("variant", "codecup"))
        note = f"generation {payload.get('generation', '?')}, trained on {trained} rules"
        with self._lock:
            self._nets[key] = (policy_value, note)
            while len(self._nets) > MAX_NETS:
                self._nets.pop(next(iter(self._nets)))
        return policy_value, note

    def offered(self, checkpoint: str | None) -> Offered:
        """The offered checkpoint of a name or number (StudyError for anything else)."""
        name = checkpoint or self.default
        if not name:
            raise StudyError(f"choose a checkpoint to analyse with: {self.catalogue.usage()}")
        try:
            return self.catalogue.resolve(name)
        except NotOffered as err:
            raise StudyError(str(err)) from None

    def analyse(self, game: StudyGame, k: int, checkpoint: str | None) -> dict:
        if not 0 <= k < len(game.states):
            raise StudyError(f"ply {k} is out of range: this game has plies 0 to {len(game.states) - 1}")
        return self.evaluate(game.rules, game.states[k], checkpoint, game.notation)

    def evaluate(self, rules: Rules, state: State, checkpoint: str | None, notation: str = "diff") -> dict:
        """The checkpoint's policy and value in game 0 of ``state``."""
        offered = self.offered(checkpoint)
        if state.terminated[0]:
            return {"checkpoint": offered.name, "policy": [], "value": None, "note": "the game is over here"}
        policy_value, note = self._load(offered, rules)
        with torch.no_grad():
            priors, values = policy_value(state)
        n = rules.num_cells
        policy = [round(float(p), 4) for p in priors[0, :n]]
        best = int(np.argmax(priors[0]))
        value = float(values[0])
        return {
            "checkpoint": offered.name,
            "note": note,
            "policy": policy,
            "pass": round(float(priors[0, n]), 4),
            "value": round(value, 3),
            "value_red": round(value if int(state.to_move[0]) == RED else -value, 3),
            "best": cell_name(rules.grid, best, notation),
        }


def study_shelf() -> Shelf[StudyGame]:
    """The opened games of one server, by id (the newest ``MAX_STUDIES``)."""
    return Shelf(MAX_STUDIES, UnknownStudy, "opened game")
