"""Tests of the baseline players of the CodeCup package (tw_rl.codecup.players)."""

import random

import pytest

from tw_rl.codecup.players import (
    PLAYERS,
    BotPlayer,
    GreedyPlayer,
    RandomPlayer,
    UctPlayer,
    make_player,
)
from tw_rl.codecup.rules import NEUTRAL, RED, WHITE, Board, Position, judge_start

B6 = Board(6)


def margin_after(pos, move):
    """Territory margin for the mover after move, by the reference play()/territory()."""
    child = pos.copy()
    child.play(move)
    red, white = child.territory()
    d = len(red) - len(white)
    return d if pos.to_move == RED else -d


def random_position(rng, plies):
    pos = Position.start(B6, *judge_start(B6, rng))
    for _ in range(plies):
        if pos.over:
            break
        pos.play(rng.choice(pos.legal_moves()))
    return pos


def test_every_player_plays_legal_moves_to_the_end():
    players = [
        RandomPlayer(seed=1),
        GreedyPlayer(seed=1),
        UctPlayer(playouts=8, rollout="territory", seed=1),
        BotPlayer(max_sims=20),
    ]
    rng = random.Random(2)
    for i, a in enumerate(players):
        b = players[(i + 1) % len(players)]
        pos = Position.start(B6, *judge_start(B6, rng))
        while not pos.over:
            player = a if pos.to_move == RED else b
            before = pos.copy()
            m = player.choose(pos)
            assert pos.owner == before.owner and pos.height == before.height  # untouched
            assert m in pos.legal_moves()
            pos.play(m)
        r, w = pos.score()
        assert pos.winner() == (RED if r > w else WHITE if w > r else 0), (r, w)


def test_uct_random_rollouts_play_legal_moves():
    rng = random.Random(3)
    player = UctPlayer(playouts=6, rollout="random", seed=3)
    for plies in (0, 30, 60):
        pos = random_position(rng, plies)
        if not pos.over:
            assert player.choose(pos) in pos.legal_moves()


def test_players_pass_when_they_must():
    pos = Position(B6)
    pos.owner[B6.centre] = NEUTRAL
    pos.height[B6.centre] = 2
    pos.owner[B6.parse("C3")] = WHITE
    pos.height[B6.parse("C3")] = 1
    assert pos.legal_moves() == [B6.num_cells]
    for name in PLAYERS:
        assert make_player(name, seed=1, playouts=3).choose(pos) == B6.num_cells


def test_greedy_picks_the_best_margin():
    rng = random.Random(4)
    checked = 0
    for _ in range(200):
        pos = random_position(rng, rng.randrange(20, 70))
        if pos.over:
            continue
        margins = {m: margin_after(pos, m) for m in pos.legal_moves()}
        best = max(margins.values())
        top = [m for m, v in margins.items() if v == best]
        assert GreedyPlayer(seed=0).scores(pos) == margins
        if len(top) == 1:
            assert GreedyPlayer(seed=checked).choose(pos) == top[0]
            checked += 1
        else:
            assert GreedyPlayer(seed=checked).choose(pos) in top
        if checked >= 5:
            break
    assert checked >= 5


def test_greedy_ties_are_broken_at_random_but_seeded():
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))  # every opening move: margin 0
    choices = {GreedyPlayer(seed=s).choose(pos) for s in range(20)}
    assert len(choices) > 1
    assert GreedyPlayer(seed=5).choose(pos) == GreedyPlayer(seed=5).choose(pos)


@pytest.mark.parametrize("rollout", ["random", "territory"])
def test_uct_is_deterministic_for_a_seed(rollout):
    pos = random_position(random.Random(5), 40)
    assert not pos.over
    playouts = 15 if rollout == "random" else 60
    a = UctPlayer(playouts=playouts, rollout=rollout, seed=9)
    b = UctPlayer(playouts=playouts, rollout=rollout, seed=9)
    assert [a.choose(pos) for _ in range(2)] == [b.choose(pos) for _ in range(2)]


def test_random_player_is_seeded():
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    a = [RandomPlayer(seed=1).choose(pos) for _ in range(3)]
    assert len(set(a)) == 1
    assert {RandomPlayer(seed=s).choose(pos) for s in range(20)} != {a[0]}


def test_bad_player_options():
    with pytest.raises(ValueError, match="rollout must be 'random' or 'territory', got 'nope'"):
        UctPlayer(rollout="nope")
    with pytest.raises(ValueError, match="playouts must be at least 1, got 0"):
        UctPlayer(playouts=0)
    with pytest.raises(ValueError, match="unknown player 'nobody'; use one of bot, random, greedy, mcts"):
        make_player("nobody")
