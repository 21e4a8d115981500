"""Import the games of ``tw-rl referee`` matches into the results database of the rating runs.

A referee match (``results.jsonl`` and one ``game-NNNNN.txt`` per game in its folder) is the
natural way to measure two CodeCup programs at the real clock; importing it lets those games
count in the Elo fit of ``tw-rl rate`` instead of being played again. Each program becomes
the player of the rating run's list that runs the same command (any outside kind: ``program:``,
``weights:``, ``release:``, ...), else the ``program`` player of its command line (identity: the
command and the sha256 of the script it ran, recorded by the referee; as ``program:COMMAND`` in
the player language). Games keep their opening
number and colours, so an import is idempotent (a game already stored is skipped) and the
rating run never replays it; a game of another match whose slot is taken (two matches with
different seeds both have an opening 0) is stored under the next free opening number.

Every game is checked before it is stored: its record must replay legally from its start cells
to the stored result (a game that ended in a fault is taken as the referee scored it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

from tw_rl.core.notation import Record, parse_cell, parse_record
from tw_rl.core.record import IllegalMove, replay_moves
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES
from tw_rl.rating.games import game_row
from tw_rl.rating.kinds import PlayerSpec, RatingError, kind_of
from tw_rl.rating.player_specs import program_spec
from tw_rl.rating.results_db import ResultsDB
from tw_rl.referee.match import GAME_FILE, colour_pair
from tw_rl.training.match import MatchGame, Slot

RESULTS = "results.jsonl"


@dataclass
class ImportReport:
    folder: Path
    added: int = 0
    skipped: int = 0  # already stored
    damaged: int = 0  # unreadable lines or game files, or a record that does not replay

    def line(self) -> str:
        return f"imported {self.folder}: {self.added} games added, {self.skipped} already stored" + (
            f", {self.damaged} damaged ones left out" if self.damaged else ""
        )


WINNERS = {word: colour for colour, word in COLOUR_NAMES.items()} | {"draw": 0}  # winner_colour


def _replays(rules: Rules, record: Record, fault: str | None, winner: int) -> bool:
    """Whether the record replays legally to the stored end (a fault ends the game early)."""
    try:
        state = list(replay_moves(rules, record.red_start, record.white_start, record.moves))[-1]
    except IllegalMove as err:  # only the faulty last move may be illegal
        return fault is not None and not err.over and err.ply == len(record.moves) - 1
    if fault is not None:
        return True
    return bool(state.terminated[0]) and int(rules.winner(state)[0]) == winner


def import_referee(
    db: ResultsDB,
    folder: str | Path,
    players: Sequence[PlayerSpec] = (),
    log=print,
    only: Container[int] | None = None,
) -> ImportReport:
    """Store the games of one referee results folder; ``players`` name the programs they match.
    ``only``: just these game numbers (a caller storing games as they end)."""
    folder = Path(folder)
    results = folder / RESULTS
    if not results.is_file():
        raise RatingError(f"{folder} holds no {RESULTS} (not a tw-rl referee results folder)")
    listed = {kind_of(spec).program(spec).command: spec for spec in players if not spec.in_process}
    rows: dict[tuple[str, str | None], int] = {}
    report = ImportReport(folder)
    rules_of: dict[int, Rules] = {}
    for number, line in enumerate(results.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            game = json.loads(line)
            if only is not None and int(game["game"]) not in only:
                continue
            size = int(game["size"])
            rules = rules_of.get(size) or rules_of.setdefault(size, Rules(size))
            game_file = folder / GAME_FILE.format(int(game["game"]))
            record = parse_record(rules.grid, game_file.read_text(encoding="utf-8"))
            starts = tuple(parse_cell(rules.grid, cell) for cell in colour_pair(game["start"]))
            programs = [(p["command"], p.get("sha256")) for p in colour_pair(game)]
            winner = WINNERS[game["winner_colour"] or "draw"]  # RED, WHITE or 0
            points = tuple(int(p) for p in colour_pair(game["points"]))
            fault = game.get("fault")
            fault = (fault.get("kind") or "fault") if isinstance(fault, dict) else fault
        except (ValueError, KeyError, TypeError, OSError) as err:
            log(f"warning: {results}:{number} left out ({type(err).__name__}: {err})")
            report.damaged += 1
            continue
        if (record.red_start, record.white_start) != starts or not _replays(rules, record, fault, winner):
            log(f"warning: game {game['game']} of {folder} does not replay to its result; left out")
            report.damaged += 1
            continue
        ids = []
        for command, recorded in programs:
            if (command, recorded) not in rows:
                spec = dataclasses.replace(listed[command]) if command in listed else program_spec(command)
                if recorded is not None and recorded != spec.sha256:
                    # The script changed since the match: the games belong to the one that played.
                    log(f"warning: {command!r} changed since {folder} was played; imported as another player")
                    spec.sha256, spec.name = recorded, f"{spec.name}@{recorded[:8]}"
                rows[command, recorded] = db.register(spec.identity(), spec.name).id
            ids.append(rows[command, recorded])
        slot = Slot("", "", record.red_start, record.white_start, int(game["opening"]))
        played = MatchGame(
            slot,
            record.moves,
            winner,
            points,
            str(game["end"]),
            fault,
        )
        row = game_row(played, ids[0], ids[1], rules, int(game["seed"]), f"referee:{folder}")
        if db.add_game(row) is None:
            # Its slot is taken: by this very game (imported before, here or, when it was moved,
            # under another number), or by another match's game (another seed, the same opening
            # number). Only the slot decides, never the moves alone: two games of one match can
            # be move for move the same (strong bots from the same opening) and both count.
            if db.holds_game(row):
                report.skipped += 1
                continue
            while db.add_game(row) is None:
                row.opening = db.next_opening(row.red, row.white, size)
        report.added += 1
    return report
