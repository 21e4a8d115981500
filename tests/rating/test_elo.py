"""Bradley-Terry ratings: recovery of known strengths, the first-move term, draws, intervals,
disconnected players and non-existent estimates (a warning, never a wrong number)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tw_rl.rating.elo import fit
from tw_rl.rating.ratings import ELO_PER_LOGIT, Outcome, expected_score, write_ratings

TRUE = {"random": 0.0, "a": 150.0, "b": 320.0, "c": -120.0, "d": 480.0}  # Elo


def synthetic_games(
    strengths: dict[str, float],
    games_per_ordered_pair: int,
    first_move: float,
    rng: np.random.Generator,
    draw_rate: float = 0.0,
    pairs: list[tuple[str, str]] | None = None,
) -> list[Outcome]:
    """Games drawn from the model: P(red scores) = logistic((r_red - r_white + h) / ELO_PER_LOGIT).

    With ``draw_rate`` d, a game is drawn with probability d * 4p(1-p) and decided otherwise,
    keeping red's expected score at p (so 'draws count half' is the right model).
    """
    names = list(strengths)
    if pairs is None:
        pairs = [(a, b) for a in names for b in names if a != b]
    out = []
    for red, white in pairs:
        p = float(expected_score(strengths[red] - strengths[white] + first_move))
        draw = draw_rate * 4 * p * (1 - p)
        u = rng.random(games_per_ordered_pair)
        scores = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
        out += [Outcome(red, white, float(s)) for s in scores]
    return out


def test_ratings_are_recovered_within_their_intervals():
    games = synthetic_games(TRUE, 150, 40.0, np.random.default_rng(1), draw_rate=0.2)
    ratings = fit(games, anchor="random")
    assert not ratings.warnings and not ratings.regularized
    assert ratings.games == len(games) == 20 * 150
    assert [p.name for p in ratings.players] == ["d", "b", "a", "random", "c"]
    assert ratings["random"].elo == 0 and ratings["random"].se == 0
    for name, elo in TRUE.items():
        p = ratings[name]
        assert p.low <= elo <= p.high, (name, elo, p)
        assert p.high - p.low < 80  # 1200 games each: tight
    low, high = ratings.first_move_interval
    assert low <= 40.0 <= high
    # Differences have their own intervals (correlated estimates: not the sum of two widths).
    diff = ratings.difference("d", "b")
    assert diff.low <= TRUE["d"] - TRUE["b"] <= diff.high
    assert diff.elo == pytest.approx(ratings["d"].elo - ratings["b"].elo)
    assert ratings.difference("b", "random").se == pytest.approx(ratings["b"].se)


def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    strengths = {"random": 0.0, "a": 100.0, "b": 250.0}
    hits, total, h_hits = 0, 0, 0
    for _ in range(60):
        ratings = fit(synthetic_games(strengths, 30, 60.0, rng), anchor="random")
        for name in ("a", "b"):
            p = ratings[name]
            hits += p.low <= strengths[name] <= p.high
            total += 1
        d = ratings.difference("b", "a")
        hits += d.low <= 150.0 <= d.high
        total += 1
        low, high = ratings.first_move_interval
        h_hits += low <= 60.0 <= high
    assert 0.88 <= hits / total <= 0.99
    assert h_hits >= 52


def test_the_first_move_term_is_recovered():
    # Two equal players, red wins 70% of the time: h = logit(0.7), ratings equal.
    games = synthetic_games(
        {"random": 0.0, "x": 0.0}, 2000, ELO_PER_LOGIT * math.log(0.7 / 0.3), np.random.default_rng(3)
    )
    ratings = fit(games)
    expected = ELO_PER_LOGIT * math.log(0.7 / 0.3)
    low, high = ratings.first_move_interval
    assert low <= expected <= high
    assert abs(ratings.first_move - expected) < 30
    assert ratings["x"].low <= 0 <= ratings["x"].high
    # Exact: with every result the same for both colours, there is no first-move advantage.
    same = [Outcome("random", "x", 1.0), Outcome("x", "random", 0.0)] * 3 + [
        Outcome("random", "x", 0.0),
        Outcome("x", "random", 1.0),
    ]
    assert fit(same).first_move == pytest.approx(0.0, abs=1e-6)


def test_draws_count_half():
    # x scores 3/4 with both colours (5 wins and 5 draws each): p = 0.75, h = 0.
    games = [Outcome("x", "random", 1.0)] * 5 + [Outcome("x", "random", 0.5)] * 5
    games += [Outcome("random", "x", 0.0)] * 5 + [Outcome("random", "x", 0.5)] * 5
    ratings = fit(games)
    assert ratings["x"].elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings.first_move == pytest.approx(0.0, abs=1e-6)
    assert ratings["x"].score == pytest.approx(0.75)
    # Only draws: equal ratings, no first-move advantage, finite intervals.
    draws = fit([Outcome("random", "x", 0.5), Outcome("x", "random", 0.5)] * 4)
    assert draws["x"].elo == pytest.approx(0.0, abs=1e-9) and math.isfinite(draws["x"].se)
    assert not draws.warnings
    with pytest.raises(ValueError, match="score"):
        fit([("random", "x", 0.3)])


def test_the_fit_of_a_known_small_case():
    # x wins 3 of 4 with either colour: r_x = ln 3 and h = 0 at the optimum, where every game has
    # p(1 - p) = 3/16. The information of (r_x, h) is 4 * 3/16 * ((1, 1)(1, 1)' + (-1, 1)(-1, 1)')
    # = 1.5 I, so both standard errors are sqrt(2/3) logits.
    games = [Outcome("x", "random", 1.0)] * 3 + [Outcome("x", "random", 0.0)]
    games += [Outcome("random", "x", 0.0)] * 3 + [Outcome("random", "x", 1.0)]
    ratings = fit(games)
    se = math.sqrt(2 / 3) * ELO_PER_LOGIT
    assert ratings["x"].elo == pytest.approx(math.log(3) * ELO_PER_LOGIT, abs=1e-6)
    assert ratings["x"].se == pytest.approx(se, rel=1e-6)
    assert ratings.first_move == pytest.approx(0.0, abs=1e-6)
    assert ratings.first_move_se == pytest.approx(se, rel=1e-6)
    assert ratings["x"].high - ratings["x"].low == pytest.approx(2 * 1.959964 * se, rel=1e-5)
    assert ratings["random"].elo == 0 and ratings["random"].se == 0
    assert [p.name for p in ratings.players] == ["x", "random"] and ratings["x"].rank == 1
    assert ratings.games == 8 and not ratings.warnings and not ratings.regularized


def test_disconnected_players_get_a_warning_not_a_wrong_number():
    rng = np.random.default_rng(5)
    main = synthetic_games({"random": 0.0, "a": 200.0}, 100, 0.0, rng)
    other = synthetic_games({"p": 0.0, "q": 300.0}, 100, 0.0, rng)
    ratings = fit(main + other, anchor="random")
    alone = fit(main, anchor="random")
    # The anchor's component is rated exactly as without the others.
    assert ratings["a"].elo == pytest.approx(alone["a"].elo)
    assert ratings["a"].se == pytest.approx(alone["a"].se)
    assert ratings["a"].component == 0
    # The others: their own scale, flagged, never compared with the anchor's.
    assert {ratings["p"].component, ratings["q"].component} == {1}
    # The reference of a component: its player with the most games, the last name on a tie (200 each).
    assert ratings["p"].games == ratings["q"].games == 200
    assert ratings["p"].reference == ratings["q"].reference == "q"
    assert ratings["q"].elo == 0 and ratings["q"].se == 0 and ratings["p"].elo < -150
    assert ratings.difference("a", "q") is None
    assert not ratings.connected("random", "p")
    assert ratings.difference("q", "p") is not None
    assert any("not connected to random" in w for w in ratings.warnings)
    table = ratings.table()
    assert "component 1: not connected to random" in table and "warning:" in table
    # An anchor without games: every component is flagged.
    lonely = fit(other, anchor="random")
    assert any("anchor 'random' has no games" in w for w in lonely.warnings)
    assert all(p.component >= 1 for p in lonely.players)
    # A listed player without games is reported, not rated.
    listed = fit(main, anchor="random", players=["random", "a", "newcomer"])
    assert "newcomer" not in listed and any("newcomer has no games" in w for w in listed.warnings)


def test_a_player_who_won_every_game_gets_a_finite_rating_and_a_warning():
    games = [Outcome("a", "random", 1.0), Outcome("random", "a", 0.0)] * 5
    ratings = fit(games)
    assert ratings.regularized
    assert any("no maximum-likelihood ratings exist (a won every game" in w for w in ratings.warnings)
    p = ratings["a"]
    assert math.isfinite(p.elo) and p.elo > 200 and math.isfinite(p.high)
    # Red always won: the first-move term alone would run to infinity.
    red_wins = [Outcome("a", "random", 1.0), Outcome("random", "a", 1.0)] * 5
    assert fit(red_wins).regularized
    # A subtler case: x-y is 1-1 with x red, y won as red; red only ever scores.
    assert fit([("x", "y", 1.0), ("y", "x", 1.0), ("x", "y", 0.0), ("random", "x", 0.5)]).regularized


def test_table_csv_and_json(tmp_path):
    games = synthetic_games({"random": 0.0, "greedy": 50.0}, 20, 0.0, np.random.default_rng(2), draw_rate=0.3)
    ratings = fit(games)
    table = ratings.table()
    assert table.splitlines()[0] == "ratings (Elo, random = 0)"
    assert "first move (red) advantage" in table
    csv_path, json_path = write_ratings(ratings, tmp_path)
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "rank,name,elo,se,low,high,games,score,component,reference"
    assert len(rows) == 3
    data = json.loads(json_path.read_text())
    assert data["anchor"] == "random" and len(data["players"]) == 2
    assert data["players"][0]["rank"] == 1
    assert {"elo", "low", "high", "se"} <= set(data["first_move"])


def test_a_fit_of_many_players_converges():
    rng = np.random.default_rng(9)
    strengths = {f"p{i}": float(v) for i, v in enumerate(rng.normal(0, 300, size=40))}
    strengths["random"] = 0.0
    names = list(strengths)
    pairs = [(names[i], names[(i + k) % len(names)]) for i in range(len(names)) for k in (1, 2, 3)]
    pairs += [(b, a) for a, b in pairs]
    ratings = fit(synthetic_games(strengths, 20, 30.0, rng, pairs=pairs))
    assert len(ratings.players) == 41 and not ratings.warnings and not ratings.regularized
    assert {p.name for p in ratings.players} == set(strengths)
    # Every one of the 41 true ratings lies in its 95% interval (this seed; about 2 of 40 would
    # miss by chance on another), and the intervals are not so wide that this says nothing.
    missed = [
        (name, true, ratings[name].low, ratings[name].high)
        for name, true in strengths.items()
        if not ratings[name].low <= true <= ratings[name].high
    ]
    assert not missed
    assert ratings["random"].elo == 0 and ratings["random"].se == 0
    assert all(0 < ratings[name].high - ratings[name].low < 450 for name in strengths if name != "random")
    low, high = ratings.first_move_interval
    assert low <= 30.0 <= high
    # The order is recovered too, apart from close pairs: rank correlation above 0.95.
    true_rank = np.argsort(np.argsort([strengths[n] for n in strengths]))
    fitted_rank = np.argsort(np.argsort([ratings[n].elo for n in strengths]))
    assert np.corrcoef(true_rank, fitted_rank)[0, 1] > 0.95
