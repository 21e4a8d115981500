"""The native bot as a program: whole games as red and white (also with a tiny node pool, which
fills and is compacted; also built with -fsanitize=address,undefined), the protocol's bad inputs
answered exactly as the Python bot answers them, its constants the Python bot's, and its
command-line and weights-file errors one line with exit code 2.  The submission is what plays
here; the tools binary (the same parts with the --test, --bench and --selfplay modes) answers
the --test questions and the self-play options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tw_rl.codecup.clock import DEFAULT_BUDGET, DEFAULT_PER_EMPTY, DEFAULT_SAFETY
from tw_rl.codecup.evaluation import default_weights
from tw_rl.codecup.network import FIXED_BITS, HIDDEN_BITS
from tw_rl.codecup.rules import Board, Position
from tw_rl.codecup.search import DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION
from tw_rl.codecup.weights import FORMAT_VERSION
from tw_rl.export.submission_check import play_check_game
from tw_rl.native import build

B6 = Board(6)
PYTHON_BOT = [sys.executable, "-m", "tw_rl.codecup"]


def run(command, text, timeout=60):
    return subprocess.run(command, input=text, capture_output=True, text=True, timeout=timeout, check=False)


def test_the_constants_are_the_python_bots(native_bin):
    out = run([str(native_bin), "--defaults"], "").stdout
    values = dict(line.split() for line in out.splitlines())
    assert float(values["budget"]) == DEFAULT_BUDGET
    assert float(values["safety"]) == DEFAULT_SAFETY
    assert float(values["per_empty"]) == DEFAULT_PER_EMPTY
    assert float(values["c_puct"]) == DEFAULT_C_PUCT
    assert float(values["fpu_reduction"]) == DEFAULT_FPU_REDUCTION
    assert int(values["fixed_bits"]) == FIXED_BITS
    assert int(values["hidden_bits"]) == HIDDEN_BITS
    assert int(values["format_version"]) == FORMAT_VERSION
    assert values["embedded_weights"] == "1"


@pytest.mark.parametrize("colour", ["red", "white"])
@pytest.mark.parametrize(
    "options", [(), ("--pool-mib", "1"), ("--no-weights",)], ids=["student", "tiny-pool", "territory"]
)
def test_a_whole_game_as_each_colour(native_bin, tmp_path, colour, options):
    report = play_check_game([str(native_bin), "--time", "2", *options], colour, seed=7, cwd=tmp_path)
    assert report.ok, report.problem
    assert report.answers > 10


def test_games_under_address_and_undefined_behaviour_sanitizers(native_source, compile_variant, tmp_path):
    asan = compile_variant(
        "asan",
        native_source.read_text(),
        ("-std=c++17", "-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"),
    )
    for seed, colour, options in ((1, "red", ("--pool-mib", "1")), (2, "white", ())):
        report = play_check_game(
            [str(asan), "--time", "4", *options], colour, seed=seed, cwd=tmp_path, move_timeout=60
        )
        assert report.ok, (report.problem, report.stderr[-2000:])


def _illegal_first_move_for_red():
    pos = Position.start(B6, B6.parse("C3"), B6.parse("H8"))
    legal = set(pos.legal_moves())
    return next(B6.name(c) for c in range(B6.num_cells) if c not in legal)


PROTOCOL_CASES = {
    "garbage": "hello\n",
    "eof-at-once": "",
    "quit-at-once": "Quit\n",
    "same-start-cells": "C3\nC3\nStart\n",
    "centre-start": "F6\nC3\nStart\n",
    "pass-start": "Pass\nC3\nStart\n",
    "lower-case": "c3\nH8\nStart\n",
    "leading-zero": "C03\nH8\nStart\n",
    "off-board": "A9\nH8\nStart\n",
    "long-garbage": "C3\nH8\n" + "x" * 100 + "\n",
    "quoted": "C3\nH8\nit's\n",
    "illegal-first-move": f"C3\nH8\n{_illegal_first_move_for_red()}\n",
    "eof-mid-game": "C3\nH8\nStart\n",
    "quit-mid-game": "C3\nH8\nStart\nQuit\n",
    "blank-lines-and-spaces": "\n\n  C3  \n\nH8\n\n Start\n\nQuit\n",
    "start-then-garbage": "C3\nH8\nStart\nZ99\n",
}


@pytest.mark.parametrize("case", list(PROTOCOL_CASES))
def test_bad_input_is_answered_as_the_python_bot_answers_it(native_bin, case):
    """Same exit code, same stderr, as many answers; no traceback."""
    text = PROTOCOL_CASES[case]
    native = run([str(native_bin), "--no-weights", "--time", "2"], text)
    python = run([*PYTHON_BOT, "--no-weights", "--time", "2"], text)
    assert (native.returncode, native.stderr) == (python.returncode, python.stderr)
    assert len(native.stdout.splitlines()) == len(python.stdout.splitlines())
    assert "Traceback" not in native.stderr


@pytest.mark.parametrize(
    "options",
    [
        ["--time", "0"],
        ["--safety", "1.5"],
        ["--c-puct", "-1"],
        ["--bogus"],
        ["--time", "abc"],
        ["--time"],
        ["--weights", "x.twnet", "--no-weights"],
        ["--size", "8"],
        ["--sims", "0"],
    ],
)
def test_a_bad_option_is_one_line_and_exit_2(native_bin, options):
    done = run([str(native_bin), *options], "")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("tw_rl.native: ")


@pytest.mark.parametrize("options", [["--test"], ["--bench", "10"], ["--selfplay", "1", "--out", "x"]])
def test_the_submission_carries_no_tool_mode(native_bin, tmp_path, options):
    """--test, --bench and --selfplay are the tools binary's: the submission refuses them as any
    unknown option (one line, exit 2) and writes nothing."""
    done = subprocess.run(
        [str(native_bin), *options], input="", capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"tw_rl.native: unrecognized arguments: {options[0]}"]
    assert done.stdout == "" and not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "options",
    [
        ["--temperature-moves", "3"],
        ["--temperature-moves", "8"],  # the default: given is given
        ["--out", "shards"],
        ["--out="],
        ["--generation", "0"],
        ["--worker", "-1"],
        ["--time", "2", "--worker", "1"],
    ],
)
def test_a_self_play_option_without_selfplay_is_a_usage_error(native_tools_bin, tmp_path, options):
    """--out, --temperature-moves, --generation and --worker mean something only with --selfplay:
    without it they are refused (one line naming the option, exit 2), not silently ignored."""
    done = subprocess.run(
        [str(native_tools_bin), *options], input="", capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    name = options[-2] if "=" not in options[-1] else options[-1].split("=")[0]
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"tw_rl.native: argument {name}: not allowed without --selfplay"]
    assert done.stdout == "" and not any(tmp_path.iterdir())


def _damaged(tmp_path, kind):
    data = bytearray(open(default_weights(6), "rb").read())
    if kind == "truncated":
        data = data[:-10]
    elif kind == "flipped":
        data[300] ^= 0xFF
    elif kind == "magic":
        data[0:5] = b"XXXXX"
    path = tmp_path / f"{kind}.twnet"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", ["truncated", "flipped", "magic", "missing"])
def test_a_bad_weights_file_is_refused_as_the_python_bot_refuses_it(native_bin, tmp_path, kind):
    path = tmp_path / "none.twnet" if kind == "missing" else _damaged(tmp_path, kind)
    native = run([str(native_bin), "--weights", str(path)], "")
    python = run([*PYTHON_BOT, "--weights", str(path)], "")
    assert native.returncode == python.returncode == 2
    assert len(native.stderr.splitlines()) == 1
    # the same reason, after each program's name
    assert native.stderr.split(": ", 1)[1].split("(")[0] == python.stderr.split(": ", 1)[1].split("(")[0]


def test_weights_given_at_start_up_are_the_network_it_plays(native_tools_bin):
    """--weights FILE reads a .twnet file: same answers as the embedded copy of the same file."""
    commands = ["eval 30 50 40", "search 50 30 50 40"]
    a = run([str(native_tools_bin), "--test"], "\n".join(commands) + "\n").stdout
    b = run(
        [str(native_tools_bin), "--test", "--weights", default_weights(6)], "\n".join(commands) + "\n"
    ).stdout
    c = run([str(native_tools_bin), "--test", "--no-weights"], "eval 30 50 40\n").stdout
    assert a == b and a.startswith("value ")
    assert c.startswith("error no network loaded")


def test_the_source_compiles_without_weights_too(tmp_path):
    """The submission without weights builds cleanly and plays with the territory evaluator."""
    source = build.build_native_submission(None, tmp_path / "plain.cpp").path
    try:
        binary = build.compile_source(source, tmp_path / "plain", build.STRICT_FLAGS)
    except build.CompilerMissing as err:
        pytest.skip(str(err))
    out = run([str(binary), "--defaults"], "").stdout
    assert "embedded_weights 0" in out
