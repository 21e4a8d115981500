"""Tests of the scalar standard-library rules engine (tw_rl.codecup.rules)."""

import random

import pytest

from tw_rl.codecup.rules import (
    EMPTY,
    NEUTRAL,
    RED,
    WHITE,
    Board,
    Position,
    judge_start,
)

BOARDS = {n: Board(n) for n in (6, 8, 10, 11)}
B6 = BOARDS[6]


def make(stacks, to_move=RED, variant="codecup", board=B6, stale_end=False):
    """Position from a table {name: (owner, height)} (diff notation)."""
    pos = Position(board, variant, stale_end)
    for name, (o, h) in stacks.items():
        i = board.parse(name)
        pos.owner[i] = o
        pos.height[i] = h
    pos.to_move = to_move
    return pos


def cell(name, board=B6):
    return board.parse(name)


# ------------------------------------------------------------------ geometry
def test_cell_counts_and_centre():
    for n, count in ((6, 91), (8, 169), (10, 271), (11, 331)):
        b = BOARDS[n]
        assert b.num_cells == count == 3 * n * (n - 1) + 1
        assert b.pass_move == count
        assert b.coords == sorted(b.coords)
        assert b.coords[b.centre] == (n - 1, n - 1)
        assert all(b.index[cr] == i for i, cr in enumerate(b.coords))
        assert sum(b.on_border(i) for i in range(count)) == 6 * (n - 1)
        assert len(b.neighbours[b.centre]) == 6


@pytest.mark.parametrize("size", [0, 5, 7, 9, 12, "6", 6.0, True])
def test_bad_board_size(size):
    with pytest.raises(ValueError, match=r"board size must be one of \(6, 8, 10, 11\), got "):
        Board(size)


def test_rays_and_neighbours():
    for b in BOARDS.values():
        for i in range(b.num_cells):
            c, r = b.coords[i]
            assert len(b.rays[i]) == 6
            for k, ray in enumerate(b.rays[i]):
                # walking the opposite way from any cell on the ray comes back to i
                for j in ray:
                    assert i in b.rays[j][k ^ 1]
                if ray:
                    dc, dr = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))[k]
                    assert b.coords[ray[0]] == (c + dc, r + dr)
            assert b.neighbours[i] == tuple(ray[0] for ray in b.rays[i] if ray)
            assert all(i in b.neighbours[j] for j in b.neighbours[i])
            # the full lines through a cell cover 3 axes of length 2n-1 at most
            assert sum(len(r) for r in b.rays[i]) <= 3 * (2 * b.size - 2)


# ------------------------------------------------------------------ notation
def test_notation_round_trips():
    for b in BOARDS.values():
        for notation in ("diff", "sum"):
            names = [b.name(i, notation) for i in range(b.num_cells)]
            assert len(set(names)) == b.num_cells
            for i, name in enumerate(names):
                assert b.parse(name, notation) == i
                assert b.parse(f" {name}\n", notation) == i


def test_notation_examples():
    assert B6.name(B6.centre) == "F6" == B6.name(B6.centre, "sum")
    assert B6.parse("F6") == B6.parse("F6", "sum") == B6.centre
    assert B6.name(0) == "A1"  # (0, 0)
    assert B6.name(0, "sum") == "A11"
    assert B6.coords[B6.parse("A6", "sum")] == (0, 5)
    assert B6.coords[B6.parse("K6")] == (10, 5)
    assert BOARDS[11].name(BOARDS[11].num_cells - 1) == "U21"
    # diff: |c - r| <= 5; sum: 5 <= c + r <= 15 (r = number - 1)
    with pytest.raises(ValueError, match="'A7' is not a cell of the size-6 board"):
        B6.parse("A7")
    assert B6.coords[B6.parse("A7", "sum")] == (0, 4)
    with pytest.raises(ValueError, match="'A1' is not a cell of the size-6 board"):
        B6.parse("A1", "sum")


@pytest.mark.parametrize(
    "text", ["", "F", "6", "f6", "F0", "F12", "L1", "F06", "F-1", "F6x", "Pass", "F 6", "F+6", None]
)
def test_parse_rejects(text):
    with pytest.raises(ValueError, match="is not a cell of the size-6 board"):
        B6.parse(text)


def test_bad_notation_and_index():
    with pytest.raises(ValueError, match="unknown notation 'axial'; use 'diff' or 'sum'"):
        B6.name(0, "axial")
    with pytest.raises(ValueError, match="unknown notation 'axial'; use 'diff' or 'sum'"):
        B6.parse("F6", "axial")
    for i in (-1, B6.num_cells, 1.0):
        with pytest.raises(ValueError, match="is not a cell index of the size-6 board"):
            B6.name(i)


# ------------------------------------------------------------------ sight
def test_sight_blocking():
    # F6 is the centre (5, 5).  Row 6 runs A6..K6 along direction (1, 0).
    pos = make({"H6": (RED, 1)})
    x = cell("E6")
    assert pos.sight(x, RED) == 1  # view passes F6, G6 (empty)
    pos = make({"H6": (RED, 1), "G6": (WHITE, 1)})
    assert pos.sight(x, RED) == 0 and pos.sight(x, WHITE) == 1
    pos = make({"H6": (RED, 1), "F6": (NEUTRAL, 2)})
    assert pos.sight(x, RED) == 0  # neutral blocks
    assert pos.sight(x, NEUTRAL) == 1
    pos = make({"H6": (RED, 1), "E6": (WHITE, 3)})
    assert pos.sight(x, RED) == 1  # own stack does not block
    pos = make({"H6": (RED, 1), "A6": (RED, 1), "E1": (WHITE, 1)})
    assert pos.sight(x, RED) == 2 and pos.sight(x, WHITE) == 1


def test_sight_all_six():
    x = B6.centre
    stacks = {B6.name(j): (RED, 1) for j in B6.neighbours[x]}
    pos = make(stacks)
    assert pos.sight(x, RED) == 6
    # a second ring behind the first changes nothing
    for ray in B6.rays[x]:
        pos.owner[ray[1]] = WHITE
        pos.height[ray[1]] = 1
    assert pos.sight(x, RED) == 6 and pos.sight(x, WHITE) == 0


def test_sight_tables_match_sight():
    rng = random.Random(5)
    for _ in range(20):
        pos = random_position(rng, B6)
        sg = pos.sight_lists()
        for i in range(B6.num_cells):
            assert sg[RED][i] == pos.sight(i, RED)
            assert sg[WHITE][i] == pos.sight(i, WHITE)


# ------------------------------------------------------------------ moves
def test_start_position():
    r, w = cell("C3"), cell("I9")
    pos = Position.start(B6, r, w)
    assert pos.owner[B6.centre] == NEUTRAL and pos.height[B6.centre] == 2
    assert (pos.owner[r], pos.height[r], pos.owner[w], pos.height[w]) == (RED, 1, WHITE, 1)
    assert (pos.to_move, pos.ply, pos.passes, pos.over, pos.forfeit) == (RED, 0, 0, False, 0)
    assert pos.last_move is None
    with pytest.raises(ValueError, match="red and white start cells must differ"):
        Position.start(B6, r, r)
    with pytest.raises(ValueError, match="a start cell may not be the centre"):
        Position.start(B6, B6.centre, w)
    with pytest.raises(ValueError, match="unknown variant 'bga'; use 'codecup' or 'official'"):
        Position.start(B6, r, w, variant="bga")
    with pytest.raises(ValueError, match="stale_end is an option of the 'official' variant only"):
        Position.start(B6, r, w, stale_end=True)  # official only


def test_capture():
    # red sees G6 from E6 (through F6? no: F6 empty here) and from G3 (column G).
    pos = make({"E6": (RED, 1), "G3": (RED, 1), "G6": (WHITE, 1)})
    g6 = cell("G6")
    assert pos.sight(g6, RED) == 2 and pos.sight(g6, WHITE) == 0
    assert pos.placement_legal(g6, RED)
    assert g6 in pos.legal_moves()
    pos.play(g6)
    assert (pos.owner[g6], pos.height[g6]) == (RED, 2)
    assert (pos.to_move, pos.ply, pos.last_move, pos.forfeit) == (WHITE, 1, g6, 0)
    # sight 1 cannot capture a 1-stack
    pos = make({"E6": (RED, 1), "G6": (WHITE, 1)})
    assert not pos.placement_legal(g6, RED)


def test_reinforcement():
    pos = make({"E6": (RED, 1), "G3": (RED, 1), "G6": (RED, 1), "A1": (WHITE, 1)}, variant="official")
    g6 = cell("G6")
    assert pos.placement_legal(g6, RED)
    pos.play(g6)
    assert (pos.owner[g6], pos.height[g6]) == (RED, 2)
    pos.to_move = RED
    assert not pos.placement_legal(g6, RED)  # sight 2 is not > 2
    assert g6 not in pos.legal_moves()


def test_neutral_capture_needs_three():
    c = B6.centre
    nb = B6.neighbours[c]
    pos = make({"F6": (NEUTRAL, 2), B6.name(nb[0]): (RED, 1), B6.name(nb[1]): (RED, 1)})
    assert pos.sight(c, RED) == 2 and not pos.placement_legal(c, RED)
    pos.owner[nb[2]], pos.height[nb[2]] = RED, 1
    assert pos.sight(c, RED) == 3 and pos.placement_legal(c, RED)
    pos.play(c)
    assert (pos.owner[c], pos.height[c]) == (RED, 3)


def test_suicide_rule():
    # E6 empty: red sees 1 (B6), white sees 2 (E2, E9)
    stacks = {"B6": (RED, 1), "E2": (WHITE, 1), "E9": (WHITE, 1)}
    e6 = cell("E6")
    cc = make(stacks)
    off = make(stacks, variant="official")
    assert cc.sight(e6, RED) == 1 and cc.sight(e6, WHITE) == 2
    assert not cc.placement_legal(e6, RED) and e6 not in cc.legal_moves()
    assert off.placement_legal(e6, RED) and e6 in off.legal_moves()
    # equal sight is not suicide
    eq = make({"B6": (RED, 1), "E2": (WHITE, 1)})
    assert eq.placement_legal(e6, RED)
    # the suicidal move is a forfeit under codecup, a normal move under official
    cc.play(e6)
    assert cc.over and cc.forfeit == RED and cc.owner[e6] == EMPTY
    off.play(e6)
    assert not off.over and off.owner[e6] == RED and off.height[e6] == 1


def test_pass_legality():
    pos = Position.start(B6, cell("C3"), cell("I9"))
    assert B6.pass_move not in pos.legal_moves()
    off = Position.start(B6, cell("C3"), cell("I9"), variant="official")
    moves = off.legal_moves()
    assert moves[-1] == B6.pass_move and moves[:-1] == sorted(moves[:-1])
    assert moves[:-1] == [m for m in pos.legal_moves()]  # no suicide possible yet
    # red has no stack: stuck, must pass under codecup
    stuck = make({"F6": (NEUTRAL, 2), "C3": (WHITE, 1)})
    assert stuck.legal_moves() == [B6.pass_move]


def test_two_passes_end_codecup():
    pos = make({"F6": (NEUTRAL, 2)})
    pos.play(B6.pass_move)
    assert not pos.over and pos.passes == 1 and pos.to_move == WHITE
    pos.play(B6.pass_move)
    assert pos.over and pos.passes == 2 and pos.forfeit == 0
    assert pos.score() == (100, 100) and pos.winner() == 0
    assert pos.legal_moves() == []
    with pytest.raises(ValueError, match="the game is over"):
        pos.play(B6.pass_move)


def test_official_passes_and_score():
    pos = Position.start(B6, cell("C3"), cell("I9"), variant="official")
    pos.play(B6.pass_move)
    pos.play(cell("I8"))
    assert pos.passes == 0
    pos.play(B6.pass_move)
    assert not pos.over
    pos.play(B6.pass_move)
    assert pos.over and pos.ply == 4
    red, white = pos.score()
    # owned + controlled, computed by hand from sight()
    exp = [0, 0, 0]
    for i in range(B6.num_cells):
        o = pos.owner[i]
        if o in (RED, WHITE):
            exp[o] += 1
        elif o == EMPTY:
            r, w = pos.sight(i, RED), pos.sight(i, WHITE)
            if r != w:
                exp[RED if r > w else WHITE] += 1
    assert (red, white) == (exp[RED], exp[WHITE])
    assert pos.winner() == (RED if red > white else WHITE if white > red else 0)


def test_official_end_when_nobody_can_place():
    pos = make({"F6": (NEUTRAL, 2)}, variant="official")
    assert pos.legal_moves() == [B6.pass_move]
    pos.play(B6.pass_move)
    assert pos.over and pos.passes == 1


def test_stale_end():
    stacks = {"E6": (RED, 1), "G3": (RED, 1), "G6": (RED, 1), "A1": (WHITE, 1)}
    g6 = cell("G6")
    pos = make(stacks, variant="official", stale_end=True)
    pos.quiet = 4
    pos.play(g6)  # reinforcement, red sees 2 > white 0: quiet
    assert pos.quiet == 5 and pos.over
    pos = make(stacks, variant="official")
    pos.quiet = 4
    pos.play(g6)
    assert pos.quiet == 5 and not pos.over  # option off
    pos = make(stacks, variant="official", stale_end=True)
    pos.quiet = 4
    pos.play(cell("D6"))  # empty cell: active
    assert pos.quiet == 0 and not pos.over
    pos = make(dict(stacks, G9=(WHITE, 1), G11=(WHITE, 1)), variant="official", stale_end=True)
    pos.quiet = 4
    assert pos.sight(g6, WHITE) == 1
    pos.owner[cell("G9")], pos.height[cell("G9")] = EMPTY, 0  # G11 sees G6 now
    pos.owner[cell("F5")], pos.height[cell("F5")] = WHITE, 1
    assert pos.sight(g6, WHITE) == 2 and pos.sight(g6, RED) == 2
    pos.play(g6)  # contested reinforcement: active
    assert pos.quiet == 0 and not pos.over
    pos = make(stacks, variant="official", stale_end=True)
    pos.play(B6.pass_move)  # a pass is quiet
    assert pos.quiet == 1 and pos.passes == 1 and not pos.over


def test_forfeit():
    for bad in (cell("A6"), B6.pass_move, B6.num_cells + 3, -1, None, 2.5):
        pos = Position.start(B6, cell("C3"), cell("I9"))
        before = (pos.owner[:], pos.height[:])
        pos.play(bad)
        assert pos.over and pos.forfeit == RED
        assert (pos.owner, pos.height) == before and pos.ply == 0
        red, white = pos.territory()
        neutral = B6.num_cells - len(set(red) | set(white))
        assert pos.score() == (0, 200 + len(white) + (9 * neutral) // 10)
        assert pos.winner() == WHITE
    pos = Position.start(B6, cell("C3"), cell("I9"), variant="official")
    pos.play(cell("C4"))
    pos.play(cell("C4"))  # white cannot see C4: illegal
    assert pos.forfeit == WHITE and pos.winner() == RED
    red, white = pos.territory()
    neutral = B6.num_cells - len(set(red) | set(white))
    assert pos.score() == (200 + len(red) + (9 * neutral) // 10, 0)


def test_copy_independent():
    pos = Position.start(B6, cell("C3"), cell("I9"))
    cp = pos.copy()
    cp.play(cp.legal_moves()[0])
    assert pos.ply == 0 and pos.owner != cp.owner and cp.board is pos.board


# ------------------------------------------------------------------ judge
def test_judge_start():
    for b in BOARDS.values():
        rng = random.Random(b.size)
        allowed = {i for i in range(b.num_cells) if not b.on_border(i) and i != b.centre}
        seen = set()
        for _ in range(1500 if b.size == 6 else 300):
            r, w = judge_start(b, rng)
            assert r in allowed and w in allowed and r != w
            assert w not in b.neighbours[r] and r not in b.neighbours[w]
            seen.add(r)
            Position.start(b, r, w)
        if b.size == 6:
            assert seen == allowed


# ------------------------------------------------------------------ territory
def random_position(rng, board):
    """A random mid-game position from random official-rule play (suicide allowed)."""
    r, w = judge_start(board, rng)
    pos = Position.start(board, r, w, variant="official")
    for _ in range(rng.randrange(0, 3 * board.num_cells // 2)):
        moves = pos.legal_moves()[:-1]
        if not moves:
            break
        pos.play(rng.choice(moves))
        if pos.over:
            break
    pos.variant, pos.over = "codecup", False
    return pos


def naive_territory(pos, rng=None):
    """Territories by repeated full sweeps, recomputing sight for every cell."""
    out = []
    for p in (RED, WHITE):
        q = pos.copy()
        q.variant = "codecup"
        for c in (3 - p, p):
            changed = True
            while changed:
                changed = False
                order = list(range(q.board.num_cells))
                if rng is not None:
                    rng.shuffle(order)
                for i in order:
                    if q.placement_legal(i, c):
                        q.height[i] = q.sight(i, c)
                        q.owner[i] = c
                        changed = True
        out.append([i for i in range(q.board.num_cells) if q.owner[i] == p])
    return out[0], out[1]


def test_territory_matches_naive_sweep():
    rng = random.Random(11)
    for board, count in ((B6, 40), (BOARDS[8], 8)):
        for k in range(count):
            pos = random_position(rng, board)
            if k % 4 == 0:  # also some games played under codecup rules
                r, w = judge_start(board, rng)
                pos = Position.start(board, r, w)
                for _ in range(rng.randrange(60)):
                    if pos.over:
                        break
                    pos.play(rng.choice(pos.legal_moves()))
            before = (pos.owner[:], pos.height[:])
            terr = pos.territory()
            assert (pos.owner, pos.height) == before  # territory() does not mutate
            assert terr == naive_territory(pos)
            assert terr == naive_territory(pos, rng)  # shuffled sweep order


def test_territory_full_fill():
    # a board filled by red except white's lone stack deep inside: red's territory is all
    stacks = {B6.name(i): (RED, 1) for i in range(B6.num_cells)}
    stacks["F6"] = (WHITE, 1)
    pos = make(stacks)
    red, white = pos.territory()
    assert red == list(range(B6.num_cells))  # white's stack is captured (sight 6)
    assert white == []


# ------------------------------------------------------------------ games
@pytest.mark.parametrize("size", [6, 8, 10, 11])
def test_random_codecup_games_finish(size):
    b = BOARDS[size]
    rng = random.Random(100 + size)
    for _ in range(3 if size <= 8 else 1):
        pos = Position.start(b, *judge_start(b, rng))
        while not pos.over:
            # every placement strictly raises that cell's height (at most 6)
            assert pos.ply <= 13 * b.num_cells
            moves = pos.legal_moves()
            assert moves and moves == sorted(moves)
            assert all(pos.placement_legal(m, pos.to_move) for m in moves if m != b.pass_move)
            pos.play(rng.choice(moves))
        assert pos.forfeit == 0
        red, white = pos.territory()
        union = set(red) | set(white)
        if pos.passes < 2:
            assert len(union) == b.num_cells
        r, w = pos.score()
        assert r + w == 300 + len(red) + len(white)
        assert {r, w} == {200 + max(len(red), len(white)), 100 + min(len(red), len(white))} or (
            len(red) == len(white) and r == w
        )
        assert pos.winner() == (RED if r > w else WHITE if w > r else 0)


def test_random_official_games_finish():
    rng = random.Random(7)
    for stale in (False, True):
        for size in (6, 8):
            b = BOARDS[size]
            pos = Position.start(b, *judge_start(b, rng), variant="official", stale_end=stale)
            while not pos.over:
                assert pos.ply <= 13 * b.num_cells
                pos.play(rng.choice(pos.legal_moves()))
            r, w = pos.score()
            # Official score: own stacks + empty cells the side sees more of (controlled).
            expected = []
            for me, other in ((RED, WHITE), (WHITE, RED)):
                owned = sum(1 for o in pos.owner if o == me)
                controlled = sum(
                    1
                    for y in range(b.num_cells)
                    if pos.owner[y] == 0 and pos.sight(y, me) > pos.sight(y, other)
                )
                expected.append(owned + controlled)
            assert (r, w) == tuple(expected)
            assert pos.winner() == (RED if r > w else WHITE if w > r else 0)
