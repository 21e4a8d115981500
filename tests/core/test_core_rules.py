"""The batched engine on hand-made positions: sight, moves, passes, end and score."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import cell, make_position

from tw_rl.core.hexgrid import SIZES, hexgrid
from tw_rl.core.notation import cell_name
from tw_rl.core.rules import Rules
from tw_rl.core.state import NEUTRAL, PLAY, RED, SETUP_PIE, SETUP_RED, WHITE

CODECUP = Rules(6, "codecup")
OFFICIAL = Rules(6, "official", setup="judge")


@pytest.mark.parametrize("size,cells", [(6, 91), (8, 169), (10, 271), (11, 331)])
def test_board_sizes(size, cells):
    grid = hexgrid(size)
    assert grid.num_cells == cells
    assert (grid.neighbours >= 0).sum(axis=1).max() == 6
    assert grid.on_border.sum() == 6 * (size - 1)
    if size == 6:
        assert cell_name(grid, grid.centre) == "F6"


def test_unknown_size_is_refused():
    with pytest.raises(ValueError, match="board size"):
        Rules(7)


# (stacks, cell, red sight, white sight)
SIGHT_TABLE = [
    ("F6:n2 F2:r1 B6:r1", "F4", 1, 0),  # F2 seen down the column; the centre blocks upwards
    ("F6:n2 F2:r1 B6:r1", "D6", 1, 0),  # B6 seen, the neutral stack blocks the view east
    ("F6:n2 F2:r1 B6:r1", "F6", 2, 0),  # a stack does not block its own view
    ("F6:n2 F2:r1 B6:r1 F4:w1", "F6", 1, 1),  # F4 hides F2
    ("F6:n2 F2:r1 F3:r1", "F5", 1, 0),  # only the nearest stack on a ray counts
    ("F6:n2 C3:r1 A1:w1", "B2", 1, 1),  # the diagonal (+1, +1) is a ray
    ("F6:n2 C3:r1", "B3", 1, 0),
    ("F6:n2 C3:r1", "B4", 0, 0),  # (-1, +1) is not a direction
    ("F6:n2 C3:r1 C5:w2 A2:w1 E3:r3 E6:r1", "C4", 2, 2),  # C3 and E6 (diagonal) red; C5, A2 white
]


@pytest.mark.parametrize("stacks,name,red,white", SIGHT_TABLE)
def test_sight_table(stacks, name, red, white):
    state = make_position(CODECUP, stacks)
    c = cell(CODECUP, name)
    assert state.sight[0, 0, c] == red
    assert state.sight[0, 1, c] == white


def play(rules, state, name):
    legal = rules.legal_mask(state)
    action = cell(rules, name)
    assert legal[0, action], f"{name} should be legal"
    return rules.step(state, action)


def test_placement_height_is_sight():
    state = make_position(CODECUP, "F6:n2 C3:r1 C7:r1 J9:w1")
    state = play(CODECUP, state, "C5")
    c = cell(CODECUP, "C5")
    assert state.owner[0, c] == RED and state.height[0, c] == 2
    assert state.to_move[0] == WHITE and state.ply[0] == 1


def test_capture_needs_a_taller_stack():
    state = make_position(CODECUP, "F6:n2 C3:r1 C7:r1 C5:w1 J9:w1")
    after = play(CODECUP, state, "C5")
    assert after.owner[0, cell(CODECUP, "C5")] == RED
    assert after.height[0, cell(CODECUP, "C5")] == 2
    taller = make_position(CODECUP, "F6:n2 C3:r1 C7:r1 C5:w2 J9:w1")
    assert not CODECUP.legal_mask(taller)[0, cell(CODECUP, "C5")]


def test_reinforcement():
    state = make_position(CODECUP, "F6:n2 C3:r1 C7:r1 C5:r1 J9:w1")
    after = play(CODECUP, state, "C5")
    assert after.height[0, cell(CODECUP, "C5")] == 2
    state = make_position(CODECUP, "F6:n2 C3:r1 C5:r1 J9:w1")
    assert not CODECUP.legal_mask(state)[0, cell(CODECUP, "C5")]  # sight 1 is not > 1


def test_neutral_capture_needs_three():
    two = make_position(CODECUP, "F6:n2 F2:r1 B6:r1 A1:w1")
    assert not CODECUP.legal_mask(two)[0, CODECUP.grid.centre]
    three = make_position(CODECUP, "F6:n2 F2:r1 B6:r1 J10:r1 A1:w1")
    after = play(CODECUP, three, "F6")
    assert after.owner[0, CODECUP.grid.centre] == RED and after.height[0, CODECUP.grid.centre] == 3


def test_suicide_refused_in_codecup_allowed_in_official():
    stacks = "F6:n2 A1:r1 B3:w1 D1:w1"
    b1 = cell(CODECUP, "B1")
    state = make_position(CODECUP, stacks)
    assert state.sight[0, 0, b1] == 1 and state.sight[0, 1, b1] == 2
    assert not CODECUP.legal_mask(state)[0, b1]
    assert OFFICIAL.legal_mask(make_position(OFFICIAL, stacks))[0, b1]
    # Equal sight is not suicide: the opponent could not beat the new height.
    equal = make_position(CODECUP, "F6:n2 A1:r1 B3:w1")
    assert CODECUP.legal_mask(equal)[0, b1]


def test_pass_rules():
    pas = CODECUP.num_cells
    stuck = make_position(CODECUP, "F6:n2 A1:w1", to_move=RED)  # red has no stack at all
    legal = CODECUP.legal_mask(stuck)[0]
    assert legal[pas] and legal.sum() == 1
    free = make_position(CODECUP, "F6:n2 C3:r1 J9:w1")
    assert not CODECUP.legal_mask(free)[0, pas]
    assert OFFICIAL.legal_mask(make_position(OFFICIAL, "F6:n2 C3:r1 J9:w1"))[0, pas]


def test_two_passes_end_the_official_game():
    state = make_position(OFFICIAL, "F6:n2 C3:r1 J9:w1")
    state = OFFICIAL.step(state, OFFICIAL.num_cells)
    assert not state.terminated[0] and state.passes[0] == 1
    state = OFFICIAL.step(state, OFFICIAL.num_cells)
    assert state.terminated[0]
    # Owned + controlled: each side owns one stack and controls the empty cells it sees more of.
    points = OFFICIAL.score(state)[0]
    red_sees, white_sees = state.sight[0, 0], state.sight[0, 1]
    empty = state.owner[0] == 0
    assert points[0] == 1 + (empty & (red_sees > white_sees)).sum()
    assert points[1] == 1 + (empty & (white_sees > red_sees)).sum()


def full_board(rules, empty_name):
    """Red stacks of height 6 everywhere but a white one on A1, the neutral and one empty cell."""
    grid = rules.grid
    owner = np.full(grid.num_cells, RED, dtype=np.int8)
    height = np.full(grid.num_cells, 6, dtype=np.int8)
    owner[grid.centre], height[grid.centre] = NEUTRAL, 2
    owner[cell(rules, "A1")] = WHITE
    owner[cell(rules, empty_name)], height[cell(rules, empty_name)] = 0, 0
    return rules.position(owner, height, RED)


def test_codecup_end_and_score():
    state = full_board(CODECUP, "K11")
    after = play(CODECUP, state, "K11")
    assert after.terminated[0]
    # Red holds every cell but A1 and the centre; in red's simulation red takes the centre.
    assert after.territory[0].sum(axis=1).tolist() == [90, 1]
    assert CODECUP.score(after)[0].tolist() == [290, 101]
    assert CODECUP.winner(after)[0] == RED
    assert CODECUP.rewards(after)[0].tolist() == [1.0, -1.0]


def test_start_position_has_no_territory():
    # With one stack each, whoever fills first captures the other's only stack.
    state = CODECUP.start(cell(CODECUP, "C3"), cell(CODECUP, "I9"))
    assert state.territory[0].sum() == 0 and not state.terminated[0]


def test_forfeit_score():
    state = make_position(CODECUP, "F6:n2 C3:r1 J9:w1")
    terr = state.territory[0].copy()
    after = CODECUP.step(state, cell(CODECUP, "K11"))  # red cannot see K11
    assert after.terminated[0] and after.forfeit[0] == RED
    neutral = CODECUP.num_cells - (terr[0] | terr[1]).sum()
    assert CODECUP.score(after)[0].tolist() == [0, 200 + terr[1].sum() + (9 * neutral) // 10]
    assert CODECUP.rewards(after)[0].tolist() == [-1.0, 1.0]
    out_of_range = CODECUP.step(state, 1000)
    assert out_of_range.forfeit[0] == RED


def test_finished_games_do_not_move():
    state = full_board(CODECUP, "K11")
    over = play(CODECUP, state, "K11")
    again = CODECUP.step(over, 0)
    assert (again.owner == over.owner).all() and again.ply[0] == over.ply[0]
    assert not CODECUP.legal_mask(over).any()


def test_stale_end():
    rules = Rules(6, "official", setup="judge", stale_end=True)
    stacks = "F6:n2 A1:r1 A2:r1 A3:r1 B1:r1 C1:r1 C3:r1 B3:r1 K11:w1"
    state = make_position(rules, stacks)
    moves = ["A2", "Pass", "B1", "Pass", "B3"]
    for k, name in enumerate(moves):
        assert not state.terminated[0]
        state = play(rules, state, name)
        assert state.quiet[0] == k + 1
    assert state.terminated[0]
    # A placement on an empty cell is active and resets the count.
    state = make_position(rules, stacks)
    state = play(rules, state, "A2")
    state = play(rules, state, "Pass")
    state = play(rules, state, "A4")
    assert state.quiet[0] == 0


def test_pie_setup():
    rules = Rules(6, "official")
    state = rules.init(2, np.random.default_rng(0))
    assert (state.phase == SETUP_RED).all() and (state.current_seat() == 0).all()
    legal = rules.legal_mask(state)
    assert not legal[:, rules.grid.centre].any() and not legal[:, rules.num_cells].any()
    state = rules.step(state, cell(rules, "C3"))
    state = rules.step(state, cell(rules, "I9"))
    assert (state.phase == SETUP_PIE).all() and (state.current_seat() == 1).all()
    assert np.flatnonzero(rules.legal_mask(state)[0]).tolist() == sorted(
        [cell(rules, "C3"), cell(rules, "I9")]
    )
    state = rules.step(state, np.array([cell(rules, "C3"), cell(rules, "I9")]))  # take red / keep white
    assert (state.phase == PLAY).all() and state.red_seat.tolist() == [1, 0]
    assert state.current_seat().tolist() == [1, 0]  # red moves first, whoever holds it


def test_free_setup_places_the_neutral_stack():
    rules = Rules(6, "official", setup="free")
    state = rules.init(1, np.random.default_rng(0))
    assert rules.legal_mask(state)[0, : rules.num_cells].all()
    state = rules.step(state, cell(rules, "B2"))
    assert state.owner[0, cell(rules, "B2")] == NEUTRAL and state.height[0, cell(rules, "B2")] == 2


def test_judge_draws_follow_the_rules():
    rules = Rules(8)
    red, white = rules.draw_starts(2000, np.random.default_rng(3))
    grid = rules.grid
    assert not grid.on_border[red].any() and not grid.on_border[white].any()
    assert (red != grid.centre).all() and (white != grid.centre).all() and (red != white).all()
    assert not (grid.neighbours[red] == white[:, None]).any()
    assert len(np.unique(red)) > 50


@pytest.mark.parametrize("size", SIZES)
def test_random_games_finish(size):
    rules = Rules(size)
    rng = np.random.default_rng(size)
    state = rules.init(8, rng)
    for _ in range(3 * rules.num_cells):
        if state.terminated.all():
            break
        legal = rules.legal_mask(state)
        state = rules.step(state, (rng.random(legal.shape) * legal).argmax(axis=1))
    assert state.terminated.all() and (state.forfeit == 0).all()
    covered = state.territory[:, 0] | state.territory[:, 1]
    assert (covered.all(axis=1) | (state.passes >= 2)).all()


def test_score_and_winner_leave_the_state_as_it_is():
    """A State is immutable: scoring a position whose territory is not yet known simulates it
    aside, without filling it in."""
    after = play(CODECUP, full_board(CODECUP, "K11"), "K11")
    unknown = after[np.array([0])]
    unknown.territory_known[:] = False
    unknown.territory[:] = False
    assert CODECUP.score(unknown)[0].tolist() == [290, 101] and CODECUP.winner(unknown)[0] == RED
    assert not unknown.territory_known[0] and not unknown.territory.any()
