"""The players' syntax in the help texts is the player registry's: ``tw-rl rate --help`` names
every registered kind (one registered at test time too), ``tw-rl referee --help`` spells a
release as the registry does, ``tw-rl serve --help`` the page's bots as ``tw_rl.web.bot_syntax``
does, and both load without torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tw_rl import cli
from tw_rl.core.baselines import BASELINES
from tw_rl.rating import kinds
from tw_rl.rating.player_kinds import Release
from tw_rl.rating.player_specs import syntax_help
from tw_rl.web import bot_syntax


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


def test_rate_help_names_every_registered_kind(capsys):
    text = help_of(capsys, "rate")
    registered = [k for k in kinds.kinds() if k.syntax]
    built_in = {"baseline", "checkpoint", "student", "program", "weights", "release"}
    assert {k.name for k in registered} >= built_in
    for kind in registered:
        assert " ".join(kind.syntax.split()) in text, kind.name
        assert " ".join(kind.summary.split()) in text, kind.name
    assert "NAME=... names a player" in text


def test_a_kind_registered_later_is_in_the_help(capsys, echo_kind):
    assert "echo-test:WORD (a kind registered by this test)" in syntax_help()
    assert "echo-test:WORD (a kind registered by this test)" in help_of(capsys, "rate")


def test_every_built_in_kind_says_what_it_is():
    for kind in kinds.kinds():
        assert kind.syntax and kind.summary, kind.name


def test_referee_help_spells_a_release_as_the_registry(capsys):
    text = help_of(capsys, "referee")
    assert Release.syntax in text and Release.summary in text


def test_serve_help_spells_the_bots_as_the_page(capsys):
    text = help_of(capsys, "serve")
    assert " ".join(bot_syntax.SYNTAX.split()) in text and f"default {bot_syntax.DEFAULT_BOT}" in text
    assert all(name in bot_syntax.SYNTAX for name in BASELINES)


def test_the_syntax_loads_without_torch():
    code = (
        "import sys; from tw_rl.rating.player_specs import syntax_help; syntax_help(); "
        "import tw_rl.web.bot_syntax; "
        "print([m for m in ('torch', 'gymnasium', 'hydra', 'starlette') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
