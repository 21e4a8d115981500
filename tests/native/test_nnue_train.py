"""Training the native network: on the native bot's own self-play shards, resumed after a kill
to the same weights as an uninterrupted run, its files readable by the native bot's builder,
and a user mistake (no shards) one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tw_rl.codecup.weights import read_weights
from tw_rl.expert import nnue_train
from tw_rl.expert.nnue_train import NnueTrainError, TrainConfig, train
from tw_rl.native import nnue_file


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


def test_the_files_are_nnue_files(shards, tmp_path):
    train(_config(shards, tmp_path, steps=2, qat_from=0.5), progress=False)
    for name, quantization in (("nnue.twnet", "int8"), ("nnue-float.twnet", "float32")):
        weights = read_weights(str(tmp_path / name), 6)
        nnue_file.check(weights)
        assert weights.header["quantization"] == quantization


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
