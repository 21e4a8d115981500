"""The README's commands work as written: the two set-up commands at its top and the walk-through.

The commands are read from README.md itself, from the fenced block after each
``<!-- readme-test: NAME -->`` marker (``quickstart``, ``walkthrough``), so this test follows the
README when it changes, and fails when one of its commands breaks: an option renamed, a subcommand
or a config key gone, a file the next step needs not written.

How each kind of line is treated:

- ``pip install ... && COMMAND`` (the quickstart): the install is not run again (CI ran that very
  line before the suite, and this test runs inside the environment it made); the test checks that
  it names the ``dev`` extra, the torch pin that ``.ci/run`` installs and the torch installed here,
  and runs COMMAND.
- ``python -m pytest``: the suite is not started from inside itself; ``--collect-only`` checks that
  the command as written finds and imports every test.
- ``python scripts/train.py`` overrides: run as written except that the work per generation is
  shrunk to the ``debug=default`` preset's numbers (``TINY_TRAIN`` replaces the values of those
  keys; ``generations`` is kept where the README gives it, 1 otherwise) and the run folder goes to
  a temporary directory. The slow test keeps every value.
- ``tw-rl rate / export / referee``: run as written except for their work (``--games``,
  ``--steps``: ``TINY_OPTIONS``) in the fast test, and the run folder moved to the temporary one.
- ``tw-rl serve``: started with ``--port 0`` added (any free port), asked for the page, its options
  (the README's checkpoint must be offered) and the stored games (the rating run's), then stopped with
  Ctrl-C, which must end it cleanly.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
INSTALL = re.compile(r"^pip install torch==(?P<torch>\S+) -e '\.\[(?P<extra>\w+)\]'$")

# The debug preset's numbers for the keys a README training command may set (configs/debug/default.yaml).
TINY_TRAIN = {
    "net": "tiny",
    "selfplay.games_per_generation": "2",
    "selfplay.parallel_games": "2",
    "search.simulations": "4",
    "search.cheap_simulations": "2",
    "learner.batch_size": "16",
    "learner.min_samples": "16",
    "learner.steps_per_generation": "2",
    "arena.every": "1",
    "arena.games": "2",
    "arena.simulations": "2",
}
TINY_OPTIONS = {"rate": {"--games": "4"}, "export": {"--steps": "10"}, "referee": {"--games": "2"}}


def readme_block(name: str, text: str | None = None) -> list[str]:
    """The commands of the fenced block after ``<!-- readme-test: NAME -->``: continuation lines
    joined, comments and blank lines dropped."""
    text = README.read_text(encoding="utf-8") if text is None else text
    marker = f"<!-- readme-test: {name} -->"
    if marker not in text:
        raise AssertionError(f"README.md has no {marker!r} marker")
    after = text.split(marker, 1)[1].lstrip("\n")
    fence = re.match(r"```\w*\n(.*?)\n```", after, re.S)
    if fence is None:
        raise AssertionError(f"no fenced block right after {marker!r}")
    commands, pending = [], ""
    for line in fence.group(1).splitlines():
        line = line.strip()
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            commands.append(line)
    return commands


def split_install(command: str) -> tuple[str | None, str]:
    """(the pip install part or None, the command after it)."""
    if " && " not in command:
        return None, command
    install, rest = command.split(" && ", 1)
    return install.strip(), rest.strip()


def overrides_of(argv: list[str]) -> dict[str, str]:
    return dict(a.split("=", 1) for a in argv if "=" in a and not a.startswith("-"))


def shrink_train(argv: list[str], run_dir: Path, tiny: bool) -> list[str]:
    """A README ``python scripts/train.py`` command line with its run folder moved to run_dir and,
    if tiny, the work per generation cut to the debug preset's."""
    out = []
    for arg in argv:
        key, eq, value = arg.partition("=")
        if eq and key == "hydra.run.dir":
            continue
        if eq and tiny and key in TINY_TRAIN:
            arg = f"{key}={TINY_TRAIN[key]}"
        out.append(arg)
    given = overrides_of(argv)
    if tiny:
        out += [f"{k}={v}" for k, v in TINY_TRAIN.items() if k not in given]
        if "generations" not in given:
            out.append("generations=1")
    return [*out, "progress=false", f"hydra.run.dir={run_dir}"]


def shrink_options(argv: list[str], subcommand: str) -> list[str]:
    out, options = list(argv), TINY_OPTIONS.get(subcommand, {})
    for i, arg in enumerate(out[:-1]):
        if arg in options:
            out[i + 1] = options[arg]
    return out


def tool(argv: list[str]) -> list[str]:
    """The argv a shell would run: ``python`` is this interpreter, ``tw-rl`` the installed entry
    point (the package's ``__main__`` where the entry point is not on PATH)."""
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    if argv[0] == "tw-rl":
        found = shutil.which("tw-rl")
        return [found, *argv[1:]] if found else [sys.executable, "-m", "tw_rl.cli", *argv[1:]]
    return argv


def run(argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    result = subprocess.run(tool(argv), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"README command failed (exit {result.returncode}): {shlex.join(argv)}\n"
        f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    )
    return result


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert answer.status == 200, url
        return answer.read()


def serve_and_stop(argv: list[str], checkpoint: str | None, timeout: float) -> None:
    """Start ``tw-rl serve`` as written plus ``--port 0``, ask it for the page, its options and the
    stored games, then Ctrl-C it."""
    process = subprocess.Popen(
        tool([*argv, "--port", "0"]), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline, seen = time.monotonic() + timeout, []
        address = None
        while address is None:
            line = process.stdout.readline()
            assert line or process.poll() is None, f"tw-rl serve ended before printing its address: {seen}"
            seen.append(line)
            found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            address = found.group(1) if found else None
            assert time.monotonic() < deadline, f"no address from tw-rl serve: {seen}"
        assert b"<html" in get(address).lower()
        options = json.loads(get(address + "api/options"))
        if checkpoint is not None:
            offered = {Path(str(name)).stem for name in options["checkpoints"]}
            assert Path(checkpoint).stem in offered, f"the README's checkpoint is not offered: {options}"
        stored = json.loads(get(address + "api/stored"))
        assert stored["games"], "the rating run's games are not listed"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0, "tw-rl serve did not stop cleanly on Ctrl-C"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def run_walkthrough(commands: list[str], tmp_path: Path, tiny: bool) -> Path:
    """Run the walk-through's commands in order, its run folder moved under tmp_path."""
    train = [c for c in commands if shlex.split(c)[:2] == ["python", "scripts/train.py"]]
    assert len(train) == 1, f"the walk-through should train once: {commands}"
    readme_dir = overrides_of(shlex.split(train[0])).get("hydra.run.dir")
    assert readme_dir, "the walk-through's training names its run folder (hydra.run.dir=...)"
    run_dir = tmp_path / "run"
    for command in commands:
        # The run folder's name, moved: in arguments and inside quoted program command lines.
        argv = [a.replace(readme_dir, str(run_dir)) for a in shlex.split(command)]
        if argv[:2] == ["python", "scripts/train.py"]:
            run(argv[:2] + shrink_train(argv[2:], run_dir, tiny), timeout=900)
        elif argv[:2] == ["tw-rl", "serve"]:
            options = argv[2:]
            checkpoint = options[options.index("--checkpoint") + 1] if "--checkpoint" in options else None
            if checkpoint is not None:
                assert Path(checkpoint).is_file(), (
                    f"the checkpoint tw-rl serve is given was not written: {checkpoint}"
                )
            serve_and_stop(argv, checkpoint, timeout=120)
        elif argv[0] == "tw-rl":
            run(shrink_options(argv, argv[1]) if tiny else argv, timeout=900)
        else:
            raise AssertionError(f"a walk-through command this test does not know how to run: {command}")
    return run_dir


# ------------------------------------------------------------------ the parser itself


def test_readme_block_joins_continuations_and_drops_comments():
    text = "x\n<!-- readme-test: demo -->\n```bash\n# a comment\nfoo --a 1 \\\n    --b 2\n\nbar\n```\n"
    assert readme_block("demo", text) == ["foo --a 1 --b 2", "bar"]
    with pytest.raises(AssertionError, match="no '<!-- readme-test: other -->'"):
        readme_block("other", text)


def test_shrink_train_keeps_the_readme_keys_and_moves_the_run(tmp_path):
    argv = ["net=tiny", "generations=3", "selfplay.games_per_generation=16", "hydra.run.dir=runs/x"]
    tiny = shrink_train(argv, tmp_path, tiny=True)
    assert "generations=3" in tiny and "selfplay.games_per_generation=2" in tiny
    assert tiny[-1] == f"hydra.run.dir={tmp_path}" and "hydra.run.dir=runs/x" not in tiny
    assert shrink_train(["max_minutes=5"], tmp_path, tiny=False) == [
        "max_minutes=5",
        "progress=false",
        f"hydra.run.dir={tmp_path}",
    ]


# ------------------------------------------------------------------ the README's own commands


def test_quickstart_names_the_install_ci_runs():
    commands = readme_block("quickstart")
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    import torch

    for command in commands:
        install, _ = split_install(command)
        assert install is not None, f"a quickstart command without its set-up: {command}"
        match = INSTALL.match(install)
        assert match, f"not the expected install line: {install}"
        assert match["extra"] in extras, f"pyproject.toml has no extra {match['extra']!r}"
        assert f"torch=={match['torch']} -e '.[{match['extra']}]'" in ci, ".ci/run installs something else"
        assert torch.__version__.split("+")[0] == match["torch"], "the README pins another torch than is here"
    assert any(d.startswith("mkdocs") for d in extras["dev"]), "the dev extra lacks the docs tools"


def test_walkthrough_is_on_the_getting_started_page():
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", page, re.S)
    on_page = {c for b in blocks for c in readme_block("x", f"<!-- readme-test: x -->\n```bash\n{b}\n```")}
    missing = [c for c in readme_block("walkthrough") if c not in on_page]
    assert not missing, f"docs/getting-started.md does not show these README commands: {missing}"


def test_readme_links_point_to_files():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links, "the README links into the docs"
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, f"README links to files that are not there: {missing}"


def test_quickstart_commands(tmp_path):
    """The quickstart's training with the debug preset's work per generation and one generation,
    and the test command's collection (see the module docstring)."""
    for command in readme_block("quickstart"):
        argv = shlex.split(split_install(command)[1])
        if argv[:2] == ["python", "scripts/train.py"]:
            run_dir = tmp_path / "quick"
            run(argv[:2] + shrink_train(argv[2:], run_dir, tiny=True), timeout=600)
            assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["ckpt-g000000.pt"]
            assert any((run_dir / "tb").iterdir()), "no TensorBoard events"
        elif argv[:3] == ["python", "-m", "pytest"]:
            collected = run([*argv, "--collect-only", "-q"], timeout=600)
            assert "tests/test_readme.py" in collected.stdout
        else:
            raise AssertionError(f"a quickstart command this test does not know: {command}")


def test_walkthrough_on_a_tiny_run(tmp_path):
    run_dir = run_walkthrough(readme_block("walkthrough"), tmp_path, tiny=True)
    for made in (
        "checkpoints",
        "selfplay",
        "tb",
        "ratings/ratings.json",
        "submission.py",
        "referee/summary.json",
    ):
        assert (run_dir / made).exists(), f"the walk-through did not make {made}"


@pytest.mark.slow
def test_walkthrough_as_written(tmp_path):
    """Every value as the README gives it (a few minutes); only the run folder is moved."""
    run_dir = run_walkthrough(readme_block("walkthrough"), tmp_path, tiny=False)
    summary = json.loads((run_dir / "referee" / "summary.json").read_text(encoding="utf-8"))
    assert summary, "the referee wrote an empty summary"


@pytest.mark.slow
def test_quickstart_training_as_written(tmp_path):
    """The main job as written (its ``max_minutes=5``), in a temporary run folder."""
    train = [c for c in readme_block("quickstart") if "scripts/train.py" in c]
    argv = shlex.split(split_install(train[0])[1])
    run_dir = tmp_path / "main-job"
    run(argv[:2] + shrink_train(argv[2:], run_dir, tiny=False), timeout=900)
    assert any((run_dir / "checkpoints").iterdir()) and any((run_dir / "tb").iterdir())
    assert (run_dir / "metrics.jsonl").read_text(encoding="utf-8").strip()
