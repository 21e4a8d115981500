"""Frozen releases (baselines/): unchanged files, the `release:` player kind, and a game each."""

from __future__ import annotations

import re
import sys

import pytest

from tw_rl.files import file_sha256
from tw_rl.rating.player_specs import RELEASES_DIR, ArenaError, parse_player
from tw_rl.referee.match import run_match
from tw_rl.referee.process import Program

TABLE_ROW = re.compile(r"^\| `(tw_rl-[\w.]+\.py)` \|.*\| `([0-9a-f]{64})` \|$", re.M)


def recorded_hashes() -> dict[str, str]:
    return dict(TABLE_ROW.findall((RELEASES_DIR / "README.md").read_text()))


def test_every_release_is_recorded_and_unchanged():
    files = sorted(p.name for p in RELEASES_DIR.glob("tw_rl-*.py"))
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
    with pytest.raises(ArenaError, match=r"no tw_rl-9\.9\.py or tw_rl-9\.9\.cpp; releases here: 0\.1"):
        parse_player("release:9.9")
    with pytest.raises(ArenaError, match="the clock must be positive"):
        parse_player("release:0.1@0")


@pytest.mark.parametrize("name", sorted(p.name for p in RELEASES_DIR.glob("tw_rl-*.py")))
def test_each_frozen_release_plays_a_legal_game_as_red_and_white(name):
    release = Program.parse("release", f"{sys.executable} {RELEASES_DIR / name} --time 2")
    rand = Program.parse("random", f"{sys.executable} -m tw_rl.codecup --player random --time 2")
    match = run_match(release, rand, games=2, time_limit=10.0, jobs=2)
    games = [match.games[n] for n in (1, 2)]
    assert [game.fault for game in games] == [None, None]
    assert [game.program(colour).name for game, colour in zip(games, (1, 2), strict=True)] == ["release"] * 2
