"""Bradley-Terry ratings on the Elo scale, fitted by maximum likelihood (numpy only).

The model: red (the side that moves first) scores against white with probability

    P(red wins) = sigmoid(r_red - r_white + h)

where ``r`` are the players' strengths in logits and ``h`` is the first-move (red) advantage.
A draw counts as half a win and half a loss: each game adds ``s log p + (1 - s) log(1 - p)``
to the log-likelihood with ``s`` = 1, 0.5 or 0 (red's score). Games are aggregated per
(red, white) pair and the likelihood is maximised by Newton's method with step halving.

One player, the anchor (``random`` by default), is fixed at 0; ratings are reported in Elo
(``ELO_PER_LOGIT`` = 400 / ln 10 per logit). The covariance of the free parameters is the
inverse of the observed Fisher information (minus the Hessian of the log-likelihood at the
optimum, anchor fixed); it gives 95% intervals for every rating and every difference.

Players that are not connected to the anchor by games cannot be rated on its scale. Each such
connected component is fitted on its own, relative to its own reference player (the one with
the most games), and a warning says so; differences across components are refused (None).
When the maximum-likelihood estimate does not exist (a player won or lost every game, or red
won every game), the fit adds ``fallback_draws`` virtual draws per pair of players that met
(half with each colour) and says so in a warning instead of reporting an infinite number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tw_rl.rating.ratings import ELO_PER_LOGIT, Outcome, PlayerRating, Ratings
from tw_rl.stats import Z95

MAX_LOGIT = 18.0  # a fitted |red - white + h| beyond this (p > 1 - 1.5e-8) means no finite optimum


class _Pairs:
    """Games aggregated per (red, white) pair of player indices."""

    def __init__(self, red: np.ndarray, white: np.ndarray, weight: np.ndarray, score: np.ndarray):
        self.red, self.white, self.weight, self.score = red, white, weight, score  # score = sum of s * w


def _aggregate(red: np.ndarray, white: np.ndarray, score: np.ndarray, weight: np.ndarray, n: int) -> _Pairs:
    key = red * n + white
    keys, inverse = np.unique(key, return_inverse=True)
    w = np.bincount(inverse, weights=weight, minlength=len(keys))
    s = np.bincount(inverse, weights=weight * score, minlength=len(keys))
    return _Pairs(keys // n, keys % n, w, s)


def _loglik(theta: np.ndarray, pairs: _Pairs, free: np.ndarray) -> float:
    x = _logits(theta, pairs, free)
    # s log p + (w - s) log(1 - p), with log p = -log(1 + e^-x)
    return float(
        -(pairs.score * np.logaddexp(0.0, -x) + (pairs.weight - pairs.score) * np.logaddexp(0.0, x)).sum()
    )


def _logits(theta: np.ndarray, pairs: _Pairs, free: np.ndarray) -> np.ndarray:
    """x = r_red - r_white + h; ``free[i]`` is player i's parameter slot (-1: fixed at 0)."""
    r = np.append(theta[:-1], 0.0)  # slot -1 reads the trailing 0
    return r[free[pairs.red]] - r[free[pairs.white]] + theta[-1]


def _derivatives(theta: np.ndarray, pairs: _Pairs, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the log-likelihood in the free parameters (+ h last)."""
    k = len(theta)
    x = _logits(theta, pairs, free)
    p = 1.0 / (1.0 + np.exp(-x))
    residual = pairs.score - pairs.weight * p  # d loglik / dx
    curvature = pairs.weight * p * (1.0 - p)  # -d2 loglik / dx2
    # Design: +1 at red's slot, -1 at white's slot, +1 at h (slot k-1); fixed players have none.
    rows = np.arange(len(x))
    design = np.zeros((len(x), k + 1))
    np.add.at(design, (rows, np.where(free[pairs.red] >= 0, free[pairs.red], k)), 1.0)
    np.add.at(design, (rows, np.where(free[pairs.white] >= 0, free[pairs.white], k)), -1.0)
    design = design[:, :k]
    design[:, k - 1] = 1.0
    gradient = design.T @ residual
    hessian = -(design.T * curvature) @ design
    return gradient, hessian


def _newton(pairs: _Pairs, free: np.ndarray, k: int, max_iter: int = 200) -> tuple[np.ndarray, bool]:
    """Maximise the log-likelihood; returns (theta, converged to a finite optimum)."""
    theta = np.zeros(k)
    value = _loglik(theta, pairs, free)
    for _ in range(max_iter):
        gradient, hessian = _derivatives(theta, pairs, free)
        try:
            step = np.linalg.solve(-hessian, gradient)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(-hessian, gradient, rcond=None)[0]
        scale = 1.0
        while True:
            candidate = theta + scale * step
            new_value = _loglik(candidate, pairs, free)
            if new_value >= value - 1e-12 or scale < 1e-8:
                break
            scale *= 0.5
        theta, value = candidate, new_value
        if np.max(np.abs(_logits(theta, pairs, free))) > 2 * MAX_LOGIT:
            return theta, False  # running off to infinity
        if np.max(np.abs(scale * step)) < 1e-9:
            break
    gradient, _ = _derivatives(theta, pairs, free)
    # At a finite optimum no fitted probability is that close to 0 or 1; where one is, the
    # curvature has vanished in floating point and the "optimum" is a point on the way out.
    finite = np.max(np.abs(_logits(theta, pairs, free))) < MAX_LOGIT
    small = np.max(np.abs(gradient)) < 1e-6 * max(1.0, float(pairs.weight.sum()))
    return theta, bool(finite and small)


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected-component label per player (union-find over games a-b)."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a.tolist(), b.tolist(), strict=True):
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    return np.array([find(i) for i in range(n)])


def _strong_components(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    """Strongly connected components of the 'scored against' graph (Kosaraju, iterative)."""
    forward: list[list[int]] = [[] for _ in range(n)]
    backward: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        forward[i].append(j)
        backward[j].append(i)
    order: list[int] = []
    seen = [False] * n
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, iter(forward[start]))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if not seen[child]:
                    seen[child] = True
                    stack.append((child, iter(forward[child])))
                    break
            else:
                order.append(node)
                stack.pop()
    label = [-1] * n
    groups: list[list[int]] = []
    for start in reversed(order):
        if label[start] >= 0:
            continue
        label[start] = len(groups)
        group, stack = [start], [start]
        while stack:
            for j in backward[stack.pop()]:
                if label[j] < 0:
                    label[j] = label[start]
                    group.append(j)
                    stack.append(j)
        groups.append(sorted(group))
    return groups


def _separation(names: list[str], edges: set[tuple[int, int]], score: np.ndarray) -> list[str]:
    """Why no finite maximum-likelihood estimate exists, in words ([] when one may exist)."""
    reasons = []
    groups = _strong_components(len(names), edges)
    if len(groups) > 1:
        label = {i: k for k, group in enumerate(groups) for i in group}
        for k, group in enumerate(groups):
            lost_some = any(label[i] != k and label[j] == k for i, j in edges)
            scored_some = any(label[i] == k and label[j] != k for i, j in edges)
            who = ", ".join(names[i] for i in group)
            if not lost_some:
                reasons.append(f"{who} won every game against the others")
            elif not scored_some:
                reasons.append(f"{who} lost every game against the others")
    if score.size and (score == 1.0).all():
        reasons.append("red won every game")
    elif score.size and (score == 0.0).all():
        reasons.append("white won every game")
    if len(reasons) > 4:
        reasons = reasons[:4] + [f"{len(reasons) - 4} more"]
    return reasons


@dataclass
class _ComponentFit:
    names: list[str]
    reference: str
    elo: np.ndarray  # per player of the component
    covariance: np.ndarray  # Elo^2, over the component's players (reference row/column 0)
    first_move: float
    first_move_se: float
    games: int
    regularized: bool
    separated: bool  # the MLE does not exist even with the virtual draws (should not happen)
    reasons: list[str]  # why the MLE does not exist, when it does not


def _fit_component(
    names: list[str],
    reference: str,
    red: np.ndarray,
    white: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray,
    fallback_draws: float,
    virtual_draws: float,
) -> _ComponentFit:
    """Fit one connected component relative to ``reference`` (fixed at 0): maximum likelihood
    with ``virtual_draws``, or with ``fallback_draws`` where that has no finite optimum; the
    covariance is the inverse of the observed information at the optimum."""
    n = len(names)
    ref = names.index(reference)
    free = np.full(n, -1)
    others = [i for i in range(n) if i != ref]
    free[others] = np.arange(len(others))
    k = len(others) + 1  # + h
    reasons = _separation(names, _scored_against(red, white, score), score)
    regularized = virtual_draws > 0
    theta, ok = (None, False)
    if not reasons:
        pairs = _aggregate(*_with_draws(red, white, score, weight, virtual_draws), n)
        theta, ok = _newton(pairs, free, k)
    if not ok:
        regularized = True
        pairs = _aggregate(*_with_draws(red, white, score, weight, max(virtual_draws, fallback_draws)), n)
        theta, ok = _newton(pairs, free, k)
    cov = _inverse_information(theta, pairs, free)
    elo = np.zeros(n)
    elo[others] = theta[:-1] * ELO_PER_LOGIT
    full = np.zeros((n, n))
    full[np.ix_(others, others)] = cov[:-1, :-1] * ELO_PER_LOGIT**2
    return _ComponentFit(
        names=names,
        reference=reference,
        elo=elo,
        covariance=full,
        first_move=float(theta[-1] * ELO_PER_LOGIT),
        first_move_se=float(math.sqrt(max(cov[-1, -1], 0.0)) * ELO_PER_LOGIT),
        games=int(round(weight.sum())),
        regularized=regularized,
        separated=not ok,
        reasons=reasons if regularized and virtual_draws <= 0 else [],
    )


def _scored_against(red: np.ndarray, white: np.ndarray, score: np.ndarray) -> set[tuple[int, int]]:
    """The edges (i, j) where player i scored (won or drew) against player j at least once."""
    edges = set()
    for i, j, s in zip(red.tolist(), white.tolist(), score.tolist(), strict=True):
        if s > 0:
            edges.add((i, j))
        if s < 1:
            edges.add((j, i))
    return edges


def _with_draws(
    red: np.ndarray, white: np.ndarray, score: np.ndarray, weight: np.ndarray, amount: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The games plus ``amount`` virtual draws per pair of players that met, half with each
    colour (the games alone when ``amount`` <= 0)."""
    if amount <= 0:
        return red, white, score, weight
    met = {(min(i, j), max(i, j)) for i, j in zip(red.tolist(), white.tolist(), strict=True) if i != j}
    extra = np.array(sorted(met), dtype=np.int64).reshape(-1, 2)
    r = np.concatenate([red, extra[:, 0], extra[:, 1]])
    w = np.concatenate([white, extra[:, 1], extra[:, 0]])
    s = np.concatenate([score, np.full(2 * len(extra), 0.5)])
    wt = np.concatenate([weight, np.full(2 * len(extra), amount / 2)])
    return r, w, s, wt


def _inverse_information(theta: np.ndarray, pairs: _Pairs, free: np.ndarray) -> np.ndarray:
    """The covariance of the free parameters (logits): the inverse of minus the Hessian at
    ``theta`` (its pseudo-inverse where it is singular)."""
    _, hessian = _derivatives(theta, pairs, free)
    try:
        return np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(-hessian)


def fit(
    outcomes: Iterable[Outcome | tuple[str, str, float]],
    anchor: str = "random",
    *,
    players: Sequence[str] = (),
    virtual_draws: float = 0.0,
    fallback_draws: float = 1.0,
) -> Ratings:
    """Fit the ratings of every player in ``outcomes`` (plus ``players`` listed without games).

    ``outcomes``: ``Outcome``s or ``(red, white, red_score)`` tuples. ``virtual_draws`` adds that
    many drawn games to every pair that met (a prior; 0 = pure maximum likelihood);
    ``fallback_draws`` is used instead, with a warning, when the maximum-likelihood estimate
    does not exist. Players without games, or not connected to ``anchor``, are reported per
    component with a warning.
    """
    games = _Games.of(_checked(outcomes), players)
    warnings: list[str] = []
    fits = _fit_components(games, anchor, virtual_draws, fallback_draws, warnings)
    first_move = _first_move(fits, anchored=bool(fits) and fits[0].number == 0)
    ranked = _ranked([rating for part in fits for rating in _player_ratings(games, part)])
    index, covariance, component = _joint_covariance(fits)
    return Ratings(
        anchor=anchor,
        players=ranked,
        first_move=first_move[0],
        first_move_se=first_move[1],
        games=int(round(games.weight.sum())),
        warnings=warnings,
        regularized=virtual_draws > 0 or any(part.result.regularized for part in fits),
        _index=index,
        _covariance=covariance,
        _component=component,
    )


def _checked(outcomes: Iterable[Outcome | tuple[str, str, float]]) -> list[Outcome]:
    """The outcomes as ``Outcome``s; ValueError for a score that is not 1, 0.5 or 0 (unweighted)
    or a player playing itself."""
    items = [o if isinstance(o, Outcome) else Outcome(*o) for o in outcomes]
    for o in items:
        if o.score not in (0.0, 0.5, 1.0) and o.weight == 1.0:
            raise ValueError(f"a game's score must be 1, 0.5 or 0 (red's view), got {o.score}")
        if o.red == o.white:
            raise ValueError(f"a player cannot play itself ({o.red})")
    return items


@dataclass
class _Games:
    """The games of a fit by player index: per game red, white, red's score and the weight; per
    player the games played and the points scored (weighted)."""

    names: list[str]  # sorted; a player's index is its place here
    index: dict[str, int]
    red: np.ndarray
    white: np.ndarray
    score: np.ndarray
    weight: np.ndarray
    played: np.ndarray
    points: np.ndarray

    @classmethod
    def of(cls, items: list[Outcome], players: Sequence[str]) -> _Games:
        names = sorted({o.red for o in items} | {o.white for o in items} | set(players))
        index = {name: i for i, name in enumerate(names)}
        red = np.array([index[o.red] for o in items], dtype=np.int64)
        white = np.array([index[o.white] for o in items], dtype=np.int64)
        score = np.array([o.score for o in items], dtype=float)
        weight = np.array([o.weight for o in items], dtype=float)
        both = np.concatenate([red, white])
        played = np.bincount(both, weights=np.concatenate([weight, weight]), minlength=len(names))
        points = np.bincount(
            both, weights=np.concatenate([weight * score, weight * (1 - score)]), minlength=len(names)
        )
        return cls(names, index, red, white, score, weight, played, points)

    def within(self, members: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The games of a component (``members``: its players), by index within it: red,
        white, score, weight."""
        local = {idx: k for k, idx in enumerate(members)}
        mask = np.isin(self.red, members)
        return (
            np.array([local[i] for i in self.red[mask].tolist()], dtype=np.int64),
            np.array([local[i] for i in self.white[mask].tolist()], dtype=np.int64),
            self.score[mask],
            self.weight[mask],
        )


@dataclass
class _Part:
    """One component of the fit: its number (0: the anchor's), its players (by index) and its fit."""

    number: int
    members: list[int]
    result: _ComponentFit


def _fit_components(
    games: _Games, anchor: str, virtual_draws: float, fallback_draws: float, warnings: list[str]
) -> list[_Part]:
    """Fit every component of players connected by games, the anchor's first (number 0; the
    others from 1, largest first), each relative to its reference; the warnings go to
    ``warnings``. Players without games are left out."""
    labels = _components(len(games.names), games.red, games.white)
    has_anchor = anchor in games.index and games.played[games.index[anchor]] > 0
    anchor_label = labels[games.index[anchor]] if has_anchor else None
    if not has_anchor:
        warnings.append(f"the anchor {anchor!r} has no games: no rating is on its scale")
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(i)
    ordered = sorted(
        groups.values(), key=lambda g: (labels[g[0]] != anchor_label, -len(g), games.names[g[0]])
    )
    parts: list[_Part] = []
    number = 0 if anchor_label is not None else 1
    for members in ordered:
        names = [games.names[i] for i in members]
        if len(members) == 1 and games.played[members[0]] == 0:
            if names[0] != anchor:
                warnings.append(f"{names[0]} has no games: not rated")
            continue
        in_anchor = anchor_label is not None and labels[members[0]] == anchor_label
        reference = anchor if in_anchor else max(names, key=lambda m: (games.played[games.index[m]], m))
        if not in_anchor:
            warnings.append(
                f"{', '.join(names)} not connected to {anchor} by games: rated relative to "
                f"{reference} (component {number}), not comparable with {anchor}'s scale"
            )
        result = _fit_component(names, reference, *games.within(members), fallback_draws, virtual_draws)
        if result.regularized and virtual_draws <= 0:
            warnings.append(_fallback_warning(result, fallback_draws))
        parts.append(_Part(number, members, result))
        number += 1
    return parts


def _fallback_warning(result: _ComponentFit, fallback_draws: float) -> str:
    """The warning of a component whose maximum-likelihood ratings do not exist."""
    why = "; ".join(result.reasons) or "the results and the first-move term separate the players"
    who = ", ".join(result.names) if len(result.names) <= 6 else "this component"
    return (
        f"no maximum-likelihood ratings exist ({why}): "
        f"{fallback_draws:g} virtual draw(s) were added per pair that met, so the ratings of "
        f"{who} are finite but pulled together; treat extreme ones as bounds"
    )


def _first_move(parts: list[_Part], anchored: bool) -> tuple[float, float]:
    """The first-move term (Elo, se): the anchor's component's, else that of the component with
    the most games (the first of them on a tie); 0 without games."""
    if not parts:
        return 0.0, 0.0
    chosen = parts[0] if anchored else max(parts, key=lambda part: part.result.games)
    return chosen.result.first_move, chosen.result.first_move_se


def _player_ratings(games: _Games, part: _Part) -> list[PlayerRating]:
    """The ratings of a component's players, with 95% intervals, games and scores."""
    result = part.result
    out = []
    for k, name in enumerate(result.names):
        se = math.sqrt(max(result.covariance[k, k], 0.0))
        i = games.index[name]
        played = games.played[i]
        out.append(
            PlayerRating(
                name=name,
                elo=float(result.elo[k]),
                se=se,
                low=float(result.elo[k] - Z95 * se),
                high=float(result.elo[k] + Z95 * se),
                games=int(round(played)),
                score=float(games.points[i] / played) if played else 0.0,
                component=part.number,
                reference=result.reference,
            )
        )
    return out


def _ranked(ratings: list[PlayerRating]) -> list[PlayerRating]:
    """The ratings by component, then best first (then by name), ranked 1, 2, ... in that order."""
    ratings.sort(key=lambda p: (p.component, -p.elo, p.name))
    for rank, p in enumerate(ratings, start=1):
        p.rank = rank
    return ratings


def _joint_covariance(parts: list[_Part]) -> tuple[dict[str, int], np.ndarray, dict[str, int]]:
    """Every rated player's row in the joint covariance, the covariance (block diagonal: no
    covariance across components) and every player's component number."""
    index: dict[str, int] = {}
    component: dict[str, int] = {}
    size = sum(len(part.result.names) for part in parts)
    covariance = np.zeros((size, size))
    start = 0
    for part in parts:
        block = part.result.covariance
        covariance[start : start + len(block), start : start + len(block)] = block
        for k, name in enumerate(part.result.names):
            index[name] = start + k
            component[name] = part.number
        start += len(block)
    return index, covariance, component
