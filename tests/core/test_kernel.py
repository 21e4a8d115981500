"""The compiled kernel (tw_rl/core/kernel.py, territory_kernel.c) against its numpy reference.

Territory and sight on thousands of positions of random games of every size under both rule
sets, whole games played through both paths in lockstep (every field of the state equal after
every move), the 64-board block edges, heights no sight can beat, the judge's end at every ply
where random games reach it, and the fallback when no compiler is there.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import threading

import numpy as np
import pytest

from tw_rl.codecup import rules as scalar
from tw_rl.core import kernel
from tw_rl.core.hexgrid import SIZES
from tw_rl.core.rules import Rules
from tw_rl.core.sight import compute_sight, compute_sight_numpy
from tw_rl.core.state import NEUTRAL, RED, WHITE
from tw_rl.core.territory import sight_and_territory, simulate_territory, simulate_territory_numpy

needs_kernel = pytest.mark.skipif(
    not kernel.compiled_available(), reason=f"the compiled kernel is unavailable: {kernel.why_unavailable()}"
)


def random_positions(size: int, variant: str, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(owner, height) of every position of ``games`` random games, end positions included."""
    rules = Rules(size, variant, setup="judge")
    rng = np.random.default_rng(seed)
    state = rules.init(games, rng)
    owners, heights = [], []
    while True:
        owners.append(state.owner.copy())
        heights.append(state.height.copy())
        if state.terminated.all():
            break
        legal = rules.legal_mask(state)
        keys = rng.random(legal.shape) * legal
        if variant == "official":  # fewer passes than uniform: longer, fuller games
            keys[:, -1] *= 0.05
        state = rules.step(state, keys.argmax(axis=1))
    return np.concatenate(owners), np.concatenate(heights)


@needs_kernel
@pytest.mark.parametrize("variant", ["codecup", "official"])
@pytest.mark.parametrize("size", SIZES)
def test_territory_and_sight_equal_numpy_on_random_games(size, variant):
    games = {6: 24, 8: 10, 10: 4, 11: 3}[size]
    owner, height = random_positions(size, variant, games, seed=size)
    assert len(owner) >= 1000
    grid = Rules(size).grid
    want = simulate_territory_numpy(grid, owner, height)
    assert want.any() and not want.all()
    np.testing.assert_array_equal(kernel.compiled_territory(grid, owner, height), want)
    np.testing.assert_array_equal(kernel.compiled_sight(grid, owner), compute_sight_numpy(grid, owner))
    sight, territory = kernel.compiled_sight_and_territory(grid, owner, height)
    np.testing.assert_array_equal(sight, compute_sight_numpy(grid, owner))
    np.testing.assert_array_equal(territory, want)


@needs_kernel
@pytest.mark.parametrize("batch", [0, 1, 63, 64, 65, 130])
def test_block_edges(batch):
    """Batches around the kernel's blocks of 64 boards, and rows that are not contiguous."""
    owner, height = random_positions(6, "codecup", 4, seed=3)
    rows = np.random.default_rng(batch).choice(len(owner), batch)
    grid = Rules(6).grid
    for o, h in ((owner[rows], height[rows]), (owner[rows][::-1].T.copy().T, height[rows][::-1])):
        want = simulate_territory_numpy(grid, o, h)
        np.testing.assert_array_equal(kernel.compiled_territory(grid, o, h), want)
        np.testing.assert_array_equal(kernel.compiled_sight(grid, o), compute_sight_numpy(grid, o))


@needs_kernel
def test_tall_stacks_and_empty_boards():
    """Heights above 7 (which the kernel holds as 7: no sight beats either), boards without
    stacks and a full board."""
    grid = Rules(6).grid
    n = grid.num_cells
    owner = np.zeros((4, n), dtype=np.int8)
    height = np.zeros((4, n), dtype=np.int8)
    owner[1, grid.centre], height[1, grid.centre] = NEUTRAL, 2
    tall = grid.neighbours[grid.centre][:3]
    owner[2, tall], height[2, tall] = RED, [9, 100, 7]
    owner[2, grid.neighbours[grid.centre][3:]], height[2, grid.neighbours[grid.centre][3:]] = WHITE, 1
    owner[3], height[3] = np.where(np.arange(n) % 2, RED, WHITE), 6
    want = simulate_territory_numpy(grid, owner, height)
    np.testing.assert_array_equal(kernel.compiled_territory(grid, owner, height), want)
    assert (want[2, 0, tall]).all()  # nobody can take a stack of 9 or 100
    assert not want[0].any() and not want[1].any()


def play_lockstep(size: int, variant: str, games: int, seed: int) -> int:
    """The same random games (passes and illegal moves mixed in) through both paths: every
    field of the state equal after every move, score and winner too. Returns moves compared."""
    rules = Rules(size, variant, setup="judge")
    rng = np.random.default_rng(seed)
    with kernel.engine("c"):
        fast = rules.init(games, np.random.default_rng(seed))
    with kernel.engine("numpy"):
        slow = rules.init(games, np.random.default_rng(seed))
    compared = 0
    while not slow.terminated.all():
        for field in dataclasses.fields(slow):
            np.testing.assert_array_equal(getattr(fast, field.name), getattr(slow, field.name), field.name)
        legal = rules.legal_mask(slow)
        actions = (rng.random(legal.shape) * legal).argmax(axis=1)
        odd = rng.random(games)
        actions[odd < 0.002] = rng.integers(0, rules.num_actions, games)[odd < 0.002]
        with kernel.engine("c"):
            fast = rules.step(fast, actions)
            fast_score, fast_winner = rules.score(fast), rules.winner(fast)
        with kernel.engine("numpy"):
            slow = rules.step(slow, actions)
            np.testing.assert_array_equal(fast_score, rules.score(slow))
            np.testing.assert_array_equal(fast_winner, rules.winner(slow))
        compared += int((~slow.terminated).sum())
    return compared


@needs_kernel
@pytest.mark.parametrize("variant", ["codecup", "official"])
@pytest.mark.parametrize("size", SIZES)
def test_both_paths_play_the_same_games(size, variant):
    games = 16 if size <= 8 else 4
    assert play_lockstep(size, variant, games, seed=10 + size) > 500


def judge_ends(size: int, games: int, seed: int) -> dict[int, int]:
    """Random CodeCup games on the batched engine, each replayed on the scalar twin move by move:
    both say "not over" until the same ply, where the judge's simulation covers the board, and
    agree on the score there. Returns how many games ended at each ply."""
    rules = Rules(size, "codecup")
    board = scalar.Board(size)
    rng = np.random.default_rng(seed)
    state = rules.init(games, rng)
    twins = [
        scalar.Position.start(board, int(np.flatnonzero(o == RED)[0]), int(np.flatnonzero(o == WHITE)[0]))
        for o in state.owner
    ]
    ends: dict[int, int] = {}
    while not state.terminated.all():
        legal = rules.legal_mask(state)
        actions = (rng.random(legal.shape) * legal).argmax(axis=1)
        before = state.terminated.copy()
        state = rules.step(state, actions)
        for g in np.flatnonzero(~before):
            twins[g].play(int(actions[g]))
            assert bool(state.terminated[g]) == twins[g].over, (g, int(state.ply[g]))
            if twins[g].over:
                assert state.passes[g] < 2 and state.forfeit[g] == 0
                covered = state.territory[g, 0] | state.territory[g, 1]
                assert covered.all(), "the judge's end: both territories cover the board"
                assert tuple(rules.score(state[g])[0].tolist()) == twins[g].score()
                ends[int(state.ply[g])] = ends.get(int(state.ply[g]), 0) + 1
    return ends


@needs_kernel
@pytest.mark.parametrize("size", [6, 8])
def test_judge_end_at_every_ply_random_games_reach(size):
    """End positions in particular: every game ends on the judge's simulation, at the same ply
    on both engines, over a wide spread of plies."""
    games = 160 if size == 6 else 48
    ends = judge_ends(size, games, seed=size)
    assert sum(ends.values()) == games
    assert len(ends) >= (40 if size == 6 else 25), sorted(ends)


def test_numpy_path_when_asked_and_errors():
    grid = Rules(6).grid
    owner, height = random_positions(6, "codecup", 2, seed=1)
    with kernel.engine("numpy"):
        assert not kernel.use_compiled()
        np.testing.assert_array_equal(
            simulate_territory(grid, owner, height), simulate_territory_numpy(grid, owner, height)
        )
        np.testing.assert_array_equal(compute_sight(grid, owner), compute_sight_numpy(grid, owner))
        sight, territory = sight_and_territory(grid, owner, height)
        np.testing.assert_array_equal(territory, simulate_territory_numpy(grid, owner, height))
    with pytest.raises(ValueError, match="one of"):
        with kernel.engine("fast"):
            pass


def test_tw_rl_kernel_variable(monkeypatch):
    monkeypatch.setenv("TW_RL_KERNEL", "numpy")
    assert kernel.choice() == "numpy" and not kernel.use_compiled()
    monkeypatch.setenv("TW_RL_KERNEL", "gpu")
    with pytest.raises(ValueError, match="TW_RL_KERNEL must be one of"):
        kernel.choice()


@needs_kernel
def test_games_in_threads_share_one_table_and_agree_with_numpy():
    """The referee plays its games in threads, and they all start at once: the first calls for a
    board's tables must all get the one cached array (a thread that got its own copy lost it
    while the kernel read it: a crash), and every answer equals the numpy one."""
    owner, _ = random_positions(6, "codecup", 4, seed=5)
    expected = compute_sight_numpy(Rules(6).grid, owner)
    threads, start = 8, threading.Barrier(8)
    tables, answers, errors = [None] * threads, [None] * threads, []

    def one(k: int) -> None:
        try:
            start.wait()
            tables[k] = kernel._tables(Rules(6).grid)
            answers[k] = kernel.compiled_sight(Rules(6).grid, owner)
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    for round_ in range(20):
        kernel._tables_once.cache_clear()
        workers = [threading.Thread(target=one, args=(k,)) for k in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors, errors
        assert all(t is tables[0] for t in tables), f"round {round_}: threads got different tables"
        assert all(np.array_equal(a, expected) for a in answers)


@pytest.fixture
def no_compiler(monkeypatch, tmp_path):
    """A PATH without any C compiler, a fresh cache folder, and the build forgotten before and
    after (so that the other tests find the real kernel again)."""
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("TW_RL_CACHE", str(tmp_path / "cache"))
    kernel._build_once.cache_clear()
    yield
    kernel._build_once.cache_clear()


def test_without_a_compiler_the_numpy_path_plays(no_compiler, monkeypatch):
    assert not kernel.compiled_available()
    assert "no C compiler" in kernel.why_unavailable()
    assert not kernel.use_compiled()  # auto falls back
    rules = Rules(6)
    state = rules.init(4, np.random.default_rng(0))
    for _ in range(30):
        legal = rules.legal_mask(state)
        state = rules.step(state, legal.argmax(axis=1))
    assert state.territory_known.all()
    monkeypatch.setenv("TW_RL_KERNEL", "c")
    with pytest.raises(kernel.KernelUnavailable, match="TW_RL_KERNEL=c but"):
        rules.step(state, rules.legal_mask(state).argmax(axis=1))


def test_a_broken_compiler_falls_back(no_compiler, monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "cc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'cc: error: out of luck' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("CC", str(fake))
    assert not kernel.compiled_available()
    assert "out of luck" in kernel.why_unavailable()
    assert not list((tmp_path / "cache").glob("**/*.so"))  # nothing half-built left behind


@needs_kernel
def test_builds_into_a_fresh_cache_once(monkeypatch, tmp_path):
    monkeypatch.setenv("TW_RL_CACHE", str(tmp_path))
    kernel._build_once.cache_clear()
    try:
        assert kernel.compiled_available()
        built = list((tmp_path / "kernels").glob("territory-*.so"))
        assert len(built) == 1
        stamp = built[0].stat().st_mtime_ns
        kernel._build_once.cache_clear()
        assert kernel.compiled_available()
        assert built[0].stat().st_mtime_ns == stamp  # loaded, not built again
    finally:
        kernel._build_once.cache_clear()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_source_compiles_without_warnings(tmp_path):
    done = subprocess.run(
        ["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC"]
        + [str(kernel.SOURCE), "-o", str(tmp_path / "k.so")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
