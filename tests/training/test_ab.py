"""scripts/ab.py: two recipes trained at equal wall time and matched, resumable, with one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ab.py"


def ab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_an_ab_trains_both_arms_matches_them_and_the_same_command_does_not_train_again(tmp_path):
    out = tmp_path / "ab"
    command = ["tiny", "--minutes", "0.1", "--games", "4", "--sims", "2", "--out", str(out)]
    arms = ["--a", "debug=default", "--b", "debug=default search.simulations=2"]
    first = ab(*command, *arms)
    assert first.returncode == 0, first.stderr
    report = json.loads((out / "ab.json").read_text())
    assert report["overrides"] == {"a": ["debug=default"], "b": ["debug=default", "search.simulations=2"]}
    for arm in ("a", "b"):
        assert report["arms"][arm]["generations"] >= 1 and report["arms"][arm]["games"] >= 1
        assert Path(report["checkpoints"][arm]).is_file()
    match = report["match"]
    assert match["games"] == 4 and match["wins_a"] + match["draws"] + match["wins_b"] == 4
    assert 0 <= match["ci95"][0] <= match["score_a"] <= match["ci95"][1] <= 1
    assert "| a | `debug=default` |" in first.stdout and "in 4 games" in first.stdout
    logged = {arm: (out / f"{arm}.log").read_text().count("$ ") for arm in ("a", "b")}
    assert logged == {"a": 1, "b": 1}

    again = ab(*command, *arms)  # both arms have their minutes: only the match is played again
    assert again.returncode == 0, again.stderr
    assert {arm: (out / f"{arm}.log").read_text().count("$ ") for arm in ("a", "b")} == logged


def test_an_ab_of_one_recipe_against_itself_is_refused_in_one_line(tmp_path):
    result = ab("same", "--a", "debug=default", "--b", "debug=default", "--out", str(tmp_path / "x"))
    assert result.returncode == 2
    assert "nothing to compare" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x").exists()


def test_an_arm_that_fails_stops_the_ab_with_one_line(tmp_path):
    result = ab(
        "bad",
        "--minutes",
        "0.1",
        "--a",
        "debug=default net.blocks=0",
        "--b",
        "debug=default",
        "--out",
        str(tmp_path / "bad"),
    )
    assert result.returncode != 0
    assert "arm a stopped with exit code 2" in result.stderr and "Traceback" not in result.stderr
