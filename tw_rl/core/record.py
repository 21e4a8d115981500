"""Replaying a game: the positions its moves pass through, each move checked before it is played.

The one replay of a move list (a record file, a stored game, a referee's game) for every tool:
``Rules.step`` alone would turn an illegal move into a forfeit, so ``replay_moves`` asks
``Rules.legal_mask`` first and stops at the first move the rules do not allow.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tw_rl.core.rules import Rules
from tw_rl.core.state import State


class IllegalMove(ValueError):
    """A move the rules do not allow where it is played, or one after the end of the game."""

    def __init__(self, ply: int, action: int, colour: int, reason: str, over: bool) -> None:
        super().__init__(f"ply {ply}: {reason}")
        self.ply = ply  # 0 = red's first move
        self.action = action
        self.colour = colour  # RED or WHITE: the side to move (0 when the game is over)
        self.reason = reason  # Rules.why_illegal's phrase, or that the game is over
        self.over = over  # the game had ended before this move


def replay_moves(rules: Rules, red_start: int, white_start: int, moves: Iterable[int]) -> Iterator[State]:
    """Yield the start position, then the position after each move (batches of one).

    ``moves`` are action indices (the pass is ``rules.num_cells``), read lazily, so a caller may
    parse them as it goes. The first illegal move, or a move after the end of the game, raises
    IllegalMove; the positions already yielded stay valid.
    """
    state = rules.start(red_start, white_start)
    yield state
    for ply, action in enumerate(moves):
        if state.terminated[0]:
            raise IllegalMove(ply, action, 0, "the game is over", over=True)
        if not (0 <= action < rules.num_actions and rules.legal_mask(state)[0, action]):
            mover = int(state.to_move[0])
            raise IllegalMove(ply, action, mover, rules.why_illegal(state, action), over=False)
        state = rules.step(state, action)
        yield state
