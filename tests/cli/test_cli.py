"""The tw-rl command line: analyze and show on small records, their errors, the SVG picture, and
flag defaults that come from the schemas of tw_rl.config."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from tw_rl import cli
from tw_rl.cli import export, rate
from tw_rl.config import BoardConfig, ExportConfig, RatingConfig, RefereeConfig
from tw_rl.core.notation import cell_name, format_record, parse_cell, parse_record
from tw_rl.core.picture import RADIUS, cell_centres
from tw_rl.core.rules import Rules

DATA = Path(__file__).resolve().parents[1] / "data"
EXAMPLE = DATA / "example_game.txt"
ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def first_move_game(variant: str = "codecup", red: str = "C3", white: str = "H8", plies: int | None = None):
    """(record text, move list) of a game that always plays the first legal action."""
    rules = Rules(6, variant, setup="judge")
    grid = rules.grid
    r, w = parse_cell(grid, red), parse_cell(grid, white)
    state = rules.start(r, w)
    moves: list[int] = []
    while not state.terminated[0] and (plies is None or len(moves) < plies):
        action = int(np.flatnonzero(rules.legal_mask(state)[0])[0])
        moves.append(action)
        state = rules.step(state, action)
    return format_record(grid, r, w, moves), moves


@pytest.fixture(scope="module")
def full_game() -> str:
    return first_move_game()[0]


def run_cli(capsys, monkeypatch, args: list[str], stdin: str | None = None):
    """(exit code, stdout lines, stderr lines) of one in-process run."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def analyze(capsys, monkeypatch, text: str, *options: str):
    return run_cli(capsys, monkeypatch, ["analyze", "-", *options], stdin=text)


# ------------------------------------------------------------------------------ analyze


def test_analyze_lines(capsys, monkeypatch, full_game):
    code, out, err = analyze(capsys, monkeypatch, full_game)
    assert code == 0 and err == []
    rows = [json.loads(line) for line in out]
    positions, final = rows[:-1], rows[-1]
    moves = parse_record(Rules(6).grid, full_game).moves
    assert len(positions) == len(moves) + 1
    for k, row in enumerate(positions):
        assert set(row) == {"ply", "to_move", "legal", "territory", "over"}
        assert row["ply"] == k
        assert row["to_move"] == ("red" if k % 2 == 0 else "white")
        cells = [name for name in row["legal"] if name != "Pass"]
        assert cells == sorted(cells)
        assert "Pass" not in row["legal"][:-1]
        assert row["over"] == (k == len(moves))
        assert 0 <= row["territory"]["red"] <= 91 and 0 <= row["territory"]["white"] <= 91
        if k < len(moves):
            assert cell_name(Rules(6).grid, moves[k]) in row["legal"]
    assert positions[-1]["legal"] == []
    last = positions[-1]["territory"]
    assert final["over"] is True and final["plies"] == len(moves) == 284
    # The first-legal game (fixed: same start, same moves) ends 44 : 47 in territory.
    assert last == {"red": 44, "white": 47} and final["winner"] == "white"
    bonus = {"red": 100, "white": 100}
    if final["winner"] != "draw":
        bonus[final["winner"]] = 200
        assert last[final["winner"]] > min(last.values())
    assert final["score"] == {side: last[side] + bonus[side] for side in ("red", "white")}


def test_analyze_unfinished_game_has_no_winner(capsys, monkeypatch):
    text, moves = first_move_game(plies=6)
    code, out, _ = analyze(capsys, monkeypatch, text)
    assert code == 0
    final = json.loads(out[-1])
    assert final == {**final, "winner": None, "over": False, "plies": 6}
    assert len(out) == 8


def test_analyze_reads_a_file_with_comments(capsys, monkeypatch):
    text = EXAMPLE.read_text()
    assert any(line.startswith("#") for line in text.splitlines())
    assert "" in text.splitlines()
    code, out, err = run_cli(capsys, monkeypatch, ["analyze", str(EXAMPLE)])
    assert code == 0 and err == []
    final = json.loads(out[-1])
    assert final["over"] is True and final["plies"] == len(parse_record(Rules(6).grid, text).moves) == 127
    assert final["winner"] == "white" and final["score"] == {"red": 143, "white": 248}


def test_sum_notation_round_trip(capsys, monkeypatch, full_game):
    grid = Rules(6).grid
    record = parse_record(grid, full_game, "diff")
    in_sum = format_record(grid, record.red_start, record.white_start, record.moves, "sum")
    assert in_sum != full_game
    assert parse_record(grid, in_sum, "sum").moves == record.moves
    _, out_diff, _ = analyze(capsys, monkeypatch, full_game)
    code, out_sum, _ = analyze(capsys, monkeypatch, in_sum, "--notation", "sum")
    assert code == 0 and len(out_sum) == len(out_diff)
    to_diff = {cell_name(grid, i, "sum"): cell_name(grid, i, "diff") for i in range(grid.num_cells)}
    to_diff["Pass"] = "Pass"
    for a, b in zip(out_diff, out_sum, strict=True):
        row_diff, row_sum = json.loads(a), json.loads(b)
        if "legal" in row_sum:
            legal = row_sum.pop("legal")
            assert legal == sorted(n for n in legal if n != "Pass") + ["Pass"] * ("Pass" in legal)
            assert sorted(to_diff[n] for n in legal) == sorted(row_diff.pop("legal"))
        assert row_sum == row_diff


def test_official_rules_pass_always_legal(capsys, monkeypatch):
    text, moves = first_move_game("codecup", plies=10)  # codecup-legal, so official-legal too
    code, out, _ = analyze(capsys, monkeypatch, text + "Pass\nPass\n", "--rules", "official")
    assert code == 0
    rows = [json.loads(line) for line in out]
    for row in rows[:-2]:
        assert row["legal"][-1] == "Pass"
    assert rows[-2]["over"] is True and rows[-2]["ply"] == 12
    # Official score: owned + controlled cells; more wins.
    assert rows[-1] == {"score": {"red": 26, "white": 43}, "winner": "white", "over": True, "plies": 12}
    # The same passes are illegal under codecup, where a placement is available.
    code, out, err = analyze(capsys, monkeypatch, text + "Pass\n")
    assert code == 2 and len(err) == 1
    assert err[0].startswith("error: ply 10: move Pass is illegal for red")
    # A suicidal placement is legal under official rules only.
    suicidal, _ = first_move_game("official", plies=6)
    assert analyze(capsys, monkeypatch, suicidal, "--rules", "official")[0] == 0
    code, _, err = analyze(capsys, monkeypatch, suicidal)
    assert code == 2 and "illegal for white: suicidal" in err[0]


def test_official_allows_touching_starts(capsys, monkeypatch):
    code, out, _ = analyze(capsys, monkeypatch, "C3\nD4\n", "--rules", "official")
    assert code == 0 and json.loads(out[0])["legal"][-1] == "Pass"
    code, _, err = analyze(capsys, monkeypatch, "C3\nD4\n")
    assert code == 2 and "D4" in err[0]


# ------------------------------------------------------------------------------- errors


def _illegal_cell(text: str) -> tuple[str, int]:
    """A cell name that is illegal for the side to move after ``text``, and the ply."""
    rules = Rules(6)
    grid = rules.grid
    record = parse_record(grid, text)
    state = rules.start(record.red_start, record.white_start)
    for move in record.moves:
        state = rules.step(state, move)
    illegal = np.flatnonzero(~rules.legal_mask(state)[0, : grid.num_cells])
    return cell_name(grid, int(illegal[0])), len(record.moves)


@pytest.mark.parametrize(
    "case",
    [
        "illegal",
        "off_board",
        "garbage",
        "after_end",
        "start_centre",
        "start_same",
        "start_border",
        "pass_start",
    ],
)
def test_record_errors(capsys, monkeypatch, full_game, case):
    prefix, _ = first_move_game(plies=7)
    if case == "illegal":
        name, ply = _illegal_cell(prefix)
        text, expect = prefix + name + "\n", f"error: ply {ply}: move {name} is illegal for white"
    elif case == "off_board":
        text, expect = prefix + "H12\n", "error: ply 7: move H12 is not on the board with 6 cells per side"
    elif case == "garbage":
        text, expect = prefix + "hello there\n", "error: ply 7: move 'hello there' is not a cell name"
    elif case == "after_end":
        plies = len(parse_record(Rules(6).grid, full_game).moves)
        text, expect = full_game + "A1\n", f"error: ply {plies}: move A1 comes after the end of the game"
    elif case == "start_centre":
        text, expect = "F6\nC3\nD4\n", "error: start: red's start cell F6 is the centre"
    elif case == "start_same":
        text, expect = "C3\nC3\n", "error: start: white's start cell C3 is red's start cell too"
    elif case == "start_border":
        text, expect = "C3\nA1\n", "error: start: white's start cell A1 is on the border"
    else:
        text, expect = "Pass\nC3\n", "error: start: red's start cell (line 1): 'Pass' is not a cell name"
    code, out, err = analyze(capsys, monkeypatch, text)
    assert code == 2
    assert len(err) == 1, err
    assert err[0].startswith(expect), err[0]
    assert "Traceback" not in err[0]
    # Positions before the error were printed, and no final score line.
    if case.startswith("start") or case == "pass_start":
        assert out == []
    else:
        assert all("score" not in line for line in out)
        assert len(out) == len(parse_record(Rules(6).grid, text.rsplit("\n", 2)[0] + "\n").moves) + 1


def test_errors_name_the_line(capsys, monkeypatch):
    code, _, err = analyze(capsys, monkeypatch, "# a comment\n\nC3\nH8\n\nZ9\n")
    assert code == 2 and err == ["error: ply 0: move Z9 is not on the board with 6 cells per side (line 6)"]


def test_missing_file_and_empty_record(capsys, monkeypatch, tmp_path):
    code, out, err = run_cli(capsys, monkeypatch, ["analyze", str(tmp_path / "nothing.txt")])
    assert code == 2 and out == [] and len(err) == 1 and err[0].startswith("error: cannot read record")
    code, out, err = analyze(capsys, monkeypatch, "# only a comment\n")
    assert code == 2 and out == [] and len(err) == 1
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, out, err = run_cli(capsys, monkeypatch, ["analyze", str(binary)])
    assert code == 2 and len(err) == 1 and "not UTF-8" in err[0]


def test_bad_option_is_an_argparse_error(capsys, monkeypatch):
    code, _, err = analyze(capsys, monkeypatch, "C3\nH8\n", "--size", "7")
    assert code == 2 and "invalid choice" in err[-1]
    code, _, err = analyze(capsys, monkeypatch, "C3\nH8\n", "--rules", "bga")
    assert code == 2 and "invalid choice" in err[-1]


# --------------------------------------------------------------------------------- show


def test_show_marks_last_move(capsys, monkeypatch, full_game, tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(full_game)
    grid = Rules(6).grid
    moves = parse_record(grid, full_game).moves
    code, out, err = run_cli(capsys, monkeypatch, ["show", str(path)])
    assert code == 0 and err == []
    assert len(out) == 12  # 11 board rows and the summary
    assert sum(line.count("[") for line in out[:11]) == 1
    last = cell_name(grid, moves[-1])
    assert out[-1].startswith(f"ply {len(moves)} (last move {last} by ")
    assert "game over" in out[-1] and "score red" in out[-1]
    code, out, _ = run_cli(capsys, monkeypatch, ["show", str(path), "--ply", "3"])
    third = cell_name(grid, moves[2])
    assert code == 0 and out[-1].startswith(f"ply 3 (last move {third} by red); white to move")
    code, out, _ = run_cli(capsys, monkeypatch, ["show", str(path), "--ply", "0"])
    assert code == 0 and "[" not in "".join(out[:11]) and "red to move" in out[-1]


@pytest.mark.parametrize("ply", ["-1", "100000"])
def test_show_ply_out_of_range(capsys, monkeypatch, full_game, ply):
    code, out, err = run_cli(capsys, monkeypatch, ["show", "-", "--ply", ply], stdin=full_game)
    assert code == 2 and out == [] and len(err) == 1 and "out of range" in err[0]


@pytest.mark.parametrize("notation", ["diff", "sum"])
def test_show_svg(capsys, monkeypatch, tmp_path, notation):
    grid = Rules(6).grid
    record = parse_record(grid, EXAMPLE.read_text())
    text = format_record(grid, record.red_start, record.white_start, record.moves[:40], notation)
    svg = tmp_path / "pos.svg"
    args = ["show", "-", "--ply", "30", "--svg", str(svg), "--notation", notation]
    code, out, _ = run_cli(capsys, monkeypatch, args, stdin=text)
    assert code == 0
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG}svg"
    cells = root.findall(f".//{SVG}polygon")
    assert len(cells) == grid.num_cells == 91
    assert {c.get("data-cell") for c in cells} == {cell_name(grid, i, notation) for i in range(91)}
    rules = Rules(6)
    state = rules.start(record.red_start, record.white_start)
    for move in record.moves[:30]:
        state = rules.step(state, move)
    discs = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "stack"]
    assert len(discs) == int((state.owner[0] != 0).sum())
    assert sum(int(d.get("data-height")) for d in discs) == int(state.height[0].sum())
    outlines = [p for p in root.iter(f"{SVG}path") if p.get("class") == "last-move"]
    assert len(outlines) == 1
    texts = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    for word in ("red territory", "white territory", "both", "neither"):
        assert word in texts
    fills = {c.get("fill") for c in cells}
    assert len(fills) <= 4
    assert not [p for p in tmp_path.iterdir() if p.name != "pos.svg"]  # no temporary file left


@pytest.mark.parametrize("size", [6, 8])
def test_svg_layout_neighbours_touch(size):
    grid = Rules(size).grid
    centres = cell_centres(grid)
    touch = math.sqrt(3.0) * RADIUS
    for i in range(grid.num_cells):
        near = set(int(j) for j in grid.neighbours[i] if j >= 0)
        for j in range(grid.num_cells):
            if j == i:
                continue
            d = math.dist(centres[i], centres[j])
            if j in near:
                assert abs(d - touch) < 1e-6
            else:
                assert d > touch + 1.0
    # Row 1 (default notation) is drawn at the top (smallest y), as in the text board.
    top = min(range(grid.num_cells), key=lambda i: centres[i][1])
    assert cell_name(grid, top)[1:] == "1"


def _svg_centres(path: Path) -> dict[str, tuple[float, float]]:
    """Centre of every cell's hexagon in an SVG of ``tw-rl show``, by cell name."""
    out = {}
    for polygon in ET.parse(path).getroot().iter(f"{SVG}polygon"):
        xy = [tuple(float(v) for v in p.split(",")) for p in polygon.get("points").split()]
        out[polygon.get("data-cell")] = (sum(x for x, _ in xy) / 6, sum(y for _, y in xy) / 6)
    return out


def test_show_draws_the_board_as_the_codecup_describes_it(capsys, monkeypatch, tmp_path):
    """Red starts on B2, white on B5 (three steps up column B): in the text board and in the
    SVG, row 1 is at the top, A1 above A6 and left of F1, and a column runs down to the left."""
    svg = tmp_path / "start.svg"
    code, out, _ = run_cli(capsys, monkeypatch, ["show", "-", "--svg", str(svg)], stdin="B2\nB5\n")
    assert code == 0
    board = out[:11]
    assert [line.split()[0] for line in board] == [str(k) for k in range(1, 12)]
    assert board[0].endswith("A1-F1") and board[5].endswith("A6-K6") and board[10].endswith("F11-K11")
    red = [(k, line.index("r1")) for k, line in enumerate(board) if "r1" in line]
    white = [(k, line.index("w1")) for k, line in enumerate(board) if "w1" in line]
    # B5 is three lines below B2 and three half cells (two characters each) to its left.
    assert red == [(1, red[0][1])] and white == [(4, red[0][1] - 6)]
    centres = _svg_centres(svg)
    a1, a6, f1 = centres["A1"], centres["A6"], centres["F1"]
    assert a1[1] < a6[1] and a1[0] < f1[0] and abs(a1[1] - f1[1]) < 1e-6
    column = [centres[f"A{k}"] for k in range(1, 7)]
    assert all(y1 > y0 and x1 < x0 for (x0, y0), (x1, y1) in zip(column, column[1:], strict=False))


def test_svg_write_failure_is_one_line(capsys, monkeypatch, tmp_path):
    args = ["show", str(EXAMPLE), "--svg", str(tmp_path / "missing_dir" / "x.svg")]
    code, _, err = run_cli(capsys, monkeypatch, args)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: cannot write")


# ------------------------------------------------------------------------ end to end


def test_console_entry_exit_codes(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tw_rl.cli", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )

    ok = run("analyze", str(EXAMPLE))
    assert ok.returncode == 0 and ok.stderr == ""
    assert json.loads(ok.stdout.splitlines()[-1])["over"] is True
    bad = run("analyze", "-", stdin="C3\nH8\nH12\n")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == "error: ply 0: move H12 is not on the board with 6 cells per side (line 3)"
    assert len(bad.stdout.splitlines()) == 1
    assert run("analyze", "no_such_file.txt").returncode == 2
    assert run("analyze", "-", "--notation", "both").returncode == 2
    assert run().returncode == 2
    assert run("--help").returncode == 0


def test_cli_does_not_import_the_learning_stack():
    code = "import sys, tw_rl.cli; print([m for m in ('torch', 'gymnasium', 'hydra') if m in sys.modules])"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]"


# ------------------------------------------------------------------- renamed commands


@pytest.mark.parametrize(
    "args", [["evaluate"], ["evaluate", "--players", "random", "greedy", "--games", "4"]]
)
def test_the_old_evaluate_command_names_the_new_one(capsys, monkeypatch, args):
    """No silent alias: ``tw-rl evaluate`` says, in one line, that it is now ``tw-rl rate``."""
    code, out, err = run_cli(capsys, monkeypatch, args)
    assert (code, out, err) == (2, [], ["tw-rl evaluate is now tw-rl rate (same options)"])


# ------------------------------------------------------------------------ defaults


def test_flag_defaults_are_the_schemas(tmp_path):
    """One home per default: the flags of every subcommand take theirs from tw_rl.config."""
    parser = cli.build_parser()
    args = parser.parse_args(["analyze", "-"])
    assert (args.size, args.rules, args.notation) == (BoardConfig().size, BoardConfig().variant, "diff")
    args = parser.parse_args(["referee", "python a.py", "python b.py"])
    assert {f.name: getattr(args, f.name) for f in dataclasses.fields(RefereeConfig)} == dataclasses.asdict(
        RefereeConfig()
    )
    assert rate.config_of(parser.parse_args(["rate"])) == RatingConfig()
    given = rate.config_of(parser.parse_args(["rate", "--games", "7", "--no-progress", "--ci-width", "9"]))
    assert given == dataclasses.replace(RatingConfig(), games=7, progress=False, ci_width=9.0)
    (tmp_path / "selfplay").mkdir()
    folder = tmp_path / "student"
    cfg = export.export_config_of(parser.parse_args(["export", "--run", str(tmp_path)]), folder)
    assert cfg == dataclasses.replace(
        ExportConfig(), run_dir=str(tmp_path), out=str(folder / "student.twnet"), progress=cfg.progress
    )
    args = parser.parse_args(["export", "--run", str(tmp_path), "--steps", "5", "--baseline-games", "2"])
    cfg = export.export_config_of(args, folder)
    assert (cfg.distill.steps, cfg.baseline_games, cfg.teacher) == (5, 2, ExportConfig().teacher)


def test_export_cpp_target_and_its_check(tmp_path, capsys, monkeypatch):
    """`tw-rl export --target cpp --check` writes submission.cpp, compiles it and plays it."""
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["export", "--target", "cpp", "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("wrote submission.cpp (") and out[1].startswith("weights: student-default.twnet")
    assert out[-1].startswith("check: ok (")
    assert (tmp_path / "submission.cpp").is_file() and not (tmp_path / "submission.py").exists()


def test_export_cpp_check_without_a_compiler_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    assert cli.main(["export", "--target", "cpp", "--no-weights", "--check"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no C++ compiler found (no-such-compiler-here is not on the PATH); install g++"]
    assert cli.main(["export", "--target", "rust"]) != 0


def test_export_without_the_shipped_student_is_one_line(tmp_path, capsys, monkeypatch):
    """An install that lacks the default network of the CodeCup board (``default_weights``) says
    so in one line, and what to give instead; nothing is written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(export, "default_weights", lambda size: None)
    assert cli.main(["export"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: the shipped student (tw_rl/codecup/student-default.twnet) is missing from this install; "
        "give --weights FILE or --no-weights"
    ]
    assert not (tmp_path / "submission.py").exists()
