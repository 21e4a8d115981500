"""tw_rl.training.match: a match pairs its openings, and its score counts games, colours and points."""

from __future__ import annotations

import numpy as np
import pytest

from tw_rl.core.baselines import BASELINES
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE
from tw_rl.training.match import (
    MatchGame,
    MatchScore,
    Slot,
    balanced_slots,
    match_score,
    play_batch,
    play_match,
)

RULES = Rules(6)


def first_positions(seen: list, player):
    """``player``, recording the start cells of every game it is asked to open as red."""

    def play(rules, state, rng):
        opening = state.height.sum(axis=1) == 4  # the two starts (1 each) and the centre (2)
        for row in np.flatnonzero(opening):
            cells = state.owner[row]
            seen.append((int(np.flatnonzero(cells == RED)[0]), int(np.flatnonzero(cells == WHITE)[0])))
        return player(rules, state, rng)

    return play


def test_a_match_pairs_its_openings_each_start_twice_with_colours_swapped():
    as_red_a, as_red_b = [], []
    a = first_positions(as_red_a, BASELINES["greedy"])
    b = first_positions(as_red_b, BASELINES["random"])
    score = play_match(RULES, a, b, 12, np.random.default_rng(3))
    assert score.games == 12
    # each player opened 6 games as red, from the same 6 starts: every start twice, colours swapped
    assert len(as_red_a) == len(as_red_b) == 6
    assert sorted(as_red_a) == sorted(as_red_b)
    assert len(set(as_red_a)) == 6  # six different openings
    assert sum((score.red_wins, score.red_draws, score.red_losses)) == 6
    assert sum((score.white_wins, score.white_draws, score.white_losses)) == 6


def test_an_odd_count_is_rounded_up_to_whole_openings():
    assert play_match(RULES, BASELINES["random"], BASELINES["random"], 3, np.random.default_rng(0)).games == 4
    with pytest.raises(ValueError, match="at least one game"):
        play_match(RULES, BASELINES["random"], BASELINES["random"], 0, np.random.default_rng(0))


def test_the_score_counts_colours_and_the_codecup_points_of_each_game():
    rng = np.random.default_rng(5)
    slots = balanced_slots(RULES, "g", "r", 8, rng)
    games = play_batch(RULES, {"g": BASELINES["greedy"], "r": BASELINES["random"]}, slots, rng)
    score = match_score(games, "g")
    mine = [g.points[0] if g.slot.red == "g" else g.points[1] for g in games]
    theirs = [g.points[1] if g.slot.red == "g" else g.points[0] for g in games]
    assert (score.points_a, score.points_b) == (sum(mine), sum(theirs))
    assert score.points_per_game == (sum(mine) / 8, sum(theirs) / 8)
    won = [g.winner == (RED if g.slot.red == "g" else WHITE) for g in games]
    assert score.wins == sum(won) and score.red_won == sum(g.winner == RED for g in games)
    assert match_score(games, "r").wins == score.losses  # the other side of the same games
    assert MatchScore.from_json(score.to_json()) == score


def test_wins_by_colour_and_the_points_of_hand_made_games():
    def game(red, winner, points):
        return MatchGame(Slot(red, "b" if red == "a" else "a", 1, 2), [], winner, points, "end rule")

    games = [game("a", RED, (230, 110)), game("b", RED, (225, 112)), game("a", 0, (118, 118))]
    score = match_score(games, "a")
    assert (score.red_wins, score.red_draws, score.red_losses) == (1, 1, 0)
    assert (score.white_wins, score.white_draws, score.white_losses) == (0, 0, 1)
    assert (score.wins, score.draws, score.losses, score.games) == (1, 1, 1, 3)
    assert score.score == 0.5 and score.red_won == 2 and score.z == 0.0
    assert (score.points_a, score.points_b) == (230 + 112 + 118, 110 + 225 + 118)
    both = score + score
    assert both.games == 6 and both.points_a == 2 * score.points_a and both.interval != score.interval
    line = score.line()
    assert "1-1-1 in 3 games, 50.0%" in line and "as red 1-1-0, as white 0-0-1 (red won 2)" in line


def test_a_player_that_plays_an_illegal_action_forfeits_with_no_points():
    def bad(rules, state, rng):
        return np.full(state.batch_size, rules.num_actions + 3)

    score = play_match(RULES, BASELINES["random"], bad, 4, np.random.default_rng(1))
    assert score.wins == 4 and score.points_b == 0 and score.points_a >= 4 * 200


def test_matches_play_judge_drawn_starts_only():
    pie = Rules(6, "official", "pie")
    with pytest.raises(ValueError, match="judge-drawn"):
        play_match(pie, BASELINES["random"], BASELINES["random"], 2, np.random.default_rng(0))
