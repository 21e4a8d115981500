"""Reference oracle for the tests: the straightforward scalar rules engine (lists and ray walks).

This was ``tw_rl.codecup.rules`` up to release 0.1.  The bot now runs on the bitboard engine of
``tw_rl.codecup.rules``; this plain version stays here, test-only, as the oracle the fast engine
is checked against (``test_fast_rules.py``), next to the numpy engine of ``tw_rl.core``.  It
keeps the same public API: ``Board``, ``Position`` (start, copy, sight, placement_legal,
legal_moves, play, territory, score, winner), ``judge_start`` and the colour constants; its
``Board`` is the bot's (geometry and names are not what it checks).  Cells are
integer indices; the pass move is ``board.num_cells``.
"""

from tw_rl.codecup.rules import Board as _BotBoard

EMPTY, RED, WHITE, NEUTRAL = 0, 1, 2, 3

SIZES = (6, 8, 10, 11)
VARIANTS = ("codecup", "official")
STALE_LIMIT = 5  # 3 quiet turns give the BGA reminder, 2 more end the game


class Board(_BotBoard):
    """The bot's board geometry and cell names (shared: they are not what this oracle checks),
    plus the (ray, opposite ray) pairs of the incremental sight updates below."""

    def __init__(self, size):
        super().__init__(size)
        self._ray_pairs = [tuple((cr[k], cr[k ^ 1]) for k in range(6)) for cr in self.rays]


def _fill(pairs, owner, height, sg, c, suicide_check):
    """Play every legal placement of colour c, one at a time, until none is left.

    ``sg`` is [scratch, red sight, white sight, scratch] and is kept up to date
    incrementally: placing on y changes only the sight of cells that see y.
    """
    sc = sg[c]
    so = sg[3 - c]
    n = len(owner)
    pend = [False] * n
    todo = []
    for y in range(n):
        s = sc[y]
        if s > height[y] and (not suicide_check or so[y] <= s):
            pend[y] = True
            todo.append(y)
    pop = todo.pop
    push = todo.append
    while todo:
        y = pop()
        pend[y] = False
        s = sc[y]
        if s <= height[y] or (suicide_check and so[y] > s):
            continue
        prev = owner[y]
        owner[y] = c
        height[y] = s
        if prev == c:
            continue  # reinforcement: nobody's sight changes
        for ray, back in pairs[y]:
            if prev:
                b = prev
            else:
                b = 0
                for z in back:
                    b = owner[z]
                    if b:
                        break
            sb = sg[b]
            for z in ray:
                sb[z] -= 1
                sc[z] += 1
                if not pend[z]:
                    t = sc[z]
                    if t > height[z] and (not suicide_check or so[z] <= t):
                        pend[z] = True
                        push(z)
                if owner[z]:
                    break


class Position:
    """A Tumbleweed position and game state (CodeCup or official rules)."""

    __slots__ = (
        "board",
        "variant",
        "stale_end",
        "owner",
        "height",
        "to_move",
        "passes",
        "quiet",
        "ply",
        "over",
        "forfeit",
        "last_move",
    )

    def __init__(self, board, variant="codecup", stale_end=False):
        """An empty board with red to move; see ``Position.start`` for a game start."""
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; use 'codecup' or 'official'")
        if stale_end and variant != "official":
            raise ValueError("stale_end is an option of the 'official' variant only")
        self.board = board
        self.variant = variant
        self.stale_end = bool(stale_end)
        self.owner = [EMPTY] * board.num_cells
        self.height = [0] * board.num_cells
        self.to_move = RED
        self.passes = 0
        self.quiet = 0
        self.ply = 0
        self.over = False
        self.forfeit = 0
        self.last_move = None

    @classmethod
    def start(cls, board, red_cell, white_cell, variant="codecup", stale_end=False):
        """Neutral 2-stack on the centre, red and white 1-stacks; red to move."""
        n = board.num_cells
        for cell in (red_cell, white_cell):
            if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell < n:
                raise ValueError(f"start cell {cell!r} is not a cell index")
        if red_cell == white_cell:
            raise ValueError("red and white start cells must differ")
        if board.centre in (red_cell, white_cell):
            raise ValueError("a start cell may not be the centre")
        pos = cls(board, variant, stale_end)
        pos.owner[board.centre] = NEUTRAL
        pos.height[board.centre] = 2
        pos.owner[red_cell] = RED
        pos.height[red_cell] = 1
        pos.owner[white_cell] = WHITE
        pos.height[white_cell] = 1
        return pos

    def copy(self):
        """An independent copy (the board is shared; it is immutable)."""
        p = Position.__new__(Position)
        p.board = self.board
        p.variant = self.variant
        p.stale_end = self.stale_end
        p.owner = self.owner[:]
        p.height = self.height[:]
        p.to_move = self.to_move
        p.passes = self.passes
        p.quiet = self.quiet
        p.ply = self.ply
        p.over = self.over
        p.forfeit = self.forfeit
        p.last_move = self.last_move
        return p

    # ----------------------------------------------------------------- sight
    def sight(self, cell, colour):
        """Number of the 6 rays from cell whose first stack belongs to colour."""
        owner = self.owner
        count = 0
        for ray in self.board.rays[cell]:
            for z in ray:
                o = owner[z]
                if o:
                    if o == colour:
                        count += 1
                    break
        return count

    def _sight_tables(self):
        """[scratch, red sight, white sight, scratch] for every cell."""
        n = self.board.num_cells
        sg = [[0] * n, [0] * n, [0] * n, [0] * n]
        owner = self.owner
        rays = self.board.rays
        for x in range(n):
            o = owner[x]
            if o == RED or o == WHITE:
                s = sg[o]
                for ray in rays[x]:
                    for z in ray:
                        s[z] += 1
                        if owner[z]:
                            break
        return sg

    # ----------------------------------------------------------------- moves
    def placement_legal(self, cell, colour):
        """Whether colour may place on cell under this position's variant."""
        s = self.sight(cell, colour)
        if s < 1 or s <= self.height[cell]:
            return False
        if self.variant == "codecup":
            return self.sight(cell, 3 - colour) <= s
        return True

    def _placements(self, colour, sg=None):
        """Sorted legal placement cells of colour (variant rules)."""
        if sg is None:
            sg = self._sight_tables()
        sc = sg[colour]
        so = sg[3 - colour]
        height = self.height
        if self.variant == "codecup":
            return [y for y in range(self.board.num_cells) if sc[y] > height[y] and so[y] <= sc[y]]
        return [y for y in range(self.board.num_cells) if sc[y] > height[y]]

    def legal_moves(self):
        """Sorted legal placements for the side to move, then the pass if legal."""
        if self.over:
            return []
        moves = self._placements(self.to_move)
        if self.variant == "official" or not moves:
            moves.append(self.board.num_cells)
        return moves

    def play(self, move):
        """Play a move (cell index or num_cells for pass); an illegal move forfeits."""
        if self.over:
            raise ValueError("the game is over")
        mover = self.to_move
        opp = 3 - mover
        n = self.board.num_cells
        if isinstance(move, bool) or not isinstance(move, int):
            legal = False
        elif move == n:
            legal = self.variant == "official" or not self._placements(mover)
        else:
            legal = 0 <= move < n and self.placement_legal(move, mover)
        if not legal:
            self.forfeit = mover
            self.over = True
            return
        if move == n:
            self.passes += 1
            active = False
        else:
            s = self.sight(move, mover)
            prev = self.owner[move]
            active = prev != mover or self.sight(move, opp) >= s
            self.owner[move] = mover
            self.height[move] = s
            self.passes = 0
        self.quiet = 0 if active else self.quiet + 1
        self.ply += 1
        self.last_move = move
        self.to_move = opp
        if self.passes >= 2:
            self.over = True
        elif self.variant == "codecup":
            red, white = self.territory()
            if len(red) + len(white) >= n and len(set(red).union(white)) == n:
                self.over = True
        else:
            if self.stale_end and self.quiet >= STALE_LIMIT:
                self.over = True
            else:
                sg = self._sight_tables()
                height = self.height
                stuck = True
                for c in (RED, WHITE):
                    sc = sg[c]
                    for y in range(n):
                        if sc[y] > height[y]:
                            stuck = False
                            break
                    if not stuck:
                        break
                if stuck:
                    self.over = True

    # ------------------------------------------------------------- territory
    def territory(self):
        """(red_cells, white_cells): sorted cells of each colour's CodeCup territory."""
        base = self._sight_tables()
        pairs = self.board._ray_pairs
        n = self.board.num_cells
        result = []
        for p in (RED, WHITE):
            owner = self.owner[:]
            height = self.height[:]
            scratch = base[0]
            sg = [scratch, base[1][:], base[2][:], scratch]
            _fill(pairs, owner, height, sg, 3 - p, True)
            _fill(pairs, owner, height, sg, p, True)
            result.append([y for y in range(n) if owner[y] == p])
        return result[0], result[1]

    def _owned_controlled(self):
        """(red, white) owned + controlled counts (official score)."""
        sg = self._sight_tables()
        sr, sw = sg[RED], sg[WHITE]
        owner = self.owner
        red = white = 0
        for y in range(self.board.num_cells):
            o = owner[y]
            if o == RED:
                red += 1
            elif o == WHITE:
                white += 1
            elif o == EMPTY:
                if sr[y] > sw[y]:
                    red += 1
                elif sw[y] > sr[y]:
                    white += 1
        return red, white

    # ----------------------------------------------------------------- score
    def score(self):
        """(red_points, white_points) under this variant's scoring."""
        if self.forfeit:
            red, white = self.territory()
            neutral = self.board.num_cells - len(set(red).union(white))
            own = len(red) if self.forfeit == WHITE else len(white)
            points = 200 + own + (9 * neutral) // 10
            return (0, points) if self.forfeit == RED else (points, 0)
        if self.variant == "official":
            return self._owned_controlled()
        red, white = self.territory()
        r, w = len(red), len(white)
        if r > w:
            return 200 + r, 100 + w
        if w > r:
            return 100 + r, 200 + w
        return 100 + r, 100 + w

    def winner(self):
        """RED, WHITE or 0 (draw) once the game is over; None while it is not."""
        if not self.over:
            return None
        if self.forfeit:
            return 3 - self.forfeit
        if self.variant == "official":
            r, w = self._owned_controlled()
        else:
            red, white = self.territory()
            r, w = len(red), len(white)
        return RED if r > w else WHITE if w > r else 0


def judge_start(board, rng):
    """(red_cell, white_cell) drawn as the CodeCup judge does, using random.Random rng.

    Both cells are off the border, not the centre, distinct and not neighbours.
    """
    allowed = [i for i in range(board.num_cells) if not board.on_border(i) and i != board.centre]
    red = rng.choice(allowed)
    near = board.neighbours[red]
    white = rng.choice([i for i in allowed if i != red and i not in near])
    return red, white
