"""Referee matches imported into the rating's results database (tw_rl.rating.referee_import)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tw_rl import cli
from tw_rl.rating.player_specs import RatingError, parse_players
from tw_rl.rating.referee_import import import_referee
from tw_rl.rating.results_db import ResultsDB
from tw_rl.referee.match import run_match
from tw_rl.referee.process import Program

FIRST_LEGAL = Path(__file__).resolve().parents[1] / "programs" / "first_legal.py"


def _command(*options: str) -> str:
    return shlex.join([sys.executable, str(FIRST_LEGAL), *options])


@pytest.fixture(scope="module")
def match(tmp_path_factory) -> Path:
    """Four games: a first-legal player against one that answers garbage at its second move."""
    out = tmp_path_factory.mktemp("match")
    run_match(
        Program.parse("A", _command()),
        Program.parse("B", _command("--fault", "garbage", "--at", "1")),
        games=4,
        time_limit=10,
        out_dir=out,
    )
    return out


def test_a_match_is_stored_once_under_the_rating_names(tmp_path, match):
    specs = parse_players([f"steady=program:{_command()}"])
    logs = []
    with ResultsDB(tmp_path / "r.sqlite") as db:
        report = import_referee(db, match, specs, log=logs.append)
        assert (report.added, report.skipped, report.damaged) == (4, 0, 0) and not logs
        names = {p.name for p in db.players()}
        assert "steady" in names and len(names) == 2
        games = db.games()
        assert len(games) == 4 and {g.opening for g in games} == {0, 1}
        steady = db.player_named("steady").id
        # B answers garbage: every game is A's, scored by the forfeit rule, fault kept.
        assert all((g.result == 1.0) == (g.red == steady) for g in games)
        assert all(g.fault == "garbage" and g.source == f"referee:{match}" for g in games)
        again = import_referee(db, match, specs, log=logs.append)
        assert (again.added, again.skipped) == (0, 4) and len(db.games()) == 4


def test_a_second_match_with_another_seed_is_stored_beside_the_first(tmp_path, match):
    """Both matches number their openings from 0: the second one's games are other games, not
    copies of the first one's, and are all stored (once, however often they are imported)."""
    topup = tmp_path / "topup"
    run_match(
        Program.parse("A", _command()),
        Program.parse("B", _command("--fault", "garbage", "--at", "1")),
        games=4,
        seed=7,
        time_limit=10,
        out_dir=topup,
    )
    specs = parse_players([f"steady=program:{_command()}"])
    with ResultsDB(tmp_path / "r.sqlite") as db:
        assert import_referee(db, match, specs).added == 4
        report = import_referee(db, topup, specs)
        assert (report.added, report.skipped) == (4, 0)
        games = db.games()
        assert len(games) == 8 and len({(g.red, g.opening) for g in games}) == 8
        assert sorted(g.seed for g in games) == [0] * 4 + [7] * 4
        for folder in (match, topup):
            again = import_referee(db, folder, specs)
            assert (again.added, again.skipped) == (0, 4)
        assert len(db.games()) == 8


def test_two_games_of_one_match_alike_move_for_move_are_both_stored(tmp_path, match):
    """Strong bots can play one opening twice, move for move the same (the soak met it): each
    game counts, and importing the match again still adds nothing."""
    folder = tmp_path / "repeat"
    shutil.copytree(match, folder)
    lines = (folder / "results.jsonl").read_text().splitlines()
    for number, line in enumerate(lines[:2], start=len(lines) + 1):
        game = json.loads(line)
        shutil.copy(folder / f"game-{game['game']:05d}.txt", folder / f"game-{number:05d}.txt")
        game["game"], game["opening"] = number, game["opening"] + 2
        lines.append(json.dumps(game))
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n")
    specs = parse_players([f"steady=program:{_command()}"])
    with ResultsDB(tmp_path / "r.sqlite") as db:
        report = import_referee(db, folder, specs)
        assert (report.added, report.skipped, report.damaged) == (6, 0, 0)
        assert len(db.games()) == 6
        again = import_referee(db, folder, specs)
        assert (again.added, again.skipped) == (0, 6) and len(db.games()) == 6


def test_damaged_games_are_left_out_with_a_warning(tmp_path, match):
    copy = tmp_path / "copy"
    copy.mkdir()
    lines = (match / "results.jsonl").read_text().splitlines()
    for line in lines:
        number = json.loads(line)["game"]
        name = f"game-{number:05d}.txt"
        (copy / name).write_text((match / name).read_text())
    # game 1: its record loses a move in the middle, so it no longer replays to its result
    first = next(json.loads(line) for line in lines if json.loads(line)["game"] == 1)
    words = (copy / "game-00001.txt").read_text().splitlines()
    (copy / "game-00001.txt").write_text("\n".join(words[:2] + words[3:]) + "\n")
    first["winner_colour"] = "white" if first["winner_colour"] == "red" else "red"
    (copy / "results.jsonl").write_text("\n".join(lines + ["{not json"]) + "\n")
    logs = []
    with ResultsDB(tmp_path / "r.sqlite") as db:
        report = import_referee(db, copy, log=logs.append)
    assert report.added == 3 and report.damaged == 2
    assert any("does not replay" in line for line in logs) and any("left out" in line for line in logs)
    with ResultsDB(tmp_path / "r.sqlite") as db, pytest.raises(RatingError, match="not a tw-rl referee"):
        import_referee(db, tmp_path)


def test_rate_rates_the_imported_games(tmp_path, match, capsys):
    code = cli.main(
        [
            "rate",
            "--players",
            f"steady=program:{_command()}",
            f"faulty=program:{_command('--fault', 'garbage', '--at', '1')}",
            "--import-referee",
            str(match),
            "--games",
            "0",
            "--anchor",
            "steady",
            "--db",
            str(tmp_path / "r.sqlite"),
            "--out",
            str(tmp_path / "arena"),
            "--no-progress",
            "--no-tensorboard",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0 and f"imported {match}: 4 games added" in captured.err
    assert "steady" in captured.out and "faulty" in captured.out
    assert "0 games played, 4 stored among these players" in captured.out
