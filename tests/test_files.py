"""tw_rl.files: atomic writes with a read-back check, temporary files of killed writers, whole-line
logs; and the training run's folder lock built on them (issue 15)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tw_rl.files import (
    TEMPORARY,
    append_line,
    atomic_writer,
    drop_partial_line,
    remove_temporaries,
    write_atomic,
)


def test_a_failed_read_back_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "data.bin"
    write_atomic(target, b"old")

    def refuse(path):
        assert path.read_bytes() == b"new"  # the check sees what was written, under another name
        raise ValueError("does not read back")

    with pytest.raises(ValueError, match="does not read back"):
        write_atomic(target, b"new", check=refuse)
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["data.bin"]
    write_atomic(target, "new", check=lambda path: path.read_bytes() == b"new")
    assert target.read_text() == "new"


def test_temporaries_of_a_killed_writer_are_recognised_and_removed(tmp_path):
    code = (
        "import os, sys\n"
        "from tw_rl.files import atomic_writer\n"
        f"with atomic_writer({str(tmp_path / 'shard-g000000-0000-n1.npz')!r}) as handle:\n"
        "    handle.write(b'half'); handle.flush(); os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False)
    assert proc.returncode == -9
    left = os.listdir(tmp_path)
    assert len(left) == 1 and TEMPORARY.match(left[0]) and left[0].startswith(".shard-g000000")
    (tmp_path / "keep.tmp").write_text("not ours")
    (tmp_path / ".hidden").write_text("not ours either")
    removed = remove_temporaries(tmp_path)
    assert [p.name for p in removed] == left
    assert sorted(os.listdir(tmp_path)) == [".hidden", "keep.tmp"]
    assert remove_temporaries(tmp_path / "missing") == []


def test_line_logs_get_whole_lines_and_lose_a_cut_off_tail(tmp_path):
    log = tmp_path / "metrics.jsonl"
    assert not drop_partial_line(log)  # no file yet
    append_line(log, '{"generation": 0}')
    append_line(log, '{"generation": 1}\n')  # one newline, not two
    assert log.read_text() == '{"generation": 0}\n{"generation": 1}\n'
    assert not drop_partial_line(log)
    with open(log, "a") as handle:
        handle.write('{"generation": 2, "tra')
    assert drop_partial_line(log)
    assert log.read_text() == '{"generation": 0}\n{"generation": 1}\n'
    with atomic_writer(tmp_path / "other") as handle:
        handle.write(b"x")
    assert (tmp_path / "other").read_bytes() == b"x"


def test_a_second_training_process_on_a_run_folder_stops_in_one_line(tmp_path):
    from tw_rl.config import ConfigError, TrainConfig
    from tw_rl.training.loop import run_lock, train

    run = tmp_path / "run"
    run.mkdir()
    with run_lock(run):
        with pytest.raises(ConfigError, match=r"is in use by another training process \(pid \d+\)"):
            train(TrainConfig(run_dir=str(run), device="cpu", progress=False))
    assert not (run / "checkpoints").exists()  # nothing ran
    with run_lock(run):  # released when the first holder ended
        pass


def test_same_bytes_check(tmp_path):
    from tw_rl.files import same_bytes

    write_atomic(tmp_path / "a", b"abc", same_bytes(b"abc"))
    with pytest.raises(OSError, match="does not read back"):
        write_atomic(tmp_path / "a", b"abcd", same_bytes(b"abc"))
    assert (tmp_path / "a").read_bytes() == b"abc"
