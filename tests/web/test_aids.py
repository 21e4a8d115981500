"""The aids while playing, through the JSON API: a position of the move list, going back to a
ply, the evaluation bar's value, a hint with its principal variation, the hover preview and the
score bar; and the bot's clock of seconds a game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from tw_rl.codecup.rules import Board  # noqa: E402
from tw_rl.core.notation import parse_cell  # noqa: E402
from tw_rl.core.rules import Rules  # noqa: E402
from tw_rl.core.state import RED, WHITE  # noqa: E402
from tw_rl.referee.releases import split_clock  # noqa: E402
from tw_rl.scalar_position import state_position  # noqa: E402
from tw_rl.web.app import create_app  # noqa: E402
from tw_rl.web.bots import Bot, BotError, parse_bot  # noqa: E402
from tw_rl.web.games import GameStore  # noqa: E402


@pytest.fixture
def client():
    with TestClient(create_app(), raise_server_exceptions=False, base_url="http://127.0.0.1:8000") as c:
        yield c


def play(client, view, moves: int):
    for _ in range(moves):
        name = view["board"]["names"][view["position"]["legal"][0]]
        view = client.post(f"/api/games/{view['id']}/move", json={"move": name}).json()
    return view


def test_the_move_list_positions_and_going_back_to_a_ply(client):
    start = client.post("/api/games", json={"bot": "random", "seed": 4}).json()
    view = play(client, start, 3)
    assert len(view["moves"]) == 6
    at_two = client.get(f"/api/games/{view['id']}/ply/2").json()
    assert at_two["ply"] == 2 and at_two["can_play_from"]
    first_two = [parse_cell(Rules(6).grid, m["name"]) for m in view["moves"][:2]]
    assert at_two["position"]["last_move"] == first_two[1]
    assert not client.get(f"/api/games/{view['id']}/ply/1").json()["can_play_from"]  # the bot's turn
    assert client.get(f"/api/games/{view['id']}/ply/7").status_code == 400
    refused = client.post(f"/api/games/{view['id']}/undo", json={"ply": 1})
    assert refused.status_code == 409 and "the bot is to move" in refused.json()["error"]
    back = client.post(f"/api/games/{view['id']}/undo", json={"ply": 2}).json()
    assert back["moves"] == view["moves"][:2] and back["position"] == at_two["position"] and back["your_turn"]
    assert client.post(f"/api/games/{view['id']}/undo", json={"ply": 2}).status_code == 409  # there already
    to_start = client.post(f"/api/games/{view['id']}/undo", json={"ply": 0}).json()
    assert to_start["moves"] == [] and to_start["position"] == start["position"]


def test_the_evaluation_bar_value_for_red_by_the_bot_and_a_checkpoint(client):
    view = play(client, client.post("/api/games", json={"bot": "random", "seed": 2}).json(), 2)
    for by in ("bot", "default", "0"):
        for ply in (0, 1, 4):
            answer = client.get(f"/api/games/{view['id']}/eval/{ply}", params={"by": by})
            assert answer.status_code == 200, answer.text
            e = answer.json()
            assert e["ply"] == ply and -1.0 <= e["value"] <= 1.0
            mover = RED if ply % 2 == 0 else WHITE  # codecup: red moves at even plies
            assert e["value_red"] == (e["value"] if mover == RED else -e["value"])
    eight = client.post("/api/games", json={"bot": "random", "size": 8}).json()
    wrong = client.get(f"/api/games/{eight['id']}/eval/0", params={"by": "default"})
    assert wrong.status_code == 400 and "board size 6" in wrong.json()["error"]
    assert client.get(f"/api/games/{eight['id']}/eval/0").status_code == 200  # the bot evaluates any board


def test_a_hint_is_a_legal_best_move_and_a_line_of_legal_moves(client):
    view = play(client, client.post("/api/games", json={"bot": "random", "seed": 7}).json(), 1)
    answer = client.post(f"/api/games/{view['id']}/hint", json={})
    assert answer.status_code == 200, answer.text
    h = answer.json()
    rules = Rules(6)
    names = view["board"]["names"]
    assert h["best"] == h["pv"][0] and names.index(h["best"]) in view["position"]["legal"]
    assert 2 <= len(h["pv"]) <= 8 and h["simulations"] > 0
    # Replay the line from the game's position: every move in it is legal in turn.
    p = view["position"]
    state = rules.position(
        np.array(p["owner"]), np.array(p["height"]), RED if p["to_move"] == "red" else WHITE
    )
    for name in h["pv"]:
        action = parse_cell(rules.grid, name)
        assert rules.legal_mask(state)[0, action], name
        state = rules.step(state, action)


def test_no_hint_out_of_turn_or_after_the_end(client):
    store_view = client.post(
        "/api/games", json={"bot": "random", "variant": "official", "setup": "pie"}
    ).json()
    during_setup = client.post(f"/api/games/{store_view['id']}/hint", json={})
    assert during_setup.status_code == 400 and "set-up" in during_setup.json()["error"]
    assert client.get(f"/api/games/{store_view['id']}/eval/0").status_code == 400


def test_the_hover_preview_gives_the_height_or_the_reason(client):
    view = play(client, client.post("/api/games", json={"bot": "random", "seed": 9}).json(), 4)
    position = view["position"]
    preview = position["preview"]
    assert len(preview) == 91
    legal = set(position["legal"])
    assert {i for i, p in enumerate(preview) if p["legal"]} == legal
    for i, p in enumerate(preview):
        if p["legal"]:
            assert p["why"] is None and p["height"] > position["height"][i] and not p["suicidal"]
        else:
            name = view["board"]["names"][i]
            refused = client.post(f"/api/games/{view['id']}/move", json={"move": name})
            assert refused.json()["error"] == f"{name}: {p['why']}"  # what a click would answer
            if p["suicidal"]:
                assert p["why"].startswith("suicidal:")


def test_suicidal_placements_are_flagged_but_allowed_under_the_official_rules():
    store = GameStore()
    game = store.new(6, "official", "judge", "red", "random", seed=1)
    for _ in range(60):  # play random legal placements until a suicidal one is on offer
        view = game.view()
        if not view["your_turn"]:
            break
        suicidal = [i for i, p in enumerate(view["position"]["preview"]) if p["suicidal"]]
        if suicidal:
            assert all(view["position"]["preview"][i]["legal"] for i in suicidal)
            assert all(view["position"]["preview"][i]["why"] is None for i in suicidal)
            return
        game.play(view["position"]["legal"][0])
    pytest.fail("no suicidal placement came up")


def test_the_score_bar_counts_territory_and_cells_only_one_side_can_play(client):
    view = play(client, client.post("/api/games", json={"bot": "greedy", "seed": 5}).json(), 12)
    p = view["position"]
    bar = p["score_bar"]
    red_t, white_t = set(p["territory"]["red"]), set(p["territory"]["white"])
    assert bar["red_territory"] == len(red_t - white_t) and bar["white_territory"] == len(white_t - red_t)
    outside = set(range(91)) - (red_t ^ white_t)
    red_p, white_p = set(p["placeable"]["red"]), set(p["placeable"]["white"])
    assert bar["red_only"] == len((red_p - white_p) & outside)
    assert bar["white_only"] == len((white_p - red_p) & outside)
    assert sum(v for k, v in bar.items() if k != "cells") <= bar["cells"] == 91


class FakeClock:
    """Seconds that pass only when asked: ``tick`` a reading, plus what a test adds."""

    def __init__(self, tick: float):
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_the_bot_spends_its_seconds_over_the_game_not_a_move():
    """bot@S: the bot's own clock shares S over its own moves; each move plans from what is
    left of S (not from S again), the opponent's thinking is not charged, a game stays within S."""
    seconds = 1.0
    clock = FakeClock(tick=1e-4)
    rules = Rules(6)
    bot = Bot(parse_bot(f"bot@{seconds:g}"), rules, seed=3, clock=clock)
    state = rules.init(1, np.random.default_rng(3))
    positions = []
    while not state.terminated[0]:
        if int(state.to_move[0]) == RED:
            positions.append(state_position(Board(6), state, 0, rules.variant, rules.stale_end))
            action = bot.choose(state)
        else:
            clock.now += 100.0  # the opponent thinks a long time: not the bot's seconds
            action = int(np.flatnonzero(rules.legal_mask(state)[0])[0])
        state = rules.step(state, action)
    log = bot.codecup_bot.log
    control = bot.codecup_bot.time_control
    assert len(log) == len(positions) > 10
    used = 0.0
    for (allot, spent, simulations), position in zip(log, positions, strict=True):
        assert allot > 0 and simulations > 0
        assert allot == pytest.approx(control.allotment(seconds - used, position), abs=3e-4)
        assert allot <= seconds * 0.9 / 8  # the page's ceiling on one move
        assert spent <= allot + 0.01  # it stops at its deadline (or sooner on a won game)
        used += spent
    # planned from S on every move, the late moves would get more than from what is left
    assert any(control.allotment(seconds, p) > a + 3e-3 for (a, _, _), p in zip(log, positions, strict=True))
    assert seconds / 4 < used <= seconds * 0.9


@pytest.mark.parametrize(
    "tail, seconds",
    [("30", 30.0), ("0.5", 0.5), (".5", 0.5), ("2.", 2.0), ("0.1234567", 0.1234567)]
    + [(tail, None) for tail in ("1e2", "inf", "nan", "5m", " 5", "1_0", "+5", "\u0663", "")],
)
def test_bot_at_seconds_is_the_ratings_clock_syntax_with_the_pages_range(tail, seconds):
    """bot@S reads S as the rating's NAME@SECONDS does (``split_clock``, one definition); what the
    rating cannot read the page refuses as not a plain number."""
    if seconds is None:
        with pytest.raises(ValueError):
            split_clock(f"bot@{tail}", 30.0)
        with pytest.raises(BotError, match="seconds for the whole game as a plain number"):
            parse_bot(f"bot@{tail}")
    else:
        assert split_clock(f"bot@{tail}", 30.0) == ("bot", seconds)
        assert parse_bot(f"bot@{tail}").seconds == seconds


def test_bot_at_seconds_outside_the_pages_range_is_the_pages_message():
    assert parse_bot("bot").seconds == 30.0 and parse_bot("bot@300").seconds == 300.0
    with pytest.raises(BotError, match="plain number"):
        parse_bot("bot@3@4")  # the rating's name "bot@3" on a 4 s clock; not the page's bot
    for tail in ("0", "-1", "0.09", "300.5", "9" * 400):
        with pytest.raises(BotError, match="the bot's clock is 0.1 to 300 s for the whole game"):
            parse_bot(f"bot@{tail}")
