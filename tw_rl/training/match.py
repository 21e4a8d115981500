"""Matches between in-process players: one way to play them, with paired openings.

A player is the one in-process protocol (``tw_rl.core.player.Player``: ``(rules, state, rng) ->
actions [B]`` for a batch of games in which it is to act). ``search_player`` wraps a
policy-value function in a search without noise that plays its best move; the baselines of
``tw_rl.core.baselines`` are players as they are.

``play_batch`` plays slots (who is red, who is white, from which start cells) all at once, each
player called once per ply on the games where it is to move. ``balanced_slots`` pairs the
openings as ``tw-rl referee`` does: each start drawn as the judge draws it is played twice, with
colours swapped, so that the first mover's edge (red won most games between equals on the
6-board) cancels inside each pair. ``play_match`` is a paired match between two players, summed
up from A's side as a ``MatchScore``: the win rate with its Wilson interval, CodeCup points per
game (``Rules.score``, the referee's points too) and A's record as red and as white. The rating run,
``scripts/match.py``, ``scripts/ab.py`` and the arena of a training run all play this way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tw_rl.core.mcts import BatchedMCTS, PolicyValue, SearchConfig
from tw_rl.core.player import Player
from tw_rl.core.record import replay_moves
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE, State
from tw_rl.stats import wilson_interval, z_score


def search_player(policy_value: PolicyValue, config: SearchConfig) -> Player:
    """A player that searches ``config.simulations`` per move (no noise) and plays the best."""

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        return BatchedMCTS(rules, config).search(state, policy_value, rng, noise=False).action

    return play


def raw_policy_player(policy_value: PolicyValue) -> Player:
    """A player that plays the policy's most likely legal move, without search."""

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        priors, _ = policy_value(state)
        return np.argmax(np.where(rules.legal_mask(state), priors, -1.0), axis=1)

    return play


# ------------------------------------------------------------------------ slots and games


@dataclass
class Slot:
    """A game to play: who plays which colour, from which start cells."""

    red: str  # player names
    white: str
    red_start: int
    white_start: int
    opening: int = 0


@dataclass
class MatchGame:
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

    def positions(self, rules: Rules) -> list[State]:
        """The positions of the game, from the start to the end (batches of one)."""
        return list(replay_moves(rules, self.slot.red_start, self.slot.white_start, self.moves))


def play_batch(
    rules: Rules,
    players: Mapping[str, Player],
    slots: Sequence[Slot],
    rng: np.random.Generator,
    on_finish: Callable[[int, MatchGame], None] | None = None,
) -> list[MatchGame]:
    """Play every slot at once; each player acts on all the games where it is to move.

    ``on_finish(i, game)`` is called as soon as game ``i`` ends (to store it), before the
    others have finished. Returns the games in the order of ``slots``. An illegal action ends
    its game as a fault, lost by the player who chose it.
    """
    if not slots:
        return []
    if rules.setup != "judge":
        raise ValueError("matches play judge-drawn starts (setup='judge')")
    state = rules.start([s.red_start for s in slots], [s.white_start for s in slots])
    count = len(slots)
    names = sorted({s.red for s in slots} | {s.white for s in slots})
    red_of = np.array([names.index(s.red) for s in slots])
    white_of = np.array([names.index(s.white) for s in slots])
    moves: list[list[int]] = [[] for _ in slots]
    games: list[MatchGame | None] = [None] * count
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
                game = MatchGame(
                    slots[g], moves[g], int(winners[k]), (int(points[k, 0]), int(points[k, 1])), end, fault
                )
                games[g] = game
                done[g] = True
                if on_finish is not None:
                    on_finish(g, game)
    return [g for g in games if g is not None]


def balanced_slots(rules: Rules, a: str, b: str, games: int, rng: np.random.Generator) -> list[Slot]:
    """``games`` slots for a against b: openings drawn as the judge draws them, each played with
    both colours (a is red in the even slots; an odd count plays its last opening once)."""
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
) -> list[MatchGame]:
    """``games`` colour-balanced games between two in-process players, batched; per-game records."""
    slots = balanced_slots(rules, names[0], names[1], games, rng)
    return play_batch(rules, {names[0]: player_a, names[1]: player_b}, slots, rng)


# --------------------------------------------------------------------------- the score


@dataclass
class MatchScore:
    """A match from player A's side: its record as red and as white, and the CodeCup points of
    both players summed over the games (``Rules.score``). Scores add up (``a + b``: two batches
    of one match). The referee's ``MatchResult`` is another thing: programs, game by game."""

    red_wins: int = 0  # A's games as red: won, drawn, lost
    red_draws: int = 0
    red_losses: int = 0
    white_wins: int = 0  # A's games as white
    white_draws: int = 0
    white_losses: int = 0
    points_a: int = 0  # CodeCup points of A, summed over the games
    points_b: int = 0

    @property
    def wins(self) -> int:
        return self.red_wins + self.white_wins

    @property
    def draws(self) -> int:
        return self.red_draws + self.white_draws

    @property
    def losses(self) -> int:
        return self.red_losses + self.white_losses

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's share of the points (a draw counts half)."""
        return (self.wins + 0.5 * self.draws) / max(self.games, 1)

    @property
    def interval(self) -> tuple[float, float]:
        """The score's 95% Wilson interval (the games' luck)."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    @property
    def z(self) -> float:
        """Standard errors between the score and an even match (``tw_rl.stats.z_score``)."""
        return z_score(self.wins + 0.5 * self.draws, self.games)

    @property
    def points_per_game(self) -> tuple[float, float]:
        """A's and B's mean CodeCup points per game."""
        games = max(self.games, 1)
        return self.points_a / games, self.points_b / games

    @property
    def red_won(self) -> int:
        """Games the red player won, whoever it was (the first mover's edge)."""
        return self.red_wins + self.white_losses

    def __add__(self, other: MatchScore) -> MatchScore:
        return MatchScore(
            *(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(MatchScore))
        )

    def to_json(self) -> dict:
        """The score as a JSON-ready dict (``from_json`` reads it back)."""
        low, high = self.interval
        per_a, per_b = self.points_per_game
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "ci95": [round(low, 4), round(high, 4)],
            "z": round(self.z, 3),
            "points_per_game": [round(per_a, 2), round(per_b, 2)],
            "margin": round(per_a - per_b, 2),
            "as_red": [self.red_wins, self.red_draws, self.red_losses],
            "as_white": [self.white_wins, self.white_draws, self.white_losses],
            "red_won": self.red_won,
            "points": [self.points_a, self.points_b],
        }

    @classmethod
    def from_json(cls, report: Mapping) -> MatchScore:
        """The score of a ``to_json`` dict (e.g. a ``scripts/match.py`` report)."""
        return cls(*report["as_red"], *report["as_white"], *report["points"])

    def line(self) -> str:
        """One line: the record, the win rate with its interval, by colour, points per game."""
        low, high = self.interval
        per_a, per_b = self.points_per_game
        return (
            f"{self.wins}-{self.draws}-{self.losses} in {self.games} games, {100 * self.score:.1f}% "
            f"[{100 * low:.1f}%, {100 * high:.1f}%] (z {self.z:+.2f}); as red "
            f"{self.red_wins}-{self.red_draws}-{self.red_losses}, as white "
            f"{self.white_wins}-{self.white_draws}-{self.white_losses} (red won {self.red_won}); "
            f"points per game {per_a:.1f} to {per_b:.1f} (margin {per_a - per_b:+.1f})"
        )


def match_score(games: Sequence[MatchGame], a: str) -> MatchScore:
    """The score of finished games from the side of the player named ``a``."""
    counts = np.zeros((2, 3), dtype=np.int64)  # [A red, A white] x [won, drawn, lost]
    points_a = points_b = 0
    for game in games:
        colour = RED if game.slot.red == a else WHITE
        outcome = 1 if game.winner == 0 else 0 if game.winner == colour else 2
        counts[colour - RED, outcome] += 1
        mine = game.points[colour - RED]
        points_a += mine
        points_b += game.points[1 - (colour - RED)]
    return MatchScore(*(int(c) for c in counts.ravel()), points_a, points_b)


def even_games(games: int) -> int:
    """The games a paired match of ``games`` plays: whole openings, an odd count rounded up."""
    return games + games % 2


def play_match(
    rules: Rules, player_a: Player, player_b: Player, games: int, rng: np.random.Generator
) -> MatchScore:
    """``games`` games at once on ``games / 2`` openings, each played twice with colours swapped
    (``balanced_slots``); an odd count is rounded up to whole openings (``even_games``)."""
    if games < 1:
        raise ValueError(f"a match needs at least one game, got {games}")
    slots = balanced_slots(rules, "A", "B", even_games(games), rng)
    return match_score(play_batch(rules, {"A": player_a, "B": player_b}, slots, rng), "A")
