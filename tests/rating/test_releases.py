"""Frozen releases (baselines/): unchanged files, the `release:` player kind, and a game each."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tw_rl import cli
from tw_rl.files import file_sha256
from tw_rl.rating.kinds import kind_of
from tw_rl.rating.player_specs import RELEASES_DIR, RatingError, parse_player, parse_players
from tw_rl.rating.referee_import import import_referee
from tw_rl.rating.results_db import ResultsDB
from tw_rl.referee.match import run_match
from tw_rl.referee.process import Program

TABLE_ROW = re.compile(r"^\| `(tw_rl-[\w.]+\.(?:py|cpp))` \|.*\| `([0-9a-f]{64})` \|$", re.M)


def recorded_hashes() -> dict[str, str]:
    return dict(TABLE_ROW.findall((RELEASES_DIR / "README.md").read_text()))


def test_every_release_is_recorded_and_unchanged():
    files = sorted(p.name for suffix in ("py", "cpp") for p in RELEASES_DIR.glob(f"tw_rl-*.{suffix}"))
    recorded = recorded_hashes()
    assert files and sorted(recorded) == files
    for name, sha in recorded.items():
        assert file_sha256(RELEASES_DIR / name) == sha, f"{name} changed: releases are frozen"


def test_release_players():
    spec = parse_player("release:0.1@4")[0]
    assert spec.kind == "program" and spec.name == "release-0.1@4s"
    assert spec.options["command"].endswith("baselines/tw_rl-0.1.py --time 4")
    assert spec.sha256 == recorded_hashes()["tw_rl-0.1.py"]  # identified by the file's hash
    assert parse_player({"kind": "release", "version": "0.1", "name": "old"})[0].name == "old"
    assert parse_player("release:0.1")[0].options["command"].endswith("--time 30")  # the CodeCup clock
    with pytest.raises(RatingError, match=r"no tw_rl-9\.9\.py or tw_rl-9\.9\.cpp; releases here: 0\.1"):
        parse_player("release:9.9")
    with pytest.raises(RatingError, match="the clock must be positive"):
        parse_player("release:0.1@0")


@pytest.mark.parametrize("name", sorted(p.name for p in RELEASES_DIR.glob("tw_rl-*.py")))
def test_each_frozen_release_plays_a_legal_game_as_red_and_white(name):
    release = Program.parse("release", f"{sys.executable} {RELEASES_DIR / name} --time 2")
    rand = Program.parse("random", f"{sys.executable} -m tw_rl.codecup --player random --time 2")
    match = run_match(release, rand, games=2, time_limit=10.0, jobs=2)
    games = [match.games[n] for n in (1, 2)]
    assert [game.fault for game in games] == [None, None]
    assert [game.program(colour).name for game, colour in zip(games, (1, 2), strict=True)] == ["release"] * 2


# ------------------------------------------------------------------ C++ releases

PASS_ALWAYS = Path(__file__).resolve().parents[1] / "programs" / "pass_always.cpp"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@pytest.fixture
def cpp_release(tmp_path, monkeypatch):
    """A releases folder holding tw_rl-9.9.cpp (a tiny C++ protocol player) and a fresh cache."""
    folder = tmp_path / "baselines"
    folder.mkdir()
    shutil.copy(PASS_ALWAYS, folder / "tw_rl-9.9.cpp")
    monkeypatch.setenv("TW_RL_RELEASES", str(folder))
    monkeypatch.setenv("TW_RL_CACHE", str(tmp_path / "cache"))
    return folder / "tw_rl-9.9.cpp"


@needs_gxx
def test_a_cpp_release_is_compiled_once_and_plays_as_a_program(cpp_release, tmp_path, capsys):
    sha = file_sha256(cpp_release)
    spec = parse_player("release:9.9@2")[0]
    binary = tmp_path / "cache" / "releases" / sha / "tw_rl-9.9"
    assert spec.kind == "program" and spec.name == "release-9.9@2s" and spec.sha256 == sha
    assert spec.options["command"] == f"{binary} --time 2" and binary.is_file()
    built = binary.stat().st_mtime_ns
    assert parse_player("release:9.9.cpp")[0].options["command"] == f"{binary} --time 30"
    assert binary.stat().st_mtime_ns == built  # compiled once, then taken from the cache
    # tw-rl referee takes release:X as a program too, on --time without @: it answers Pass where
    # a placement exists, the referee's fault, and is recorded by its source's sha256.
    out = tmp_path / "match"
    first = Path(__file__).resolve().parents[1] / "programs" / "first_legal.py"
    argv = ["referee", "release:9.9", f"{sys.executable} {first}", "--games", "2", "--time", "5"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [game["fault"]["kind"] for game in lines] == ["pass", "pass"]
    recorded = {p["command"]: p["sha256"] for g in lines for p in (g["red"], g["white"])}
    assert recorded[f"{binary} --time 5"] == sha
    # Imported into the rating results, its games belong to the release (by its source's sha256), listed
    # or not.
    for listed, name in (([], "prog:"), (parse_players(["rel=release:9.9@5"]), "rel")):
        with ResultsDB(tmp_path / f"r{len(listed)}.sqlite") as db:
            report = import_referee(db, out, listed, log=print)
            assert (report.added, report.damaged) == (2, 0)
            (release,) = [p for p in db.players() if p.command == f"{binary} --time 5"]
            assert release.sha256 == sha and release.name.startswith(name)
    assert "changed since" not in capsys.readouterr().out


@needs_gxx
def test_a_cpp_release_that_does_not_compile_is_one_line(cpp_release):
    cpp_release.write_text("int main( { return 0; }\n")
    with pytest.raises(
        RatingError, match=r"^player tw_rl-9\.9\.cpp: g\+\+ could not compile it: .*error"
    ) as err:
        parse_player("release:9.9")
    assert "\n" not in str(err.value)


def test_a_cpp_release_without_gxx_is_one_line(cpp_release, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no g++ on it
    with pytest.raises(
        RatingError, match=r"tw_rl-9\.9\.cpp: cannot compile the C\+\+ release: g\+\+ is not installed"
    ):
        parse_player("release:9.9")
    assert cli.main(["referee", "release:9.9", "release:9.9", "--games", "2"]) == 2
    assert "g++ is not installed" in capsys.readouterr().err


def test_release_clocks_that_cannot_be_meant_are_one_error():
    for text, why in (("@0", "must be positive"), ("@-1", "must be positive"), ("@abc", "not a number")):
        with pytest.raises(RatingError, match=why):
            parse_player(f"release:0.1{text}")


SLOW_RELEASE = """
import os, sys
# A frozen release in miniature: it plays first-legal moves, each after --time / 300 seconds.
seconds = float(sys.argv[sys.argv.index("--time") + 1])
os.execv(sys.executable, [sys.executable, {first!r}, "--delay", str(seconds / 300)])
"""


def test_a_release_at_its_own_clock_is_judged_on_that_clock(tmp_path, monkeypatch):
    """release:X@SECONDS is given SECONDS a game by the judge too, not the match's --time: a
    time-odds match. This release sleeps 142 x 12/300 = 5.7 s of its 12 s a game, more than the
    match's 3 s, and is not killed; its opponent keeps the match's clock."""
    folder = tmp_path / "baselines"
    folder.mkdir()
    first = Path(__file__).resolve().parents[1] / "programs" / "first_legal.py"
    (folder / "tw_rl-9.8.py").write_text(SLOW_RELEASE.format(first=str(first)))
    monkeypatch.setenv("TW_RL_RELEASES", str(folder))
    out = tmp_path / "odds"
    argv = ["referee", "release:9.8@12", f"{sys.executable} {first}", "--games", "2", "--jobs", "2"]
    assert cli.main([*argv, "--time", "3", "--out", str(out)]) == 0
    games = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [g["fault"] for g in games] == [None, None]
    for g in games:
        release, other = ("red", "white") if g["red"]["program"] == "A" else ("white", "red")
        assert (g["clock"][release], g["clock"][other]) == (12.0, 3.0)
        assert g["thinking"][release] > 3.0  # past the match's clock, not killed
    # In a rating run the same spelling carries its clock to the judge.
    spec = parse_player("release:9.8@12")[0]
    assert spec.options["seconds"] == 12.0 and kind_of(spec).program(spec).seconds == 12.0
    assert "seconds" not in parse_player(f"program:{sys.executable} {first}")[0].options
