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
    assert sum(match["as_red"]) == sum(match["as_white"]) == 2  # each opening with both colours
    assert sum(match["points_per_game"]) > 0 and "CodeCup points per game" in first.stdout
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


def test_seeds_train_a_pair_of_runs_per_seed_and_report_the_spread_between_them(tmp_path):
    out = tmp_path / "ab"
    command = ["tiny", "--minutes", "0.1", "--games", "5", "--sims", "2", "--seed", "7", "--out", str(out)]
    arms = ["--a", "debug=default", "--b", "debug=default search.simulations=2"]
    one = ab(*command, *arms)  # one seed first: the layout of a one-seed A/B
    assert one.returncode == 0, one.stderr
    assert "see --seeds" in one.stdout and "mean of the" not in one.stdout
    two = ab(*command, *arms, "--seeds", "2")  # a second seed is added; the first pair is not trained again
    assert two.returncode == 0, two.stderr
    assert (out / "a.log").read_text().count("$ ") == 1
    report = json.loads((out / "ab.json").read_text())
    assert report["seeds"] == [7, 8]
    assert [pair["seed"] for pair in report["pairs"]] == [7, 8]
    second = report["pairs"][1]
    assert Path(second["checkpoints"]["a"]).parent.parent == out / "seed-8" / "a"
    assert "seed=8" in (out / "seed-8" / "b.log").read_text()
    # 5 games rounded up to 3 openings, shared out as whole openings
    assert "note: --games 5 rounded up to 6" in two.stderr
    assert [pair["match"]["games"] for pair in report["pairs"]] == [4, 2]
    pooled = report["match"]
    assert pooled["games"] == 6
    assert pooled["wins_a"] == sum(pair["match"]["wins_a"] for pair in report["pairs"])
    spread = report["between_runs"]
    assert spread["scores"] == [pair["match"]["score_a"] for pair in report["pairs"]]
    assert spread["mean"] == sum(spread["scores"]) / 2
    assert 0 <= spread["ci95"][0] <= spread["mean"] <= spread["ci95"][1] <= 1
    assert "| a | 8 |" in two.stdout and "mean of the 2 pairs' scores" in two.stdout


def test_fewer_games_than_seeds_is_refused_in_one_line(tmp_path):
    result = ab("few", "--games", "2", "--seeds", "3", "--a", "debug=default", "--out", str(tmp_path / "few"))
    assert result.returncode == 2
    assert "fewer than one opening (two games) for each" in result.stderr and "Traceback" not in result.stderr
