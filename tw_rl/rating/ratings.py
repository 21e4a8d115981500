"""Ratings as reported: each player's Elo with its 95% interval, differences, the ranked table,
and the ``ratings.csv`` / ``ratings.json`` files (the fit that makes them is ``tw_rl.rating.elo``).

Elo is ``ELO_PER_LOGIT`` = 400 / ln 10 per logit of the Bradley-Terry model; a player
``d`` Elo stronger expects the score ``1 / (1 + 10^(-d / 400))``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tw_rl.files import write_atomic
from tw_rl.stats import Z95

ELO_PER_LOGIT = 400.0 / math.log(10.0)


def expected_score(elo_difference: float | np.ndarray) -> float | np.ndarray:
    """The expected score of a player ``elo_difference`` Elo stronger (colours balanced)."""
    return 1.0 / (1.0 + np.power(10.0, -np.asarray(elo_difference, dtype=float) / 400.0))


@dataclass(frozen=True)
class Outcome:
    """One game for the fit: the players by colour and red's score (1 win, 0.5 draw, 0 loss)."""

    red: str
    white: str
    score: float
    weight: float = 1.0  # how many games this stands for (virtual draws use fractions)


@dataclass
class PlayerRating:
    """One player's rating: Elo, standard error, 95% interval and its record."""

    name: str
    elo: float
    se: float  # standard error in Elo (0 for the anchor or a reference)
    low: float  # 95% interval
    high: float
    games: int
    score: float  # points per game (draws half)
    component: int  # 0 = the anchor's component; 1, 2, ... the others
    reference: str  # the player rated 0 in this component (the anchor in component 0)
    rank: int = 0


@dataclass
class Difference:
    """The rating difference a - b with its standard error and 95% interval (Elo)."""

    a: str
    b: str
    elo: float
    se: float
    low: float
    high: float


@dataclass
class Ratings:
    """The result of a fit. ``players`` are ranked: the anchor's component first, best first."""

    anchor: str
    players: list[PlayerRating]
    first_move: float  # red's advantage in Elo (from the anchor's component, or the largest)
    first_move_se: float
    games: int  # real games used (virtual draws not counted)
    warnings: list[str] = field(default_factory=list)
    regularized: bool = False  # virtual draws were added because the MLE does not exist
    _index: dict[str, int] = field(default_factory=dict, repr=False)  # name -> row of covariance
    _covariance: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)  # Elo^2
    _component: dict[str, int] = field(default_factory=dict, repr=False)

    def __getitem__(self, name: str) -> PlayerRating:
        for player in self.players:
            if player.name == name:
                return player
        raise KeyError(name)

    def __contains__(self, name: str) -> bool:
        return name in self._component

    @property
    def first_move_interval(self) -> tuple[float, float]:
        return self.first_move - Z95 * self.first_move_se, self.first_move + Z95 * self.first_move_se

    def connected(self, a: str, b: str) -> bool:
        """True when both are rated on one scale (the same connected component)."""
        return a in self._component and self._component.get(a) == self._component.get(b)

    def difference(self, a: str, b: str) -> Difference | None:
        """Rating of ``a`` minus rating of ``b`` with its interval; None across components."""
        if not self.connected(a, b):
            return None
        i, j = self._index.get(a), self._index.get(b)
        cov = self._covariance
        var = 0.0
        if i is not None:
            var += cov[i, i]
        if j is not None:
            var += cov[j, j]
        if i is not None and j is not None:
            var -= 2.0 * cov[i, j]
        se = math.sqrt(max(var, 0.0))
        d = self[a].elo - self[b].elo
        return Difference(a, b, d, se, d - Z95 * se, d + Z95 * se)

    # ------------------------------------------------------------------ output

    def table(self) -> str:
        """The ranked table as text, one block per connected component."""
        lines = []
        width = max([len(p.name) for p in self.players] + [6])
        header = (
            f"{'rank':>4}  {'player':<{width}}  {'Elo':>7}  {'95% interval':>17}  {'+/-':>5}"
            f"  {'games':>6}  {'score':>6}"
        )
        component = None
        for p in self.players:
            if p.component != component:
                component = p.component
                if p.component == 0:
                    lines.append(f"ratings (Elo, {self.anchor} = 0)")
                else:
                    lines.append(
                        f"component {p.component}: not connected to {self.anchor}; "
                        f"ratings relative to {p.reference} = 0, not comparable with the above"
                    )
                lines.append(header)
            interval = f"[{p.low:7.0f}, {p.high:7.0f}]"
            lines.append(
                f"{p.rank:>4}  {p.name:<{width}}  {p.elo:7.0f}  {interval:>17}  {Z95 * p.se:5.0f}"
                f"  {p.games:>6}  {100 * p.score:5.1f}%"
            )
        low, high = self.first_move_interval
        lines.append(
            f"first move (red) advantage: {self.first_move:.0f} Elo [{low:.0f}, {high:.0f}]; "
            f"{self.games} games; score = points per game, draws half"
        )
        for warning in self.warnings:
            lines.append(f"warning: {warning}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        low, high = self.first_move_interval
        return {
            "anchor": self.anchor,
            "scale": "Elo: 400/ln(10) per logit of the Bradley-Terry model; draws count half",
            "games": self.games,
            "first_move": {"elo": self.first_move, "se": self.first_move_se, "low": low, "high": high},
            "regularized": self.regularized,
            "warnings": list(self.warnings),
            "players": [
                {
                    "rank": p.rank,
                    "name": p.name,
                    "elo": p.elo,
                    "se": p.se,
                    "low": p.low,
                    "high": p.high,
                    "games": p.games,
                    "score": p.score,
                    "component": p.component,
                    "reference": p.reference,
                }
                for p in self.players
            ],
        }

    def to_csv(self) -> str:
        out = io.StringIO()
        columns = ["rank", "name", "elo", "se", "low", "high", "games", "score", "component", "reference"]
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for p in self.players:
            writer.writerow(
                [p.rank, p.name, f"{p.elo:.2f}", f"{p.se:.2f}", f"{p.low:.2f}", f"{p.high:.2f}"]
                + [p.games, f"{p.score:.4f}", p.component, p.reference]
            )
        return out.getvalue()


def write_ratings(ratings: Ratings, folder, stem: str = "ratings") -> tuple:
    """Write ``<stem>.csv`` and ``<stem>.json`` into ``folder`` (atomically); returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = folder / f"{stem}.csv", folder / f"{stem}.json"
    write_atomic(csv_path, ratings.to_csv())
    write_atomic(json_path, json.dumps(ratings.to_json(), indent=2) + "\n")
    return csv_path, json_path
