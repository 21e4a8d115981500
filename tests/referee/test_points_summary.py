"""scripts/points_summary.py: a match's points from A's side, with the paired difference of
points per game over the starts (each start's two games are one unit)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "points_summary.py"


@pytest.fixture(scope="module")
def summary():
    return runpy.run_path(str(SCRIPT), run_name="not_main")


def test_the_paired_difference_is_over_starts_with_the_t_interval(summary):
    # per start: 15, 0, 30 -> mean 15, standard deviation 15, t(2) = 4.3027, half 37.26
    text = summary["paired_difference"]({0: [10, 20], 1: [0, 0], 2: [30, 30]})
    assert text == "+15.0 [-22.3, +52.3]"
    assert summary["paired_difference"]({0: [4, -2]}) == "+1.0"  # one start: no interval


def game(number: int, opening: int, a_red: bool, winner: str, red: int, white: int) -> dict:
    a, b = ("red", "white") if a_red else ("white", "red")
    points = {"red": red, "white": white}
    return {
        "game": number,
        "opening": opening,
        "red": {"program": "A" if a_red else "B"},
        "white": {"program": "B" if a_red else "A"},
        "winner": winner,
        "winner_colour": a if winner == "A" else b,
        "points": points,
        "program_points": {"A": points[a], "B": points[b]},
        "fault": None,
        "thinking": {"red": 1.5, "white": 2.0},
    }


def test_a_row_from_a_results_file(summary, tmp_path):
    games = [
        game(1, 0, True, "A", 230, 110),  # A red wins, 30 cells to 10
        game(2, 0, False, "B", 225, 115),  # B red wins, 25 to 15
        game(3, 1, True, "A", 211, 105),  # A red wins, 11 to 5
        game(4, 1, False, "A", 112, 230),  # A white wins, 30 to 12
    ]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    row = summary["summary_row"](summary["read_games"](tmp_path), tmp_path.name)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:6] == ["4", "3/4 = 75.0% [30.1%, 95.4%]", "2, 1", "196.5", "138.0"]
    # A - B a game: 120, -110 (start 0: +5), 106, 118 (start 1: +112); mean 58.5, t(1) = 12.706
    assert cells[6] == "+58.5 [-621.3, +738.3]"
    assert cells[7] == "+14.7, -10.0"  # won by 20, 6, 18; lost by 10
    assert cells[8] == "+13.0, +4.0"  # as red +20 and +6; as white -10 and +18
    assert cells[9:] == ["0", "2.00 s"]


def test_pooled_matches_keep_their_starts_apart_and_refuse_other_programs(summary, tmp_path):
    first, second, other = tmp_path / "m1", tmp_path / "m2", tmp_path / "m3"
    for folder, games in (
        (first, [game(1, 0, True, "A", 230, 110), game(2, 0, False, "B", 225, 115)]),
        (second, [game(1, 0, True, "A", 211, 105), game(2, 0, False, "A", 112, 230)]),
    ):
        folder.mkdir()
        (folder / "results.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    pooled = summary["pooled_games"]([first, second])
    row = summary["summary_row"](pooled, "both")
    cells = [c.strip() for c in row.strip("|").split("|")]
    # the same games as one match of two starts: both matches' start 0 stay two starts
    assert cells[0] == "both"
    assert cells[1:3] == ["4", "3/4 = 75.0% [30.1%, 95.4%]"]
    assert cells[6] == "+58.5 [-621.3, +738.3]"
    other.mkdir()
    renamed = game(1, 0, True, "A", 230, 110)
    renamed["red"]["command"] = "./bot --utility points"
    (other / "results.jsonl").write_text(json.dumps(renamed) + "\n")
    with pytest.raises(SystemExit, match="only matches of the same two programs pool"):
        summary["pooled_games"]([first, other])
    with pytest.raises(SystemExit, match="named twice"):
        summary["pooled_games"]([first, first])
