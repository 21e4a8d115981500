"""The PettingZoo AEC environment (tw_rl/pettingzoo_env.py): PettingZoo's own API and seed
tests, whole random games on every board size and variant, the set-up as actions, illegal
actions, observations, rendering, and that the module needs no torch."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from tw_rl.core.encode import encode  # noqa: E402
from tw_rl.core.notation import text_board  # noqa: E402
from tw_rl.core.picture import DISCS  # noqa: E402
from tw_rl.core.rules import Rules  # noqa: E402
from tw_rl.core.state import PLAY, RED, WHITE  # noqa: E402
from tw_rl.env import TumbleweedEnv  # noqa: E402
from tw_rl.pettingzoo_env import AGENTS, env, raw_env  # noqa: E402

CONFIGS = {
    "codecup-6": dict(size=6),
    "official-6-pie": dict(size=6, variant="official"),
    "official-6-free-stale": dict(size=6, variant="official", setup="free", stale_end=True),
}


def random_game(game, seed: int = 0):
    """Play a whole game with uniformly random legal actions; the final (reward, info) per agent."""
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        if termination or truncation:
            final[agent] = (reward, info)
            game.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        game.step(int(rng.choice(legal)))
    return final


# ----------------------------------------------------------------- PettingZoo's own tests


@pytest.mark.parametrize("name", CONFIGS)
def test_pettingzoo_api_test(name):
    with warnings.catch_warnings():
        # api_test warns about every dict observation (only PettingZoo's own games are exempt).
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(**CONFIGS[name]), num_cycles=300)


@pytest.mark.parametrize("name", CONFIGS)
def test_pettingzoo_seed_test(name):
    seed_test(lambda: env(**CONFIGS[name]), num_cycles=300)


def test_api_test_of_the_forfeit_form_and_the_raw_env():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(illegal_action="forfeit", size=6, variant="official"), num_cycles=100)
        api_test(raw_env(size=6), num_cycles=100)


# ------------------------------------------------------------------------- whole games


@pytest.mark.parametrize("size", [6, 8, 10, 11])
@pytest.mark.parametrize("variant", ["codecup", "official"])
def test_a_random_game_ends_zero_sum(size, variant):
    final = random_game(env(size=size, variant=variant), seed=size)
    assert set(final) == set(AGENTS)
    rewards = [final[a][0] for a in AGENTS]
    assert sum(rewards) == 0 and set(rewards) in ({1.0, -1.0}, {0.0})
    info = final[AGENTS[0]][1]
    assert info["winner"] in ("red", "white", "draw")
    assert {final[a][1]["colour"] for a in AGENTS} == {"red", "white"}
    if info["winner"] == "draw":
        assert rewards == [0.0, 0.0]
    else:
        winner = next(a for a in AGENTS if final[a][1]["colour"] == info["winner"])
        assert final[winner][0] == 1.0
    assert info["forfeit"] is False


def test_rewards_come_at_the_end_only():
    game = env(size=6)
    game.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        if termination:
            assert reward in (-1.0, 0.0, 1.0)
            game.step(None)
            continue
        assert reward == 0.0 and not truncation
        game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if not any(game.terminations.values()):
            assert all(r == 0.0 for r in game.rewards.values())
    assert game.agents == []


def test_codecup_player_0_plays_red_and_moves_first():
    game = raw_env(size=8)
    game.reset(seed=1)
    assert game.agent_selection == "player_0"
    state = game.game_state
    assert state.phase[0] == PLAY and state.to_move[0] == RED and state.red_seat[0] == 0


@pytest.mark.parametrize("take", ["red", "white"])
def test_the_pie_set_up_is_ordinary_actions(take):
    game = env(size=6, variant="official")
    game.reset(seed=0)
    rules = game.unwrapped.rules
    assert game.agent_selection == "player_0"
    mask = game.observe("player_0")["action_mask"]
    assert mask[: rules.num_cells].sum() == rules.num_cells - 1  # every empty cell (not the centre)
    assert mask[rules.num_cells] == 0  # no pass in the set-up
    assert game.observe("player_1")["action_mask"].sum() == 0
    game.step(3)  # red token
    assert game.agent_selection == "player_0"
    game.step(20)  # white token
    assert game.agent_selection == "player_1"
    pie = game.observe("player_1")["action_mask"]
    assert sorted(np.flatnonzero(pie)) == [3, 20]
    game.step(3 if take == "red" else 20)
    state = game.unwrapped.game_state
    assert state.phase[0] == PLAY and state.to_move[0] == RED
    red_agent = "player_1" if take == "red" else "player_0"
    assert game.agent_selection == red_agent
    assert int(state.red_seat[0]) == AGENTS.index(red_agent)


def test_free_set_up_places_the_neutral_stack_first():
    game = raw_env(size=6, variant="official", setup="free", render_mode="ansi")
    game.reset(seed=0)
    assert game.render().splitlines()[-1] == "set-up: player_0 places the neutral stack"
    assert game.agent_selection == "player_0"
    assert game.observe("player_0")["action_mask"][: game.rules.num_cells].all()  # an empty board
    for cell in (0, 1, 2):
        game.step(cell)
    assert game.agent_selection == "player_1"


def test_start_cells_as_reset_options():
    game = raw_env(size=6)
    game.reset(seed=0, options={"red_start": 10, "white_start": 30})
    state = game.game_state
    assert state.owner[0, 10] == RED and state.owner[0, 30] == WHITE
    with pytest.raises(ValueError, match="both"):
        game.reset(options={"red_start": 10})


# ---------------------------------------------------------------------- illegal actions


def _illegal_action(game) -> int:
    mask = game.observe(game.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


def test_an_illegal_action_terminates_as_the_classic_games_do():
    game = env(size=6)
    game.reset(seed=2)
    offender = game.agent_selection
    other = AGENTS[1 - AGENTS.index(offender)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game.step(_illegal_action(game))
    assert all(game.terminations.values())
    assert game._cumulative_rewards == {offender: -1.0, other: 0.0}
    for _ in game.agent_iter():
        assert game.last()[2] or game.last()[3]
        game.step(None)
    assert game.agents == []


def test_an_illegal_action_forfeits_under_the_engine_rule():
    for game in (env(illegal_action="forfeit", size=6), raw_env(size=6)):
        game.reset(seed=2)
        offender = game.agent_selection
        other = AGENTS[1 - AGENTS.index(offender)]
        game.step(_illegal_action(game))
        assert all(game.terminations.values())
        assert game._cumulative_rewards == {offender: -1.0, other: 1.0}
        assert game.infos[offender]["forfeit"] is True
        assert game.infos[offender]["colour"] == "red" and game.infos[other]["winner"] == "white"


def test_out_of_range_actions_and_a_bad_option_are_refused():
    game = env(size=6)
    game.reset(seed=0)
    with pytest.raises(AssertionError):
        game.step(game.unwrapped.rules.num_actions)
    with pytest.raises(ValueError, match="illegal_action"):
        env(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="human")


# ------------------------------------------------------------------------ observations


def test_the_acting_agent_sees_what_the_gymnasium_env_shows():
    game = raw_env(size=6)
    gym = TumbleweedEnv(size=6, mode="selfplay")
    start = {"red_start": 8, "white_start": 25}
    game.reset(options=start)
    gym_obs, _ = gym.reset(options=start)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if any(game.terminations.values()):
            break
        obs = game.observe(game.agent_selection)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(obs["observation"], gym_obs["observation"])
        np.testing.assert_array_equal(obs["action_mask"], gym_obs["action_mask"])
        assert game.observation_space(game.agent_selection).contains(obs)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        game.step(action)
        gym_obs, *_ = gym.step(action)


def test_the_waiting_agent_sees_the_position_from_its_own_colour():
    game = raw_env(size=6)
    game.reset(options={"red_start": 8, "white_start": 25})
    game.step(int(np.flatnonzero(game.observe("player_0")["action_mask"])[0]))
    assert game.agent_selection == "player_1"
    state = game.game_state
    for agent, colour in (("player_0", RED), ("player_1", WHITE)):
        planes = game.observe(agent)["observation"]
        rules = game.rules
        mine = planes[0][rules.grid.coords[:, 0], rules.grid.coords[:, 1]]
        theirs = planes[1][rules.grid.coords[:, 0], rules.grid.coords[:, 1]]
        np.testing.assert_array_equal(mine, state.owner[0] == colour)
        np.testing.assert_array_equal(theirs, state.owner[0] == 3 - colour)
        assert planes[10].max() == (1.0 if colour == RED else 0.0)  # the "I play red" plane
    assert game.observe("player_0")["action_mask"].sum() == 0
    assert game.observe("player_1")["action_mask"].sum() > 0
    # Observing does not change the game.
    np.testing.assert_array_equal(game.observe("player_1")["observation"], encode(game.rules, state)[0])


def test_observations_are_fresh_copies():
    game = raw_env(size=6)
    game.reset(seed=0)
    obs = game.observe("player_0")
    obs["action_mask"][:] = 0
    assert game.observe("player_0")["action_mask"].sum() > 0


def test_the_observation_can_leave_out_the_territory_planes():
    game = raw_env(size=6, territory_planes=False)
    game.reset(seed=0)
    assert game.observe("player_0")["observation"].shape == (12, 11, 11)
    assert game.observation_space("player_0")["observation"].shape == (12, 11, 11)


# -------------------------------------------------------------------------------- seeds


def test_a_seed_fixes_the_start_and_an_unseeded_reset_goes_on():
    game = raw_env(size=8)
    starts = []
    for seed in (7, 7, 8):
        game.reset(seed=seed)
        starts.append(tuple(np.flatnonzero(game.game_state.owner[0] % 3)))
    assert starts[0] == starts[1]
    game.reset(seed=7)
    game.reset()
    other = tuple(np.flatnonzero(game.game_state.owner[0] % 3))
    game.reset(seed=7)
    assert tuple(np.flatnonzero(game.game_state.owner[0] % 3)) == starts[0]
    assert len({starts[0], starts[2], other}) > 1


# ---------------------------------------------------------------------------- rendering


def test_ansi_render_is_the_text_board_with_a_status_line():
    game = env(size=6, render_mode="ansi")
    game.reset(seed=0)
    state = game.unwrapped.game_state
    text = game.render()
    assert isinstance(text, str)
    assert text.startswith(text_board(game.unwrapped.rules.grid, state.owner[0], state.height[0]))
    assert text.splitlines()[-1] == "player_0 (red) to move"
    pie = env(size=6, variant="official", render_mode="ansi")
    pie.reset(seed=0)
    assert pie.render().splitlines()[-1] == "set-up: player_0 places the red start token"
    random_game(game, seed=0)
    assert game.render().splitlines()[-1].startswith("game over: ")


@pytest.mark.parametrize("size", [6, 11])
def test_rgb_array_render_is_a_picture_of_the_board(size):
    game = env(size=size, render_mode="rgb_array")
    game.reset(seed=0)
    image = game.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3 and min(image.shape[:2]) > 100
    colours = {tuple(c) for c in image.reshape(-1, 3)}
    for fill, _, _ in DISCS.values():  # a red, a white and the neutral stack
        assert tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5)) in colours
    before = image.copy()
    game.step(int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[0]))
    after = game.render()
    assert after.shape == before.shape and (after != before).any()


def test_render_without_a_mode_returns_none():
    game = env(size=6)
    game.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert game.render() is None


# ---------------------------------------------------------------------- dependencies


def test_the_module_needs_no_torch():
    code = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'torch':
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Blocker())
from tw_rl.pettingzoo_env import env
game = env(size=6, variant='official', render_mode='rgb_array')
game.reset(seed=0)
for agent in game.agent_iter():
    obs, reward, term, trunc, info = game.last()
    game.step(None if term or trunc else game.action_space(agent).sample(obs['action_mask']))
game.render()
assert not [m for m in sys.modules if m == 'torch' or m.startswith('torch.')]
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]


def test_rules_match_the_core():
    game = raw_env(size=10, variant="official", setup="pie", stale_end=True)
    assert game.rules == Rules(10, "official", "pie", True)


def test_the_shipped_teacher_plays_in_it():
    """The loop of docs/environments.md: the raw policy on the observation planes is the argmax of
    ``NetPolicyValue`` on the core state, and a game against random ends."""
    torch = pytest.importorskip("torch")
    from tw_rl.training.checkpoint import DEFAULT_TEACHER, load_checkpoint, net_from_checkpoint
    from tw_rl.training.net import NetPolicyValue

    payload = load_checkpoint(DEFAULT_TEACHER)
    net = net_from_checkpoint(payload)
    game = env(size=payload["size"], variant="codecup")
    policy_value = NetPolicyValue(net, game.unwrapped.rules)
    game.reset(seed=0)
    rng = np.random.default_rng(0)
    final = {}
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        if termination or truncation:
            final[agent] = reward
            game.step(None)
        elif agent == "player_1":
            with torch.no_grad():
                logits = net(torch.from_numpy(observation["observation"])[None])["policy"][0].numpy()
            logits[observation["action_mask"] == 0] = -np.inf
            priors, _ = policy_value(game.unwrapped.game_state)
            assert int(logits.argmax()) == int(priors[0].argmax())
            game.step(int(logits.argmax()))
        else:
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert sum(final.values()) == 0 and set(final) == set(AGENTS)
