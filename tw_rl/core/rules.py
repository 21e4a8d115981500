"""The Tumbleweed rules on a batch of positions: set-up, legal masks, moves, game end, score.

One engine serves every board size and variant:

- ``codecup``: suicidal placements are illegal; a pass only when no placement is legal; the
  judge draws the start cells; after every move both territory simulations run and the game
  ends when they cover the board; CodeCup points (territory + 200 / + 100, forfeit formula).
- ``official``: suicide allowed; a pass at any time; two passes in a row (or no placement for
  either side) end the game; score = owned + controlled cells. Set-up ``pie`` (the host places
  the red and the white start token, the guest picks a colour), ``free`` (the host first places
  the neutral stack anywhere: the BGA option) or ``judge`` (drawn starts, as in CodeCup). The
  BGA stale-game end is the ``stale_end`` switch.

Actions are cell indices 0..N-1 and N for a pass. In the pie step the guest picks a colour by
choosing the cell of that colour's start token.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tw_rl.core.hexgrid import HexGrid, hexgrid
from tw_rl.core.sight import compute_sight
from tw_rl.core.state import (
    EMPTY,
    NEUTRAL,
    PLAY,
    RED,
    SETUP_NEUTRAL,
    SETUP_PIE,
    SETUP_RED,
    SETUP_WHITE,
    WHITE,
    State,
)
from tw_rl.core.territory import sight_and_territory, simulate_territory

VARIANTS = ("codecup", "official")
SETUPS = ("judge", "pie", "free")
STALE_REMINDER, STALE_MORE = 3, 2  # BGA: a reminder after 3 quiet turns, the end 2 later


@dataclass(frozen=True)
class Rules:
    """One rule set: board size, variant and options. Methods work on batched ``State``s."""

    size: int = 6
    variant: str = "codecup"
    setup: str = ""  # "" = the variant's own: judge for codecup, pie for official
    stale_end: bool = False  # BGA stale-game end (official only)
    grid: HexGrid = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"rules must be one of {VARIANTS}, got {self.variant!r}")
        setup = self.setup or ("judge" if self.variant == "codecup" else "pie")
        if setup not in SETUPS:
            raise ValueError(f"setup must be one of {SETUPS}, got {self.setup!r}")
        if self.variant == "codecup" and setup != "judge":
            raise ValueError("the codecup variant has judge-drawn starts only (setup='judge')")
        if self.variant == "codecup" and self.stale_end:
            raise ValueError("stale_end is a Board Game Arena option of the official rules")
        object.__setattr__(self, "setup", setup)
        object.__setattr__(self, "grid", hexgrid(self.size))
        grid = self.grid
        # Cells the judge may draw: not on the border, not the centre.
        allowed = ~grid.on_border.copy()
        allowed[grid.centre] = False
        object.__setattr__(self, "_judge_cells", np.flatnonzero(allowed))
        near = np.zeros((grid.num_cells, grid.num_cells), dtype=bool)
        for i, nbrs in enumerate(grid.neighbours):
            near[i, nbrs[nbrs >= 0]] = True
            near[i, i] = True
        object.__setattr__(self, "_white_given_red", allowed[None, :] & ~near)

    @property
    def num_cells(self) -> int:
        return self.grid.num_cells

    @property
    def num_actions(self) -> int:
        return self.grid.num_cells + 1

    @property
    def codecup(self) -> bool:
        return self.variant == "codecup"

    # ----------------------------------------------------------------- set-up

    def draw_starts(self, batch: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Start cells as the CodeCup judge draws them: off the border and the centre, apart."""
        red = rng.choice(self._judge_cells, size=batch)
        keys = rng.random((batch, self.num_cells)) * self._white_given_red[red]
        white = keys.argmax(axis=1)
        return red.astype(np.int32), white.astype(np.int32)

    def start(self, red: np.ndarray | int, white: np.ndarray | int) -> State:
        """Positions after the given start cells (neutral height 2 on the centre), red to move."""
        red = np.atleast_1d(np.asarray(red, dtype=np.int64))
        white = np.atleast_1d(np.asarray(white, dtype=np.int64))
        n = self.num_cells
        bad = (red < 0) | (red >= n) | (white < 0) | (white >= n) | (red == white)
        bad |= (red == self.grid.centre) | (white == self.grid.centre)
        if bad.any():
            raise ValueError("start cells must be two different cells of the board, not the centre")
        state = self._empty(len(red), PLAY)
        rows = np.arange(len(red))
        state.owner[:, self.grid.centre] = NEUTRAL
        state.height[:, self.grid.centre] = 2
        state.owner[rows, red] = RED
        state.owner[rows, white] = WHITE
        state.height[rows, red] = 1
        state.height[rows, white] = 1
        return self._refresh(state)

    def position(
        self,
        owner: np.ndarray,
        height: np.ndarray,
        to_move: np.ndarray | int = RED,
        passes: np.ndarray | int = 0,
    ) -> State:
        """Games in PLAY from given stacks ([B, N] or [N] owner and height arrays)."""
        owner = np.atleast_2d(np.asarray(owner, dtype=np.int8))
        height = np.atleast_2d(np.asarray(height, dtype=np.int8))
        if owner.shape != height.shape or owner.shape[1] != self.num_cells:
            raise ValueError(f"owner and height must both be [B, {self.num_cells}] arrays")
        if ((owner == EMPTY) != (height == 0)).any() or (owner < 0).any() or (owner > NEUTRAL).any():
            raise ValueError("every stack needs an owner (1..3) and a height >= 1; empty cells height 0")
        state = self._empty(owner.shape[0], PLAY)
        state.owner[:] = owner
        state.height[:] = height
        state.to_move[:] = to_move
        state.passes[:] = passes
        return self._refresh(state)

    def init(self, batch: int, rng: np.random.Generator) -> State:
        """New games as the set-up option starts them (drawn starts, or the first set-up step)."""
        if self.setup == "judge":
            return self.start(*self.draw_starts(batch, rng))
        state = self._empty(batch, SETUP_NEUTRAL if self.setup == "free" else SETUP_RED)
        if self.setup == "pie":
            state.owner[:, self.grid.centre] = NEUTRAL
            state.height[:, self.grid.centre] = 2
        return self._refresh(state)

    def _empty(self, batch: int, phase: int) -> State:
        n = self.num_cells
        return State(
            owner=np.zeros((batch, n), dtype=np.int8),
            height=np.zeros((batch, n), dtype=np.int8),
            sight=np.zeros((batch, 2, n), dtype=np.int8),
            to_move=np.full(batch, RED, dtype=np.int8),
            phase=np.full(batch, phase, dtype=np.int8),
            red_seat=np.zeros(batch, dtype=np.int8),
            passes=np.zeros(batch, dtype=np.int8),
            quiet=np.zeros(batch, dtype=np.int8),
            ply=np.zeros(batch, dtype=np.int32),
            last_move=np.full(batch, -1, dtype=np.int32),
            terminated=np.zeros(batch, dtype=bool),
            forfeit=np.zeros(batch, dtype=np.int8),
            territory=np.zeros((batch, 2, n), dtype=bool),
            territory_known=np.zeros(batch, dtype=bool),
        )

    def _refresh(self, state: State) -> State:
        """Recompute the cached sight (and, under codecup, the territory) of every game."""
        state.sight = compute_sight(self.grid, state.owner)
        state.territory_known[:] = False
        if self.codecup:
            self.ensure_territory(state)
        return state

    # ------------------------------------------------------------ legal moves

    def placement_mask(self, state: State, colour: np.ndarray | int | None = None) -> np.ndarray:
        """[B, N] bool: cells where ``colour`` (default: the side to move) may place, in PLAY."""
        colour = state.to_move if colour is None else np.broadcast_to(colour, state.to_move.shape)
        rows = np.arange(state.batch_size)
        me = (colour - 1).astype(np.intp)
        s_me = state.sight[rows, me]
        mask = (s_me >= 1) & (s_me > state.height)
        if self.codecup:
            mask &= state.sight[rows, 1 - me] <= s_me
        return mask

    def legal_mask(self, state: State) -> np.ndarray:
        """[B, N+1] bool: the legal actions of the side to act; all False once a game is over."""
        n = self.num_cells
        mask = np.zeros((state.batch_size, n + 1), dtype=bool)
        play = state.phase == PLAY
        placements = self.placement_mask(state)
        mask[:, :n] = placements & play[:, None]
        mask[:, n] = play & (~placements.any(axis=1) if self.codecup else True)
        empty = state.owner == EMPTY
        setup_cells = (state.phase == SETUP_NEUTRAL) | (state.phase == SETUP_RED)
        setup_cells |= state.phase == SETUP_WHITE
        mask[setup_cells, :n] = empty[setup_cells]
        pie = state.phase == SETUP_PIE
        mask[pie, :n] = (state.owner[pie] == RED) | (state.owner[pie] == WHITE)
        mask[state.terminated] = False
        return mask

    def why_illegal(self, state: State, action: int) -> str:
        """Why ``action`` is not legal in game 0 of ``state`` for the side to move (one phrase)."""
        colour = {RED: "red", WHITE: "white"}
        mover = int(state.to_move[0])
        me, other = colour[mover], colour[3 - mover]
        if not 0 <= action <= self.num_cells:
            return f"{action} is not an action of this board"
        if action == self.num_cells:
            return f"{me} still has a placement; CodeCup allows a pass only without one"
        s_me = int(state.sight[0, mover - 1, action])
        s_other = int(state.sight[0, 2 - mover, action])
        height = int(state.height[0, action])
        if s_me == 0:
            return f"{me} sees none of its stacks from there"
        if s_me <= height:
            return f"the stack there has height {height} and {me} sees only {s_me} of its stacks"
        if self.codecup and s_other > s_me:
            return f"suicidal: {other} sees {s_other} of its stacks there, more than {me}'s {s_me}"
        return "not a legal move in this position"

    # ------------------------------------------------------------------ moves

    def step(self, state: State, actions: np.ndarray | int) -> State:
        """Play one action in every game. Returns the new state; ``state`` is not changed.

        An illegal action ends that game as a forfeit by the side that played it. Games that
        are already over are left as they are, whatever their action.
        """
        actions = np.broadcast_to(np.asarray(actions, dtype=np.int64), (state.batch_size,))
        new = state.copy()
        n = self.num_cells
        live = ~state.terminated
        in_range = (actions >= 0) & (actions <= n)
        ok = live & in_range
        ok[ok] = self._chosen_legal(state, actions, np.flatnonzero(ok))
        bad = live & ~ok
        if bad.any():
            # The forfeit score needs the territory of the position the offence was made in.
            self.ensure_territory(new, bad)
            seat = state.current_seat()[bad]
            new.forfeit[bad] = np.where(seat == state.red_seat[bad], RED, WHITE)
            new.terminated[bad] = True
        setup = ok & (state.phase != PLAY)
        if setup.any():
            self._step_setup(new, actions, setup)
        moved = ok & (state.phase == PLAY)
        if moved.any():
            self._step_play(state, new, actions, moved)
        changed = ok
        if changed.any():
            self._refresh_rows(new, changed)
            self._check_end(new, moved)
        return new

    def _refresh_rows(self, new: State, rows: np.ndarray) -> None:
        """Sight (and, under codecup, territory: the end test needs it) of the changed games."""
        every = rows.all()
        owner = new.owner if every else new.owner[rows]
        if self.codecup:
            height = new.height if every else new.height[rows]
            sight, territory = sight_and_territory(self.grid, owner, height)
            if every:
                new.sight, new.territory = sight, territory
            else:
                new.sight[rows], new.territory[rows] = sight, territory
            new.territory_known[rows] = True
        else:
            if every:
                new.sight = compute_sight(self.grid, owner)
            else:
                new.sight[rows] = compute_sight(self.grid, owner)
            new.territory_known[rows] = False

    def _chosen_legal(self, state: State, actions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``legal_mask(state)[rows, actions[rows]]`` for live games ``rows`` with actions in
        range, looking only at the chosen cells (the whole mask only for passes and set-up)."""
        n = self.num_cells
        act = actions[rows]
        out = np.zeros(len(rows), dtype=bool)
        play = state.phase[rows] == PLAY
        place = play & (act < n)
        if place.any():
            r, a = rows[place], act[place]
            me = (state.to_move[r] - 1).astype(np.intp)
            s_me = state.sight[r, me, a]
            legal = (s_me >= 1) & (s_me > state.height[r, a])
            if self.codecup:
                legal &= state.sight[r, 1 - me, a] <= s_me
            out[place] = legal
        passing = play & (act == n)
        if passing.any():
            out[passing] = ~self.placement_mask(state[rows[passing]]).any(axis=1) if self.codecup else True
        setup = ~play
        if setup.any():
            sub = rows[setup]
            out[setup] = self.legal_mask(state[sub])[np.arange(len(sub)), act[setup]]
        return out

    def _step_setup(self, new: State, actions: np.ndarray, rows: np.ndarray) -> None:
        phase_before = new.phase.copy()
        for phase, piece, height, nxt in (
            (SETUP_NEUTRAL, NEUTRAL, 2, SETUP_RED),
            (SETUP_RED, RED, 1, SETUP_WHITE),
            (SETUP_WHITE, WHITE, 1, SETUP_PIE),
        ):
            sel = np.flatnonzero(rows & (phase_before == phase))
            new.owner[sel, actions[sel]] = piece
            new.height[sel, actions[sel]] = height
            new.phase[sel] = nxt
        pie = np.flatnonzero(rows & (phase_before == SETUP_PIE))
        # The guest (seat 1) takes the colour of the token it points at.
        took_red = new.owner[pie, actions[pie]] == RED
        new.red_seat[pie] = took_red.astype(np.int8)
        new.phase[pie] = PLAY
        new.to_move[pie] = RED

    def _step_play(self, old: State, new: State, actions: np.ndarray, moved: np.ndarray) -> None:
        n = self.num_cells
        rows = np.flatnonzero(moved)
        acts = actions[rows]
        placed = acts < n
        prow, pcell = rows[placed], acts[placed]
        mover = old.to_move[prow]
        me = (mover - 1).astype(np.intp)
        s_me = old.sight[prow, me, pcell]
        if self.stale_end:
            s_other = old.sight[prow, 1 - me, pcell]
            target = old.owner[prow, pcell]
            quiet_placement = (target == mover) & (s_me > s_other)
            quiet = np.ones(len(rows), dtype=bool)
            quiet[placed] = quiet_placement
            new.quiet[rows] = np.where(quiet, old.quiet[rows] + 1, 0)
        new.owner[prow, pcell] = mover
        new.height[prow, pcell] = s_me
        new.passes[rows] = np.where(placed, 0, old.passes[rows] + 1)
        new.ply[rows] += 1
        new.last_move[rows] = acts
        new.to_move[rows] = 3 - old.to_move[rows]

    def _check_end(self, new: State, moved: np.ndarray) -> None:
        over = moved & (new.passes >= 2)
        if self.codecup:
            self.ensure_territory(new, moved)
            covered = new.territory[:, 0] | new.territory[:, 1]
            over |= moved & covered.all(axis=1)
        else:
            stuck = ~self.placement_mask(new, RED).any(axis=1) & ~self.placement_mask(new, WHITE).any(axis=1)
            over |= moved & stuck
            if self.stale_end:
                over |= moved & (new.quiet >= STALE_REMINDER + STALE_MORE)
        new.terminated |= over

    # ------------------------------------------------------------ territory

    def ensure_territory(self, state: State, rows: np.ndarray | None = None) -> None:
        """Fill ``state.territory`` (in place) for the chosen games where it is not yet known."""
        need = ~state.territory_known
        if rows is not None:
            need &= rows
        if need.all():  # in place: ``state`` may be a view of a larger batch
            state.territory[:] = simulate_territory(self.grid, state.owner, state.height, state.sight)
            state.territory_known[:] = True
        elif need.any():
            state.territory[need] = simulate_territory(
                self.grid, state.owner[need], state.height[need], state.sight[need]
            )
            state.territory_known[need] = True

    def territory_of(self, state: State) -> np.ndarray:
        """[B, 2, N] the simulated territory of every game, ``state`` left as it is (the games
        whose territory is not yet known are simulated into a copy)."""
        need = ~state.territory_known
        if not need.any():
            return state.territory
        terr = state.territory.copy()
        terr[need] = simulate_territory(self.grid, state.owner[need], state.height[need], state.sight[need])
        return terr

    # ---------------------------------------------------------------- score

    def score(self, state: State) -> np.ndarray:
        """[B, 2] int32 points of red (0) and white (1) for the position as it stands.

        codecup: territory + 200 for more cells, + 100 for fewer (100 each on a tie).
        official: owned + controlled cells. A forfeit (either variant): the offender 0, the
        other 200 + its territory + floor(0.9 * cells in neither territory).
        """
        terr = self.territory_of(state)
        counts = terr.sum(axis=2, dtype=np.int32)
        if self.codecup:
            points = counts + 100
            points[counts[:, 0] > counts[:, 1], 0] += 100
            points[counts[:, 1] > counts[:, 0], 1] += 100
        else:
            points = self.owned_and_controlled(state)
        forfeit = state.forfeit != 0
        if forfeit.any():
            neutral = self.num_cells - (terr[:, 0] | terr[:, 1]).sum(axis=1, dtype=np.int32)
            bonus = 200 + (9 * neutral) // 10
            off = (state.forfeit - 1).astype(np.intp)
            rows = np.flatnonzero(forfeit)
            points[rows, 1 - off[rows]] = bonus[rows] + counts[rows, 1 - off[rows]]
            points[rows, off[rows]] = 0
        return points

    def owned_and_controlled(self, state: State) -> np.ndarray:
        """[B, 2] int32: stacks owned plus empty cells seeing more own than opposing stacks."""
        empty = state.owner == EMPTY
        red_sees, white_sees = state.sight[:, 0], state.sight[:, 1]
        red = (state.owner == RED) | (empty & (red_sees > white_sees))
        white = (state.owner == WHITE) | (empty & (white_sees > red_sees))
        return np.stack([red.sum(axis=1, dtype=np.int32), white.sum(axis=1, dtype=np.int32)], axis=1)

    def winner(self, state: State) -> np.ndarray:
        """[B] int8: RED or WHITE for the winner of the position as it stands, 0 for a draw."""
        if self.codecup:
            counts = self.territory_of(state).sum(axis=2, dtype=np.int32)
        else:
            counts = self.owned_and_controlled(state)
        win = np.where(counts[:, 0] > counts[:, 1], RED, np.where(counts[:, 1] > counts[:, 0], WHITE, 0))
        win = np.where(state.forfeit != 0, 3 - state.forfeit, win)
        return win.astype(np.int8)

    def rewards(self, state: State) -> np.ndarray:
        """[B, 2] float32 per seat: +1 win, -1 loss, 0 draw for finished games, 0 otherwise."""
        out = np.zeros((state.batch_size, 2), dtype=np.float32)
        done = np.flatnonzero(state.terminated)
        if done.size:
            win = self.winner(state[done])
            sub = state[done]
            decided = win != 0
            seat = sub.seat_of(win)
            out[done[decided], seat[decided]] = 1.0
            out[done[decided], 1 - seat[decided]] = -1.0
        return out
