"""Every rated game in one SQLite file: who played (by identity), by which colour, and how.

Two tables:

- ``players``: one row per player identity. The identity is the kind (a registered player
  kind's name, ``tw_rl.rating.kinds``: ``checkpoint``, ``student``, ``baseline``, ``program``,
  ...), the sha256 of its weights / checkpoint / program file,
  its search settings and its command line; the same identity is the same player in every run,
  wherever its file lies. A player also has a unique display name and, for checkpoints, the
  file's path, run folder, generation and training step (last seen, not part of the identity).
- ``games``: one row per finished game: the players by colour, the board size, the opening
  (its number within the pair; the two games of an opening swap colours), the start cells,
  red's result (1 / 0.5 / 0), both players' points, how it ended, the moves as text (cell
  names, ``Pass``), the seed and a UTC time stamp.

The database runs in WAL mode and every game is committed as it is added, so a killed
rating run loses no finished game; a unique index on (red, white, size, opening) makes sure no
slot of a pairing is ever played twice, even by two rating runs writing at once.

Schema 2 (this code) renamed the kind of a student's raw policy from ``weights`` (which the
player language uses for the bot with a weights file, a program) to ``student``; a schema-1
database is migrated when it is opened (``LEGACY_KINDS``: the kind renamed and the identity
recomputed; the player keeps its id, name and games).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tw_rl.rating.ratings import Outcome

SCHEMA_VERSION = 2
LEGACY_KINDS = {"weights": "student"}  # schema 1 -> 2: old kind -> its name now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    identity TEXT NOT NULL UNIQUE,      -- sha256 of the canonical identity JSON
    kind TEXT NOT NULL,                 -- a player kind: checkpoint, student, baseline, program, ...
    label TEXT NOT NULL DEFAULT '',     -- baseline name (random, greedy, mcts)
    sha256 TEXT NOT NULL DEFAULT '',    -- of the checkpoint / weights / program file
    search TEXT NOT NULL DEFAULT '{}',  -- search settings, JSON
    command TEXT NOT NULL DEFAULT '',   -- program command line
    path TEXT NOT NULL DEFAULT '',      -- file, as last seen
    run_dir TEXT NOT NULL DEFAULT '',   -- training run folder of a checkpoint
    generation INTEGER,                 -- checkpoint generation
    step INTEGER,                       -- checkpoint training step
    size INTEGER,                       -- board size of a checkpoint
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    red INTEGER NOT NULL REFERENCES players(id),
    white INTEGER NOT NULL REFERENCES players(id),
    size INTEGER NOT NULL,
    opening INTEGER NOT NULL,           -- number of the opening within the pairing
    seed INTEGER NOT NULL,
    red_start TEXT NOT NULL,            -- cell names (diff notation)
    white_start TEXT NOT NULL,
    result REAL NOT NULL,               -- red's score: 1 win, 0.5 draw, 0 loss
    red_points INTEGER NOT NULL,
    white_points INTEGER NOT NULL,
    end_reason TEXT NOT NULL,           -- end rule, two passes, fault
    fault TEXT,                         -- what the fault was, if any
    moves TEXT NOT NULL,                -- space-separated cell names and Pass
    plies INTEGER NOT NULL,
    source TEXT NOT NULL,               -- batched (in-process) or referee
    timestamp TEXT NOT NULL             -- UTC, ISO 8601
);
CREATE UNIQUE INDEX IF NOT EXISTS games_slot ON games (red, white, size, opening);
CREATE INDEX IF NOT EXISTS games_white ON games (white);
"""


class ResultsDBError(ValueError):
    """A results database that cannot be used (another program's file, a newer schema)."""


@dataclass(frozen=True)
class Identity:
    """What makes two players the same player."""

    kind: str
    label: str = ""
    sha256: str = ""
    search: dict = field(default_factory=dict)
    command: str = ""

    def key(self) -> str:
        text = json.dumps(
            {
                "kind": self.kind,
                "label": self.label,
                "sha256": self.sha256,
                "search": self.search,
                "command": self.command,
            },
            sort_keys=True,
        )
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class PlayerRow:
    id: int
    name: str
    kind: str
    label: str
    sha256: str
    search: dict
    command: str
    path: str
    run_dir: str
    generation: int | None
    step: int | None
    size: int | None


@dataclass
class GameRow:
    """A finished game (``id`` and ``timestamp`` are filled in by the database)."""

    red: int  # player ids
    white: int
    size: int
    opening: int
    seed: int
    red_start: str
    white_start: str
    result: float
    red_points: int
    white_points: int
    end_reason: str
    moves: str
    plies: int
    source: str
    fault: str | None = None
    id: int | None = None
    timestamp: str = ""


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


class ResultsDB:
    """The rating runs' SQLite database (created if missing). Use as a context manager or ``close()``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(
                self.path, timeout=60.0, isolation_level=None, check_same_thread=False
            )
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.executescript(_SCHEMA)
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row["value"]) > SCHEMA_VERSION:
                raise ResultsDBError(
                    f"{self.path} has schema {row['value']}; this code reads {SCHEMA_VERSION}"
                )
            elif int(row["value"]) < SCHEMA_VERSION:
                self._migrate()
        except sqlite3.DatabaseError as err:
            raise ResultsDBError(f"{self.path} is not a usable results database ({err})") from None

    def _migrate(self) -> None:
        """Schema 1 -> 2 in one transaction: the legacy kinds renamed, their identities recomputed."""
        with self.conn:
            for old, new in LEGACY_KINDS.items():
                rows = self.conn.execute("SELECT * FROM players WHERE kind = ?", (old,)).fetchall()
                for row in rows:
                    identity = Identity(
                        new, row["label"], row["sha256"], json.loads(row["search"]), row["command"]
                    )
                    self.conn.execute(
                        "UPDATE players SET kind = ?, identity = ? WHERE id = ?",
                        (new, identity.key(), row["id"]),
                    )
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # ---------------------------------------------------------------- players

    def register(
        self,
        identity: Identity,
        name: str,
        *,
        path: str = "",
        run_dir: str = "",
        generation: int | None = None,
        step: int | None = None,
        size: int | None = None,
    ) -> PlayerRow:
        """The player with this identity, added under ``name`` (made unique) if it is new.

        A known player keeps its name; its path and run details are refreshed.
        """
        if not identity.kind.isidentifier() or identity.kind in LEGACY_KINDS:
            raise ValueError(f"{identity.kind!r} is not a player kind's name")
        key = identity.key()
        with self.conn:  # one transaction
            row = self.conn.execute("SELECT id FROM players WHERE identity = ?", (key,)).fetchone()
            if row is not None:
                if path or run_dir:
                    self.conn.execute(
                        "UPDATE players SET path = ?, run_dir = ? WHERE id = ?", (path, run_dir, row["id"])
                    )
                return self.player(int(row["id"]))
            unique = name
            suffix = 0
            while self.conn.execute("SELECT 1 FROM players WHERE name = ?", (unique,)).fetchone():
                suffix += 1
                unique = f"{name}~{key[: 6 + suffix]}" if suffix < 10 else f"{name}~{suffix}"
            cursor = self.conn.execute(
                "INSERT INTO players (name, identity, kind, label, sha256, search, command, path, run_dir,"
                " generation, step, size, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    unique,
                    key,
                    identity.kind,
                    identity.label,
                    identity.sha256,
                    json.dumps(identity.search, sort_keys=True),
                    identity.command,
                    path,
                    run_dir,
                    generation,
                    step,
                    size,
                    _now(),
                ),
            )
            return self.player(int(cursor.lastrowid))

    @staticmethod
    def _player(row: sqlite3.Row) -> PlayerRow:
        return PlayerRow(
            id=int(row["id"]),
            name=row["name"],
            kind=row["kind"],
            label=row["label"],
            sha256=row["sha256"],
            search=json.loads(row["search"]),
            command=row["command"],
            path=row["path"],
            run_dir=row["run_dir"],
            generation=row["generation"],
            step=row["step"],
            size=row["size"],
        )

    def player(self, player_id: int) -> PlayerRow:
        row = self.conn.execute("SELECT * FROM players WHERE id = ?", (player_id,)).fetchone()
        if row is None:
            raise KeyError(player_id)
        return self._player(row)

    def player_named(self, name: str) -> PlayerRow | None:
        row = self.conn.execute("SELECT * FROM players WHERE name = ?", (name,)).fetchone()
        return None if row is None else self._player(row)

    def players(self) -> list[PlayerRow]:
        return [self._player(r) for r in self.conn.execute("SELECT * FROM players ORDER BY id")]

    # ------------------------------------------------------------------ games

    def add_game(self, game: GameRow) -> int | None:
        """Store and commit one game; returns its id, or None when its slot is already stored."""
        if game.red == game.white:
            raise ValueError("a player cannot play itself")
        if game.result not in (0.0, 0.5, 1.0):
            raise ValueError(f"result must be red's score 1, 0.5 or 0, got {game.result}")
        stamp = game.timestamp or _now()
        try:
            with self.conn:
                cursor = self.conn.execute(
                    "INSERT INTO games (red, white, size, opening, seed, red_start, white_start, result,"
                    " red_points, white_points, end_reason, fault, moves, plies, source, timestamp)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.red,
                        game.white,
                        game.size,
                        game.opening,
                        game.seed,
                        game.red_start,
                        game.white_start,
                        game.result,
                        game.red_points,
                        game.white_points,
                        game.end_reason,
                        game.fault,
                        game.moves,
                        game.plies,
                        game.source,
                        stamp,
                    ),
                )
        except sqlite3.IntegrityError as err:
            if "UNIQUE" in str(err):
                return None
            raise
        game.id, game.timestamp = int(cursor.lastrowid), stamp
        return game.id

    def games(self, size: int | None = None, players: Sequence[int] | None = None) -> list[GameRow]:
        """Stored games (of one board size; only among ``players`` if given), oldest first."""
        query, args = "SELECT * FROM games", []
        where = []
        if size is not None:
            where.append("size = ?")
            args.append(size)
        if players is not None:
            marks = ",".join("?" * len(players))
            where.append(f"red IN ({marks}) AND white IN ({marks})")
            args += list(players) * 2
        if where:
            query += " WHERE " + " AND ".join(where)
        rows = self.conn.execute(query + " ORDER BY id", args).fetchall()
        return [
            GameRow(**{k: r[k] for k in r.keys()})  # noqa: SIM118 (sqlite3.Row)
            for r in rows
        ]

    def game(self, game_id: int) -> GameRow | None:
        """The stored game with this id, or None."""
        row = self.conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else GameRow(**{k: row[k] for k in row.keys()})  # noqa: SIM118

    def count_games(self, players: Sequence[int], size: int) -> int:
        """Games among ``players`` (both sides in the set) on boards of ``size``."""
        if not players:
            return 0
        marks = ",".join("?" * len(players))
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM games WHERE size = ? AND red IN ({marks}) AND white IN ({marks})",
            [size, *players, *players],
        ).fetchone()
        return int(row[0])

    def count_all_games(self) -> int:
        """Every stored game, of every board size."""
        return int(self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def intact(self) -> bool:
        """Whether SQLite's integrity check finds the file sound."""
        return self.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def slots_stored_twice(self) -> list[tuple[int, int, int, int, int]]:
        """(red, white, size, opening, count) of any slot stored more than once (never, while the
        unique index holds)."""
        rows = self.conn.execute(
            "SELECT red, white, size, opening, COUNT(*) FROM games GROUP BY red, white, size, opening"
            " HAVING COUNT(*) > 1"
        ).fetchall()
        return [tuple(r) for r in rows]

    def holds_game(self, game: GameRow) -> bool:
        """Whether this very game is stored, in any slot: the same players by colour, board,
        seed, start cells and moves (an imported match imported again)."""
        row = self.conn.execute(
            "SELECT 1 FROM games WHERE red = ? AND white = ? AND size = ? AND seed = ?"
            " AND red_start = ? AND white_start = ? AND moves = ? LIMIT 1",
            (game.red, game.white, game.size, game.seed, game.red_start, game.white_start, game.moves),
        ).fetchone()
        return row is not None

    def next_opening(self, a: int, b: int, size: int) -> int:
        """An opening number no stored game between ``a`` and ``b`` uses, in either colour."""
        row = self.conn.execute(
            "SELECT MAX(opening) FROM games"
            " WHERE size = ? AND ((red = ? AND white = ?) OR (red = ? AND white = ?))",
            (size, a, b, b, a),
        ).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def taken_slots(self, a: int, b: int, size: int) -> set[tuple[int, int]]:
        """(opening, red player id) of the stored games between ``a`` and ``b``."""
        rows = self.conn.execute(
            "SELECT opening, red FROM games"
            " WHERE size = ? AND ((red = ? AND white = ?) OR (red = ? AND white = ?))",
            (size, a, b, b, a),
        ).fetchall()
        return {(int(r[0]), int(r[1])) for r in rows}

    def outcomes(self, size: int | None = None, players: Iterable[int] | None = None) -> list[Outcome]:
        """The stored games as ``(red name, white name, red's score)`` for ``tw_rl.rating.elo.fit``."""
        names = {p.id: p.name for p in self.players()}
        keep = None if players is None else set(players)
        query = "SELECT red, white, result FROM games" + (" WHERE size = ?" if size is not None else "")
        rows = self.conn.execute(query + " ORDER BY id", () if size is None else (size,)).fetchall()
        return [
            Outcome(names[red], names[white], float(result))
            for red, white, result in rows
            if keep is None or (red in keep and white in keep)
        ]
