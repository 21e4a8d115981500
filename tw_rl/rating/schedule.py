"""The rating run's schedule: which pairing plays next, in which slots, and when to stop.

The next pairing is the one whose rating difference is most uncertain, weighted by how close
the two players are: the largest ``se(r_a - r_b) * 4 p (1 - p)`` (``p`` the expected score of a
against b, so ``4 p (1 - p)`` is 1 for equal players and falls towards 0 for a mismatch, as
does the information one game brings). Each pairing has numbered slots: slot k is opening
k // 2 with the lower-id player red when k is even, so colours are balanced, two games of an
opening swap colours, and a later run fills the free slots (games already stored count toward
the budget and are never replayed).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence

from tw_rl.rating.elo import fit
from tw_rl.rating.ratings import Outcome, Ratings, expected_score
from tw_rl.rating.results_db import PlayerRow, ResultsDB

PAIRING_PRIOR = 0.5  # virtual drawn games per pair in the fit that picks pairings (not in the ratings)


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


def pair_seed(seed: int, a: PlayerRow, b: PlayerRow, identity: Mapping[int, str]) -> int:
    """The seed of pairing a-b: the same for the same players (by identity) wherever they play."""
    text = f"{seed}|{identity[a.id]}|{identity[b.id]}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "big")


def free_slots(
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


def interval_reached(ratings: Ratings, names: Sequence[str], width: float) -> bool:
    """Whether every player's 95% interval (the anchor's aside) is at most ``width`` Elo wide."""
    if width <= 0 or ratings.regularized:
        return False
    for name in names:
        if name not in ratings or not ratings.connected(name, ratings.anchor):
            return False
        p = ratings[name]
        if name != ratings.anchor and p.high - p.low > width:
            return False
    return True
