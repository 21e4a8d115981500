"""The web page's server through its JSON API (Starlette's TestClient; no browser, no socket)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from tw_rl.cli import main  # noqa: E402
from tw_rl.core.notation import cell_name, parse_cell  # noqa: E402
from tw_rl.core.rules import Rules  # noqa: E402
from tw_rl.training.checkpoint import DEFAULT_TEACHER  # noqa: E402
from tw_rl.web.app import ServerSettings, create_app  # noqa: E402
from tw_rl.web.bots import BotError, make_bot  # noqa: E402
from tw_rl.web.games import GameStore  # noqa: E402

from .conftest import record_text  # noqa: E402

LOCAL = "http://127.0.0.1:8000"  # the address a default server answers to


def local_client(settings: ServerSettings | None = None) -> TestClient:
    return TestClient(create_app(settings), raise_server_exceptions=False, base_url=LOCAL)


@pytest.fixture
def client():
    with local_client() as c:
        yield c


@pytest.fixture
def db_client(results_db):
    with local_client(ServerSettings(db=str(results_db))) as c:
        yield c


def new_game(client, **kw):
    body = {"size": 6, "variant": "codecup", "colour": "red", "bot": "random", "seed": 5, **kw}
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def first_legal(view) -> str:
    return view["board"]["names"][view["position"]["legal"][0]]


def analyze_record(tmp_path, capsys, text, *args):
    path = tmp_path / "game.txt"
    path.write_text(text)
    capsys.readouterr()
    assert main(["analyze", str(path), *args]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_page_and_its_options(client):
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert client.get("/static/page.js").status_code == 200
    options = client.get("/api/options").json()
    assert options["sizes"] == [6, 8, 10, 11] and options["variants"] == ["codecup", "official"]
    assert options["setups"]["official"] == ["pie", "judge"] and options["db"] is None


def test_a_whole_game_against_the_bot_and_its_record(client, tmp_path, capsys):
    view = new_game(client, colour="white", seed=11)
    assert view["you"] == "white" and view["your_turn"]  # the bot (red) has moved already
    assert [m["by"] for m in view["moves"]] == ["bot"]
    plies = 0
    while not view["position"]["over"]:
        if view["position"]["legal"]:
            move = first_legal(view)
        else:
            assert view["position"]["pass_legal"]
            move = "Pass"
        response = client.post(f"/api/games/{view['id']}/move", json={"move": move})
        assert response.status_code == 200, response.text
        view = response.json()
        plies += 1
        assert plies < 400
    bys = [m["by"] for m in view["moves"]]
    assert bys == ["bot", "you"] * (len(bys) // 2) + ["bot"] * (len(bys) % 2)
    record = client.get(f"/api/games/{view['id']}/record")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    final = analyze_record(tmp_path, capsys, record.text)
    points = view["position"]["points"]
    assert final["over"] and final["score"] == points and final["winner"] == view["position"]["winner"]
    assert final["plies"] == len(view["moves"])
    late = client.post(f"/api/games/{view['id']}/move", json={"move": "F6"})
    assert late.status_code == 409 and late.json()["error"] == "the game is over"


def test_an_illegal_click_is_refused_with_the_rules_reason(client):
    view = new_game(client, seed=2)
    rules = Rules(6)
    illegal = next(i for i in range(rules.num_cells) if i not in view["position"]["legal"])
    name = view["board"]["names"][illegal]
    response = client.post(f"/api/games/{view['id']}/move", json={"move": name})
    assert response.status_code == 409
    assert response.json()["error"].startswith(f"{name}: ")
    again = client.get(f"/api/games/{view['id']}").json()
    assert again["position"] == view["position"] and again["moves"] == view["moves"]  # nothing changed
    for bad, status, words in [
        ({"move": "Z99"}, 409, "not a cell name|not on the board"),
        ({"move": 9999}, 409, "not a cell of this board"),
        ({"move": True}, 409, "is not a move"),
        ({}, 400, "give the move"),
    ]:
        response = client.post(f"/api/games/{view['id']}/move", json=bad)
        assert response.status_code == status
        assert any(w in response.json()["error"] for w in words.split("|"))
    response = client.post(
        f"/api/games/{view['id']}/move", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400 and response.json()["error"] == "the request body is not JSON"


def test_pass_is_refused_while_a_placement_exists(client):
    view = new_game(client, seed=3)
    response = client.post(f"/api/games/{view['id']}/move", json={"move": "Pass"})
    assert response.status_code == 409 and "allows a pass only without one" in response.json()["error"]


def test_undo_takes_back_the_persons_move_and_the_bots_answer(client):
    view = new_game(client, seed=4)
    assert client.post(f"/api/games/{view['id']}/undo", json={}).status_code == 409  # nothing to undo
    first = client.post(f"/api/games/{view['id']}/move", json={"move": first_legal(view)}).json()
    second = client.post(f"/api/games/{view['id']}/move", json={"move": first_legal(first)}).json()
    assert len(second["moves"]) == 4
    undone = client.post(f"/api/games/{view['id']}/undo", json={}).json()
    assert undone["moves"] == first["moves"] and undone["position"] == first["position"]
    assert undone["your_turn"]
    back = client.post(f"/api/games/{view['id']}/undo", json={}).json()
    assert back["moves"] == [] and back["position"] == view["position"] and not back["can_undo"]


def test_unknown_games_and_bad_settings_get_one_line(client):
    assert client.get("/api/games/nope").status_code == 404
    assert "no game 'nope'" in client.get("/api/games/nope").json()["error"]
    assert client.post("/api/games/nope/move", json={"move": "F6"}).status_code == 404
    assert client.get("/api/games/nope/record").status_code == 404
    for body, words in [
        ({"size": 7}, "size"),
        ({"variant": "chess"}, "unknown rules"),
        ({"colour": "green"}, "colour must be red or white"),
        ({"bot": "alphago"}, "unknown bot"),
        ({"bot": "bot@0"}, "0.1 to 300 s for the whole game"),
        ({"bot": "bot@5m"}, "seconds for the whole game as a plain number"),
        ({"bot": "bot@1e3"}, "plain number"),
        ({"bot": "bot@inf"}, "plain number"),
        ({"bot": "ckpt:default@many"}, "whole number"),
        ({"bot": "ckpt:default@0"}, "simulations must be 1 to 1000"),
        ({"bot": 7}, "bot must be a text"),
        ({"seed": -1}, "seed must be 0 to"),
        ({"variant": "official", "setup": "free"}, "not offered"),
        ({"size": "six"}, "whole number"),
    ]:
        response = client.post("/api/games", json={"bot": "random", **body})
        assert response.status_code == 400, body
        assert words in response.json()["error"]


def test_a_damaged_checkpoint_as_the_bot_is_refused_and_the_server_goes_on(tmp_path):
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(DEFAULT_TEACHER.read_bytes()[:5000])
    gone = tmp_path / "gone.pt"
    shutil.copy(DEFAULT_TEACHER, gone)
    with local_client(ServerSettings(checkpoints=[str(damaged), str(gone)])) as client:
        assert client.get("/api/options").json()["checkpoints"] == ["default", "damaged", "gone"]
        for name in ("damaged", "1"):  # by name or by number
            response = client.post("/api/games", json={"bot": f"ckpt:{name}@8"})
            error = response.json()["error"]
            assert response.status_code == 400 and error.startswith("checkpoint damaged: "), error
            assert str(tmp_path) not in error  # the page never learns where the file lives
        gone.unlink()
        response = client.post("/api/games", json={"bot": "ckpt:gone@8"})
        assert response.status_code == 400 and response.json()["error"] == (
            "checkpoint gone: the file is gone from the server"
        )
        wrong_size = client.post("/api/games", json={"bot": "ckpt:default@4", "size": 8})
        assert wrong_size.status_code == 400 and wrong_size.json()["error"] == (
            "checkpoint default: it is for board size 6, this game plays size 8"  # the loader's one check
        )
        assert new_game(client)["your_turn"]


def test_every_page_bot_is_a_player_of_the_one_protocol():
    """Behind ``Bot.choose`` each opponent is a player ``(rules, state, rng) -> actions [B]``:
    on a batch of games it answers a legal action in each (the CodeCup bot through its adapter,
    the baselines from the rating's player kinds)."""
    rules = Rules(6)
    rng = np.random.default_rng(2)
    state = rules.init(3, rng)
    for _ in range(4):
        legal = rules.legal_mask(state)
        state = rules.step(state, np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    for spec in ("bot@1", "ckpt:default@2", "random", "greedy"):
        actions = make_bot(spec, rules).player(rules, state, rng)
        assert actions.shape == (3,) and rules.legal_mask(state)[np.arange(3), actions].all(), spec


def test_the_checkpoint_bot_and_the_codecup_bot_play_legal_moves(client):
    for bot in ("ckpt:default@4", "ckpt:0@4", "bot@0.5", "greedy"):
        view = new_game(client, colour="white", bot=bot, seed=8)
        assert len(view["moves"]) == 1 and view["your_turn"], bot
        assert (
            client.post(f"/api/games/{view['id']}/move", json={"move": first_legal(view)}).status_code == 200
        )


def test_a_bot_that_fails_keeps_the_game_and_can_try_again():
    store = GameStore()
    game = store.new(6, "codecup", "", "red", "random", seed=1)
    real = game.bot.choose
    game.bot.choose = lambda state: (_ for _ in ()).throw(BotError("the checkpoint went away"))
    before = len(game.actions)
    game.play(game.view()["position"]["legal"][0])
    view = game.view()
    assert view["bot_error"] == "the checkpoint went away" and not view["your_turn"]
    assert len(game.actions) == before + 1  # the person's move is kept
    game.bot.choose = lambda state: (_ for _ in ()).throw(RuntimeError("boom"))
    game.bot_move()
    assert game.view()["bot_error"] == "the bot failed: RuntimeError: boom"
    game.bot.choose = real
    game.bot_move()
    assert game.view()["bot_error"] is None and game.view()["your_turn"]


def test_a_pie_game_of_the_official_rules(client, tmp_path, capsys):
    view = new_game(client, variant="official", setup="pie", colour="red", seed=6)
    assert view["position"]["phase"] == "place red's start stack" and view["you"] is None
    names = view["board"]["names"]
    rules = Rules(6, "official")
    red, white = names[0], names[rules.grid.centre + 2]
    view = client.post(f"/api/games/{view['id']}/move", json={"move": red}).json()
    assert view["position"]["phase"] == "place white's start stack"
    view = client.post(f"/api/games/{view['id']}/move", json={"move": white}).json()
    # The bot (the guest) chose a colour; if it took red, it has also moved.
    assert view["you"] in ("red", "white") and view["your_turn"]
    assert (len(view["moves"]) == 4) == (view["you"] == "white")
    view = client.post(f"/api/games/{view['id']}/move", json={"move": "Pass"}).json()
    text = client.get(f"/api/games/{view['id']}/record").text
    assert text.splitlines()[1:3] == [red, white]
    final = analyze_record(tmp_path, capsys, text, "--rules", "official")
    assert final["plies"] == len(view["moves"]) - 3


def test_the_record_needs_the_set_up_finished(client):
    view = new_game(client, variant="official", setup="pie", seed=6)
    response = client.get(f"/api/games/{view['id']}/record")
    assert response.status_code == 400 and "set-up is not finished" in response.json()["error"]


# --------------------------------------------------------------------------------- study


def test_a_record_steps_through_with_the_policy_and_value(client):
    text = record_text(9)
    summary = client.post("/api/study", json={"record": text, "size": 6, "variant": "codecup"}).json()
    moves = [w for w in text.split()][2:]
    assert summary["plies"] == len(moves) and summary["moves"] == moves
    rules = Rules(6)
    for ply in (0, 5, summary["plies"]):
        view = client.get(f"/api/study/{summary['id']}/ply/{ply}").json()
        assert view["ply"] == ply
        if ply:
            assert view["position"]["last_move"] == parse_cell(rules.grid, moves[ply - 1])
    analysis = client.get(f"/api/study/{summary['id']}/analysis/5", params={"checkpoint": "default"}).json()
    legal = set(client.get(f"/api/study/{summary['id']}/ply/5").json()["position"]["legal"])
    policy = np.array(analysis["policy"])
    assert policy.shape == (rules.num_cells,) and abs(policy.sum() + analysis["pass"] - 1.0) < 0.01
    assert all(p == 0 for i, p in enumerate(policy) if i not in legal)
    assert -1.0 <= analysis["value"] <= 1.0 and analysis["best"] == cell_name(
        rules.grid, int(policy.argmax())
    )
    end = client.get(f"/api/study/{summary['id']}/analysis/{summary['plies']}").json()
    assert end["value"] is None and end["note"] == "the game is over here"
    out = client.get(f"/api/study/{summary['id']}/ply/{summary['plies'] + 1}")
    assert out.status_code == 400 and "out of range" in out.json()["error"]


def test_malformed_records_get_the_line_of_the_problem(client):
    good = record_text(9).splitlines()
    for lines, words in [
        (["E4"], "ends before red's and white's start cells"),
        (["E4", "Q99"], "start: white's start cell (line 2)"),
        ([*good[:3], "F6"], "ply 1: move F6 is illegal"),
        ([*good[:2], "hello"], "ply 0: move 'hello' is not a cell name"),
    ]:
        response = client.post("/api/study", json={"record": "\n".join(lines), "size": 6})
        assert response.status_code == 400, lines
        assert words in response.json()["error"], response.json()
    assert client.post("/api/study", json={"size": 6}).status_code == 400
    too_long = client.post("/api/study", json={"record": "x" * 100_001})
    assert too_long.status_code == 400 and "the record is too long" in too_long.json()["error"]
    too_large = client.post("/api/study", json={"record": "x" * 200_001})
    assert too_large.status_code == 413 and "at most 200000" in too_large.json()["error"]
    assert client.get("/api/study/nope/ply/0").status_code == 404


def test_a_damaged_checkpoint_in_the_analysis_is_one_line(tmp_path):
    damaged = tmp_path / "damaged.pt"
    shutil.copy(DEFAULT_TEACHER, damaged)
    damaged.write_bytes(damaged.read_bytes()[:-2000])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    good = tmp_path / "good.pt"
    shutil.copy(DEFAULT_TEACHER, good)
    settings = ServerSettings(checkpoints=[str(damaged), str(garbage), str(good)])
    with local_client(settings) as client:
        summary = client.post("/api/study", json={"record": record_text(2), "size": 6}).json()
        url = f"/api/study/{summary['id']}/analysis/1"
        response = client.get(url, params={"checkpoint": "damaged"})
        assert response.status_code == 400 and response.json()["error"].startswith("checkpoint damaged: ")
        response = client.get(url, params={"checkpoint": "2"})
        error = response.json()["error"]
        assert response.status_code == 400 and error.startswith("checkpoint garbage: it is not a readable")
        assert "\n" not in error and str(tmp_path) not in error, error  # torch's paragraph: its first line
        assert client.get(url).status_code == 200  # the default
        # A checkpoint rewritten on disk (a run in progress) is read again, not served from memory.
        assert client.get(url, params={"checkpoint": "good"}).status_code == 200
        good.write_bytes(b"overwritten")
        os.utime(good, ns=(1, 1))
        assert client.get(url, params={"checkpoint": "good"}).status_code == 400


def test_an_unexpected_failure_is_a_500_and_the_server_goes_on(client, monkeypatch):
    from tw_rl.web import study

    summary = client.post("/api/study", json={"record": record_text(2), "size": 6}).json()
    monkeypatch.setattr(study.Analyst, "analyse", lambda *a: (_ for _ in ()).throw(RuntimeError("boom")))
    response = client.get(f"/api/study/{summary['id']}/analysis/1")
    assert response.status_code == 500 and response.json()["error"] == "unexpected error: RuntimeError: boom"
    assert client.get(f"/api/study/{summary['id']}/ply/1").status_code == 200


def test_the_games_of_a_results_database(db_client, client):
    listing = db_client.get("/api/stored").json()
    assert [g["id"] for g in listing["games"]] == [1, 2]
    played, fault = listing["games"]
    assert played["red"] == "random" and played["white"] == "greedy" and fault["end"] == "fault"
    summary = db_client.post("/api/study", json={"db_game": 1}).json()
    assert summary["plies"] == played["plies"] and summary["title"].startswith("game 1: random (red)")
    last = db_client.get(f"/api/study/{summary['id']}/ply/{summary['plies']}").json()
    assert last["position"]["over"]
    faulty = db_client.post("/api/study", json={"db_game": 2}).json()
    assert (
        faulty["plies"] == 0 and "stops before ply 0" in faulty["note"] and "fault: greedy" in faulty["note"]
    )
    assert db_client.post("/api/study", json={"db_game": 99}).status_code == 404
    assert client.get("/api/stored").json() == {"db": None, "games": []}
    response = client.post("/api/study", json={"db_game": 1})
    assert response.status_code == 400 and "--db" in response.json()["error"]


# ----------------------------------------------------------------------------- command line


def test_serve_refuses_bad_options_in_one_line(tmp_path, capsys):
    for args, words in [
        (["--db", str(tmp_path / "missing.sqlite")], "no such file"),
        (["--bot", "alphago"], "--bot: unknown bot"),
        (["--checkpoint", str(tmp_path / "none.pt")], "no such file"),
        (["--port", "99999"], "not a port number"),
        (["--bot", "bot@5m"], "--bot: 'bot@5m': give the seconds for the whole game as a plain number"),
        (["--bot", "bot@301"], "--bot: bot@301: the bot's clock is 0.1 to 300 s for the whole game"),
        (["--max-searches", "0"], "--max-searches 0: give 1 or more"),
        (["--max-queue", "-1"], "--max-queue -1: give 0 or more"),
        (["--games-per-client", "0"], "--games-per-client 0: give 1 or more"),
        (["--allow-host", "evil/x"], "is not a host name"),
    ]:
        assert main(["serve", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
    bad_db = tmp_path / "bad.sqlite"
    bad_db.write_bytes(b"garbage" * 100)
    assert main(["serve", "--db", str(bad_db)]) == 2
    assert "not a usable results database" in capsys.readouterr().err


def test_serve_help_says_what_bot_at_seconds_means(capsys):
    try:
        main(["serve", "--help"])
    except SystemExit:
        pass  # argparse's exit, where the CLI does not catch it
    text = " ".join(capsys.readouterr().out.split())
    assert "CodeCup bot with 30 s for the whole game, as the rating's NAME@SECONDS" in text
    assert "clients cannot name files" in text and "needs the printed token" in text
