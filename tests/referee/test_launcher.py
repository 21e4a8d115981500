"""The launcher the referee starts in a program's place: limits set, signals restored, then the
program itself (same process), or one line and exit 127 when it cannot be executed."""

from __future__ import annotations

import os
import resource
import signal
import subprocess

import pytest

from tw_rl.referee.process import FILE_LIMIT_BYTES, launch_argv

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/limits"), reason="reads /proc (Linux)")


def _run(argv: list[str], memory_mb: int = 0) -> subprocess.CompletedProcess:
    return subprocess.run(launch_argv(argv, memory_mb), capture_output=True, text=True, timeout=30)


def test_the_program_runs_in_the_launchers_process_with_its_limits():
    script = (
        "echo $$; grep -E '^(Max address space|Max file size)' /proc/self/limits;"
        " grep SigIgn /proc/self/status"
    )
    proc = subprocess.Popen(launch_argv(["sh", "-c", script], 300), stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=30)
    lines = out.splitlines()
    assert int(lines[0]) == proc.pid  # exec all the way down: the pid the referee knows
    limits = {line[:20]: line.split()[3:5] for line in lines[1:3]}
    assert limits["Max address space   "] == [str(300 << 20)] * 2
    assert limits["Max file size       "] == [str(FILE_LIMIT_BYTES)] * 2
    ignored = int(lines[3].split()[1], 16)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores both; the program must not
        assert not ignored & (1 << (sig - 1)), sig


def test_no_memory_limit_leaves_the_address_space_as_it_was():
    out = _run(["grep", "^Max address space", "/proc/self/limits"]).stdout.split()
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    assert out[3] == ("unlimited" if soft == resource.RLIM_INFINITY else str(soft))


def test_a_program_that_cannot_be_executed_is_one_line_and_exit_127(tmp_path):
    not_executable = tmp_path / "bot"
    not_executable.write_text("#!/bin/sh\necho E4\n")
    result = _run([str(not_executable)])
    assert result.returncode == 127
    assert result.stderr.strip() == f"cannot start {str(not_executable)!r}: Permission denied"
