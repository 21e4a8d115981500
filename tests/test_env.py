"""Tests of the Gymnasium environments (tw_rl.env): API checks, rewards, autoreset, registry."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tw_rl.core.state import RED, WHITE
from tw_rl.core.territory import territory_margin
from tw_rl.env import (
    ENV_ID,
    TumbleweedEnv,
    TumbleweedVectorEnv,
    random_legal_actions,
    register_envs,
)

VARIANTS = ("codecup", "official")
MODES = ("selfplay", "opponent")


def first_legal(observation, action_mask, rng):
    return int(np.flatnonzero(action_mask)[0])


def random_action(mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


def winner_by_points(red: float, white: float) -> str:
    """The winner's name as both variants decide it: more points wins, equal points draw."""
    return "red" if red > white else "white" if white > red else "draw"


def seat_margin(env, seat):
    """The final normalized territory margin from ``seat``'s point of view."""
    state = env.unwrapped.state
    env.unwrapped.rules.ensure_territory(state)
    red = float(territory_margin(state.territory)[0])
    return red if seat == int(state.red_seat[0]) else -red


# ------------------------------------------------------------------ API conformance


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", MODES)
def test_check_env(variant, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Made through the registry, the checker also tries every render mode ...
        check_env(gym.make(ENV_ID, variant=variant, mode=mode, shaped=True).unwrapped)
        # ... which it cannot do (and says so) for a directly built env without a spec.
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        check_env(TumbleweedEnv(variant=variant, mode=mode, render_mode="ansi"))


def test_registry_make_passes_kwargs():
    register_envs()  # idempotent: importing tw_rl.env registered it already
    env = gym.make(ENV_ID, size=8, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    assert env.observation_space["observation"].shape == (14, 15, 15)
    assert env.action_space.n == 170
    env.reset(seed=0)
    assert "n2" in env.render()
    # the module:id form imports the module itself
    env = gym.make("tw_rl.env:" + ENV_ID, variant="official", territory_planes=False)
    assert env.observation_space["observation"].shape == (12, 11, 11)


def test_make_vec_uses_the_vector_entry_point():
    envs = gym.make_vec(ENV_ID, num_envs=3, size=8)
    assert isinstance(envs.unwrapped, TumbleweedVectorEnv)
    assert envs.num_envs == 3
    obs, info = envs.reset(seed=1)
    assert obs["observation"].shape == (3, 14, 15, 15)
    assert obs["action_mask"].shape == (3, 170)


def test_vector_shapes_and_dtypes():
    envs = TumbleweedVectorEnv(num_envs=5, mode="selfplay")
    obs, info = envs.reset(seed=3)
    assert envs.single_observation_space["action_mask"].dtype == np.int8
    assert envs.observation_space.contains(obs)
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (5, 14, 11, 11)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (5, 92)
    assert envs.action_space.shape == (5,)
    assert info["current_seat"].shape == (5,) and list(info["to_move"]) == ["red"] * 5
    actions = random_legal_actions(obs, obs["action_mask"], np.random.default_rng(0))
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert envs.observation_space.contains(obs)
    assert rewards.shape == (5,) and terminated.dtype == bool and truncated.dtype == bool
    assert info["rewards"].shape == (5, 2) and info["rewards"].dtype == np.float32
    assert list(info["to_move"]) == ["white"] * 5
    rendering = TumbleweedVectorEnv(2, render_mode="ansi")
    rendering.reset(seed=0)
    boards = rendering.render()
    assert len(boards) == 2 and all("n2" in b and "r1" in b for b in boards)


# --------------------------------------------------------------------- autoreset


def test_next_step_autoreset():
    envs = TumbleweedVectorEnv(num_envs=3, mode="selfplay")
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, _ = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    actions = random_legal_actions(obs, obs["action_mask"], rng)
    actions[0] = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])  # illegal: forfeit
    obs, rewards, terminated, _, info = envs.step(actions)
    assert terminated.tolist() == [True, False, False]
    assert rewards[0] == -1.0 and info["rewards"][0].tolist() == [-1.0, 1.0]
    assert obs["action_mask"][0].sum() == 0  # the final observation of the finished game
    assert info["_winner"].tolist() == [True, False, False] and info["winner"][0] == "white"
    assert info["score"][0, 0] == 0
    plies = envs.state.ply.copy()
    # Next step: game 0 restarts (its action, even an illegal one, is ignored).
    actions = random_legal_actions(obs, obs["action_mask"], rng)
    actions[0] = 10_000
    obs, rewards, terminated, _, info = envs.step(actions)
    assert terminated.tolist() == [False, False, False]
    assert rewards[0] == 0.0 and info["rewards"][0].tolist() == [0.0, 0.0]
    assert envs.state.ply[0] == 0 and envs.state.forfeit[0] == 0 and obs["action_mask"][0].sum() > 0
    assert (envs.state.owner[0] != 0).sum() == 3  # a fresh start: neutral, red, white
    assert (envs.state.ply[1:] == plies[1:] + 1).all()


def test_autoreset_after_natural_end():
    envs = TumbleweedVectorEnv(num_envs=4, mode="opponent")
    obs, _ = envs.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(200):
        obs, rewards, terminated, _, info = envs.step(random_legal_actions(obs, obs["action_mask"], rng))
        if terminated.any():
            break
    assert terminated.any() and (envs.state.forfeit == 0).all()
    done = np.flatnonzero(terminated)
    assert set(np.abs(rewards[done]).tolist()) <= {0.0, 1.0}
    obs, rewards, terminated, _, _ = envs.step(random_legal_actions(obs, obs["action_mask"], rng))
    assert not terminated[done].any() and (rewards[done] == 0).all()
    assert (obs["action_mask"][done].sum(axis=1) > 0).all()


# ----------------------------------------------------------------------- rewards


@pytest.mark.parametrize("variant", VARIANTS)
def test_selfplay_seat_rewards_are_opposite_at_a_decisive_end(variant):
    env = TumbleweedEnv(variant=variant, mode="selfplay")
    rng = np.random.default_rng(0)
    decisive = 0
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            mover = info["current_seat"]
            obs, reward, terminated, truncated, info = env.step(random_action(obs["action_mask"], rng))
            assert not truncated and reward == info["rewards"][mover]
        red_points, white_points = info["score"].tolist()
        assert info["winner"] == winner_by_points(red_points, white_points), (info["winner"], info["score"])
        if info["winner"] != "draw":
            decisive += 1
            assert sorted(info["rewards"].tolist()) == [-1.0, 1.0]
            winner_seat = env.state.seat_of(np.array([RED if info["winner"] == "red" else WHITE]))[0]
            assert info["rewards"][winner_seat] == 1.0
    assert decisive > 0


def test_custom_opponent_is_used():
    calls = []

    def opponent(observation, action_mask, rng):
        calls.append(action_mask.copy())
        assert observation["action_mask"].dtype == np.int8
        return first_legal(observation, action_mask, rng)

    env = TumbleweedEnv(mode="opponent", opponent=opponent)
    obs, info = env.reset(seed=2, options={"agent_seat": 1})  # codecup: seat 1 plays white
    assert info["agent_seat"] == 1 and info["current_seat"] == 1 and info["to_move"] == "white"
    assert len(calls) == 1 and env.state.last_move[0] == np.flatnonzero(calls[0])[0]
    rng = np.random.default_rng(2)
    obs, reward, terminated, _, info = env.step(random_action(obs["action_mask"], rng))
    assert len(calls) == 2 and env.state.last_move[0] == np.flatnonzero(calls[1])[0]
    assert info["current_seat"] == 1

    # The batched form in the vector env.
    batched_calls = []

    def batched(observations, action_mask, rng):
        batched_calls.append(len(action_mask))
        return action_mask.argmax(axis=1)

    envs = TumbleweedVectorEnv(4, mode="opponent", opponent=batched)
    obs, info = envs.reset(seed=0, options={"agent_seat": np.array([0, 1, 0, 1])})
    assert batched_calls == [2] and info["agent_seat"].tolist() == [0, 1, 0, 1]
    assert (info["current_seat"] == info["agent_seat"]).all()


@pytest.mark.parametrize("mode", MODES)
def test_shaped_rewards_sum_to_final_margin_plus_terminal(mode):
    env = TumbleweedEnv(mode=mode, shaped=True)
    plain = TumbleweedEnv(mode=mode, shaped=False)
    rng = np.random.default_rng(7)
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        plain.reset(seed=seed)
        assert seat_margin(env, 0) == 0.0  # a drawn start is symmetric
        totals = np.zeros(2)
        agent_total = 0.0
        terminated = False
        while not terminated:
            action = random_action(obs["action_mask"], rng)
            obs, reward, terminated, _, info = env.step(action)
            plain_step = plain.step(action)
            totals += info["rewards"]
            agent_total += reward
        terminal = plain_step[4]["rewards"]
        # +1 / -1 by seat for the winner, 0 / 0 for a draw: exactly what the final points say.
        winner = winner_by_points(*plain_step[4]["score"].tolist())
        red_seat = int(plain.unwrapped.state.red_seat[0])
        expected = np.zeros(2)
        if winner != "draw":
            winning_seat = red_seat if winner == "red" else 1 - red_seat
            expected[winning_seat], expected[1 - winning_seat] = 1.0, -1.0
        assert terminal.tolist() == expected.tolist(), (winner, terminal)
        for seat in (0, 1):
            assert totals[seat] == pytest.approx(seat_margin(env, seat) + terminal[seat], abs=1e-5)
        if mode == "opponent":
            seat = info["agent_seat"]
            assert agent_total == pytest.approx(seat_margin(env, seat) + terminal[seat], abs=1e-5)


def test_illegal_action_forfeits():
    env = TumbleweedEnv(mode="selfplay", shaped=True)
    obs, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info["rewards"].tolist() == [-1.0, 1.0]
    # Red forfeits at ply 0, when both territories are empty: white gets 200 + 0 + floor(0.9 * 91).
    assert env.unwrapped.rules.grid.num_cells == 91
    assert info["winner"] == "white" and info["score"].tolist() == [0, 200 + (9 * 91) // 10] == [0, 281]
    # Against an opponent the agent's forfeit is its loss too.
    env = TumbleweedEnv(mode="opponent")
    obs, info = env.reset(seed=4, options={"agent_seat": 0})
    _, reward, terminated, _, info = env.step(env.action_space.n + 3)  # out of range
    assert terminated and reward == -1.0 and info["winner"] == "white"


def test_seeded_resets_are_reproducible():
    for mode in MODES:
        env = TumbleweedEnv(mode=mode)
        first = env.reset(seed=123)[0]
        trace = [env.step(random_action(first["action_mask"], np.random.default_rng(0)))[0]]
        second = env.reset(seed=123)[0]
        again = [env.step(random_action(second["action_mask"], np.random.default_rng(0)))[0]]
        for a, b in ((first, second), (trace[0], again[0])):
            assert all(np.array_equal(a[k], b[k]) for k in a)
    envs = TumbleweedVectorEnv(6, mode="opponent")
    a, info_a = envs.reset(seed=9)
    b, info_b = envs.reset(seed=9)
    c, _ = envs.reset(seed=10)
    assert np.array_equal(a["observation"], b["observation"])
    assert np.array_equal(info_a["agent_seat"], info_b["agent_seat"])
    assert not np.array_equal(a["observation"], c["observation"])


def test_reset_options_start_cells():
    env = TumbleweedEnv()
    _, info = env.reset(seed=0, options={"red_start": 10, "white_start": 80})
    assert env.state.owner[0, 10] == RED and env.state.owner[0, 80] == WHITE
    envs = TumbleweedVectorEnv(3)
    envs.reset(seed=0)
    before = envs.state.owner.copy()
    envs.reset(options={"reset_mask": np.array([False, True, False]), "red_start": 10, "white_start": 80})
    assert np.array_equal(envs.state.owner[[0, 2]], before[[0, 2]])
    assert envs.state.owner[1, 10] == RED and envs.state.owner[1, 80] == WHITE


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", MODES)
def test_random_vector_play_never_plays_a_masked_illegal_move(variant, mode):
    envs = TumbleweedVectorEnv(16, variant=variant, mode=mode, shaped=True)
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        live = ~envs.state.terminated
        assert (obs["action_mask"][live].sum(axis=1) > 0).all()
        obs, rewards, terminated, _, info = envs.step(random_legal_actions(obs, obs["action_mask"], rng))
        assert (envs.state.forfeit == 0).all()
        assert envs.observation_space.contains(obs)
        ends += int(terminated.sum())
    assert ends > 0


# ------------------------------------------------------------------ action masks, one protocol


def test_action_masks_are_the_legal_moves_in_both_envs():
    env = TumbleweedEnv(mode="opponent")
    obs, _ = env.reset(seed=3)
    for _ in range(20):
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, obs["action_mask"].astype(bool))
        assert np.array_equal(mask, env.rules.legal_mask(env.state)[0])
        obs, _, terminated, _, _ = env.step(int(np.flatnonzero(mask)[0]))
        if terminated:
            assert env.action_masks().sum() >= 1  # never an empty distribution
            obs, _ = env.reset()
    vec = TumbleweedVectorEnv(num_envs=4)
    vec.reset(seed=1)
    assert np.array_equal(vec.action_masks(), vec.rules.legal_mask(vec.state))


def test_an_opponent_may_be_a_player_of_the_one_protocol():
    from tw_rl.core.baselines import BASELINES

    calls = []

    def greedy(rules, state, rng):
        calls.append(state.batch_size)
        return BASELINES["greedy"](rules, state, rng)

    env = TumbleweedVectorEnv(num_envs=3, mode="opponent", player=greedy)
    env.reset(seed=2)
    for _ in range(4):
        env.step(env.action_masks().argmax(axis=1))
    assert calls and all(n <= 3 for n in calls)


def test_maskable_ppo_trains_on_the_registered_env_without_a_wrapper():
    sb3_contrib = pytest.importorskip(
        "sb3_contrib", reason="sb3-contrib is not installed (pip install -e '.[dev]')"
    )
    import torch

    torch.set_num_threads(1)
    env = gym.make(ENV_ID, mode="opponent")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=5)
    for _ in range(10):  # its masked actions are always legal
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        assert env.unwrapped.action_masks()[int(action)]
        obs, _, terminated, _, _ = env.step(int(action))
        if terminated:
            obs, _ = env.reset()
