"""The batched game state: a record of numpy arrays with a leading batch axis.

One game is a batch of one. Colours are coded as in ``owner``: EMPTY 0, RED 1, WHITE 2,
NEUTRAL 3. Seats (0 and 1) are the two players of a game; seat 0 is the one who sets up
(the host) and, unless the pie rule swapped colours, plays red. Rewards and per-player
figures are indexed by seat; board facts (territory, score) are indexed by colour - 1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

EMPTY, RED, WHITE, NEUTRAL = 0, 1, 2, 3
COLOUR_NAMES = {RED: "red", WHITE: "white"}  # the one home of the colour words, red first

# Phases: the game proper, and the steps of the official (pie) and free set-ups.
PLAY, SETUP_NEUTRAL, SETUP_RED, SETUP_WHITE, SETUP_PIE = 0, 1, 2, 3, 4


@dataclass
class State:
    """Positions of a batch of games. Treat as immutable: ``Rules.step`` returns a new one."""

    owner: np.ndarray  # [B, N] int8: EMPTY, RED, WHITE or NEUTRAL per cell
    height: np.ndarray  # [B, N] int8: stack height, 0 on empty cells
    sight: np.ndarray  # [B, 2, N] int8: stacks of red (0) and white (1) that each cell sees
    to_move: np.ndarray  # [B] int8: RED or WHITE (the colour that acts in PLAY)
    phase: np.ndarray  # [B] int8: PLAY or one of the SETUP_* steps
    red_seat: np.ndarray  # [B] int8: the seat that plays red (1 after a pie swap)
    passes: np.ndarray  # [B] int8: consecutive passes just played
    quiet: np.ndarray  # [B] int8: consecutive quiet turns (BGA stale-game end)
    ply: np.ndarray  # [B] int32: moves played in PLAY, passes included
    last_move: np.ndarray  # [B] int32: last action (N = pass), -1 before the first
    terminated: np.ndarray  # [B] bool: the game is over
    forfeit: np.ndarray  # [B] int8: the colour that lost by an illegal move, else 0
    territory: np.ndarray  # [B, 2, N] bool: simulated red (0) / white (1) territory
    territory_known: np.ndarray  # [B] bool: ``territory`` is that of the current position

    @property
    def batch_size(self) -> int:
        return self.owner.shape[0]

    def __getitem__(self, index) -> State:
        """A sub-batch (index by an int, slice, boolean mask or index array)."""
        if isinstance(index, (int, np.integer)):
            index = slice(int(index), int(index) + 1)
        return State(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})

    def copy(self) -> State:
        return State(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def replace(self, index, other: State) -> None:
        """Overwrite the games at ``index`` (mask or indices) with those of ``other``, in place."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[index] = getattr(other, f.name)

    @staticmethod
    def concatenate(states: list[State]) -> State:
        return State(
            **{
                f.name: np.concatenate([getattr(s, f.name) for s in states])
                for f in dataclasses.fields(State)
            }
        )

    def current_seat(self) -> np.ndarray:
        """[B] int8: the seat that acts next (the host in set-up, the guest at the pie)."""
        mover_is_red = self.to_move == RED
        seat = np.where(mover_is_red, self.red_seat, 1 - self.red_seat).astype(np.int8)
        seat[(self.phase == SETUP_NEUTRAL) | (self.phase == SETUP_RED) | (self.phase == SETUP_WHITE)] = 0
        seat[self.phase == SETUP_PIE] = 1
        return seat

    def seat_of(self, colour: np.ndarray) -> np.ndarray:
        """[B] the seat playing ``colour`` (RED or WHITE, per game)."""
        return np.where(colour == RED, self.red_seat, 1 - self.red_seat).astype(np.int8)
