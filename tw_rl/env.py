"""Gymnasium environments for Tumbleweed: one game (``TumbleweedEnv``) and a native batch
(``TumbleweedVectorEnv``), both built on the batched numpy engine in ``tw_rl.core``.

Importing this module registers ``tw_rl/Tumbleweed-v0`` (see ``register_envs``), so that::

    import tw_rl.env
    env = gymnasium.make("tw_rl/Tumbleweed-v0", size=8)
    envs = gymnasium.make_vec("tw_rl/Tumbleweed-v0", num_envs=64)   # the native vector env

or, without importing anything first, ``gymnasium.make("tw_rl.env:tw_rl/Tumbleweed-v0")``
(gymnasium imports the module named before the colon). Gymnasium 1.x no longer loads
environment plugins from package entry points, so no entry point is declared for it.

Observations (both environments, per game) are a dict::

    "observation": float32 [C, W, W]  planes of ``tw_rl.core.encode`` from the side to act
    "action_mask": int8    [N+1]      1 for the legal actions (cells 0..N-1, N = pass)

Actions are cell indices and N for a pass. Seats 0 and 1 are the two players (seat 0 plays
red unless the pie rule of the official set-up swapped colours); rewards belong to seats.

Modes:

- ``"selfplay"``: the agent plays both seats; every step is one move of the side to act.
- ``"opponent"``: the agent plays one seat, the env plays the other with ``opponent``; after
  the agent's move the opponent moves until the agent is to act again or the game is over
  (also right after a reset, when the opponent acts first). The opponent is either an
  observation-shaped ``opponent(observation, mask, rng)`` or, with ``player=``, any in-process
  player of the one protocol (``tw_rl.core.player``: ``player(rules, state, rng) -> actions``,
  e.g. ``tw_rl.core.baselines.BASELINES["greedy"]``); the first is adapted to the second.

Action masks: ``action_masks()`` returns the legal-action mask of the position to act in (bool
[N+1]; the vector env's [num_envs, N+1]), the convention of sb3-contrib's ``MaskablePPO``, which
therefore trains on ``tw_rl/Tumbleweed-v0`` without a wrapper.

Rewards: +1 / -1 / 0 for win / loss / draw at the end (``Rules.rewards``; an illegal action
ends the game as a forfeit, -1 for the offender). With ``shaped=True`` each step also earns the
change of the seat's potential: the normalized simulated-territory margin
``territory_margin(state.territory)`` (red cells - white cells) / N, signed for the seat. The
potential of a game is taken at its start (before any opponent move), so the shaped parts of
a seat's rewards over a game sum to that seat's final margin minus its start margin (which is
0 for every judge-drawn start: the start position is symmetric for the simulation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tw_rl.core.encode import encode, num_planes
from tw_rl.core.notation import text_board
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE, State
from tw_rl.core.territory import territory_margin

ENV_ID = "tw_rl/Tumbleweed-v0"
MODES = ("selfplay", "opponent")
COLOUR_WORDS = {RED: "red", WHITE: "white", 0: "draw"}

# opponent(observation, action_mask, rng) -> action; batched or single, see the classes.
Opponent = Callable[[dict[str, np.ndarray], np.ndarray, np.random.Generator], Any]


# --------------------------------------------------------------------------- opponents


def random_legal_action(
    observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
) -> int:
    """The default single-game opponent: a uniformly random legal action."""
    legal = np.flatnonzero(action_mask)
    return int(rng.choice(legal)) if legal.size else len(action_mask) - 1


def random_legal_actions(
    observations: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The default batched opponent: [K] uniformly random legal actions of K games."""
    keys = rng.random(action_mask.shape)
    keys[~action_mask.astype(bool)] = -1.0
    return keys.argmax(axis=1)


def _batch_of_single(opponent: Opponent) -> Opponent:
    """Turn a single-game opponent into a batched one (a loop over the games)."""

    def batched(observations: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator):
        return np.array(
            [
                int(opponent({k: v[i] for k, v in observations.items()}, action_mask[i], rng))
                for i in range(len(action_mask))
            ],
            dtype=np.int64,
        )

    return batched


# ------------------------------------------------------------------------- the games


def _observation_space(rules: Rules, territory_planes: bool) -> spaces.Dict:
    width = rules.grid.width
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (num_planes(territory_planes), width, width), np.float32),
            "action_mask": spaces.Box(0, 1, (rules.num_actions,), np.int8),
        }
    )


class _Games:
    """A batch of games with their agent seats, potentials and opponent; shared by both envs."""

    def __init__(
        self,
        rules: Rules,
        mode: str,
        opponent: Opponent,
        shaped: bool,
        territory_planes: bool,
        player: Player | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.rules = rules
        self.mode = mode
        self.player = player if player is not None else self._adapted(opponent)
        self.shaped = shaped
        self.territory_planes = territory_planes
        self.state: State | None = None
        self.agent_seat = np.zeros(0, dtype=np.int8)
        self.phi = np.zeros((0, 2), dtype=np.float32)  # per-seat potential
        self.reported = np.zeros(0, dtype=bool)  # the end of the game was returned

    # -- helpers

    def _adapted(self, opponent: Opponent) -> Player:
        """An observation-shaped opponent as a player of the one protocol."""

        def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
            obs = self.observe(state)
            return opponent(obs, obs["action_mask"].astype(bool), rng)

        return play

    def action_masks(self) -> np.ndarray:
        """[B, N+1] bool: the legal actions of each game (a finished game: the pass alone)."""
        legal = self.rules.legal_mask(self.state)
        legal[~legal.any(axis=1), self.rules.num_actions - 1] = True
        return legal

    def potential(self, state: State) -> np.ndarray:
        """[B, 2] float32: the normalized territory margin from each seat's point of view."""
        if not self.shaped:
            return np.zeros((state.batch_size, 2), dtype=np.float32)
        self.rules.ensure_territory(state)
        red = territory_margin(state.territory)
        rows = np.arange(state.batch_size)
        phi = np.empty((state.batch_size, 2), dtype=np.float32)
        phi[rows, state.red_seat] = red
        phi[rows, 1 - state.red_seat] = -red
        return phi

    def observe(self, state: State) -> dict[str, np.ndarray]:
        return {
            "observation": encode(self.rules, state, territory=self.territory_planes),
            "action_mask": self.rules.legal_mask(state).astype(np.int8),
        }

    def infos(self, obs: dict[str, np.ndarray]) -> dict[str, Any]:
        """Batched infos: seat and colour to act, the mask, and the result of finished games."""
        state = self.state
        info: dict[str, Any] = {
            "current_seat": state.current_seat(),
            "to_move": np.where(state.to_move == RED, "red", "white"),
            "action_mask": obs["action_mask"].copy(),
        }
        if self.mode == "opponent":
            info["agent_seat"] = self.agent_seat.copy()
        done = np.flatnonzero(state.terminated)
        if done.size:
            sub = state[done]
            score = np.zeros((state.batch_size, 2), dtype=np.int32)
            score[done] = self.rules.score(sub)
            winner = np.full(state.batch_size, "", dtype="<U5")
            winner[done] = [COLOUR_WORDS[int(w)] for w in self.rules.winner(sub)]
            info["score"], info["_score"] = score, state.terminated.copy()
            info["winner"], info["_winner"] = winner, state.terminated.copy()
        return info

    def _fresh(
        self, count: int, rng: np.random.Generator, options: dict[str, Any]
    ) -> tuple[State, np.ndarray]:
        red, white = options.get("red_start"), options.get("white_start")
        if (red is None) != (white is None):
            raise ValueError("give both 'red_start' and 'white_start', or neither")
        if red is not None:
            shape = (count,)
            state = self.rules.start(np.broadcast_to(red, shape), np.broadcast_to(white, shape))
        else:
            state = self.rules.init(count, rng)
        seat = options.get("agent_seat")
        if seat is None:
            seats = rng.integers(0, 2, size=count) if self.mode == "opponent" else np.zeros(count)
        else:
            seats = np.broadcast_to(np.asarray(seat), (count,))
            if not np.isin(seats, (0, 1)).all():
                raise ValueError(f"agent_seat must be 0 or 1, got {seat!r}")
        return state, seats.astype(np.int8)

    # -- the game flow

    def reset(
        self, count: int, rng: np.random.Generator, options: dict[str, Any], rows: np.ndarray | None
    ) -> None:
        """Start new games: all ``count`` (rows None) or only the games of index array ``rows``."""
        if rows is None or self.state is None:
            rows = np.arange(count)
            fresh, seats = self._fresh(count, rng, options)
            self.state = fresh
            self.agent_seat = seats
            self.phi = np.zeros((count, 2), dtype=np.float32)
            self.reported = np.zeros(count, dtype=bool)
        else:
            fresh, seats = self._fresh(len(rows), rng, options)
            self.state.replace(rows, fresh)
            self.agent_seat[rows] = seats
            self.reported[rows] = False
        # The potential is taken before the opponent's opening moves (see the module docstring).
        self.phi[rows] = self.potential(self.state[rows])
        self._opponent_moves(rng)

    def _opponent_moves(self, rng: np.random.Generator) -> None:
        if self.mode != "opponent":
            return
        while True:
            need = ~self.state.terminated & (self.state.current_seat() != self.agent_seat)
            if not need.any():
                return
            rows = np.flatnonzero(need)
            sub = self.state[rows]
            actions = np.asarray(self.player(self.rules, sub, rng), dtype=np.int64)
            if actions.shape != (len(rows),):
                raise ValueError(
                    f"the opponent returned actions of shape {actions.shape}, want {(len(rows),)}"
                )
            self.state.replace(rows, self.rules.step(sub, actions))

    def step(
        self, actions: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One agent action per game (finished games ignore theirs), then the opponent's replies.

        Returns the per-seat rewards [B, 2] float32, the seat that made the agent move [B] and
        whether the game ended in this step (or ended unreported in the last reset) [B].
        """
        before = self.state
        mover = before.current_seat()
        self.state = self.rules.step(before, actions)
        self._opponent_moves(rng)
        ended = self.state.terminated & ~self.reported
        rewards = np.zeros((before.batch_size, 2), dtype=np.float32)
        if ended.any():
            rewards[ended] = self.rules.rewards(self.state[ended])
        if self.shaped:
            phi = self.potential(self.state)
            rewards += phi - self.phi
            self.phi = phi
        self.reported |= ended
        return rewards, mover, ended

    def agent_rewards(self, seat_rewards: np.ndarray, mover: np.ndarray) -> np.ndarray:
        """[B]: the mover's reward in self-play, the agent seat's against an opponent."""
        seat = mover if self.mode == "selfplay" else self.agent_seat
        return seat_rewards[np.arange(len(seat)), seat.astype(np.intp)]


# ----------------------------------------------------------------------- one game


class TumbleweedEnv(gymnasium.Env):
    """One game of Tumbleweed.

    Args:
        size: cells per board side (6, 8, 10, 11). ``variant``: "codecup" or "official";
            ``setup`` and ``stale_end``: as in ``tw_rl.core.rules.Rules``.
        mode: "selfplay" (the agent plays both seats) or "opponent" (the agent plays one seat,
            ``opponent`` the other).
        opponent: ``opponent(observation_dict, action_mask, np_random) -> int`` where
            ``observation_dict`` is this env's observation from the opponent's side,
            ``action_mask`` a bool [N+1] array and ``np_random`` the env's generator. Default:
            a uniformly random legal action. An illegal answer forfeits the opponent's game.
        player: instead of ``opponent``, a player of the one protocol (``tw_rl.core.player``).
        shaped: add the potential-based territory-margin reward (module docstring).
        territory_planes: include the two simulated-territory planes in the observation.
        render_mode: None or "ansi" (``render()`` returns the text board).

    Reward ownership:
        - selfplay: the reward of ``step`` belongs to the seat that just moved (the seat in
          ``info["current_seat"]`` of the previous observation). ``info["rewards"]`` (shape
          (2,), float32) holds both seats' rewards of that step; a trainer credits a seat with
          column ``seat`` of it (at a decisive end it is +1 for one seat and -1 for the other).
        - opponent: the reward belongs to the agent's seat (``info["agent_seat"]``); it covers
          the agent's move and the opponent's replies that followed. ``info["rewards"]`` is also
          given.
        Terminal: +1 win, -1 loss, 0 draw (an illegal action is a forfeit: -1 for its player).
        Shaped: plus the change of that seat's margin potential over the step.

    Reset: ``reset(seed=..., options=...)``; the judge's start draw (and in opponent mode the
    agent's seat and the default opponent's moves) come from ``self.np_random``. Options:
    ``{"red_start": cell, "white_start": cell}`` starts from those cells (set-up skipped, seat 0
    red); ``{"agent_seat": 0 or 1}`` fixes the agent's seat, which otherwise is drawn uniformly
    from ``np_random`` at every reset (so that a seeded reset is reproducible).

    Info (always): ``current_seat`` (int), ``to_move`` ("red"/"white"), ``action_mask`` (int8
    [N+1]), ``rewards`` after a step, ``agent_seat`` in opponent mode; at the end also ``score``
    (int32 [2]: red, white points) and ``winner`` ("red", "white" or "draw").
    Games never get truncated: every game ends after at most 2 * (6N + 1) plies.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        size: int = 6,
        variant: str = "codecup",
        setup: str = "",
        stale_end: bool = False,
        mode: str = "selfplay",
        opponent: Opponent | None = None,
        shaped: bool = False,
        territory_planes: bool = True,
        render_mode: str | None = None,
        player: Player | None = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.rules = Rules(size, variant, setup, stale_end)
        self.mode = mode
        self.render_mode = render_mode
        self.opponent = opponent if opponent is not None else random_legal_action
        single = _batch_of_single(self.opponent)
        self._games = _Games(self.rules, mode, single, shaped, territory_planes, player)
        self.observation_space = _observation_space(self.rules, territory_planes)
        self.action_space = spaces.Discrete(self.rules.num_actions)

    @property
    def state(self) -> State | None:
        """The engine state (a batch of one) of the current game."""
        return self._games.state

    def _result(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs = self._games.observe(self._games.state)
        info = self._games.infos(obs)
        single_obs = {k: v[0] for k, v in obs.items()}
        single_info: dict[str, Any] = {}
        for key, value in info.items():
            if key.startswith("_"):
                continue
            item = value[0]
            single_info[key] = item.item() if isinstance(item, np.generic) else item
        return single_obs, single_info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._games.reset(1, self.np_random, dict(options or {}), rows=None)
        return self._result()

    def action_masks(self) -> np.ndarray:
        """[N+1] bool: the legal actions of the position to act in (sb3-contrib's convention)."""
        return self._games.action_masks()[0]

    def step(self, action):
        rewards, mover, ended = self._games.step(np.array([int(action)]), self.np_random)
        reward = float(self._games.agent_rewards(rewards, mover)[0])
        obs, info = self._result()
        info["rewards"] = rewards[0]
        terminated = bool(self._games.state.terminated[0])
        return obs, reward, terminated, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._games.state is None:
            return None
        state = self._games.state
        return text_board(self.rules.grid, state.owner[0], state.height[0], int(state.last_move[0]))


# --------------------------------------------------------------------- the vector env


class TumbleweedVectorEnv(VectorEnv):
    """``num_envs`` games in one batched ``State``, stepped together by one ``Rules.step`` call.

    The keywords are those of ``TumbleweedEnv``; rewards, seats and reward ownership are the
    same per game (selfplay: the mover's reward, ``info["rewards"]`` [num_envs, 2] per seat;
    opponent: the agent seat's). Actions: int array [num_envs].

    opponent (batched): ``opponent(observations, action_mask, rng) -> actions [K]`` where
    ``observations`` is a dict of this env's observation arrays for the K games where the
    opponent is to act (``"observation"`` [K, C, W, W], ``"action_mask"`` [K, N+1] int8),
    ``action_mask`` the same mask as bool and ``rng`` the env's generator. It is called
    repeatedly until in every game the agent is to act or the game is over. Default: uniformly
    random legal actions. ``player``: instead, a player of the one protocol (``tw_rl.core.player``).

    Autoreset: ``AutoresetMode.NEXT_STEP``, as Gymnasium 1.x defines it. The step in which a
    game ends returns its final observation, its final reward and ``terminated=True``; in the
    next step that game's action is ignored, a new game starts (drawn from ``self.np_random``;
    in opponent mode with a newly drawn agent seat and the opponent's opening moves), and the
    step returns the new game's first observation with reward 0 and ``terminated=False``.

    reset(seed, options): seeds ``self.np_random``; options as for the single env, where
    ``red_start``, ``white_start`` and ``agent_seat`` may be scalars or [num_envs] arrays, plus
    ``reset_mask`` (bool [num_envs]) to restart only those games.

    Infos are batched: ``current_seat`` int8 [B], ``to_move`` str [B], ``action_mask`` int8
    [B, N+1], ``rewards`` float32 [B, 2] after a step, ``agent_seat`` int8 [B] (opponent mode);
    ``score`` int32 [B, 2] and ``winner`` str [B] with masks ``_score``/``_winner`` for the
    games that are over.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        num_envs: int = 1,
        size: int = 6,
        variant: str = "codecup",
        setup: str = "",
        stale_end: bool = False,
        mode: str = "selfplay",
        opponent: Opponent | None = None,
        shaped: bool = False,
        territory_planes: bool = True,
        render_mode: str | None = None,
        player: Player | None = None,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.num_envs = int(num_envs)
        self.rules = Rules(size, variant, setup, stale_end)
        self.mode = mode
        self.render_mode = render_mode
        self.opponent = opponent if opponent is not None else random_legal_actions
        self._games = _Games(self.rules, mode, self.opponent, shaped, territory_planes, player)
        self.single_observation_space = _observation_space(self.rules, territory_planes)
        self.single_action_space = spaces.Discrete(self.rules.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    @property
    def state(self) -> State | None:
        """The batched engine state of all games."""
        return self._games.state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        rows = None
        if mask is not None and self._games.state is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must have shape ({self.num_envs},), got {mask.shape}")
            rows = np.flatnonzero(mask)
            for key in ("red_start", "white_start", "agent_seat"):
                if key in options and np.ndim(options[key]) == 1:
                    options[key] = np.asarray(options[key])[rows]
        self._games.reset(self.num_envs, self.np_random, options, rows)
        if rows is None:
            self._autoreset[:] = False
        else:
            self._autoreset[rows] = False
        obs = self._games.observe(self._games.state)
        return obs, self._games.infos(obs)

    def action_masks(self) -> np.ndarray:
        """[num_envs, N+1] bool: the legal actions of each game's position to act in."""
        return self._games.action_masks()

    def step(self, actions):
        if self._games.state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        restart = np.flatnonzero(self._autoreset)
        # Games that ended last step are still terminated, so Rules.step leaves them alone.
        seat_rewards, mover, _ = self._games.step(actions, self.np_random)
        if restart.size:
            seat_rewards[restart] = 0.0
            self._games.reset(self.num_envs, self.np_random, {}, restart)
        rewards = self._games.agent_rewards(seat_rewards, mover)
        terminated = self._games.state.terminated.copy()
        self._autoreset = terminated.copy()
        obs = self._games.observe(self._games.state)
        info = self._games.infos(obs)
        info["rewards"] = seat_rewards
        truncated = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards, terminated, truncated, info

    def render(self) -> tuple[str, ...] | None:
        if self.render_mode != "ansi" or self._games.state is None:
            return None
        s = self._games.state
        grid = self.rules.grid
        return tuple(
            text_board(grid, s.owner[i], s.height[i], int(s.last_move[i])) for i in range(self.num_envs)
        )


# ---------------------------------------------------------------------- registration


def register_envs() -> None:
    """Register ``tw_rl/Tumbleweed-v0`` (single and vector entry points); safe to call again."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="tw_rl.env:TumbleweedEnv",
            vector_entry_point="tw_rl.env:TumbleweedVectorEnv",
        )


register_envs()
