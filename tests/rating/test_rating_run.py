"""The rating run: player specs, batched games with records, the results database, pairings,
checkpoints, outside programs through the referee, and resuming after a kill."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from tw_rl import cli
from tw_rl.codecup.weights import default_weights
from tw_rl.config import LearnerConfig, NetConfig, RatingConfig
from tw_rl.core.baselines import BASELINES
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE
from tw_rl.files import file_sha256
from tw_rl.rating.elo import fit
from tw_rl.rating.games import games_of, play_referee_game
from tw_rl.rating.player_specs import PlayerSpec, RatingError, make_player, parse_player, parse_players
from tw_rl.rating.rating_run import run_rating
from tw_rl.rating.ratings import Outcome
from tw_rl.rating.results_db import GameRow, Identity, ResultsDB
from tw_rl.rating.schedule import choose_pair, pair_priority
from tw_rl.training.checkpoint import save_checkpoint
from tw_rl.training.learner import Learner
from tw_rl.training.match import balanced_slots, play_batch, play_pair
from tw_rl.training.net import build_net

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules(6)
TINY = NetConfig(name="tiny", blocks=1, channels=8, pool_every=1, head_channels=8)


def tiny_run(folder: Path, generations: int = 2) -> Path:
    """A run folder with untrained tiny checkpoints (generation g has step 10 * g)."""
    torch.manual_seed(0)
    net = build_net(TINY, 6)
    learner = Learner(net, RULES, LearnerConfig(), torch.device("cpu"))
    for g in range(generations):
        learner.step = 10 * g
        save_checkpoint(folder / "checkpoints", g, learner.checkpoint(g, {"note": "test"}))
    return folder


def config(tmp_path: Path, players, games: int, **kw) -> RatingConfig:
    kw.setdefault("batch_size", 8)
    return RatingConfig(
        players=list(players),
        games=games,
        db=str(tmp_path / "arena" / "results.sqlite"),
        out=str(tmp_path / "arena"),
        progress=False,
        threads=1,
        **kw,
    )


def stored(db_path: Path | str) -> list[sqlite3.Row]:
    with sqlite3.connect(db_path) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute("SELECT * FROM games ORDER BY id").fetchall()


# ------------------------------------------------------------------------------ players


def test_player_specs():
    assert parse_player("random")[0].identity() == Identity("baseline", label="random")
    mcts = parse_player("mcts@50")[0]
    assert (mcts.name, mcts.options) == ("mcts@50", {"label": "mcts", "playouts": 50})
    assert parse_player("mcts")[0].options["playouts"] == 200
    named = parse_player(f"gp=program:{sys.executable} -m tw_rl.codecup --player greedy")[0]
    assert named.kind == "program" and named.name == "gp" and not named.in_process
    assert named.options["command"].endswith("--player greedy")
    assert parse_player({"kind": "baseline", "label": "greedy", "name": "g2"})[0].name == "g2"
    # The same identity twice is one player.
    assert len(parse_players(["random", "random", "greedy"])) == 2
    with pytest.raises(RatingError, match="cannot read weights file"):
        parse_player("weights:model.bin")
    with pytest.raises(RatingError, match="cannot read weights file"):
        parse_player({"kind": "weights", "path": "model.bin"})
    # An exported weights file: the stdlib bot with it, as a protocol program on its own clock.
    student = Path(default_weights(6))
    bot = parse_player(f"weights:{student}@5")[0]
    assert bot.kind == "program" and not bot.in_process and bot.name == "bot+student-default@5s"
    assert "--weights" in bot.options["command"] and bot.options["command"].endswith("--time 5")
    mapped = parse_player({"kind": "weights", "path": str(student)})[0]
    assert bot.sha256 and mapped.options["command"].endswith("--time 30")
    assert parse_player("weights:default@5")[0].options == bot.options
    plain = parse_player("weights:none")[0]
    assert plain.name == "bot-noweights@30s" and plain.options["command"].endswith("--no-weights --time 30")
    with pytest.raises(RatingError, match="clock must be positive"):
        parse_player("weights:none@0")
    # The raw student policy: in-process, rated as the weights file's raw policy.
    raw = parse_player("student:default")[0]
    assert raw.kind == "student" and raw.in_process and raw.name == "student-default@raw"
    assert raw.identity().kind == "student" and raw.size == 6 and raw.sha256 == file_sha256(student)
    assert parse_player({"kind": "student", "path": str(student), "name": "s"})[0].name == "s"
    with pytest.raises(RatingError, match="cannot read weights file"):
        parse_player("student:model.bin")
    with pytest.raises(RatingError, match="not understood"):
        parse_player("alphabeta")
    with pytest.raises(RatingError, match="the name 'rel@3' may only use letters, digits"):
        parse_player("rel@3=release:0.1@3")
    with pytest.raises(RatingError, match="no such program"):
        parse_player("program:surely-not-a-program-xyz --flag")
    with pytest.raises(RatingError, match="no checkpoint"):
        parse_player("ckpt:/nonexistent/ckpt-g000001.pt")


def test_checkpoint_specs_from_a_file_a_folder_and_a_glob(tmp_path):
    run = tiny_run(tmp_path / "myrun", generations=3)
    files = sorted((run / "checkpoints").glob("*.pt"))
    by_folder = parse_player(f"ckpt:{run}@8")
    assert [s.generation for s in by_folder] == [0, 1, 2]
    assert [s.step for s in by_folder] == [0, 10, 20]
    assert by_folder[1].name == "myrun/g1@8" and by_folder[1].options == {"simulations": 8}
    assert by_folder[1].sha256 == file_sha256(files[1])
    assert by_folder[0].run_dir == str(run.resolve())
    by_glob = parse_player(f"ckpt:{run}/checkpoints/ckpt-g00000[12].pt@raw")
    assert [s.options["simulations"] for s in by_glob] == [0, 0] and by_glob[0].name == "myrun/g1@raw"
    bare = parse_player(str(files[0]), simulations=16)
    assert bare[0].options["simulations"] == 16 and bare[0].kind == "checkpoint"
    mapped = parse_player({"kind": "ckpt", "path": str(run / "checkpoints"), "simulations": 2})
    assert len(mapped) == 3
    # Same weights, another search budget: another player; same weights elsewhere: the same.
    assert by_folder[0].identity() != parse_player(f"ckpt:{files[0]}@9")[0].identity()
    copy = tmp_path / "elsewhere.pt"
    copy.write_bytes(files[0].read_bytes())
    assert parse_player(f"ckpt:{copy}@8")[0].identity() == by_folder[0].identity()


# -------------------------------------------------------------------------------- games


def test_batched_games_are_colour_balanced_and_their_records_replay():
    rng = np.random.default_rng(0)
    games = play_pair(RULES, BASELINES["greedy"], BASELINES["random"], 10, rng, names=("greedy", "random"))
    assert len(games) == 10
    assert sum(g.slot.red == "greedy" for g in games) == 5
    for k in range(0, 10, 2):  # the two games of an opening swap colours
        a, b = games[k].slot, games[k + 1].slot
        assert (a.red_start, a.white_start, a.opening) == (b.red_start, b.white_start, b.opening)
        assert (a.red, a.white) == (b.white, b.red)
    for game in games:
        final = game.positions(RULES)[-1]
        assert final.terminated[0] and game.fault is None and game.end == "end rule"
        assert int(RULES.winner(final)[0]) == game.winner
        assert tuple(RULES.score(final)[0]) == game.points
        assert game.result == {RED: 1.0, WHITE: 0.0, 0: 0.5}[game.winner]


def test_the_raw_student_plays_legal_games_and_beats_random():
    student = make_player(parse_player("student:default")[0], RULES)
    games = play_pair(RULES, student, BASELINES["random"], 8, np.random.default_rng(1), names=("s", "r"))
    for game in games:  # every move legal (an illegal one would end the game as a fault)
        assert game.fault is None and game.end == "end rule"
    # The shipped student's policy alone beat random 20-0 when it was made; 6 of 8 is a loose floor.
    assert sum(g.winner == (RED if g.slot.red == "s" else WHITE) for g in games) >= 6


def test_each_game_is_reported_as_it_finishes_and_faults_are_recorded():
    def bad(rules, state, rng):
        return np.full(state.batch_size, rules.num_cells + 5)  # not an action at all

    slots = balanced_slots(RULES, "random", "bad", 4, np.random.default_rng(1))
    seen = []
    games = play_batch(
        RULES,
        {"random": BASELINES["random"], "bad": bad},
        slots,
        np.random.default_rng(1),
        lambda i, game: seen.append(i),
    )
    assert sorted(seen) == [0, 1, 2, 3]
    for game in games:
        assert game.end == "fault" and "bad played the illegal action" in game.fault
        assert (game.slot.red == "bad") == (game.result == 0.0)


# ------------------------------------------------------------------------------ database


def test_results_database(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultsDB(path) as db:
        a = db.register(Identity("baseline", label="random"), "random")
        again = db.register(Identity("baseline", label="random"), "other-name")
        assert again.id == a.id and again.name == "random"
        clash = db.register(Identity("checkpoint", sha256="f" * 64, search={"simulations": 8}), "random")
        assert clash.name.startswith("random~") and clash.id != a.id
        row = GameRow(a.id, clash.id, 6, 0, 0, "C3", "G7", 1.0, 240, 120, "end rule", "D4 Pass", 2, "batched")
        assert db.add_game(row) is not None and row.timestamp
        again_row = GameRow(a.id, clash.id, 6, 0, 0, "C3", "G7", 0.0, 100, 200, "end rule", "", 0, "batched")
        assert db.add_game(again_row) is None  # the slot is taken: never stored twice
        assert db.taken_slots(clash.id, a.id, 6) == {(0, a.id)}
        assert db.count_games([a.id, clash.id], 6) == 1 and db.count_games([a.id], 6) == 0
        assert db.outcomes(6) == [Outcome("random", clash.name, 1.0)]
        with pytest.raises(ValueError, match="a player cannot play itself"):
            db.add_game(GameRow(a.id, a.id, 6, 1, 0, "C3", "G7", 1.0, 0, 0, "end rule", "", 0, "batched"))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# ------------------------------------------------------------------------------- pairing


def test_the_next_pairing_is_the_most_uncertain_close_one():
    games = [Outcome("random", "a", 0.5), Outcome("a", "random", 0.5)] * 50
    games += [Outcome("a", "b", 0.5), Outcome("b", "a", 0.5)] * 2
    ratings = fit(games)
    counts = {("random", "a"): 50, ("a", "random"): 50, ("a", "b"): 2, ("b", "a"): 2}
    # b is known only through 4 games with a: a-b and random-b are uncertain; a-b less so.
    assert choose_pair(ratings, ["random", "a", "b"], counts) == ("random", "b")
    assert pair_priority(ratings, "a", "b") > pair_priority(ratings, "random", "a")
    # Equal uncertainty, but one pairing is a mismatch: the close one comes first.
    lopsided = [Outcome("random", "x", 0.0), Outcome("x", "random", 1.0)] * 20 + [
        Outcome("random", "x", 1.0),
        Outcome("x", "random", 0.0),
    ]
    lopsided += [Outcome("random", "y", 0.5), Outcome("y", "random", 0.5)] * 21
    r = fit(lopsided)
    assert pair_priority(r, "random", "y") > pair_priority(r, "random", "x")


# -------------------------------------------------------------------------- rating run


def test_checkpoints_are_rated_plotted_and_logged_to_their_run(tmp_path):
    run = tiny_run(tmp_path / "run", generations=2)
    cfg = config(tmp_path, [f"ckpt:{run}/checkpoints@1", "greedy"], 16, batch_size=4)
    result = run_rating(cfg, log=lambda line: None)
    assert result.total == 16 and result.played == 16 and result.stopped == "budget"
    names = [p.name for p in result.players]
    assert names == ["random", "run/g0@1", "run/g1@1", "greedy"]  # the anchor joined
    for name in names:
        assert name in result.ratings and result.ratings.connected(name, "random")
    rows = stored(cfg.db)
    assert len(rows) == 16 and {r["source"] for r in rows} == {"batched"}
    with ResultsDB(cfg.db) as db:
        ckpts = [p for p in db.players() if p.kind == "checkpoint"]
        assert [(p.generation, p.step, p.size) for p in ckpts] == [(0, 0, 6), (1, 10, 6)]
        assert ckpts[0].sha256 == file_sha256(run / "checkpoints" / "ckpt-g000000.pt")
        assert ckpts[0].search == {"simulations": 1} and ckpts[0].run_dir == str(run.resolve())
        # Every stored game replays to its stored result.
        for game in games_of(db, RULES)[:4]:
            assert int(RULES.winner(game.positions(RULES)[-1])[0]) == game.winner
    files = {p.name for p in result.files}
    assert {"ratings.csv", "ratings.json", "elo-run.png"} <= files
    assert (tmp_path / "arena" / "elo-run.png").read_bytes()[:4] == b"\x89PNG"
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tb"), size_guidance={"images": 0, "scalars": 0})
    events.Reload()
    assert "arena/elo" in events.Tags()["scalars"] and "arena/elo_curve" in events.Tags()["images"]
    assert [e.step for e in events.Scalars("arena/elo")] == [0, 1]
    # A second call with the same budget plays nothing; a larger one only the difference.
    assert run_rating(cfg, log=lambda line: None).played == 0
    cfg.games = 20
    assert run_rating(cfg, log=lambda line: None).played == 4
    assert len(stored(cfg.db)) == 20


def test_a_checkpoint_plays_an_outside_program_through_the_referee(tmp_path):
    run = tiny_run(tmp_path / "run", generations=1)
    spec = parse_player(f"ckpt:{run}@2")[0]
    program = parse_player(f"program:{sys.executable} -m tw_rl.codecup --player random --seed 3 --time 20")[0]
    slot = balanced_slots(RULES, spec.name, program.name, 1, np.random.default_rng(0))[0]
    game = play_referee_game(RULES, spec, program, slot, 60.0, seed=1)
    assert game.fault is None, game.fault
    final = game.positions(RULES)[-1]
    assert final.terminated[0] and int(RULES.winner(final)[0]) == game.winner


def test_outside_programs_are_rated_through_the_referee(tmp_path):
    prog = f"{sys.executable} -m tw_rl.codecup --time 5 --player"
    cfg = config(
        tmp_path, [f"prand=program:{prog} random", f"pgreedy=program:{prog} greedy"], 8, jobs=2, time=20.0
    )
    result = run_rating(cfg, log=lambda line: None)
    assert result.played == 8
    rows = stored(cfg.db)
    assert len(rows) == 8 and {r["source"] for r in rows} == {"referee"}
    assert all(r["fault"] is None and r["end_reason"] != "fault" for r in rows)
    with ResultsDB(cfg.db) as db:
        kinds = {p.name: (p.kind, p.command) for p in db.players()}
    assert kinds["prand"] == ("program", f"{prog} random") and kinds["random"][0] == "baseline"
    ratings = result.ratings
    with ResultsDB(cfg.db) as db:
        outcomes = db.outcomes(6)
    assert len(outcomes) == 8
    refit = fit(outcomes, "random")
    assert ratings["random"].elo == 0 and ratings["random"].se == 0
    for name in ("random", "prand", "pgreedy"):
        assert name in ratings and ratings.connected(name, "random")
        # The reported ratings are the fit of the stored games, with each player's own record.
        p = ratings[name]
        assert (p.elo, p.se, p.low, p.high) == pytest.approx(
            (refit[name].elo, refit[name].se, refit[name].low, refit[name].high)
        )
        mine = [o.score if o.red == name else 1.0 - o.score for o in outcomes if name in (o.red, o.white)]
        assert p.games == len(mine) and p.score == pytest.approx(sum(mine) / len(mine))
    # Colours are balanced within every pairing.
    per_pair: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        per_pair.setdefault(tuple(sorted((r["red"], r["white"]))), []).append(r["red"])
    for pair, reds in per_pair.items():
        assert abs(reds.count(pair[0]) - reds.count(pair[1])) <= 1


def test_a_killed_rating_run_resumes_without_losing_or_repeating_games(tmp_path):
    db_path = tmp_path / "arena" / "results.sqlite"
    argv = [
        sys.executable,
        "-m",
        "tw_rl.cli",
        "rate",
        "--players",
        "random",
        "greedy",
        "--games",
        "96",
        "--batch-size",
        "4",
        "--db",
        str(db_path),
        "--out",
        str(tmp_path / "arena"),
        "--no-progress",
        "--seed",
        "3",
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        count = 0
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            if db_path.exists():
                try:
                    count = len(stored(db_path))
                except sqlite3.OperationalError:
                    continue
                if count >= 12:
                    break
        assert proc.poll() is None, "the rating run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = stored(db_path)
    assert 12 <= len(before) < 96
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "ratings (Elo, random = 0)" in result.stdout
    after = stored(db_path)
    assert len(after) == 96
    # No finished game lost (same rows, same content), none stored twice.
    assert [tuple(r) for r in after[: len(before)]] == [tuple(r) for r in before]
    slots = [(r["red"], r["white"], r["opening"]) for r in after]
    assert len(set(slots)) == len(slots)
    reds = [r["red"] for r in after]
    assert reds.count(1) == reds.count(2) == 48  # colours balanced
    played_again = int(result.stdout.split(" games played")[0].split()[-1])
    assert played_again == 96 - len(before)


def test_the_cli_and_the_hydra_script(tmp_path, capsys):
    db = tmp_path / "arena" / "results.sqlite"
    args = [
        "rate",
        "--players",
        "random",
        "greedy",
        "--games",
        "6",
        "--db",
        str(db),
        "--out",
        str(tmp_path / "arena"),
        "--no-progress",
        "--batch-size",
        "2",
    ]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "ratings (Elo, random = 0)" in out and "6 games played" in out
    assert cli.main(["rate", "--players", "weights:x.bin", "--db", str(db)]) == 2
    assert "cannot read weights file" in capsys.readouterr().err
    script = ROOT / "scripts" / "rate.py"
    result = subprocess.run(
        [
            sys.executable,
            str(script),
            "games=8",
            f"db={db}",
            f"out={tmp_path / 'hydra-out'}",
            "progress=false",
            "batch_size=2",
            "players=[random,{kind: baseline, label: greedy}]",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "2 games played, 8 stored" in result.stdout
    data = json.loads((tmp_path / "hydra-out" / "ratings.json").read_text())
    assert {p["name"] for p in data["players"]} == {"random", "greedy"}
    typo = subprocess.run(
        [sys.executable, str(script), "gamez=3", f"hydra.run.dir={tmp_path / 'x'}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert typo.returncode != 0 and "gamez" in typo.stderr


def test_spec_round_trip_for_serving():
    spec = parse_player("mcts@7")[0]
    data = json.loads(spec.to_json())
    assert data["module"] == "tw_rl.rating.player_kinds"  # the served process imports the kind's module
    assert PlayerSpec.from_json(spec.to_json()) == spec
    for served in parse_players(["student:default", f"x=program:{sys.executable} -c pass"]):
        assert PlayerSpec.from_json(served.to_json()) == served  # every field, none dropped


def test_the_rating_run_stops_once_the_intervals_are_narrow_enough(tmp_path):
    cfg = config(tmp_path, ["random", "greedy"], 400, ci_width=500.0, batch_size=8)
    result = run_rating(cfg, log=lambda line: None)
    assert result.stopped == "interval" and result.total < 400
    greedy = result.ratings["greedy"]
    assert greedy.high - greedy.low <= 500.0
    # Already narrow enough: a second call plays nothing.
    assert run_rating(cfg, log=lambda line: None).played == 0


def test_a_schema_1_database_is_migrated_to_the_one_vocabulary(tmp_path):
    """Schema 1 stored a student's raw policy as kind ``weights``; opened now it is ``student``,
    with the same id, name and games, and the rating's student:default is that player."""
    path = tmp_path / "old.sqlite"
    student = parse_player("student:default")[0]
    old = Identity("weights", sha256=student.sha256, search={"policy": "raw"})
    with ResultsDB(path) as db:
        rand = db.register(Identity("baseline", label="random"), "random")
    with sqlite3.connect(path) as conn:  # what schema-1 code wrote
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        conn.execute(
            "INSERT INTO players (name, identity, kind, sha256, search, created) VALUES (?, ?, ?, ?, ?, ?)",
            ("s-old", old.key(), "weights", student.sha256, '{"policy": "raw"}', "2026-01-01T00:00:00+00:00"),
        )
        sid = conn.execute("SELECT id FROM players WHERE name = 's-old'").fetchone()[0]
        conn.execute(
            "INSERT INTO games (red, white, size, opening, seed, red_start, white_start, result, red_points,"
            " white_points, end_reason, moves, plies, source, timestamp)"
            " VALUES (?, ?, 6, 0, 0, 'C3', 'G7', 1.0, 1, 0, 'end rule', '', 0, 'batched', 'x')",
            (sid, rand.id),
        )
    with ResultsDB(path) as db:
        row = db.player(sid)
        assert (row.kind, row.name) == ("student", "s-old")
        assert db.register(student.identity(), student.name).id == sid  # the same player
        assert db.outcomes(6) == [Outcome("s-old", "random", 1.0)]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "2"
        assert conn.execute("SELECT COUNT(*) FROM players WHERE kind = 'weights'").fetchone()[0] == 0
    with ResultsDB(path) as db, pytest.raises(ValueError, match="not a player kind"):
        db.register(old, "again")  # the old word is no kind any more


def test_head_to_head_takes_the_player_language_and_checkpoint_files(tmp_path):
    from tw_rl.config import HeadToHeadConfig
    from tw_rl.rating.head_to_head import head_to_head

    run = tiny_run(tmp_path / "run", generations=1)
    ckpt = str(run / "checkpoints" / "ckpt-g000000.pt")
    report = head_to_head(
        HeadToHeadConfig(player=ckpt, opponent="mcts@5", games=2, batch=2, simulations=1),
        log=lambda line: None,
    )
    assert (report["games"], report["wins"] + report["draws"] + report["losses"]) == (2, 2)
    for player, why in (("weights:none", "plays in-process players"), (f"ckpt:{run}/checkpoints/*.pt", None)):
        cfg = HeadToHeadConfig(player=player, opponent="random", games=2, batch=2, simulations=1)
        if why is None:  # one file: fine
            assert head_to_head(cfg, log=lambda line: None)["games"] == 2
        else:
            with pytest.raises(RatingError, match=why):
                head_to_head(cfg, log=lambda line: None)


def test_head_to_head_pairs_openings_rounds_an_odd_count_up_and_reports_colours_and_points():
    from tw_rl.config import HeadToHeadConfig
    from tw_rl.rating.head_to_head import head_to_head

    lines = []
    cfg = HeadToHeadConfig(player="greedy", opponent="random", games=5, batch=3, seed=4)
    report = head_to_head(cfg, log=lines.append)
    assert lines[0] == "note: 5 games rounded up to 6: each opening is played twice, colours swapped"
    assert report["games"] == 6 and sum(report["as_red"]) == sum(report["as_white"]) == 3
    assert report["wins"] == report["as_red"][0] + report["as_white"][0]
    total = sum(report["points"])
    assert report["points_per_game"] == [round(p / 6, 2) for p in report["points"]] and total > 6 * 200
    assert "as red" in lines[-1] and "points per game" in lines[-1]
    with pytest.raises(RatingError, match="at least 1"):
        head_to_head(HeadToHeadConfig(player="greedy", opponent="random", games=0), log=lines.append)
