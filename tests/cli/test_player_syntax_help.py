"""The players' syntax in the help texts is the player registry's: ``tw-rl evaluate --help`` names
every registered kind (one registered at test time too), ``tw-rl referee --help`` spells a
release as the registry does, and the registry loads without torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tw_rl import cli
from tw_rl.rating import kinds
from tw_rl.rating.player_kinds import Release
from tw_rl.rating.player_specs import syntax_help


def help_of(capsys, *command: str) -> str:
    """The help text of a subcommand, its white space made single spaces (argparse wraps it)."""
    assert cli.main([*command, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


class Echo(kinds.PlayerKind):
    name = "echo-test"
    words = ("echo-test",)
    syntax = "echo-test:WORD"
    summary = "a kind registered by this test"


@pytest.fixture
def echo_kind():
    kinds.register(Echo())
    yield
    kinds.unregister(Echo.name)


def test_evaluate_help_names_every_registered_kind(capsys):
    text = help_of(capsys, "evaluate")
    registered = [k for k in kinds.kinds() if k.syntax]
    built_in = {"baseline", "checkpoint", "student", "program", "weights", "release"}
    assert {k.name for k in registered} >= built_in
    for kind in registered:
        assert " ".join(kind.syntax.split()) in text, kind.name
        assert " ".join(kind.summary.split()) in text, kind.name
    assert "NAME=... names a player" in text


def test_a_kind_registered_later_is_in_the_help(capsys, echo_kind):
    assert "echo-test:WORD (a kind registered by this test)" in syntax_help()
    assert "echo-test:WORD (a kind registered by this test)" in help_of(capsys, "evaluate")


def test_every_built_in_kind_says_what_it_is():
    for kind in kinds.kinds():
        assert kind.syntax and kind.summary, kind.name


def test_referee_help_spells_a_release_as_the_registry(capsys):
    text = help_of(capsys, "referee")
    assert Release.syntax in text and Release.summary in text


def test_the_registry_loads_without_torch():
    code = (
        "import sys; from tw_rl.rating.player_specs import syntax_help; syntax_help(); "
        "print([m for m in ('torch', 'gymnasium', 'hydra') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
