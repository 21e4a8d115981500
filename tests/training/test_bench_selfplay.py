"""scripts/bench_selfplay.py: ``--isa avx2`` runs torch capped at AVX2 (the stand-in for a CPU
without AVX-512 or native bfloat16) and says so in its report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_selfplay.py"


def bench(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SCRIPT), "--net", "tiny", "--batch", "4", "--sims", "4", "--moves", "1"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=300)


def test_isa_avx2_caps_torch_and_reports_it():
    done = bench("--isa", "avx2", "--precision", "float32", "--threads", "1")
    assert done.returncode == 0, done.stderr
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["cpu_capability"] for r in reports] == ["AVX2"]
    assert reports[0]["dtype"] == "float32" and reports[0]["simulations_per_s"] > 0
    assert "torch CPU capability: AVX2" in done.stdout


def test_an_unknown_isa_is_refused_in_one_line():
    done = bench("--isa", "sse2")
    assert done.returncode == 2 and "invalid choice: 'sse2'" in done.stderr
    assert "Traceback" not in done.stderr
