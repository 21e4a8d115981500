"""The native bot agrees with the Python bot: rules (legal moves, sight, territory, end, score),
the student network and the territory evaluator (policy and value), and the search's choice at a
fixed simulation count.  The normal run checks a sample; ``-m slow`` the issue's full sizes
(10,000+ rules positions, 1,000 network positions, 500 searches)."""

from __future__ import annotations

import random

import pytest
from native_crosscheck import evaluation_gaps, random_games, rules_disagreements, search_agreement


def sample(records, count, seed):
    return random.Random(seed).sample(records, min(count, len(records)))


def test_rules_agree_on_random_games(native_tools_bin):
    records = random_games(16, seed=11)  # ~1,150 positions, ends included
    assert len(records) > 1000
    assert rules_disagreements(native_tools_bin, records) == []


@pytest.mark.slow
def test_rules_agree_on_10000_positions(native_tools_bin):
    records = random_games(150, seed=12)
    assert len(records) >= 10_000
    assert rules_disagreements(native_tools_bin, records) == []


@pytest.mark.parametrize("network", [True, False], ids=["student", "territory"])
def test_evaluators_agree(native_tools_bin, network):
    records = sample(random_games(20, seed=21), 150, seed=1)
    gaps = evaluation_gaps(native_tools_bin, records, network)
    assert len(gaps) > 100
    assert max(gaps) <= 1e-4


@pytest.mark.slow
def test_network_agrees_on_1000_positions(native_tools_bin):
    records = sample(random_games(60, seed=22), 1000, seed=2)
    gaps = evaluation_gaps(native_tools_bin, records, network=True)
    assert len(gaps) >= 950
    assert max(gaps) <= 1e-4


@pytest.mark.parametrize("network", [True, False], ids=["student", "territory"])
def test_search_picks_the_python_move(native_tools_bin, network):
    """Same move in at least 98% of the positions (measured: all, and the same root visit counts)."""
    records = sample(random_games(10, seed=31), 40, seed=3)
    same_move, same_sig, n = search_agreement(native_tools_bin, records, sims=60, network=network)
    assert n >= 30
    assert same_move >= 0.98 * n
    assert same_sig >= 0.98 * n


@pytest.mark.slow
def test_search_picks_the_python_move_in_500_positions(native_tools_bin):
    records = sample(random_games(40, seed=32), 520, seed=4)
    same_move, same_sig, n = search_agreement(native_tools_bin, records[:520], sims=200)
    assert n >= 500
    assert same_move >= 0.98 * n


def test_a_planted_territory_bug_is_caught(native_tools_source, compile_variant):
    """The cross-check notices a mutant whose territory leaves out the first filler's last
    reinforcement heights (a one-line change)."""
    text = native_tools_source.read_text()
    planted = text.replace("    Bits fix = first & up & ~sui;\n", "    Bits fix = zero_bits();\n")
    assert planted != text
    mutant = compile_variant("mutant-territory", planted)
    assert rules_disagreements(mutant, random_games(5, seed=11))


def test_a_planted_legality_bug_is_caught(native_tools_source, compile_variant):
    """... and a mutant that forgets CodeCup's no-suicide rule for red."""
    text = native_tools_source.read_text()
    old = "return colour == RED ? info.red_up & ~info.white_more : info.white_up & ~info.red_more;"
    assert old in text
    mutant = compile_variant(
        "mutant-legal", text.replace(old, old.replace("info.red_up & ~info.white_more", "info.red_up"))
    )
    assert rules_disagreements(mutant, random_games(3, seed=13))


def test_march_native_build_answers_alike(native_tools_source, native_tools_bin, compile_variant):
    """Built with -march=native (any faster instructions) the bot says exactly the same."""
    from tw_rl.native import build

    fast = compile_variant(
        "march-native", native_tools_source.read_text(), (*build.STRICT_FLAGS, "-march=native")
    )
    records = sample(random_games(8, seed=41), 120, seed=5)
    from native_crosscheck import ask, text

    commands = ["rules " + text(r) for r in records] + [f"search 40 {text(r)}" for r in records[:30]]
    commands += ["eval " + text(r) for r in records[:60]]
    assert ask(fast, commands) == ask(native_tools_bin, commands)
