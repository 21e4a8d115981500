"""The expert-iteration loop: two tiny generations end to end (shards, students, ratings,
metrics, TensorBoard), a run killed after its first generation continues at the second, and a
shard of another format version or board size stops the run with one line."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tw_rl.config import ConfigError
from tw_rl.expert.config import ExpertConfig
from tw_rl.expert.loop import finished_generations, run, student_path
from tw_rl.expert.selfplay import native_binary
from tw_rl.native import build
from tw_rl.training.replay_buffer import ShardFormatError, shard_games

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "games_per_generation=2",
    "processes=2",
    "sims=6",
    "temperature_moves=2",
    "train.steps=4",
    "train.batch_size=16",
    "rate_games=2",
    "rate_sims=4",
]


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    try:
        build.compiler()
    except build.CompilerMissing as err:
        pytest.skip(f"the expert loop needs a C++ compiler: {err}")
    return native_binary(tmp_path_factory.mktemp("bin"))


def tiny(run_dir: Path, binary: Path, **changes) -> ExpertConfig:
    """A tiny run whose folder already holds the compiled bot (no compile per test)."""
    (run_dir / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copy2(binary, run_dir / "bin" / "bot")
    values = dict(
        run_dir=str(run_dir),
        generations=2,
        games_per_generation=2,
        processes=2,
        sims=6,
        temperature_moves=2,
        rate_games=2,
        rate_sims=4,
    )
    values.update(changes)
    cfg = ExpertConfig(**values)
    cfg.train.steps, cfg.train.batch_size = 4, 16
    return cfg


def test_two_generations_end_to_end_then_extended(binary, tmp_path):
    records = run(tiny(tmp_path, binary), log=lambda _: None, progress=False)
    assert [r["generation"] for r in records] == [1, 2]
    for generation in (1, 2):
        assert shard_games(tmp_path / "selfplay", generation) == 2
        assert student_path(tmp_path, generation).is_file()
        assert (tmp_path / "rating" / f"g{generation:04d}" / "summary.json").is_file()
    assert records[1]["train_samples"] > records[0]["train_samples"]  # the window spans generations
    assert records[0]["rate_games"] == 2 and 0 <= records[0]["win_rate"] <= 1
    assert list((tmp_path / "tb").glob("events.*"))
    # the students changed: each generation's weights differ from the one it continued
    assert student_path(tmp_path, 1).read_bytes() != student_path(tmp_path, 0).read_bytes()
    before = (tmp_path / "metrics.jsonl").read_text()
    records = run(tiny(tmp_path, binary, generations=3), log=lambda _: None, progress=False)
    assert [r["generation"] for r in records] == [1, 2, 3]
    assert (tmp_path / "metrics.jsonl").read_text().startswith(before)


def test_killed_after_generation_one_it_continues_at_two(binary, tmp_path):
    tiny(tmp_path, binary)  # puts the compiled bot in place
    command = [sys.executable, str(ROOT / "scripts" / "expert.py"), f"hydra.run.dir={tmp_path}", *TINY]
    command.append("generations=3")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    proc = subprocess.Popen(command, start_new_session=True, **quiet)
    deadline = time.monotonic() + 120
    try:
        while 1 not in finished_generations(tmp_path) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done = finished_generations(tmp_path)
    assert 1 in done and 3 not in done
    first = done[1]
    student_one = student_path(tmp_path, 1).read_bytes()
    (tmp_path / "selfplay" / ".shard-g000002-w001-0000-n1.npz.00000001.tmp").write_bytes(b"cut off")
    again = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert again.returncode == 0, again.stderr[-2000:]
    after = finished_generations(tmp_path)
    assert sorted(after) == [1, 2, 3] and after[1] == first
    assert student_path(tmp_path, 1).read_bytes() == student_one  # generation 1 was not redone
    assert "generation 1:" not in again.stderr
    assert shard_games(tmp_path / "selfplay", 2) == 2  # games of a cut-off generation are kept, not doubled
    assert not list((tmp_path / "selfplay").glob(".*"))  # no temporary left behind


def _foreign_shard(folder: Path, version: int, size: int) -> None:
    n = 3 * size * (size - 1) + 1
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(
        folder / "shard-g000001-0000-n1.npz",
        format_version=np.int64(version),
        board_size=np.int64(size),
        owner=np.zeros((1, n), np.int8),
        height=np.zeros((1, n), np.int8),
        to_move=np.ones(1, np.int8),
        passes=np.zeros(1, np.int8),
        policy=np.full((1, n + 1), 1 / (n + 1), np.float16),
        value=np.zeros(1, np.int8),
        territory=np.zeros((1, n), np.int8),
        score=np.zeros(1, np.float32),
    )


@pytest.mark.parametrize("version, size, says", [(3, 6, "format"), (2, 8, "board size 8")])
def test_a_shard_of_another_format_or_board_is_refused_in_one_line(binary, tmp_path, version, size, says):
    _foreign_shard(tmp_path / "selfplay", version, size)
    with pytest.raises(ShardFormatError, match=says):
        run(tiny(tmp_path, binary, generations=1, rate_games=0), log=lambda _: None, progress=False)
    command = [sys.executable, str(ROOT / "scripts" / "expert.py"), f"hydra.run.dir={tmp_path}", *TINY]
    command.append("generations=1")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr


def test_the_teacher_networks_outputs_mix_into_the_targets(binary, tmp_path):
    cfg = tiny(tmp_path, binary, generations=1, rate_games=0, teacher="default")
    cfg.train.teacher_weight = 0.5
    (record,) = run(cfg, log=lambda _: None, progress=False)
    assert record["generation"] == 1 and "win_rate" not in record
    assert student_path(tmp_path, 1).is_file()


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"sims": 0}, "sims must be at least 1"),
        ({"start_weights": "missing.twnet"}, "no such file"),
        ({"teacher": ""}, "teacher_weight > 0 needs teacher"),
    ],
)
def test_bad_settings_are_one_line(binary, tmp_path, changes, says):
    cfg = tiny(tmp_path, binary, **changes)
    if "teacher" in changes:
        cfg.train.teacher_weight = 0.5
    with pytest.raises(ConfigError, match=says):
        run(cfg, log=lambda _: None, progress=False)


def test_the_script_refuses_a_mistyped_key():
    command = [sys.executable, str(ROOT / "scripts" / "expert.py"), "simz=3", "--cfg", "job"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "simz" in done.stderr
