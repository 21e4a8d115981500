"""The bitboard engine of the bot (``tw_rl.codecup.rules``) against two others, position by position:
the reference list engine (``reference_rules.py``, the engine of release 0.1) and the batched
numpy engine (``tw_rl.core.rules``).  Legal moves, sight, territory, game end, score and winner
must agree on every board size and both variants; ``-m slow`` plays many more games
(``TW_FAST_GAMES`` per size and variant, default 200)."""

import os
import random

import numpy as np
import pytest
import reference_rules as ref

from tw_rl.codecup import rules as fast
from tw_rl.core.rules import Rules

SIZES = (6, 8, 10, 11)
VARIANTS = [("codecup", False), ("official", False), ("official", True)]
BOARDS = {n: (fast.Board(n), ref.Board(n)) for n in SIZES}


def agree(f, r, state, g, legal, where):
    """The fast position f, the reference r and game g of the numpy state say the same."""
    n = f.board.num_cells
    moves = f.legal_moves()
    assert moves == r.legal_moves(), where
    if not r.over:
        assert moves == np.flatnonzero(legal[g]).tolist(), where
    snap = f.copy()  # lists from a copy: f itself stays on the bitboard path
    assert (snap.owner, snap.height) == (r.owner, r.height), where
    assert r.owner == state.owner[g].tolist() and r.height == state.height[g].tolist(), where
    sight = f.sight_lists()
    for colour in (fast.RED, fast.WHITE):
        expected = state.sight[g, colour - 1].tolist()
        assert sight[colour] == expected, where
        if r.ply % 5 == 0:
            assert [f.sight(y, colour) for y in range(n)] == expected, where
    if r.ply % 10 == 0:
        neutral = [f.sight(y, fast.NEUTRAL) for y in range(n)]
        assert neutral == [r.sight(y, ref.NEUTRAL) for y in range(n)], where
    red, white = f.territory()
    assert (red, white) == r.territory(), where
    assert red == np.flatnonzero(state.territory[g, 0]).tolist(), where
    assert white == np.flatnonzero(state.territory[g, 1]).tolist(), where
    assert f.over == r.over == bool(state.terminated[g]), where
    assert (f.forfeit, f.to_move, f.passes, f.ply) == (r.forfeit, r.to_move, r.passes, r.ply), where


def pick_move(position, rng, variant, num_cells):
    """A random legal move, now and then a pass (official) or an illegal move (a forfeit)."""
    legal = position.legal_moves()
    if rng.random() < 0.003:
        return rng.choice([m for m in range(num_cells + 1) if m not in legal] or legal)
    if variant == "official" and rng.random() < 0.05:
        return num_cells
    placements = [m for m in legal if m != num_cells]
    return rng.choice(placements or legal)


def play_games(size, variant, stale_end, games, seed):
    """Random games through the three engines in lockstep; returns the positions compared."""
    fb, rb = BOARDS[size]
    rules = Rules(size, variant, setup="judge", stale_end=stale_end)
    rng = random.Random(seed)
    starts = [ref.judge_start(rb, rng) for _ in range(games)]
    fs = [fast.Position.start(fb, r, w, variant, stale_end) for r, w in starts]
    rs = [ref.Position.start(rb, r, w, variant, stale_end) for r, w in starts]
    state = rules.start(*zip(*starts, strict=True))
    compared = 0
    while True:
        rules.ensure_territory(state)
        legal = rules.legal_mask(state)
        score = rules.score(state)
        winner = rules.winner(state)
        for g, (f, r) in enumerate(zip(fs, rs, strict=True)):
            where = f"size {size} {variant} stale {stale_end} game {g} ply {r.ply}"
            agree(f, r, state, g, legal, where)
            assert f.score() == r.score() == tuple(score[g].tolist()), where
            assert f.winner() == r.winner(), where
            if f.over:
                assert f.winner() == int(winner[g]), where
            compared += 1
        if all(r.over for r in rs):
            return compared
        actions = np.zeros(games, dtype=np.int64)
        for g, (f, r) in enumerate(zip(fs, rs, strict=True)):
            if not r.over:
                actions[g] = pick_move(r, rng, variant, rb.num_cells)
                r.play(int(actions[g]))
                if rng.random() < 0.5:  # play on a copy now and then: caches travel with copies
                    fs[g] = f = f.copy()
                f.play(int(actions[g]))
        state = rules.step(state, actions)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant,stale_end", VARIANTS)
def test_games_agree(size, variant, stale_end):
    games = 4 if size <= 8 else 1
    assert play_games(size, variant, stale_end, games, seed=size) > games * 10


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant,stale_end", VARIANTS)
def test_many_games_agree(size, variant, stale_end):
    games = int(os.environ.get("TW_FAST_GAMES", "200"))
    for chunk in range(0, games, 50):
        play_games(size, variant, stale_end, min(50, games - chunk), seed=1000 * size + chunk)


def random_stacks(rng, size):
    """Stacks from random official-rule play (suicidal placements allowed): CodeCup positions
    that CodeCup games themselves never reach, with the side to move drawn at random."""
    fb, rb = BOARDS[size]
    r = ref.Position.start(rb, *ref.judge_start(rb, rng), variant="official")
    for _ in range(rng.randrange(0, 2 * rb.num_cells)):
        moves = r.legal_moves()[:-1]
        if not moves:
            break
        r.play(rng.choice(moves))
        if r.over:
            break
    return r.owner, r.height, rng.choice((fast.RED, fast.WHITE))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant", ["codecup", "official"])
def test_random_positions_agree(size, variant):
    fb, rb = BOARDS[size]
    rules = Rules(size, variant)
    rng = random.Random(50 + size)
    for k in range(30 if size == 6 else 10):
        owner, height, to_move = random_stacks(rng, size)
        r = ref.Position(rb, variant)
        r.owner, r.height, r.to_move = list(owner), list(height), to_move
        f = fast.Position(fb, variant)
        f.owner, f.height, f.to_move = list(owner), list(height), to_move
        f = f.copy()  # the copy holds bitboards only
        state = rules.position(np.array(owner), np.array(height), to_move)
        rules.ensure_territory(state)
        agree(f, r, state, 0, rules.legal_mask(state), f"size {size} {variant} position {k}")
        assert f.score() == r.score() == tuple(rules.score(state)[0].tolist())
        for m in r.legal_moves()[:5]:
            f2, r2 = f.copy(), r.copy()
            f2.play(m)
            r2.play(m)
            assert f2.territory() == r2.territory() and f2.over == r2.over and f2.score() == r2.score()


def test_lists_handed_out_are_the_truth():
    """Changing owner/height in place (as tests and tools do) changes the position."""
    fb, _ = BOARDS[6]
    pos = fast.Position.start(fb, fb.parse("C3"), fb.parse("I9"))
    before = pos.legal_moves()
    owner, height = pos.owner, pos.height
    e6 = fb.parse("E6")
    owner[e6], height[e6] = fast.RED, 2
    assert pos.legal_moves() != before and pos.sight(fb.parse("E7"), fast.RED) >= 1
    assert fb.bits[e6] & pos.stacks()[0]
    copy = pos.copy()
    pos.play(pos.legal_moves()[0])
    assert pos.owner is owner and owner[pos.last_move] == fast.RED  # play updates the live lists
    assert copy.ply == 0 and copy.stacks()[0] != pos.stacks()[0]
    pos.owner = [fast.EMPTY] * fb.num_cells  # a new list replaces the stacks
    pos.height = [0] * fb.num_cells
    assert pos.stacks() == (0, 0, 0, (0, 0, 0)) and pos.territory() == ([], [])


def test_cells_and_bitboards_round_trip():
    rng = random.Random(3)
    for fb, _ in BOARDS.values():
        assert fb.cells(fb.mask) == list(range(fb.num_cells))
        for _ in range(20):
            cells = sorted(rng.sample(range(fb.num_cells), rng.randrange(fb.num_cells)))
            assert fb.cells(fb.bitboard(cells)) == cells
