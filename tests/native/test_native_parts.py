"""The native bot's source in parts (tw_rl/native/src) and their assembly: the manifests name every
part once; the assembled files hold every part once, in the manifest's order, with no project
include and no #pragma once left and each standard header once; an include of a part the
manifest does not put before it is refused; every part compiles on its own and the two entry
points by include; the submission compiles warning-free with -march=native too and plays a
whole game as each colour; the tools binary's bench signature is the Python search's."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import pytest
from native_crosscheck import position, random_games, signature, text

from tw_rl.codecup.evaluation import TerritoryEvaluator, default_weights, make_evaluator
from tw_rl.codecup.search import MCTS
from tw_rl.export.submission_check import play_check_game
from tw_rl.native import build

PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s*"')
SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>")
PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once")
PART_LINE = re.compile(r"^// -+ part: (\S+)$", re.MULTILINE)


def _syntax_check(source_text: str, tmp_path, name: str) -> str:
    """The compiler's messages on ``source_text`` (a file in ``tmp_path``), with -I the parts."""
    try:
        compiler = build.compiler()
    except build.CompilerMissing as err:
        pytest.skip(str(err))
    source = tmp_path / f"{name}.cpp"
    source.write_text(source_text)
    done = subprocess.run(
        [compiler, *build.STRICT_FLAGS, "-fsyntax-only", "-I", str(build.PARTS_DIR), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return f"exit {done.returncode}: {done.stderr}" if done.returncode != 0 or done.stderr.strip() else ""


def test_the_manifests_name_every_part_once():
    files = {
        str(path.relative_to(build.PARTS_DIR))
        for path in build.PARTS_DIR.rglob("*")
        if path.suffix in (".hpp", ".cpp")
    }
    assert files == set(build.TOOLS_PARTS) | set(build.SUBMISSION_PARTS)
    for parts in (build.SUBMISSION_PARTS, build.TOOLS_PARTS):
        assert len(set(parts)) == len(parts)
        assert parts[0] == "prelude.hpp" and parts[-1].endswith(".cpp")
        assert [p for p in parts if p.endswith(".cpp")] == [parts[-1]]  # one entry point, last
    assert not any(part.startswith("tools/") for part in build.SUBMISSION_PARTS)


@pytest.mark.parametrize("which", ["submission", "tools"])
def test_the_assembly_holds_every_part_once_in_order(which):
    parts = build.SUBMISSION_PARTS if which == "submission" else build.TOOLS_PARTS
    assembled = build.assemble(parts)
    lines = assembled.splitlines()
    assert PART_LINE.findall(assembled) == list(parts)
    assert not any(PROJECT_INCLUDE.match(line) or PRAGMA_ONCE.match(line) for line in lines)
    headers = Counter(m.group(1) for line in lines if (m := SYSTEM_INCLUDE.match(line)))
    wanted = {
        m.group(1)
        for part in parts
        for line in (build.PARTS_DIR / part).read_text().splitlines()
        if (m := SYSTEM_INCLUDE.match(line))
    }
    assert set(headers) == wanted and max(headers.values()) == 1
    # each part's block is the part: its code lines in order, less its includes and #pragma once
    blocks = re.split(PART_LINE, assembled)[1:]
    for name, block in zip(blocks[0::2], blocks[1::2], strict=True):

        def code(text_):
            return [
                line
                for line in text_.splitlines()
                if line.strip() and not PROJECT_INCLUDE.match(line)
                if not SYSTEM_INCLUDE.match(line) and not PRAGMA_ONCE.match(line)
            ]

        assert code(block) == code((build.PARTS_DIR / name).read_text()), name


def test_an_include_the_manifest_does_not_put_before_is_refused(tmp_path):
    (tmp_path / "a.hpp").write_text('#pragma once\n#include "b.hpp"\nint a();\n')
    (tmp_path / "b.hpp").write_text("#pragma once\nint b();\n")
    with pytest.raises(build.NativeBuildError, match="a.hpp includes b.hpp, which the manifest does not put"):
        build.assemble(("a.hpp", "b.hpp"), tmp_path)
    assert "int a();" in build.assemble(("b.hpp", "a.hpp"), tmp_path)
    with pytest.raises(build.NativeBuildError, match="names a part twice"):
        build.assemble(("b.hpp", "b.hpp"), tmp_path)
    with pytest.raises(build.NativeBuildError, match="cannot read native part c.hpp"):
        build.assemble(("b.hpp", "c.hpp"), tmp_path)


@pytest.mark.parametrize("entry", ["main_play.cpp", "tools/main_tools.cpp"])
def test_the_entry_points_compile_by_include(entry, tmp_path):
    """The parts are ordinary headers: an entry point compiles with -I the parts, warning-free."""
    assert _syntax_check((build.PARTS_DIR / entry).read_text(), tmp_path, "entry") == ""


@pytest.mark.slow
@pytest.mark.parametrize("part", [p for p in build.TOOLS_PARTS if p.endswith(".hpp")])
def test_each_part_compiles_on_its_own(part, tmp_path):
    """Each part includes what it uses: alone in a file, it compiles warning-free."""
    assert _syntax_check(f'#include "{part}"\nint main() {{ return 0; }}\n', tmp_path, "one") == ""


def test_the_submission_compiles_with_march_native_and_plays(native_source, compile_variant, tmp_path):
    fast = compile_variant(
        "submission-march-native", native_source.read_text(), (*build.STRICT_FLAGS, "-march=native")
    )
    for colour in ("red", "white"):
        report = play_check_game([str(fast), "--time", "2"], colour, seed=3, cwd=tmp_path)
        assert report.ok, report.problem
        assert report.answers > 10


@pytest.mark.parametrize("network", [True, False], ids=["student", "territory"])
def test_the_bench_signature_is_the_python_searchs(native_tools_bin, network):
    """--bench chains each search's root visits into one signature: the Python search's, over
    the same positions (a fresh tree, the same simulations each)."""
    sims = 40
    records = [r for r in random_games(3, seed=17) if len(position(r).legal_moves()) > 1][::4]
    evaluator = make_evaluator(default_weights(6), board_size=6) if network else TerritoryEvaluator()
    expected = 0
    for record in records:
        mcts = MCTS(evaluator, reuse=False)
        mcts.search(position(record), max_sims=sims)
        expected = signature(mcts.last_stats, expected)
    options = [] if network else ["--no-weights"]
    done = subprocess.run(
        [str(native_tools_bin), "--bench", str(sims), *options],
        input="".join(text(r) + "\n" for r in records),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(done.stdout)
    assert figures["positions"] == len(records) > 10
    assert figures["signature"] == expected
