"""Training the native network: on the native bot's own self-play shards, resumed after a kill
to the same weights as an uninterrupted run, its files readable by the native bot's builder,
and a user mistake (no shards) one line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from tw_rl.codecup.weights import read_weights
from tw_rl.core.encode import symmetry_actions, symmetry_cells
from tw_rl.core.hexgrid import hexgrid
from tw_rl.expert import nnue_train
from tw_rl.expert.nnue_features import my_legal_mask, samples_rows
from tw_rl.expert.nnue_net import NnueNet
from tw_rl.expert.nnue_train import NnueTrainError, TrainConfig, train
from tw_rl.native import nnue_file
from tw_rl.training.replay_buffer import read_shard


@pytest.fixture(scope="module")
def shards(native_tools_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("nnue-shards")
    subprocess.run(
        [str(native_tools_bin), "--selfplay", "4", "--out", str(folder), "--sims", "16", "--seed", "3"],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return folder


def _config(shards, out, **changes):
    base = dict(
        data=[shards], out=out, width=8, hidden=4, steps=6, batch=32, checkpoint_every=3, holdout_every=4
    )
    base.update(changes)
    return TrainConfig(**base)


def test_a_killed_run_resumes_to_the_same_weights(shards, tmp_path, monkeypatch):
    whole = train(_config(shards, tmp_path / "whole"), progress=False)
    assert whole["steps"] == 6 and whole["positions"] > 50
    saved = nnue_train._save_checkpoint

    def save_then_die(*args, **kwargs):
        saved(*args, **kwargs)
        raise KeyboardInterrupt  # killed right after the first checkpoint (step 3)

    monkeypatch.setattr(nnue_train, "_save_checkpoint", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train(_config(shards, tmp_path / "killed"), progress=False)
    assert not (tmp_path / "killed" / "nnue.twnet").exists()
    monkeypatch.setattr(nnue_train, "_save_checkpoint", saved)
    train(_config(shards, tmp_path / "killed"), progress=False)
    assert (tmp_path / "killed" / "nnue.twnet").read_bytes() == (
        tmp_path / "whole" / "nnue.twnet"
    ).read_bytes()
    assert any((tmp_path / "killed" / "tb").iterdir())  # TensorBoard logs


@pytest.mark.parametrize("scheme", ["int8", "int16"])
def test_the_files_are_nnue_files(shards, tmp_path, scheme):
    train(_config(shards, tmp_path, steps=2, qat_from=0.5, quantization=scheme), progress=False)
    for name, quantization in (("nnue.twnet", scheme), ("nnue-float.twnet", "float32")):
        weights = read_weights(str(tmp_path / name), 6)
        nnue_file.check(weights)
        assert weights.header["quantization"] == quantization
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert f"holdout_{scheme}" in summary and f"bytes_{scheme}" in summary


def test_a_symmetric_sample_is_the_inputs_of_the_transformed_position(shards, tmp_path):
    """symmetric_batch moves rows instead of computing the inputs again: they must be the inputs
    computed on the position under that symmetry (and its policy and legal cells moved alike)."""
    grid = hexgrid(6)
    shard = nnue_train.shard_files([shards])[0]
    data = nnue_train.load_data([shard], tmp_path, progress=False)
    samples = read_shard(shard, 6)
    index = np.arange(len(data))
    batch = nnue_train.symmetric_batch(data, index, np.random.default_rng(4))
    drawn = np.random.default_rng(4).integers(0, 12, size=len(index))  # the batch's first draw
    assert len(set(drawn.tolist())) > 6
    for k, s in enumerate(drawn):
        owner = symmetry_cells(grid, samples.owner[k : k + 1], s)
        height = symmetry_cells(grid, samples.height[k : k + 1], s)
        rows = samples_rows(owner, height, samples.to_move[k : k + 1], samples.passes[k : k + 1])
        assert np.array_equal(batch["rows"][k], rows[0]), f"sample {k}, symmetry {s}"
        assert np.array_equal(batch["legal"][k], my_legal_mask(rows)[0])
        policy = symmetry_actions(grid, samples.policy[k : k + 1], s)[0, : grid.num_cells]
        assert np.allclose(batch["policy"][k], policy)
    trained = train(_config(shards, tmp_path / "run", symmetries=True), progress=False)
    assert trained["config"]["symmetries"] is True


def test_no_shards_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(NnueTrainError, match="no self-play shards"):
        train(_config(tmp_path / "empty", tmp_path / "out"), progress=False)
    done = subprocess.run(
        [
            sys.executable,
            "scripts/train_nnue.py",
            "--data",
            str(tmp_path / "empty"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_soft_targets_are_the_networks_outputs_mixed_by_their_shares(shards, tmp_path):
    """The student's and the teacher's labels are their priors over the cells and their values on
    the shard's positions (cached), and the targets mix them by the shares."""
    files = nnue_train.shard_files([shards])
    data = nnue_train.load_data(files[:1], tmp_path, progress=False, soft=("student", "teacher"))
    for net in ("student", "teacher"):
        priors, value = data.soft[net]
        assert priors.shape == data.policy.shape and value.shape == data.value.shape
        assert np.all(priors[~data.legal] == 0)  # no prior on a cell the mover may not take
        sums = priors.sum(1)
        assert np.all((sums > 0.5) & (sums <= 1.0 + 1e-5))  # a pass may hold the rest
        assert np.all(np.abs(value) <= 1.0) and value.std() > 0.01
        assert (tmp_path / f"{shards.name}-{files[0].stem}-{net}.npz").is_file()
    assert not np.allclose(data.soft["student"][0], data.soft["teacher"][0])
    index = np.arange(len(data))
    net = NnueNet(8, 4)
    shares = {
        "plain": {},
        "mixed": {"student_share": 0.25, "teacher_share": 0.5},
        "student": {"student_share": 1.0},
        "teacher": {"teacher_share": 1.0},
    }
    with torch.no_grad():
        policy = {
            name: nnue_train.losses(net, data, index, False, _config(shards, tmp_path, **changes))[1][
                "policy"
            ]
            for name, changes in shares.items()
        }
    # the policy loss is linear in the target: the mix's is the mix of the losses
    expected = 0.25 * policy["plain"] + 0.25 * policy["student"] + 0.5 * policy["teacher"]
    assert policy["mixed"] == pytest.approx(expected, rel=1e-4)


def test_shares_above_one_are_refused_in_one_line(shards, tmp_path):
    with pytest.raises(NnueTrainError, match="add up to more than 1"):
        train(_config(shards, tmp_path, student_share=0.6, teacher_share=0.6), progress=False)


def test_the_search_value_is_mixed_into_the_result_where_the_shard_holds_one(shards, tmp_path):
    """The native self-play records the search's value; the value target is (1 - v) of the
    result and v of the search's value there, the result alone where a shard has none (older
    shards), and the holdout's targets stay the results."""
    files = nnue_train.shard_files([shards])
    old = tmp_path / "old"
    old.mkdir()
    with np.load(files[1]) as z:  # the second game as an older shard, without search_value
        np.savez(old / files[1].name, **{k: z[k] for k in z.files if k != "search_value"})
    data = nnue_train.load_data([files[0], old / files[1].name], tmp_path / "cache", False, search_value=True)
    first = len(read_shard(files[0], 6).value)
    searched = data.search_value[:first]
    assert np.all(np.abs(searched) <= 1.0) and np.isnan(data.search_value[first:]).all()
    index = np.arange(len(data))
    result = (data.value + 1) / 2
    mixed = nnue_train.self_play_value(data, index, 0.75)
    assert np.allclose(mixed[:first], 0.25 * result[:first] + 0.75 * (searched + 1) / 2)
    assert np.array_equal(mixed[first:], result[first:])
    assert np.array_equal(nnue_train.self_play_value(data, index, 0.0), result)
    plain = nnue_train.load_data([files[0]], tmp_path / "cache", False)
    assert plain.search_value is None  # the holdout's: results alone
    summary = train(_config(shards, tmp_path / "run", search_value_share=0.5), progress=False)
    assert 0 < summary["positions_with_search_value"] == summary["positions"]


def test_a_search_value_share_without_search_values_is_one_line(shards, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    for path in nnue_train.shard_files([shards]):
        with np.load(path) as z:
            np.savez(old / path.name, **{k: z[k] for k in z.files if k != "search_value"})
    with pytest.raises(NnueTrainError, match="no shard holds the search's value"):
        train(_config(old, tmp_path / "out", search_value_share=0.5), progress=False)
    with pytest.raises(NnueTrainError, match=r"must be in \[0, 1\]"):
        train(_config(shards, tmp_path / "out2", search_value_share=1.5), progress=False)


def test_a_warm_start_with_a_narrower_dense_layer_is_widened_to_the_same_function(shards, tmp_path):
    from tw_rl.expert.nnue_net import widened, write_weights

    narrow = NnueNet(8, 4, seed=5)
    with torch.no_grad():
        narrow.out_w.add_(0.3)
    rows = torch.from_numpy(nnue_train.load_data(nnue_train.shard_files([shards])[:1], tmp_path, False).rows)
    wide = widened(narrow, 12)
    before, after = narrow(rows.long(), False), wide(rows.long(), False)
    for key in before:
        assert torch.allclose(before[key], after[key], atol=1e-6)
    assert wide.hidden == 12 and wide.l2_w[4:].abs().sum() > 0  # the new lanes are live
    start = tmp_path / "narrow.twnet"
    write_weights(narrow, start, "float32")
    summary = train(_config(shards, tmp_path / "run", hidden=12, warm_start=start), progress=False)
    assert summary["steps"] == 6
    with pytest.raises(NnueTrainError, match="at most 2"):
        train(_config(shards, tmp_path / "run2", hidden=2, warm_start=start), progress=False)
    with pytest.raises(ValueError, match="cannot narrow"):
        widened(narrow, 2)
