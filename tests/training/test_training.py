"""The AlphaZero pieces: search, augmentation, learning, a debug run, resuming."""

from __future__ import annotations

import dataclasses
import json
import time
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import random_positions, tiny_train_config

from tw_rl.config import (
    ArenaConfig,
    ConfigError,
    LearnerConfig,
    NetConfig,
    TrainConfig,
)
from tw_rl.core.encode import encode, symmetry_actions, symmetry_cells
from tw_rl.core.mcts import BatchedMCTS, SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.training import loop, replay_buffer
from tw_rl.training.checkpoint import latest_checkpoint, load_checkpoint
from tw_rl.training.learner import Learner, training_batch
from tw_rl.training.loop import train
from tw_rl.training.net import build_net
from tw_rl.training.replay_buffer import (
    SHARD_FORMAT,
    ReplayWindow,
    Samples,
    ShardFormatError,
    load_shard,
    read_shard,
    shard_games,
    write_shard,
)

RULES = Rules(6)


def uninformed(state):
    """Uniform priors and a value of 0 everywhere: only the search itself can find wins."""
    legal = RULES.legal_mask(state)
    return (legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)).astype(np.float32), np.zeros(
        state.batch_size, np.float32
    )


def positions_with_a_winning_move(count: int):
    """Positions where one move wins the game at once and most moves do not."""
    rng = np.random.default_rng(11)
    found, wins = [], []
    for _ in range(40):
        state = random_positions(RULES, 64, 0, rng)
        while not state.terminated.all() and len(found) < count:
            legal = RULES.legal_mask(state)
            for g in np.flatnonzero(~state.terminated):
                moves = np.flatnonzero(legal[g])
                if len(moves) > 30:
                    continue
                children = RULES.step(state[np.full(len(moves), g)], moves)
                winning = children.terminated & (RULES.winner(children) == state.to_move[g])
                if 0 < winning.sum() <= len(moves) // 3:
                    found.append(state[g])
                    wins.append(set(moves[winning].tolist()))
            state = RULES.step(state, (rng.random(legal.shape) * legal).argmax(axis=1))
        if len(found) >= count:
            break
    return found[:count], wins[:count]


def test_search_finds_a_winning_move():
    positions, wins = positions_with_a_winning_move(3)
    assert len(positions) == 3
    mcts = BatchedMCTS(RULES, SearchConfig(simulations=200))
    for state, winning in zip(positions, wins, strict=True):
        result = mcts.search(state, uninformed, np.random.default_rng(0), noise=False)
        assert int(result.action[0]) in winning
        assert result.root_value[0] > 0.5


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_search_never_visits_an_illegal_move(root):
    state = random_positions(RULES, 16, 25, np.random.default_rng(2))
    mcts = BatchedMCTS(RULES, SearchConfig(simulations=24, root=root))
    result = mcts.search(state, uninformed, np.random.default_rng(1), simulations=np.arange(16) + 4)
    legal = RULES.legal_mask(state)
    live = ~state.terminated
    assert (result.visits[~legal] == 0).all()
    assert (result.policy[~legal] == 0).all()
    assert np.allclose(result.policy[live].sum(axis=1), 1.0)
    assert legal[np.flatnonzero(live), result.action[live]].all()


PEAKED_LOGITS = np.random.default_rng(5).normal(0, 2.5, size=RULES.num_actions).astype(np.float32)


def peaked(state):
    """Sharp fixed priors (the same over every position) and a value of 0: a confident net."""
    legal = RULES.legal_mask(state)
    weights = np.exp(PEAKED_LOGITS)[None, :] * legal
    priors = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
    return priors, np.zeros(state.batch_size, np.float32)


def test_forced_playouts_widen_the_root_and_pruning_keeps_them_out_of_the_target():
    state = random_positions(RULES, 24, 20, np.random.default_rng(4))
    state = state[~state.terminated]
    results = {}
    for k in (0.0, 2.0):
        mcts = BatchedMCTS(RULES, SearchConfig(simulations=64, forced_playouts=k))
        results[k] = mcts.search(state, peaked, np.random.default_rng(9), noise=True)
    plain, forced = results[0.0], results[2.0]
    assert (forced.visits > 0).sum() > (plain.visits > 0).sum()  # more children tried
    assert np.allclose(plain.policy, plain.visits / plain.visits.sum(axis=1, keepdims=True))
    # The target: no child it did not visit, fewer than it visited, the most visited one kept.
    assert ((forced.policy > 0) <= (forced.visits > 0)).all()
    assert (forced.policy > 0).sum() < (forced.visits > 0).sum()
    rows = np.arange(len(forced.action))
    best = forced.visits.argmax(axis=1)
    share = forced.visits[rows, best] / forced.visits.sum(axis=1)
    assert (forced.policy[rows, best] >= share - 1e-6).all()
    assert np.allclose(forced.policy.sum(axis=1), 1.0)
    # Without root noise (a match, not self-play) nothing is forced.
    quiet = BatchedMCTS(RULES, SearchConfig(simulations=64, forced_playouts=2.0))
    again = BatchedMCTS(RULES, SearchConfig(simulations=64))
    a = quiet.search(state, peaked, np.random.default_rng(9), noise=False)
    b = again.search(state, peaked, np.random.default_rng(9), noise=False)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.policy, b.policy)


def test_policy_target_pruning_gives_back_what_the_best_childs_score_allows():
    """A root of four children, the numbers worked by hand (c_puct 1.5, k 2, 60 visits)."""
    mcts = BatchedMCTS(RULES, SearchConfig(forced_playouts=2.0))
    a = RULES.num_actions
    tree = types.SimpleNamespace(batch=1)
    tree.visits = np.zeros((1, 1, a), np.float32)
    tree.value_sum = np.zeros((1, 1, a), np.float32)
    tree.prior = np.zeros((1, 1, a), np.float32)
    tree.legal = np.zeros((1, 1, a), bool)
    visits, q, prior = [50, 10, 2, 8], [0.5, -0.5, -0.5, 0.7], [0.5, 0.1, 0.05, 0.35]
    tree.visits[0, 0, :4], tree.prior[0, 0, :4], tree.legal[0, 0, :4] = visits, prior, True
    tree.value_sum[0, 0, :4] = np.multiply(visits, q)
    # best score 0.5 + 1.5 * 0.5 * sqrt(61) / 51 = 0.615. Child 1: its score stays below that
    # down to 1 visit, but only sqrt(2 * 0.1 * 60) = 3.46 of its 10 were forced: 7 stay.
    # Child 2: 2 visits, all forced, dropped. Child 3: its q alone beats the best's score: kept.
    assert mcts._pruned(tree)[0, :4].tolist() == [50, 7, 0, 8]


def test_gumbel_rescale_maps_the_legal_q_values_onto_zero_to_one_before_sigma():
    a = RULES.num_actions
    tree = types.SimpleNamespace(
        batch=1, visits=np.zeros((1, 1, a), np.float32), legal=np.zeros((1, 1, a), bool)
    )
    tree.visits[0, 0, :3], tree.legal[0, 0, :3] = [4, 2, 0], True
    q = np.zeros((1, a))
    q[0, :3], q[0, 3] = [0.1, 0.2, 0.3], 5.0  # action 3 is illegal: it does not stretch the range
    config = SearchConfig(root="gumbel", gumbel_c_visit=50, gumbel_c_scale=0.1)
    assert config.gumbel_rescale  # the default since 2026-12-03
    rescaled = BatchedMCTS(RULES, config)._sigma(q, tree)
    plain = BatchedMCTS(RULES, dataclasses.replace(config, gumbel_rescale=False))._sigma(q, tree)
    assert np.allclose(plain[0, :3], [0.54, 1.08, 1.62])  # (50 + 4) * 0.1 * q
    assert np.allclose(rescaled[0, :3], [0.0, 2.7, 5.4])  # (50 + 4) * 0.1 * [0, 0.5, 1]


def test_the_search_refuses_bad_settings_in_one_line():
    with pytest.raises(ValueError, match="forced_playouts=2.0 needs search.root=puct"):
        BatchedMCTS(RULES, SearchConfig(root="gumbel", forced_playouts=2.0))
    with pytest.raises(ValueError, match="search.root must be puct or gumbel, got 'uct'"):
        BatchedMCTS(RULES, SearchConfig(root="uct"))


def some_samples(count: int, rng) -> Samples:
    state = random_positions(RULES, count, 20, rng)
    state = state[~state.terminated]
    RULES.ensure_territory(state)
    legal = RULES.legal_mask(state)
    policy = (rng.random(legal.shape) * legal).astype(np.float32)
    policy /= policy.sum(axis=1, keepdims=True)
    return Samples(
        owner=state.owner,
        height=state.height,
        to_move=state.to_move,
        passes=state.passes,
        policy=policy.astype(np.float16),
        value=rng.choice([-1, 0, 1], size=len(policy)).astype(np.int8),
        territory=(state.territory[:, 0].astype(np.int8) - state.territory[:, 1]),
        score=rng.normal(size=len(policy)).astype(np.float32),
    )


def test_symmetry_augmentation_keeps_targets_consistent():
    rng = np.random.default_rng(4)
    samples = some_samples(8, rng)
    batch = training_batch(RULES, samples, np.random.default_rng(9))
    symmetry = np.random.default_rng(9).integers(0, 12, size=len(samples))
    grid = RULES.grid
    for i, s in enumerate(symmetry):
        owner = symmetry_cells(grid, samples.owner[i], s)
        height = symmetry_cells(grid, samples.height[i], s)
        state = RULES.position(owner, height, samples.to_move[i], samples.passes[i])
        assert np.allclose(batch["planes"][i], encode(RULES, state)[0])
        policy = symmetry_actions(grid, samples.policy[i].astype(np.float32), s)
        assert np.allclose(batch["policy"][i], policy)
        assert (batch["territory"][i] == symmetry_cells(grid, samples.territory[i], s)).all()
        # The policy target stays on legal moves of the transformed position.
        assert (batch["policy"][i][~batch["legal"][i]] == 0).all()


def test_losses_fall_below_marks():
    torch.manual_seed(0)
    rng = np.random.default_rng(5)
    samples = some_samples(48, rng)
    # One-hot policy targets: unlike a spread target, cross-entropy can approach 0.
    policy = samples.policy.astype(np.float32)
    onehot = np.zeros_like(policy)
    onehot[np.arange(len(policy)), policy.argmax(axis=1)] = 1
    samples.policy = onehot.astype(np.float16)
    net = build_net(NetConfig(name="tiny", blocks=2, channels=16, head_channels=8), 6)
    learner = Learner(net, RULES, LearnerConfig(learning_rate=3e-3), torch.device("cpu"))
    first = learner.train_step(samples, rng)
    for _ in range(300):
        last = learner.train_step(samples, rng)
    assert first["policy"] > 2.5 and first["value"] > 0.9
    assert last["policy"] < 1.5
    assert last["value"] < 0.6
    assert last["territory"] < 0.5 * first["territory"]


def tiny_config(run_dir, generations: int) -> TrainConfig:
    return tiny_train_config(
        run_dir,
        arena=ArenaConfig(every=1, games=2, simulations=2, opponents=["random", "previous"]),
        generations=generations,
    )


def test_debug_run_writes_checkpoints_samples_and_events(tmp_path):
    metrics = train(tiny_config(tmp_path, 1))
    assert metrics["generation"] == 0
    assert list((tmp_path / "checkpoints").glob("ckpt-g000000.pt"))
    assert list((tmp_path / "selfplay").glob("shard-*.npz"))
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    payload = load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000000.pt")
    assert payload["size"] == 6 and payload["generation"] == 0
    torch.load(tmp_path / "checkpoints" / "ckpt-g000000.pt", weights_only=True)
    assert "arena/vs_random" in json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[-1])


def test_a_killed_run_resumes(tmp_path):
    cpu_before = time.process_time()
    train(tiny_config(tmp_path, 1))
    cpu_first = time.process_time() - cpu_before  # no workers here: the run's CPU is this process's
    step_after_one = load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000000.pt")["step"]
    # A checkpoint cut short by a kill is skipped with a warning, the last whole one is used.
    (tmp_path / "checkpoints" / "ckpt-g000001.pt").write_bytes(b"PK\x03\x04 cut short")
    with pytest.warns(UserWarning, match="skipping checkpoint"):
        metrics = train(tiny_config(tmp_path, 2))
    assert metrics["generation"] == 1
    lines = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1]
    # The run's wall time adds up across the resume (for A/Bs at equal wall time).
    first_minutes, second_minutes = (m["time/generation_minutes"] for m in lines)
    assert lines[0]["time/run_minutes"] == pytest.approx(first_minutes)
    assert lines[1]["time/run_minutes"] == pytest.approx(first_minutes + second_minutes)
    assert first_minutes > 0 and second_minutes > 0
    # So does its CPU time; the first part is what this process spent in the first train() call.
    assert 0 < lines[0]["time/cpu_hours"] < lines[1]["time/cpu_hours"]
    assert lines[0]["time/cpu_hours"] * 3600 <= cpu_first
    path, payload = latest_checkpoint(tmp_path / "checkpoints")
    assert path.name == "ckpt-g000001.pt" and payload["step"] > step_after_one
    # train.log (progress=False, no Hydra) names the start, the resume point and each generation.
    log = (tmp_path / "train.log").read_text().splitlines()
    assert [line.split("] ", 1)[1].split(":")[0] for line in log] == [
        f"run {tmp_path}",
        "generation 0",
        f"run {tmp_path}",
        "generation 1",
    ]
    assert ": new, generations 0 to 0" in log[0]
    first = tmp_path / "checkpoints" / "ckpt-g000000.pt"
    assert f"resumed from {first} (generation 0, step {step_after_one}); next: generation 1" in log[2]
    assert "games 2, samples " in log[3] and "vs random " in log[3]


def test_a_run_stopped_mid_generation_by_its_time_limit_keeps_its_games_and_resumes(tmp_path):
    """max_minutes so small that the limit passes during the first move batch: no new game
    starts, the two games in flight are played out (one simulation a move) and written, the
    learner takes its share of the steps, a checkpoint is written and the arena is skipped;
    the same command then resumes with the next generation."""
    cfg = tiny_config(tmp_path, 3)
    cfg.search.full_search_fraction = 1.0  # the first move batch records a sample in each game
    cfg.selfplay.games_per_generation = 6
    cfg.learner.steps_per_generation = 6
    cfg.learner.min_samples = 1
    cfg.max_minutes = 1e-6
    metrics = train(cfg)
    assert metrics["generation"] == 0 and metrics["selfplay/partial"] is True
    assert shard_games(tmp_path / "selfplay", 0) == 2  # the two games in flight, kept
    assert metrics["selfplay/games"] == 2 and metrics["selfplay/samples"] >= 2
    # 6 steps x the share of a whole generation's samples (a first move each of 2 of 6 games)
    assert metrics["train/steps"] == 1
    payload = load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000000.pt")
    assert payload["step"] == 1 and payload["metrics"]["selfplay/partial"] is True
    assert "arena/vs_random" not in metrics
    assert not (tmp_path / "checkpoints" / "ckpt-g000001.pt").exists()  # it stopped there
    log = (tmp_path / "train.log").read_text()
    assert "stopped early by max_minutes=1e-06 with 2 of 6 games" in log
    assert "the same command resumes" in log
    cfg.max_minutes = 0.0
    metrics = train(cfg)
    assert metrics["generation"] == 2 and "selfplay/partial" not in metrics
    assert [shard_games(tmp_path / "selfplay", g) for g in range(3)] == [2, 6, 6]
    assert load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000002.pt")["step"] == 1 + 6 + 6
    lines = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1, 2]


def test_learning_past_the_time_limit_stops_after_its_grace(tmp_path, monkeypatch):
    """The learner of a generation may run LEARN_GRACE_S past max_minutes, no longer: with no
    grace it takes no step, and the generation still gets its checkpoint and resumes."""
    monkeypatch.setattr(loop, "LEARN_GRACE_S", 0.0)
    cfg = tiny_config(tmp_path, 2)
    cfg.max_minutes = 1e-6
    cfg.search.full_search_fraction = 1.0  # the first move batch records a sample in each game
    cfg.learner.min_samples = 1
    metrics = train(cfg)
    assert metrics["train/steps"] == 0 and metrics["selfplay/partial"] is True
    assert load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000000.pt")["step"] == 0
    assert "the learner stopped after 0 of " in (tmp_path / "train.log").read_text()
    cfg.max_minutes = 0.0
    assert train(cfg)["generation"] == 1


def test_the_time_limit_is_checked_between_generations_too(tmp_path):
    """A limit that passes during a generation's learning or arena ends the run after it."""
    cfg = tiny_config(tmp_path, 5)
    cfg.max_minutes = 1e-6
    cfg.search.full_search_fraction = 1.0
    cfg.selfplay.games_per_generation = 2  # all games start at once: the generation is whole
    train(cfg)
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("*.pt")) == ["ckpt-g000000.pt"]


def test_damaged_shard_is_skipped(tmp_path):
    samples = some_samples(4, np.random.default_rng(0))
    good = write_shard(tmp_path, 0, 1, samples)
    assert len(read_shard(good)) == len(samples)
    (tmp_path / "shard-g000000-0009-n1.npz").write_bytes(good.read_bytes()[:100])
    window = ReplayWindow(tmp_path, 1000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert window.refresh() == len(samples)
    assert any("damaged shard" in str(w.message) for w in caught)


def old_format_shard(folder, samples) -> Path:
    """A shard as tw_rl wrote them before shard format 2: the arrays only."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "shard-g000000-0000-n1.npz"
    np.savez(path, **{f.name: getattr(samples, f.name) for f in dataclasses.fields(samples)})
    return path


def test_a_shard_carries_its_format_version_and_board_size(tmp_path):
    samples = some_samples(4, np.random.default_rng(0))
    path = write_shard(tmp_path, 0, 1, samples)
    with np.load(path) as data:
        assert int(data["format_version"]) == SHARD_FORMAT == 2 and int(data["board_size"]) == 6
        assert data["owner"].dtype == np.int8 and data["policy"].shape == (len(samples), 92)
    back = load_shard(path, 6)
    assert np.array_equal(back.policy, samples.policy) and np.array_equal(back.owner, samples.owner)


def test_an_old_format_shard_gets_one_line_and_the_run_stops(tmp_path):
    old = old_format_shard(tmp_path / "selfplay", some_samples(4, np.random.default_rng(0)))
    with pytest.raises(ShardFormatError) as caught:
        ReplayWindow(tmp_path / "selfplay", 1000).refresh()  # refused, not skipped as damaged
    message = str(caught.value)
    assert "\n" not in message and "damaged" not in message
    assert f"{old}: a shard of format 1" in message and "reads format 2" in message
    assert "python -m tw_rl.training.replay_buffer" in message
    with pytest.raises(ConfigError, match="a shard of format 1"):  # before any self-play
        train(tiny_config(tmp_path, 1))
    assert not (tmp_path / "checkpoints").exists() or not list((tmp_path / "checkpoints").iterdir())


def test_the_upgrade_rewrites_old_shards_in_place(tmp_path, capsys):
    samples = some_samples(4, np.random.default_rng(0))
    old = old_format_shard(tmp_path, samples)
    write_shard(tmp_path, 1, 1, samples)  # already format 2: left alone
    assert replay_buffer.main([str(tmp_path)]) == 0
    assert f"{tmp_path}: 1 shards upgraded to format 2" in capsys.readouterr().out
    assert np.array_equal(load_shard(old, 6).policy, samples.policy)
    assert replay_buffer.main([str(tmp_path / "nope")]) == 2


def test_a_shard_of_another_board_size_or_version_is_refused(tmp_path):
    samples = some_samples(4, np.random.default_rng(0))
    path = write_shard(tmp_path, 0, 1, samples)
    with pytest.raises(ShardFormatError, match="a shard of board size 6, this run plays size 8"):
        ReplayWindow(tmp_path, 1000, size=8).refresh()
    columns = {f.name: getattr(samples, f.name) for f in dataclasses.fields(samples)}
    np.savez(path, format_version=np.int64(3), board_size=np.int64(6), **columns)
    with pytest.raises(ShardFormatError, match="a shard of format 3, this tw_rl reads format 2"):
        load_shard(path)
    columns["policy"] = columns["policy"].astype(np.float32)  # a writer that got a dtype wrong
    np.savez(path, format_version=np.int64(2), board_size=np.int64(6), **columns)
    with pytest.raises(ShardFormatError, match="array policy is float32 .*wants float16 \\[B, 92\\]"):
        load_shard(path)


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda c: setattr(c.arena, "opponents", ["randm"]), "arena.opponents"),
        (lambda c: setattr(c.board, "size", 7), "board size"),
        (lambda c: setattr(c.search, "root", "uct"), "search.root"),
        (lambda c: setattr(c.search, "simulations", 0), "search.simulations"),
        (lambda c: setattr(c.search, "forced_playouts", -1.0), "forced_playouts=-1.0 needs search.root=puct"),
    ],
)
def test_bad_configs_are_refused_before_anything_runs(tmp_path, change, message):
    cfg = tiny_config(tmp_path / "run", 1)
    change(cfg)
    with pytest.raises(ConfigError, match=message):
        train(cfg)
    assert not (tmp_path / "run").exists()
