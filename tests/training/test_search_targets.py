"""scripts/search_targets.py: the training targets of search settings on the same positions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "search_targets.py"


def targets(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_forced_playouts_visit_more_children_and_the_pruned_target_keeps_fewer():
    done = targets(
        "--positions",
        "24",
        "--sims",
        "32",
        "--json",
        "--arm",
        "root=puct",
        "--arm",
        "root=puct forced_playouts=2",
    )
    assert done.returncode == 0, done.stderr
    plain, forced = (json.loads(line) for line in done.stdout.splitlines())
    assert plain["arm"] == "root=puct" and forced["arm"] == "root=puct forced_playouts=2.0"
    assert plain["positions"] == forced["positions"] > 0
    assert forced["children_visited"] > plain["children_visited"]
    assert forced["target_children"] < forced["children_visited"]
    assert plain["target_children"] == plain["children_visited"]  # no pruning without forcing
    assert 0 < plain["target_top_share"] <= 1 and plain["target_entropy"] >= 0


def test_a_bad_arm_is_refused_in_one_line():
    for arm, message in [
        ("c_puc=2", "is not FIELD=VALUE"),
        ("c_puct=much", "c_puct takes a float"),
        ("root=gumbel forced_playouts=2", "needs search.root=puct"),
    ]:
        done = targets("--arm", arm)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
