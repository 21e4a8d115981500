"""The native bot's self-play data mode (``--selfplay``): its shards are shard format 2 as the
replay buffer and distill read them, each visit distribution sums to one over the Python rules'
legal moves only, the targets agree with each other, the search's value is the mover's, names
never collide, a seed repeats its games, and a bad option is one line with exit code 2."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tw_rl.core.rules import Rules
from tw_rl.export.distill import load_samples, prepare
from tw_rl.training.replay_buffer import SHARD_PATTERN, ReplayWindow, load_shard

RULES = Rules(6, "codecup")


def selfplay(native_tools_bin, out, *options, games=2, sims=16):
    command = [
        str(native_tools_bin),
        "--selfplay",
        str(games),
        "--out",
        str(out),
        "--sims",
        str(sims),
        *options,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def shard_folder(native_tools_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    done = selfplay(native_tools_bin, folder, "--seed", "5", "--temperature-moves", "6", games=3)
    assert done.returncode == 0, done.stderr
    return folder


def test_one_shard_per_game_named_for_the_replay_buffer(shard_folder):
    names = sorted(p.name for p in shard_folder.iterdir())
    assert names == [f"shard-g000000-w005-{k:04d}-n1.npz" for k in range(3)]  # no temporaries left
    assert all(SHARD_PATTERN.search(name) for name in names)


def test_the_learner_and_distill_read_the_shards(shard_folder):
    window = ReplayWindow(shard_folder, 100_000, size=6)
    assert window.refresh() > 0
    samples = load_samples(shard_folder, 100_000, size=RULES.size)
    assert len(samples) == len(window.samples) > 30
    data = prepare(RULES, samples)
    assert data.codes.shape == (len(samples), RULES.num_cells, 3)


def test_visits_sum_to_one_over_the_python_rules_legal_moves(shard_folder):
    samples = load_samples(shard_folder, 100_000, size=RULES.size)
    state = RULES.position(samples.owner, samples.height, samples.to_move, samples.passes)
    legal = RULES.legal_mask(state)
    policy = samples.policy.astype(np.float32)
    assert (policy[~legal] == 0).all()
    assert np.allclose(policy.sum(axis=1), 1.0, atol=2e-3)  # float16 rounding only
    assert (legal.sum(axis=1) > 1).all()  # forced moves are not recorded


def test_the_targets_agree(shard_folder):
    for path in sorted(shard_folder.glob("*.npz")):
        s = load_shard(path, 6)
        assert set(np.unique(s.owner)) <= {0, 1, 2, 3}
        # the result and the territory margin are the mover's, and say the same
        assert (np.sign(s.score) == s.value).all()
        assert np.allclose(s.territory.sum(axis=1) / RULES.num_cells, s.score, atol=1e-6)
        red = s.to_move == 1
        assert len(np.unique(np.where(red, s.value, -s.value))) == 1  # one result per game
        assert (s.passes <= 1).all() and set(np.unique(s.to_move)) <= {1, 2}


def test_the_search_value_is_the_movers_and_foretells_the_result(shard_folder):
    """search_value (float32, one per position) is the search's value for the side to move: in
    [-1, 1], and on the games' last positions (decided by then) of the result's sign."""
    last = []
    for path in sorted(shard_folder.glob("*.npz")):
        with np.load(path) as z:
            searched = z["search_value"]
        s = load_shard(path, 6)
        assert searched.dtype == np.float32 and searched.shape == s.value.shape
        assert np.all(np.abs(searched) <= 1.0)
        assert np.corrcoef(searched, s.value)[0, 1] > 0.3
        last.append(np.sign(searched[-1]) == s.value[-1])
    assert all(last)


def test_a_seed_repeats_its_games_and_workers_never_collide(native_tools_bin, tmp_path):
    for worker in ("1", "2"):
        assert (
            selfplay(native_tools_bin, tmp_path, "--seed", "9", "--worker", worker, games=1).returncode == 0
        )
    again = selfplay(native_tools_bin, tmp_path, "--seed", "9", "--worker", "1", games=1)
    assert again.returncode == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "shard-g000000-w001-0000-n1.npz",
        "shard-g000000-w001-0001-n1.npz",  # the same worker again: the next free index
        "shard-g000000-w002-0000-n1.npz",
    ]
    first, second = (load_shard(tmp_path / n, 6) for n in names[:2])
    assert np.array_equal(first.policy, second.policy) and np.array_equal(first.owner, second.owner)


def test_the_last_line_reports_the_speed(native_tools_bin, tmp_path):
    import json

    done = selfplay(native_tools_bin, tmp_path, "--generation", "4", games=1, sims=8)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["shard"] == "shard-g000004-w000-0000-n1.npz"
    assert lines[-1]["games"] == 1 and lines[-1]["positions"] == lines[0]["positions"] > 0


@pytest.mark.parametrize(
    "options, message",
    [
        (["--selfplay", "0", "--out", "x"], "--selfplay needs at least 1 game"),
        (["--selfplay", "2"], "--selfplay needs --out DIR"),
        (["--selfplay", "2", "--out", "x", "--temperature-moves", "-1"], "--temperature-moves must be >= 0"),
        (["--out", "x"], "argument --out: not allowed without --selfplay"),
    ],
)
def test_bad_options_are_one_line(native_tools_bin, tmp_path, options, message):
    command = [str(native_tools_bin), *options]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"tw_rl.native: {message}"]
    assert not (tmp_path / "x").exists()


def test_an_unwritable_folder_is_one_line(native_tools_bin, tmp_path):
    (tmp_path / "file").write_text("")
    done = selfplay(native_tools_bin, tmp_path / "file" / "sub", games=1, sims=4)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot create" in done.stderr
