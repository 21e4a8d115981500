"""Scalar Tumbleweed rules engine in plain Python (standard library only), on bitboards.

The "twin" of the batched numpy engine in ``tw_rl.core``: one game at a time, for the CodeCup
bot and its one-file submission.  Cells are integer indices (``Board.coords`` order); the pass
move is ``board.num_cells``.  Inside, a board is a Python int with one bit per cell, so that
a whole board is handled by a few shifts and masks:

- Layout: cell (c, r) is bit ``c * W + r`` with the row stride ``W = 2n``: each row of 2n-1
  cells has one guard bit (r = 2n-1) and the board one guard row (c = 2n-1), so a step off
  the board never lands on a cell.  Cell order and bit order agree (``Board.cells``).  For
  the 6-board (bits; ``.`` = not a cell, ``|`` = guard)::

      c=0   r: 0 1 2 3 4 5 . . . . . |      bits   0..11
      c=1      0 1 2 3 4 5 6 . . . . |      bits  12..23
      ...
      c=5      0 1 2 3 4 5 6 7 8 9 10|      the centre F6 = (5, 5) is bit 65
      ...
      c=10     . . . . . 5 6 7 8 9 10|      bits 120..131
      c=11     guard row                    bits 132..143

  The direction (dc, dr) is a shift by ``dc * W + dr``.
- Lanes: several boards travel packed in one int, lane j shifted by ``j * LANE`` bits
  (``LANE = W * W``; the guard row keeps a step from crossing lanes), so every operation
  serves them all at once: red's and white's stacks for the sight of a position, four boards
  for the territory.
- Sight: for each of the 6 directions the cells that see a colour first along it are one
  "occluded fill" from that colour's stacks through the empty cells (Kogge-Stone doubling,
  stopping as soon as no longer run of empty cells is left; along (0, -1) a single addition
  carries every stack's view up its row).  The six one-bit answers are summed into three
  bit planes per colour (bit k of every cell's count).  ``greater`` compares such planes.
- Legal placements: sight > height (heights are three bit planes too) and, in CodeCup, the
  opponent's sight <= ours: a few bit-sliced comparisons for the whole board.
- Territory (CodeCup's simulation): every legal placement of the filling side is played at
  once, round after round (docs/rules.md: the result does not depend on the order), the two
  simulations (red's territory, white's) side by side in four lanes.  Reinforcements change
  no sight and no owner, so they are left out of the rounds; only the heights they would give
  the first filler's stacks matter (the second filler may capture those), and they are set
  once at the end of its fill: its final sight wherever it could still reinforce.  A position
  computes its sight and territory once and keeps them.

``Position.owner`` and ``Position.height`` are lists, made on first use; once handed out they
are the position's truth (a caller may change them in place, as tests and tools do) and the
bitboards are rebuilt from them when they have changed.  Positions that nobody asks for lists
(the search's) never build them.
"""

EMPTY, RED, WHITE, NEUTRAL = 0, 1, 2, 3

SIZES = (6, 8, 10, 11)
VARIANTS = ("codecup", "official")
NOTATIONS = ("diff", "sum")
# Fixed direction order; direction k and k ^ 1 are opposite.
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))
STALE_LIMIT = 5  # 3 quiet turns give the BGA reminder, 2 more end the game
MAX_HEIGHT = 7  # heights are kept in 3 bit planes; a sight is at most 6, so 7 stands for "7 or more"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Board:
    """Hexhex board geometry with n cells per side: cells, rays, neighbours, names, bit layout."""

    def __init__(self, size):
        if isinstance(size, bool) or not isinstance(size, int) or size not in SIZES:
            raise ValueError(f"board size must be one of {SIZES}, got {size!r}")
        n = size
        span = 2 * n - 1
        self.size = n
        self.coords = [(c, r) for c in range(span) for r in range(span) if abs(c - r) <= n - 1]
        self.num_cells = len(self.coords)
        self.pass_move = self.num_cells
        self.index = {cr: i for i, cr in enumerate(self.coords)}
        self.centre = self.index[(n - 1, n - 1)]
        rays = []
        for c, r in self.coords:
            cell_rays = []
            for dc, dr in DIRECTIONS:
                ray = []
                cc, rr = c + dc, r + dr
                while (cc, rr) in self.index:
                    ray.append(self.index[(cc, rr)])
                    cc += dc
                    rr += dr
                cell_rays.append(tuple(ray))
            rays.append(tuple(cell_rays))
        self.rays = rays
        self.neighbours = [tuple(ray[0] for ray in cell_rays if ray) for cell_rays in rays]
        # Bit layout (see the module docstring).
        w = 2 * n
        self.stride = w
        self.lane = w * w
        self.bits = tuple(1 << (c * w + r) for c, r in self.coords)
        self.bit_index = tuple(c * w + r for c, r in self.coords)
        self.mask = sum(self.bits)
        self.lane_mask = (1 << self.lane) - 1
        self.steps = tuple(dc * w + dr for dc, dr in DIRECTIONS)
        # (lane, both lanes' board, one lane, the bit steps of the directions filled by doubling)
        self.geometry = (
            self.lane,
            self.mask | (self.mask << self.lane),
            self.lane_mask,
            (w, 1, w + 1, w, w + 1),  # cells see up along the first three, down along the last two
        )
        self._nbytes = (self.lane + 7) // 8
        self._byte_cells = None

    def on_border(self, i):
        """True when cell i has fewer than 6 neighbours."""
        return len(self.neighbours[i]) < 6

    def name(self, i, notation="diff"):
        """Name of cell i, e.g. 'F6', in the 'diff' or 'sum' notation."""
        if notation not in NOTATIONS:
            raise ValueError(f"unknown notation {notation!r}; use 'diff' or 'sum'")
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.num_cells:
            raise ValueError(f"{i!r} is not a cell index of the size-{self.size} board")
        c, r = self.coords[i]
        if notation == "sum":
            r = 2 * self.size - 2 - r
        return _LETTERS[c] + str(r + 1)

    def parse(self, text, notation="diff"):
        """Cell index of a name such as 'F6'; ValueError if not a cell of this board."""
        if notation not in NOTATIONS:
            raise ValueError(f"unknown notation {notation!r}; use 'diff' or 'sum'")
        s = text.strip() if isinstance(text, str) else ""
        span = 2 * self.size - 1
        letter, digits = s[:1], s[1:]
        c = _LETTERS.find(letter) if letter else -1
        if c < 0 or c >= span or not digits.isascii() or not digits.isdigit() or digits[0] == "0":
            raise ValueError(f"{text!r} is not a cell of the size-{self.size} board")
        r = int(digits) - 1
        if notation == "sum":
            r = 2 * self.size - 2 - r
        i = self.index.get((c, r))
        if i is None:
            raise ValueError(f"{text!r} is not a cell of the size-{self.size} board")
        return i

    # ------------------------------------------------------------ bitboards
    def cells(self, bb):
        """Sorted cell indices of the bitboard bb (one lane)."""
        tab = self._byte_cells
        if tab is None:
            tab = self._make_byte_cells()
        out = []
        for i, byte in enumerate(bb.to_bytes(self._nbytes, "little")):
            if byte:
                out += tab[i][byte]
        return out

    def bitboard(self, cells):
        """The bitboard of an iterable of cell indices."""
        bits = self.bits
        bb = 0
        for i in cells:
            bb |= bits[i]
        return bb

    def _make_byte_cells(self):
        """For each byte of a bitboard and each value of it, the cells it holds."""
        cell_of = {b: i for i, b in enumerate(self.bit_index)}
        tab = []
        for k in range(self._nbytes):
            here = [cell_of.get(8 * k + j) for j in range(8)]
            tab.append(
                [tuple(here[j] for j in range(8) if v >> j & 1 and here[j] is not None) for v in range(256)]
            )
        self._byte_cells = tab
        return tab


# --------------------------------------------------------------------- bit planes
def greater(a, b):
    """Cells where count a > count b; a and b are (bit 0, bit 1, bit 2) planes."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return (a2 & ~b2) | (~(a2 ^ b2) & ((a1 & ~b1) | (~(a1 ^ b1) & a0 & ~b0)))


def count_at(planes, bit):
    """The count (0..7) that bit planes hold for the cell with this bit."""
    a0, a1, a2 = planes
    return (1 if a0 & bit else 0) + (2 if a1 & bit else 0) + (4 if a2 & bit else 0)


def sight_counts(board, red, white, empty):
    """(red's sight, white's sight) of every cell as bit planes: how many of the 6 rays from a
    cell see a stack of that colour first.  red, white: the colours' stacks; empty: the empty
    cells (any other stack only blocks)."""
    lane, mask2, lane_mask, steps = board.geometry
    c0, c1, c2 = _count_planes(red | (white << lane), empty | (empty << lane), mask2, steps)
    return (c0 & lane_mask, c1 & lane_mask, c2 & lane_mask), (c0 >> lane, c1 >> lane, c2 >> lane)


def _count_planes(stacks, empty, mask, steps):
    """Bit planes (c0, c1, c2) of how many rays from each cell see one of ``stacks`` first, for
    boards packed in lanes: ``empty`` and ``mask`` (the cells) hold every lane's board.
    ``steps``: the bit distances of the directions (1, 0), (0, 1), (1, 1), (-1, 0), (-1, -1).

    Each direction is an occluded fill: the views travel from the stacks through runs of empty
    cells, doubling the distance each pass (Kogge-Stone) until no longer run is left."""
    s1, s2, s3, s4, s5 = steps
    # (0, -1): adding 1 above each stack carries through the run of empty cells above it and
    # stops on the first stack or guard bit; the changed bits are the cells that see it.
    v0 = ((empty + (stacks << 1)) ^ empty) & mask
    views = []
    for step in (s1, s2, s3):  # the cells see up (views travel down)
        g, pr, k = stacks, empty, step
        while True:
            g |= pr & (g >> k)
            pr &= pr >> k
            if not pr:
                break
            k += k
        views.append((g >> step) & mask)
    for step in (s4, s5):  # the cells see down (views travel up)
        g, pr, k = stacks, empty, step
        while True:
            g |= pr & (g << k)
            pr &= pr << k
            if not pr:
                break
            k += k
        views.append((g << step) & mask)
    v1, v2, v3, v4, v5 = views
    # Two full adders and a two-bit sum: bit planes of v0 + v1 + ... + v5.
    t = v0 ^ v1
    s1 = t ^ v2
    k1 = (v0 & v1) | (t & v2)
    t = v3 ^ v4
    s2 = t ^ v5
    k2 = (v3 & v4) | (t & v5)
    k3 = s1 & s2
    t = k1 ^ k2
    return s1 ^ s2, t ^ k3, (k1 & k2) | (k3 & t)


def territory_bits(board, red, white, neutral, heights, counts):
    """(red territory, white territory, comparisons) as bitboards.  ``counts``: the position's
    (red, white) sight planes; ``comparisons``: the position's (see ``Position.comparisons``),
    which the first round computes anyway.

    For each colour the opponent fills first, then the colour; its stacks at the end are its
    territory.  Both simulations run side by side, in four lanes: the first fillers (white for
    red's territory, red for white's) in lanes 0 and 1, the second fillers in lanes 2 and 3, so
    a round of either phase is one count of 4-lane boards and two-lane comparisons.  In every
    round each first (then second) filler plays all its legal placements on empty or other
    cells at once (reinforcements are left out: they change no sight and no owner); a phase
    ends when neither simulation has one left.  Between the phases the first fillers' stacks
    get the heights their reinforcements would give them: the final sight wherever they could
    still reinforce.
    """
    lane, mask2, lane_mask, steps = board.geometry
    lane2 = lane + lane
    mask4 = mask2 | (mask2 << lane2)
    low = (1 << lane2) - 1
    (r0, r1, r2), (w0, w1, w2) = counts
    first = white | (red << lane)  # (sim of red's territory, sim of white's)
    second = red | (white << lane)
    neutral |= neutral << lane
    f0, f1, f2 = w0 | (r0 << lane), w1 | (r1 << lane), w2 | (r2 << lane)  # the first fillers' sight
    s0, s1, s2 = r0 | (w0 << lane), r1 | (w1 << lane), r2 | (w2 << lane)  # the second fillers'
    h0, h1, h2 = heights
    h0 |= h0 << lane
    h1 |= h1 << lane
    h2 |= h2 << lane
    n0, n1, n2 = ~h0, ~h1, ~h2
    start = None
    while True:  # phase 1: the first fillers
        # sight > height, and not (the other's sight > the filler's)
        up = (f2 & n2) | (~(f2 ^ h2) & ((f1 & n1) | (~(f1 ^ h1) & f0 & n0)))
        sui = (s2 & ~f2) | (~(s2 ^ f2) & ((s1 & ~f1) | (~(s1 ^ f1) & s0 & ~f0)))
        if start is None:  # the position's own comparisons (see ``Position.comparisons``)
            start = (up >> lane, up & lane_mask, sui & lane_mask, sui >> lane)
        new = up & ~sui & ~first
        if not new:
            break
        first |= new
        second &= ~new
        neutral &= ~new
        empty = mask2 & ~(first | second | neutral)
        c0, c1, c2 = _count_planes(first | (second << lane2), empty | (empty << lane2), mask4, steps)
        f0, f1, f2 = c0 & low, c1 & low, c2 & low
        s0, s1, s2 = c0 >> lane2, c1 >> lane2, c2 >> lane2
    fix = first & up & ~sui  # where the first fillers could still reinforce
    if fix:
        keep = ~fix
        h0 = (h0 & keep) | (f0 & fix)
        h1 = (h1 & keep) | (f1 & fix)
        h2 = (h2 & keep) | (f2 & fix)
        n0, n1, n2 = ~h0, ~h1, ~h2
    while True:  # phase 2: the second fillers
        up = (s2 & n2) | (~(s2 ^ h2) & ((s1 & n1) | (~(s1 ^ h1) & s0 & n0)))
        sui = (f2 & ~s2) | (~(f2 ^ s2) & ((f1 & ~s1) | (~(f1 ^ s1) & f0 & ~s0)))
        new = up & ~sui & ~second
        if not new:
            break
        second |= new
        first &= ~new
        neutral &= ~new
        empty = mask2 & ~(first | second | neutral)
        c0, c1, c2 = _count_planes(first | (second << lane2), empty | (empty << lane2), mask4, steps)
        f0, f1, f2 = c0 & low, c1 & low, c2 & low
        s0, s1, s2 = c0 >> lane2, c1 >> lane2, c2 >> lane2
    return second & lane_mask, second >> lane, start


class Position:
    """A Tumbleweed position and game state (CodeCup or official rules)."""

    __slots__ = (
        "board",
        "variant",
        "stale_end",
        "to_move",
        "passes",
        "quiet",
        "ply",
        "over",
        "forfeit",
        "last_move",
        "_red",
        "_white",
        "_neutral",
        "_h",
        "_owner",
        "_height",
        "_seen",
        "_counts",
        "_terr",
        "_cmp",
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
        self.to_move = RED
        self.passes = 0
        self.quiet = 0
        self.ply = 0
        self.over = False
        self.forfeit = 0
        self.last_move = None
        self._red = self._white = self._neutral = 0
        self._h = (0, 0, 0)
        self._owner = self._height = self._seen = None
        self._counts = self._terr = self._cmp = None

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
        bits = board.bits
        pos._red = bits[red_cell]
        pos._white = bits[white_cell]
        pos._neutral = bits[board.centre]
        pos._h = (pos._red | pos._white, pos._neutral, 0)
        return pos

    def copy(self):
        """An independent copy (the board is shared; it is immutable)."""
        if self._owner is not None:
            self._sync()
        p = Position.__new__(Position)
        p.board = self.board
        p.variant = self.variant
        p.stale_end = self.stale_end
        p.to_move = self.to_move
        p.passes = self.passes
        p.quiet = self.quiet
        p.ply = self.ply
        p.over = self.over
        p.forfeit = self.forfeit
        p.last_move = self.last_move
        p._red = self._red
        p._white = self._white
        p._neutral = self._neutral
        p._h = self._h
        p._owner = p._height = p._seen = None
        p._counts = self._counts
        p._terr = self._terr
        p._cmp = self._cmp
        return p

    # ------------------------------------------------------ owner and height lists
    @property
    def owner(self):
        """The owner of every cell (EMPTY, RED, WHITE, NEUTRAL), a list; changing it in place
        changes the position."""
        if self._owner is None:
            self._make_lists()
        return self._owner

    @owner.setter
    def owner(self, value):
        if self._owner is None:
            self._make_lists()
        self._owner = value

    @property
    def height(self):
        """The stack height of every cell (0 when empty), a list; changing it in place changes
        the position."""
        if self._owner is None:
            self._make_lists()
        return self._height

    @height.setter
    def height(self, value):
        if self._owner is None:
            self._make_lists()
        self._height = value

    def _make_lists(self):
        red, white, neutral = self._red, self._white, self._neutral
        h0, h1, h2 = self._h
        owner = []
        height = []
        for b in self.board.bits:
            owner.append(RED if red & b else WHITE if white & b else NEUTRAL if neutral & b else EMPTY)
            height.append((1 if h0 & b else 0) + (2 if h1 & b else 0) + (4 if h2 & b else 0))
        self._owner = owner
        self._height = height
        self._seen = (owner[:], height[:])

    def _sync(self):
        """Rebuild the bitboards from the lists if someone changed them."""
        owner, height = self._owner, self._height
        seen = self._seen
        if owner == seen[0] and height == seen[1]:
            return
        red = white = neutral = h0 = h1 = h2 = 0
        for b, o, h in zip(self.board.bits, owner, height, strict=True):
            if o == RED:
                red |= b
            elif o == WHITE:
                white |= b
            elif o == NEUTRAL:
                neutral |= b
            if h:
                h = min(h, MAX_HEIGHT)
                if h & 1:
                    h0 |= b
                if h & 2:
                    h1 |= b
                if h & 4:
                    h2 |= b
        self._red, self._white, self._neutral, self._h = red, white, neutral, (h0, h1, h2)
        self._counts = self._terr = self._cmp = None
        self._seen = (list(owner), list(height))

    # ------------------------------------------------------------- bitboards
    def stacks(self):
        """(red, white, neutral, (height bit 0, bit 1, bit 2)): the stacks as bitboards."""
        if self._owner is not None:
            self._sync()
        return self._red, self._white, self._neutral, self._h

    def counts(self):
        """(red's, white's) sight of every cell as bit planes (see ``sight_counts``); kept."""
        if self._owner is not None:
            self._sync()
        c = self._counts
        if c is None:
            empty = self.board.mask & ~(self._red | self._white | self._neutral)
            c = self._counts = sight_counts(self.board, self._red, self._white, empty)
        return c

    def territory_bits(self):
        """(red territory, white territory) as bitboards; kept."""
        counts = self.counts()
        t = self._terr
        if t is None:
            red, white, neutral = self._red, self._white, self._neutral
            red, white, cmp = territory_bits(self.board, red, white, neutral, self._h, counts)
            t = self._terr = (red, white)
            if self._cmp is None:
                self._cmp = cmp
        return t

    def comparisons(self):
        """(red up, white up, red more, white more) as bitboards; kept.  "up": the colour's sight
        is above the cell's height (it may place there, suicide aside); "more": the colour sees
        the cell more often than the other colour does."""
        rc, wc = self.counts()
        cmp = self._cmp
        if cmp is None:
            h = self._h
            cmp = self._cmp = (greater(rc, h), greater(wc, h), greater(rc, wc), greater(wc, rc))
        return cmp

    def legal_bits(self, colour):
        """Bitboard of colour's legal placements under this position's variant."""
        red_up, white_up, red_more, white_more = self.comparisons()
        if colour == RED:
            return red_up & ~white_more if self.variant == "codecup" else red_up
        return white_up & ~red_more if self.variant == "codecup" else white_up

    # ----------------------------------------------------------------- sight
    def sight(self, cell, colour):
        """Number of the 6 rays from cell whose first stack belongs to colour."""
        bit = self.board.bits[cell]
        if colour == RED or colour == WHITE:
            return count_at(self.counts()[colour - 1], bit)
        if colour == NEUTRAL:
            red, white, neutral, _ = self.stacks()
            empty = self.board.mask & ~(red | white | neutral)
            return count_at(sight_counts(self.board, neutral, 0, empty)[0], bit)
        return 0

    def sight_lists(self):
        """[None, red sight, white sight]: the sight of every cell as lists (cell order)."""
        rc, wc = self.counts()
        bits = self.board.bits
        return [None, [count_at(rc, b) for b in bits], [count_at(wc, b) for b in bits]]

    # ----------------------------------------------------------------- moves
    def placement_legal(self, cell, colour):
        """Whether colour may place on cell under this position's variant."""
        if colour != RED and colour != WHITE:
            return False
        return bool(self.legal_bits(colour) & self.board.bits[cell])

    def legal_moves(self):
        """Sorted legal placements for the side to move, then the pass if legal."""
        if self.over:
            return []
        moves = self.board.cells(self.legal_bits(self.to_move))
        if self.variant == "official" or not moves:
            moves.append(self.board.num_cells)
        return moves

    def play(self, move):
        """Play a move (cell index or num_cells for pass); an illegal move forfeits."""
        if self.over:
            raise ValueError("the game is over")
        if self._owner is not None:
            self._sync()
        board = self.board
        mover = self.to_move
        opp = 3 - mover
        n = board.num_cells
        if isinstance(move, bool) or not isinstance(move, int):
            legal = False
        elif move == n:
            legal = self.variant == "official" or not self.legal_bits(mover)
        else:
            legal = 0 <= move < n and bool(self.legal_bits(mover) & board.bits[move])
        if not legal:
            self.forfeit = mover
            self.over = True
            return
        if move == n:
            self.passes += 1
            active = False
        else:
            b = board.bits[move]
            rc, wc = self._counts
            mc, oc = (rc, wc) if mover == RED else (wc, rc)
            s = count_at(mc, b)
            nb = ~b
            if mover == RED:
                active = not self._red & b or count_at(oc, b) >= s
                self._red |= b
                self._white &= nb
            else:
                active = not self._white & b or count_at(oc, b) >= s
                self._white |= b
                self._red &= nb
            self._neutral &= nb
            h0, h1, h2 = self._h
            self._h = (
                (h0 | b) if s & 1 else (h0 & nb),
                (h1 | b) if s & 2 else (h1 & nb),
                (h2 | b) if s & 4 else (h2 & nb),
            )
            self._counts = self._terr = self._cmp = None
            if self._owner is not None:
                self._owner[move] = mover
                self._height[move] = s
                self._seen[0][move] = mover
                self._seen[1][move] = s
            self.passes = 0
        self.quiet = 0 if active else self.quiet + 1
        self.ply += 1
        self.last_move = move
        self.to_move = opp
        if self.passes >= 2:
            self.over = True
        elif self.variant == "codecup":
            red, white = self.territory_bits()
            if red | white == board.mask:
                self.over = True
        elif self.stale_end and self.quiet >= STALE_LIMIT:
            self.over = True
        else:
            red_up, white_up, _, _ = self.comparisons()
            if not red_up and not white_up:
                self.over = True  # nobody can place

    # ------------------------------------------------------------- territory
    def territory(self):
        """(red_cells, white_cells): sorted cells of each colour's CodeCup territory."""
        red, white = self.territory_bits()
        return self.board.cells(red), self.board.cells(white)

    def _owned_controlled(self):
        """(red, white) owned + controlled counts (official score)."""
        _, _, red_more, white_more = self.comparisons()
        red, white, neutral, _ = self.stacks()
        empty = self.board.mask & ~(red | white | neutral)
        red_points = red.bit_count() + (empty & red_more).bit_count()
        return red_points, white.bit_count() + (empty & white_more).bit_count()

    # ----------------------------------------------------------------- score
    def score(self):
        """(red_points, white_points) under this variant's scoring."""
        if self.forfeit:
            red, white = self.territory_bits()
            neutral = self.board.num_cells - (red | white).bit_count()
            own = red.bit_count() if self.forfeit == WHITE else white.bit_count()
            points = 200 + own + (9 * neutral) // 10
            return (0, points) if self.forfeit == RED else (points, 0)
        if self.variant == "official":
            return self._owned_controlled()
        red, white = self.territory_bits()
        r, w = red.bit_count(), white.bit_count()
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
            red, white = self.territory_bits()
            r, w = red.bit_count(), white.bit_count()
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
