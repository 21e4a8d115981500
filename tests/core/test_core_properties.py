"""Properties of the batched engine on random positions: symmetries, sight, territory."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import random_positions
from hypothesis import given, settings
from hypothesis import strategies as st

from tw_rl.core.encode import encode, symmetry_actions, symmetry_cells, symmetry_planes
from tw_rl.core.hexgrid import SIZES, hexgrid, inverse_permutation
from tw_rl.core.rules import Rules
from tw_rl.core.sight import compute_sight
from tw_rl.core.state import EMPTY, NEUTRAL, RED, WHITE
from tw_rl.core.territory import fill_legal, simulate_territory


@pytest.mark.parametrize("size", SIZES)
def test_symmetries_are_the_board_automorphisms(size):
    grid = hexgrid(size)
    perms = grid.symmetries
    assert (perms[0] == np.arange(grid.num_cells)).all()
    assert len({p.tobytes() for p in perms}) == 12
    assert (perms[:, grid.centre] == grid.centre).all()
    adjacency = {(i, int(j)) for i in range(grid.num_cells) for j in grid.neighbours[i] if j >= 0}
    for p in perms:
        assert sorted(p.tolist()) == list(range(grid.num_cells))
        assert {(int(p[i]), int(p[j])) for i, j in adjacency} == adjacency
    # Closed under composition: a group.
    keys = {p.tobytes() for p in perms}
    for a in perms:
        for b in perms:
            assert a[b].tobytes() in keys


@pytest.mark.parametrize("variant", ["codecup", "official"])
def test_symmetries_commute_with_legal_masks_and_territory(variant):
    rules = Rules(6, variant, setup="judge")
    state = random_positions(rules, 24, 30, np.random.default_rng(5))
    rules.ensure_territory(state)
    legal = rules.legal_mask(state)
    grid = rules.grid
    for s in range(12):
        moved = rules.position(
            symmetry_cells(grid, state.owner, s), symmetry_cells(grid, state.height, s), state.to_move
        )
        rules.ensure_territory(moved)
        live = ~state.terminated
        assert (rules.legal_mask(moved)[live] == symmetry_actions(grid, legal, s)[live]).all()
        assert (moved.territory == symmetry_cells(grid, state.territory, s)).all()
        assert (moved.sight == symmetry_cells(grid, state.sight, s)).all()


def test_symmetry_on_planes_matches_cells():
    rules = Rules(6)
    state = random_positions(rules, 4, 20, np.random.default_rng(1))
    planes = encode(rules, state)
    grid = rules.grid
    for s in range(12):
        moved = rules.position(
            symmetry_cells(grid, state.owner, s), symmetry_cells(grid, state.height, s), state.to_move
        )
        moved.ply[:] = state.ply
        assert np.allclose(encode(rules, moved), symmetry_planes(grid, planes, s))
    inverse = inverse_permutation(grid.symmetries[3])
    assert (grid.symmetries[3][inverse] == np.arange(grid.num_cells)).all()


def naive_sight(grid, owner, cell, colour):
    count = 0
    for ray in grid.rays[cell]:
        for other in ray:
            if other == grid.num_cells:
                break
            if owner[other] != EMPTY:
                count += owner[other] == colour
                break
    return count


def naive_territory(grid, owner, height, colour):
    """One placement at a time, always the lowest legal cell: the definition, slowly."""
    owner, height = owner.copy(), height.copy()
    for mover in (3 - colour, colour):
        while True:
            sight = compute_sight(grid, owner[None])[0]
            me = mover - 1
            legal = fill_legal(sight[me], sight[1 - me], height)
            if not legal.any():
                break
            cell = int(np.flatnonzero(legal)[0])
            owner[cell], height[cell] = mover, sight[me, cell]
    return owner == colour


@st.composite
def positions(draw):
    size = draw(st.sampled_from([6, 8]))
    grid = hexgrid(size)
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.floats(0.05, 0.9))
    rng = np.random.default_rng(seed)
    owner = rng.choice(
        [EMPTY, RED, WHITE, NEUTRAL],
        size=grid.num_cells,
        p=[1 - density, density * 0.45, density * 0.45, density * 0.1],
    )
    height = np.where(owner == EMPTY, 0, rng.integers(1, 7, size=grid.num_cells)).astype(np.int8)
    return grid, owner.astype(np.int8), height


@given(positions())
def test_sight_matches_walking_the_rays(position):
    grid, owner, _ = position
    sight = compute_sight(grid, owner[None])[0]
    for cell in range(grid.num_cells):
        assert sight[0, cell] == naive_sight(grid, owner, cell, RED)
        assert sight[1, cell] == naive_sight(grid, owner, cell, WHITE)


@given(positions())
def test_batched_territory_matches_one_move_at_a_time(position):
    grid, owner, height = position
    territory = simulate_territory(grid, owner[None], height[None])[0]
    assert (territory[0] == naive_territory(grid, owner, height, RED)).all()
    assert (territory[1] == naive_territory(grid, owner, height, WHITE)).all()


@given(positions(), st.sampled_from(["codecup", "official"]))
def test_legal_mask_properties(position, variant):
    grid, owner, height = position
    rules = Rules(grid.size, variant, setup="judge")
    state = rules.position(owner, height, RED)
    legal = rules.legal_mask(state)[0]
    s_red, s_white = state.sight[0]
    cells = legal[: grid.num_cells]
    assert (s_red[cells] >= 1).all() and (s_red[cells] > height[cells]).all()
    if variant == "codecup":
        assert (s_white[cells] <= s_red[cells]).all()
        assert legal[grid.num_cells] == (not cells.any())
    else:
        assert legal[grid.num_cells]
    after = rules.step(state, np.flatnonzero(legal)[:1])
    if cells.any():
        c = int(np.flatnonzero(legal)[0])
        assert after.owner[0, c] == RED and after.height[0, c] == s_red[c]


def test_property_tests_are_derandomized_by_default():
    """tests/conftest.py loads the ``ci`` profile unless HYPOTHESIS_PROFILE names another: the
    same examples on every run, none replayed from a local database."""
    if os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci":
        pytest.skip(f"profile {os.environ['HYPOTHESIS_PROFILE']} chosen")
    current = settings()
    assert current.derandomize and current.database is None and current.deadline is None
    assert current.max_examples == 40
