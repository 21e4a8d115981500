"""A PettingZoo AEC environment for Tumbleweed, in the conventions of PettingZoo's classic
two-player board games, on the batched numpy engine in ``tw_rl.core`` (a batch of one).

    from tw_rl.pettingzoo_env import env
    game = env(size=6, variant="codecup", render_mode="ansi")
    game.reset(seed=0)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        if termination or truncation:
            action = None  # a finished agent steps None
        else:
            action = game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

PettingZoo is an optional extra (``pip install 'tw_rl[pettingzoo]'``); this module needs numpy,
gymnasium and pettingzoo, never torch.

Agents: ``player_0`` and ``player_1`` are the engine's seats 0 and 1. Under ``codecup`` (starts
drawn as the CodeCup judge draws them) ``player_0`` plays red and moves first. Under ``official``
with the ``pie`` set-up (the default of that variant) the set-up is ordinary actions, as in the
core: ``player_0`` places the red and then the white start token on empty cells, then
``player_1`` picks a colour by choosing the cell of that colour's token; red moves next,
whichever agent it is. ``setup="free"`` first lets ``player_0`` place the neutral stack;
``setup="judge"`` draws the starts as under codecup. ``agent_selection`` is always the seat the
engine says acts next.

Actions: ``Discrete(N + 1)``: cell indices ``0..N-1`` and ``N`` for a pass (N cells on the board).

Observations: ``observe(agent)`` is a dict

    "observation": float32 [C, W, W]  the planes of ``tw_rl.core.encode`` from that agent's view
    "action_mask": int8    [N + 1]    1 for the legal actions; all 0 for the agent not to act
                                      and once the game is over

For the agent to act the planes are exactly those ``tw_rl.env`` gives (and the networks of
``tw_rl.training`` are trained on). For the other agent in play they are the same position seen
from its colour (its stacks as "my" stacks, its legal placements as if it were to act). During
the set-up neither agent has a colour yet and the encoding sees the host as red, so both agents
get the same planes there.

Rewards: +1 for a win, -1 for a loss, 0 for a draw, given to both agents at the end only
(``Rules.rewards``); 0 on every other step. Games are never truncated (every game ends after at
most 2 * (6N + 1) plies).

Illegal actions: ``env()`` wraps ``raw_env`` in PettingZoo's standard wrappers as the classic
games do, ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper``: an action outside the mask ends the game with -1 for the offender and
0 for the other agent (PettingZoo's convention, not zero-sum). ``env(illegal_action="forfeit")``
leaves illegal actions to the engine instead, which is also what ``raw_env`` does on its own:
the game ends as a forfeit (the CodeCup rule), -1 for the offender and +1 for the other agent,
and the final infos say ``"forfeit": True``.

Infos: ``{}`` during the game; at the end every agent's info holds ``colour`` (its colour,
"red" or "white"), ``winner`` ("red", "white" or "draw"), ``score`` ((red, white) points of
``Rules.score``) and ``forfeit`` (the game ended on an illegal action).

Seeding: ``reset(seed=...)`` seeds ``np_random``, from which the judge's start draw comes; a
reset without a seed goes on with the same generator. Reset options: ``{"red_start": cell,
"white_start": cell}`` starts from those cells (set-up skipped, ``player_0`` red); other keys
are ignored.

Rendering: ``render_mode="ansi"``: ``render()`` returns the text board of
``tw_rl.core.notation.text_board`` with a status line; ``"rgb_array"``: an [H, W, 3] uint8
picture (``board_image``: hexagons filled by simulated territory, stacks as discs with their
height, the last move outlined; the colours of ``tw_rl.core.picture``).

The engine state of the game (a ``tw_rl.core.state.State`` batch of one) is ``game_state`` on the
raw env (``env.unwrapped.game_state`` through the wrappers) and its rules ``rules``, so a player
that works on core states (``tw_rl.training.net.NetPolicyValue``, ``tw_rl.core.mcts``) can play.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tw_rl.core.encode import encode, num_planes
from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.notation import text_board
from tw_rl.core.picture import DISCS, FILLS, RADIUS, cell_centres
from tw_rl.core.rules import Rules
from tw_rl.core.state import EMPTY, PLAY, RED, SETUP_NEUTRAL, SETUP_PIE, SETUP_RED, SETUP_WHITE, WHITE, State

AGENTS = ("player_0", "player_1")
ILLEGAL_ACTIONS = ("terminate", "forfeit")
COLOUR_WORDS = {RED: "red", WHITE: "white", 0: "draw"}
SETUP_WORDS = {
    SETUP_NEUTRAL: "places the neutral stack",
    SETUP_RED: "places the red start token",
    SETUP_WHITE: "places the white start token",
    SETUP_PIE: "picks a colour (the cell of its token)",
}


def env(illegal_action: str = "terminate", **kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` in PettingZoo's standard wrappers, as the classic games build theirs.

    ``illegal_action``: "terminate" (default) ends the game on an action outside the mask with -1
    for the offender and 0 for the other agent (``TerminateIllegalWrapper``); "forfeit" leaves it
    to the engine: -1 for the offender, +1 for the other agent.
    """
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
    game: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped environment
    """One game of Tumbleweed as a PettingZoo AEC environment (module docstring).

    Args:
        size: cells per board side (6, 8, 10, 11). ``variant``: "codecup" or "official";
            ``setup`` ("" for the variant's own: judge for codecup, pie for official; or
            "pie", "free", "judge") and ``stale_end``: as in ``tw_rl.core.rules.Rules``.
        territory_planes: include the two simulated-territory planes in the observation (as
            ``tw_rl.env`` and the trained networks do).
        render_mode: None, "ansi" or "rgb_array".
        image_radius: hexagon radius in pixels of the "rgb_array" picture.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "tumbleweed_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        size: int = 6,
        variant: str = "codecup",
        setup: str = "",
        stale_end: bool = False,
        territory_planes: bool = True,
        render_mode: str | None = None,
        image_radius: int = 20,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        self.rules = Rules(size, variant, setup, stale_end)
        self.territory_planes = territory_planes
        self.render_mode = render_mode
        self.image_radius = image_radius
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        width = self.rules.grid.width
        actions = self.rules.num_actions
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        0.0, 1.0, (num_planes(territory_planes), width, width), np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (actions,), np.int8),
                }
            )
            for agent in AGENTS
        }
        self._action_spaces = {agent: spaces.Discrete(actions) for agent in AGENTS}
        self.np_random: np.random.Generator | None = None
        self.game_state: State | None = None
        self._observations: dict[str, dict[str, np.ndarray]] = {}

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    # -------------------------------------------------------------- the game

    def _agent_to_act(self) -> str:
        return AGENTS[int(self.game_state.current_seat()[0])]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self.np_random is None:
            self.np_random = np.random.default_rng(seed)
        options = options or {}
        red, white = options.get("red_start"), options.get("white_start")
        if (red is None) != (white is None):
            raise ValueError("give both 'red_start' and 'white_start', or neither")
        if red is not None:
            self.game_state = self.rules.start(int(red), int(white))
        else:
            self.game_state = self.rules.init(1, self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._observations = {}
        self.agent_selection = self._agent_to_act()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act; None is the action of a finished agent only")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        state = self.rules.step(self.game_state, np.array([int(action)], dtype=np.int64))
        self.game_state = state
        self._observations = {}
        if state.terminated[0]:
            seat_rewards = self.rules.rewards(state)[0]
            score = self.rules.score(state)[0]
            winner = COLOUR_WORDS[int(self.rules.winner(state)[0])]
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = float(seat_rewards[seat])
                self.terminations[name] = True
                self.infos[name] = {
                    "colour": COLOUR_WORDS[self._colour(seat)],
                    "winner": winner,
                    "score": (int(score[0]), int(score[1])),
                    "forfeit": bool(state.forfeit[0] != 0),
                }
            # Both agents now step None; the other agent first, as the turn would have passed.
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()

    def _colour(self, seat: int) -> int:
        return RED if int(self.game_state.red_seat[0]) == seat else WHITE

    # ----------------------------------------------------------- observing

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in self._observations:
            self._observations[agent] = self._observe(agent)
        cached = self._observations[agent]
        return {key: value.copy() for key, value in cached.items()}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.game_state
        seat = AGENTS.index(agent)
        if self.territory_planes:
            self.rules.ensure_territory(state)  # once, on the state itself, not on a view's copy
        view = state
        if state.phase[0] == PLAY and state.to_move[0] != self._colour(seat):
            view = state.copy()
            view.to_move[:] = self._colour(seat)
        planes = encode(self.rules, view, territory=self.territory_planes)[0]
        mask = np.zeros(self.rules.num_actions, dtype=np.int8)
        if agent == self._agent_to_act() and not state.terminated[0]:
            mask[:] = self.rules.legal_mask(state)[0]
        return {"observation": planes, "action_mask": mask}

    # ------------------------------------------------------------ rendering

    def _status(self) -> str:
        state = self.game_state
        if state.terminated[0]:
            red, white = (int(p) for p in self.rules.score(state)[0])
            winner = COLOUR_WORDS[int(self.rules.winner(state)[0])]
            result = "a draw" if winner == "draw" else f"{winner} wins"
            how = " by forfeit" if state.forfeit[0] else ""
            return f"game over: {result}{how}; points red {red}, white {white}"
        agent = self._agent_to_act()
        phase = int(state.phase[0])
        if phase != PLAY:
            return f"set-up: {agent} {SETUP_WORDS[phase]}"
        colour = COLOUR_WORDS[int(state.to_move[0])]
        return f"{agent} ({colour}) to move"

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (give 'ansi' or 'rgb_array')")
            return None
        if self.game_state is None:
            raise RuntimeError("call reset() before render()")
        state = self.game_state
        if self.render_mode == "ansi":
            board = text_board(self.rules.grid, state.owner[0], state.height[0], int(state.last_move[0]))
            return f"{board}\n{self._status()}"
        self.rules.ensure_territory(state)
        return board_image(
            self.rules.grid,
            state.owner[0],
            state.height[0],
            state.territory[0, 0],
            state.territory[0, 1],
            int(state.last_move[0]),
            radius=self.image_radius,
        )

    def close(self) -> None:
        """Nothing to release: no window, no process."""


# ------------------------------------------------------------------- the picture

# 3 x 5 digits for stack heights.
_DIGITS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "011", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
}
_OUTLINE = "#8a8a8a"
_LAST_MOVE = "#000000"


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


def _digit_mask(text: str, scale: int) -> np.ndarray:
    """[5 * scale, (4 * len - 1) * scale] bool: ``text`` in the 3 x 5 digit font."""
    glyphs = [np.array([[c == "1" for c in row] for row in _DIGITS[d]]) for d in text]
    gap = np.zeros((5, 1), dtype=bool)
    parts = []
    for k, glyph in enumerate(glyphs):
        parts.extend([gap, glyph] if k else [glyph])
    return np.kron(np.hstack(parts), np.ones((scale, scale), dtype=bool)).astype(bool)


def board_image(
    grid: HexGrid,
    owner: np.ndarray,
    height: np.ndarray,
    territory_red: np.ndarray,
    territory_white: np.ndarray,
    last_move: int = -1,
    radius: int = 20,
) -> np.ndarray:
    """[H, W, 3] uint8 picture of one position, drawn with numpy.

    Pointy-top hexagons of ``radius`` pixels placed as ``tw_rl.core.picture.svg_board`` places
    them (``tw_rl.core.layout``: row 1 at the top, columns like "/"), filled by simulated
    territory; stacks as discs (red, white, grey for neutral) with their height; the last move
    (a cell index; -1 or the pass for none) outlined in black.
    """
    n = grid.num_cells
    centres = np.array(cell_centres(grid), dtype=np.float64) * (radius / RADIUS)
    apothem = radius * math.sqrt(3.0) / 2.0
    margin = 0.5 * radius
    left = centres[:, 0].min() - apothem - margin
    top = centres[:, 1].min() - radius - margin
    width = int(math.ceil(centres[:, 0].max() + apothem + margin - left))
    height_px = int(math.ceil(centres[:, 1].max() + radius + margin - top))
    centres -= (left, top)
    image = np.full((height_px, width, 3), 255, dtype=np.uint8)

    reach = int(math.ceil(radius)) + 2
    offsets = np.arange(-reach, reach + 1, dtype=np.float64)
    disc_radius = 0.55 * radius
    scale = max(1, round(radius / 10))

    def window(cell: int):
        """The pixel window around a cell (clipped to the image) and offsets from its centre."""
        cx, cy = centres[cell]
        ix, iy = int(round(cx)), int(round(cy))
        x0, x1 = max(ix - reach, 0), min(ix + reach + 1, width)
        y0, y1 = max(iy - reach, 0), min(iy + reach + 1, height_px)
        dx = (offsets[x0 - ix + reach : x1 - ix + reach] + ix - cx)[None, :]
        dy = (offsets[y0 - iy + reach : y1 - iy + reach] + iy - cy)[:, None]
        return image[y0:y1, x0:x1], dx, dy

    def hex_distance(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
        """The pointy-top hexagon norm: <= apothem inside the cell's hexagon."""
        ax, ay = np.abs(dx), np.abs(dy)
        return np.maximum(ax, 0.5 * ax + (math.sqrt(3.0) / 2.0) * ay)

    for cell in range(n):
        patch, dx, dy = window(cell)
        fill, _ = FILLS[(bool(territory_red[cell]), bool(territory_white[cell]))]
        patch[hex_distance(dx, dy) <= apothem] = _rgb(fill)
    outline = _rgb(_OUTLINE)
    for cell in range(n):
        patch, dx, dy = window(cell)
        patch[np.abs(hex_distance(dx, dy) - apothem) <= 0.75] = outline
    if 0 <= last_move < n:
        patch, dx, dy = window(last_move)
        ring = hex_distance(dx, dy)
        patch[(ring <= apothem - 1.0) & (ring >= apothem - 1.0 - 0.15 * radius)] = _rgb(_LAST_MOVE)
    for cell in range(n):
        code = int(owner[cell])
        if code == EMPTY:
            continue
        fill, rim, ink = (_rgb(c) for c in DISCS[code])
        patch, dx, dy = window(cell)
        distance = np.sqrt(dx * dx + dy * dy)
        patch[distance <= disc_radius] = fill
        patch[(distance <= disc_radius) & (distance >= disc_radius - max(1.5, 0.08 * radius))] = rim
        digits = _digit_mask(str(int(height[cell])), scale)
        gh, gw = digits.shape
        cx, cy = centres[cell]
        x0, y0 = int(round(cx - gw / 2)), int(round(cy - gh / 2))
        region = image[y0 : y0 + gh, x0 : x0 + gw]
        region[digits[: region.shape[0], : region.shape[1]]] = ink
    return image
