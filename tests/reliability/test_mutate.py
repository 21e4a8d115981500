"""The mutation runner (tw_rl.reliability.mutation, scripts/mutate.py): its mutant sets are well
formed; ``-m slow`` runs the rules and bot sets for real (about four minutes each on one free
core) and wants every mutant killed unless marked equivalent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tw_rl.reliability import mutation

ROOT = Path(__file__).resolve().parents[2]
MUTANT_SETS = mutation.mutant_sets()


def test_the_sets_are_package_data_and_the_script_lists_them():
    assert sorted(MUTANT_SETS) == ["bot", "rules"] and mutation.ROOT == ROOT
    listed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "mutate.py"), "--set", "bot", "--list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == len(MUTANT_SETS["bot"])


@pytest.mark.parametrize("name", sorted(MUTANT_SETS))
def test_mutant_sets_are_well_formed(name):
    mutants = MUTANT_SETS[name]
    names = [m.name for m in mutants]
    assert len(names) == len(set(names)), "mutant names are unique"
    for m in mutants:
        assert m.old and m.old != m.new, m.name
        assert m.files and m.tests, m.name
        for files, old, new in m.edits:
            assert old and old != new, m.name
            assert any((ROOT / f).exists() for f in files), f"{m.name}: none of {files} exists"
        for test in m.tests:
            assert (ROOT / test.split("::")[0]).exists(), f"{m.name}: {test}"
        assert not m.equivalent or m.note, f"{m.name}: an equivalent mutant says why"


def test_rules_set_covers_the_planted_bugs():
    mutants = {m.name: m for m in MUTANT_SETS["rules"]}
    assert len(mutants) >= 25
    for planted in (
        "forfeit-territory-swapped-numpy",
        "forfeit-territory-swapped-scalar",
        "forfeit-no-territory-numpy",
        "forfeit-no-territory-scalar",
        "forfeit-territory-swapped-both-engines",
        "forfeit-no-territory-both-engines",
        "sight-scan-last-step-dropped",
    ):
        assert planted in mutants


def test_bot_set_covers_the_planted_bugs():
    """Issue 17's planted bugs: the clock's share, the start-up charge, the protocol's fallback,
    the submission's weights and the CodeCup two-pass end of the numpy engine."""
    mutants = {m.name: m for m in MUTANT_SETS["bot"]}
    for planted in (
        "default-share-95-percent",
        "bot-plans-95-percent",
        "start-up-not-charged",
        "protocol-fallback-removed",
        "submission-renders-no-weights",
        "export-writes-weights-the-bot-would-refuse",
        "two-passes-do-not-end-numpy",
    ):
        assert planted in mutants
    assert not any(m.equivalent for m in mutants.values())


@pytest.mark.parametrize("name", sorted(MUTANT_SETS))
def test_set_snippets_are_in_the_code(name):
    """Every planted bug of every set still applies to the code as it is: a change of the bot or
    of an engine that rewrites one of these lines must update its mutant (else the guard is
    silently lost, as the scalar rules mutants were when the bot's engine became bitboards)."""
    stale = []
    for m in MUTANT_SETS[name]:
        for files, old, _ in m.edits:
            rel, why = mutation.locate(ROOT, files, old)
            if rel is None:
                stale.append(f"{m.name}: {why}")
    assert not stale, "\n".join(stale)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rules", "bot"])
def test_mutants_are_killed(name):
    rows = mutation.run_job(MUTANT_SETS[name], source="worktree", log=lambda text: None)
    assert rows is not None, "the unmutated tests pass"
    report = mutation.format_report(rows)
    bad = [m.name for m, outcome, *_ in rows if outcome in ("stale", "error")]
    bad += [m.name for m, outcome, *_ in rows if outcome == "survived" and not m.equivalent]
    bad += [m.name for m, outcome, *_ in rows if outcome in ("killed", "timeout") and m.equivalent]
    assert not bad, report
