"""scripts/pairing_spread.py: repeated matches both ways, the spread of each, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pairing_spread.py"


def spread(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_both_ways_play_their_repeats_and_report_the_spread():
    result = spread("greedy", "random", "--games", "4", "--repeats", "3", "--seed", "2")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for way in ("paired", "unpaired"):
        r = report[way]
        assert len(r["scores"]) == 3 and r["pooled"]["games"] == 12
        assert sum(r["pooled"]["as_red"]) == sum(r["pooled"]["as_white"]) == 6
        assert abs(r["mean"] - sum(r["scores"]) / 3) < 1e-12 and r["stdev"] >= 0
    assert "paired: mean" in result.stderr and "unpaired: mean" in result.stderr


def test_an_odd_game_count_or_one_repeat_is_refused_in_one_line():
    for args in (("--games", "5"), ("--repeats", "1")):
        result = spread("greedy", "random", *args)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "--games must be even" in result.stderr
