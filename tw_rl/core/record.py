"""Replaying a game: the positions its moves pass through, each move checked before it is played.

The one replay of a move list (a record file, a stored game, a referee's game) for every tool:
``Rules.step`` alone would turn an illegal move into a forfeit, so ``replay_moves`` asks
``Rules.legal_mask`` first and stops at the first move the rules do not allow.
``replay_record`` does the same for the words of a record (``tw-rl analyze`` / ``show``, the
web page), with a ``RecordError`` that names the ply, the move and its line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tw_rl.core.notation import RecordError, parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES, State


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


# ------------------------------------------------------------------------ records


@dataclass
class RecordPosition:
    """One position of a replayed record (a batch-of-one State) and how it was reached."""

    ply: int
    state: State
    move_name: str | None  # the move that led here, as written in the record


def check_start(rules: Rules, red_cell: int, white_cell: int, names: tuple[str, str]) -> None:
    """Refuse start cells the rules' set-up cannot give (RecordError, one line)."""
    grid = rules.grid
    for colour, cell, name in zip(COLOUR_NAMES.values(), (red_cell, white_cell), names, strict=True):
        if cell == grid.centre:
            raise RecordError(f"start: {colour}'s start cell {name} is the centre (the neutral stack's cell)")
        if rules.codecup and grid.on_border[cell]:
            raise RecordError(
                f"start: {colour}'s start cell {name} is on the border (not allowed in CodeCup)"
            )
    if red_cell == white_cell:
        raise RecordError(f"start: white's start cell {names[1]} is red's start cell too")
    if rules.codecup and white_cell in grid.neighbours[red_cell]:
        raise RecordError(
            f"start: white's start cell {names[1]} touches red's start cell {names[0]} "
            "(not allowed in CodeCup)"
        )


def _start_cells(rules: Rules, words: Iterator[tuple[int, str]], notation: str) -> tuple[int, int]:
    """Red's and white's start cells, the record's first two items, checked."""
    starts: list[int] = []
    names: list[str] = []
    for colour in COLOUR_NAMES.values():
        item = next(words, None)
        if item is None:
            raise RecordError("the record ends before red's and white's start cells (its first two lines)")
        number, word = item
        try:
            starts.append(parse_cell(rules.grid, word, notation, allow_pass=False))
        except ValueError as err:
            raise RecordError(f"start: {colour}'s start cell (line {number}): {err}") from None
        names.append(word)
    check_start(rules, starts[0], starts[1], (names[0], names[1]))
    return starts[0], starts[1]


def replay_record(
    rules: Rules, words: Iterable[tuple[int, str]], notation: str = "diff"
) -> Iterator[RecordPosition]:
    """Play the (line number, word) items of a record (``notation.record_words``): ply 0, then
    the position after every move, the words read and parsed as the replay goes.

    The first bad start cell, unreadable move or illegal move raises ``RecordError`` naming the
    ply, the move and its line; positions already yielded stay valid.
    """
    words = iter(words)
    red, white = _start_cells(rules, words, notation)
    read: list[tuple[int, str]] = []  # (line, word) of every move handed to the replay

    def moves() -> Iterator[int]:
        for ply, (number, word) in enumerate(words):
            try:
                action = parse_cell(rules.grid, word, notation)
            except ValueError as err:
                raise RecordError(f"ply {ply}: move {err} (line {number})") from None
            read.append((number, word))
            yield action

    try:
        for ply, state in enumerate(replay_moves(rules, red, white, moves())):
            yield RecordPosition(ply, state, read[ply - 1][1] if ply else None)
    except IllegalMove as err:
        number, word = read[err.ply]
        if err.over:
            raise RecordError(
                f"ply {err.ply}: move {word} comes after the end of the game (line {number})"
            ) from None
        mover = COLOUR_NAMES[err.colour]
        raise RecordError(
            f"ply {err.ply}: move {word} is illegal for {mover}: {err.reason} (line {number})"
        ) from None
