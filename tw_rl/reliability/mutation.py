"""The mutation runner: plant known bugs one at a time and see whether the tests notice.

Each mutant is an exact snippet of a source file and its replacement. The job copies the
repository's ``tw_rl``, ``tests`` and ``pyproject.toml`` into a temporary folder (``head``: the
last commit, via ``git archive``; ``worktree``: the files as they are now), checks that Python
run there imports ``tw_rl`` from the copy and not from the installed (editable) package, runs
the tests once unmutated (they must pass), then for every mutant: writes the mutated file, runs
the mutant's tests with pytest (``-x``), and puts the file back. No bytecode is written, so a
mutant never runs stale ``.pyc`` files.

Outcome per mutant: ``killed`` (a test failed, or collection failed), ``survived`` (all passed),
``stale`` (the snippet is not in any of its files, or is there more than once), ``timeout``
(counted as killed: the tests noticed something), ``error`` (pytest could not run). A mutant
marked ``equivalent`` is expected to survive; its ``note`` says why.

The mutant sets are data: ``mutants/<set>.json`` beside this module (package data), a list of
``{"name", "files", "old", "new", "tests", "equivalent"?, "note"?, "more"?}`` records
(``more``: further ``{"files", "old", "new"}`` edits of the same mutant); ``rules`` (the rules
engines and the referee's scoring) and ``bot`` (the bot's clock share and start-up charge, the
protocol's fallback, the submission's embedded weights, the two-pass end). ``mutant_sets()``
reads them. The job works on a source checkout (``ROOT``: the folder above the package).
``scripts/mutate.py`` is its command line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("tw_rl", "tests", "pyproject.toml")
MUTANTS_DIR = Path(__file__).resolve().with_name("mutants")


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in the first of ``files`` that holds ``old`` (exactly once), write ``new``."""

    name: str
    files: tuple[str, ...]  # candidate paths, relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]  # test files (or node ids) to run against it
    equivalent: bool = False  # expected to survive: ``note`` says why
    note: str = ""
    more: tuple[tuple[tuple[str, ...], str, str], ...] = ()  # further (files, old, new) edits, same mutant

    @property
    def edits(self) -> list[tuple[tuple[str, ...], str, str]]:
        return [(self.files, self.old, self.new), *self.more]

    @classmethod
    def from_record(cls, record: dict) -> Mutant:
        """A mutant from its JSON record (``mutants/<set>.json``)."""
        more = tuple((tuple(e["files"]), e["old"], e["new"]) for e in record.get("more", ()))
        return cls(
            name=record["name"],
            files=tuple(record["files"]),
            old=record["old"],
            new=record["new"],
            tests=tuple(record["tests"]),
            equivalent=bool(record.get("equivalent", False)),
            note=record.get("note", ""),
            more=more,
        )


def mutant_sets(folder: Path = MUTANTS_DIR) -> dict[str, list[Mutant]]:
    """Every mutant set of the folder, by name (the file's stem)."""
    sets = {}
    for path in sorted(folder.glob("*.json")):
        sets[path.stem] = [Mutant.from_record(r) for r in json.loads(path.read_text(encoding="utf-8"))]
    return sets


# ------------------------------------------------------------------------------------ the job


def make_copy(source: str, dest: Path) -> None:
    """The repository's tw_rl, tests and pyproject.toml in ``dest`` (from HEAD or as they are)."""
    dest.mkdir(parents=True)
    if source == "head":
        archive = subprocess.run(
            ["git", "archive", "HEAD", *COPIED], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    else:
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.egg-info")
        for name in COPIED:
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, dest / name, ignore=ignore)
            else:
                shutil.copy2(path, dest / name)
    for cache in list(dest.rglob("__pycache__")):
        shutil.rmtree(cache)


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(copy / "tests")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def check_shadowing(copy: Path, env: dict[str, str]) -> str:
    """Where ``import tw_rl`` resolves inside the copy; SystemExit if not to the copy."""
    code = "import tw_rl, tw_rl.core.rules as r; print(tw_rl.__file__); print(r.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=copy, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    for path in out:
        if not Path(path).resolve().is_relative_to(copy.resolve()):
            raise SystemExit(f"tw_rl is imported from {path}, not from the copy {copy}: cannot mutate")
    return out[1]


def run_tests(copy: Path, env: dict[str, str], tests: tuple[str, ...], timeout: float) -> tuple[int, str]:
    """pytest's exit status (-1 on a time-out) and its output."""
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", *tests]
    try:
        proc = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:g} s"
    return proc.returncode, proc.stdout + proc.stderr


def last_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else ""


Row = tuple[Mutant, str, str, str, float]  # mutant, outcome, file, detail, seconds


def first_failure(output: str) -> str:
    """The first failing test (or collection error) of a pytest run, shortened."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0].split("::", 1)[-1][:100]
    return last_line(output)[:100]


def locate(copy: Path, files: tuple[str, ...], old: str) -> tuple[str | None, str]:
    """The first of ``files`` holding ``old`` exactly once, or (None, why not)."""
    for rel in files:
        path = copy / rel
        if path.exists():
            count = path.read_text(encoding="utf-8").count(old)
            if count == 1:
                return rel, ""
            if count > 1:
                return None, f"snippet found {count} times in {rel}"
    return None, f"snippet not found in {' or '.join(files)}"


def mutate_one(copy: Path, env: dict[str, str], mutant: Mutant, timeout: float) -> tuple[str, str, str]:
    """(outcome, file(s), detail) for one mutant; the copy is left as it was."""
    targets = []
    for files, old, new in mutant.edits:
        rel, why = locate(copy, files, old)
        if rel is None:
            return "stale", files[0], why
        targets.append((rel, old, new))
    originals = {rel: (copy / rel).read_text(encoding="utf-8") for rel, _, _ in targets}
    where = "+".join(dict.fromkeys(rel for rel, _, _ in targets))
    try:
        for rel, old, new in targets:
            path = copy / rel
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        status, output = run_tests(copy, env, mutant.tests, timeout)
    finally:
        for rel, text in originals.items():
            (copy / rel).write_text(text, encoding="utf-8")
    if status == -1:
        return "timeout", where, output
    if status == 0:
        return "survived", where, last_line(output)
    if status in (1, 2):  # a failing test, or a collection error (the mutant broke an import)
        return "killed", where, first_failure(output)
    return "error", where, f"pytest exit {status}: {last_line(output)}"


def format_report(rows: list[Row]) -> str:
    width = max(len(m.name) for m, *_ in rows)
    lines = [f"{'mutant':<{width}}  {'outcome':<9} {'expected':<10} {'sec':>5}  file / detail"]
    for mutant, outcome, rel, detail, seconds in rows:
        expected = "equivalent" if mutant.equivalent else "killed"
        flag = ""
        if outcome == "survived" and not mutant.equivalent:
            flag = "  <-- SURVIVED"
        elif outcome in ("killed", "timeout") and mutant.equivalent:
            flag = "  <-- killed although marked equivalent"
        elif outcome in ("stale", "error"):
            flag = "  <-- " + outcome.upper()
        why = mutant.note if (mutant.equivalent and outcome == "survived") else detail
        lines.append(
            f"{mutant.name:<{width}}  {outcome:<9} {expected:<10} {seconds:5.1f}  {rel}: {why}{flag}"
        )
    counts = {
        k: sum(1 for _, o, *_ in rows if o == k) for k in ("killed", "timeout", "survived", "stale", "error")
    }
    unexpected = sum(1 for m, o, *_ in rows if o == "survived" and not m.equivalent)
    lines.append(
        f"{len(rows)} mutants: {counts['killed'] + counts['timeout']} killed, {counts['survived']} survived "
        f"({counts['survived'] - unexpected} marked equivalent, {unexpected} unexpected), "
        f"{counts['stale']} stale, {counts['error']} error"
    )
    return "\n".join(lines)


def run_job(
    mutants: list[Mutant], source: str = "head", timeout: float = 600.0, keep: bool = False, log=print
) -> list[Row] | None:
    """Run every mutant on a fresh copy; None when the unmutated tests fail."""
    work = Path(tempfile.mkdtemp(prefix="tw_mutate_"))
    copy = work / "repo"
    try:
        make_copy(source, copy)
        env = environment(copy)
        where = check_shadowing(copy, env)
        log(f"copy of {source} in {copy}; tw_rl.core.rules imported from {where}")
        all_tests = tuple(sorted({t for m in mutants for t in m.tests}))
        start = time.monotonic()
        status, tail = run_tests(copy, env, all_tests, timeout)
        log(f"unmutated: {' '.join(all_tests)}: {last_line(tail)} ({time.monotonic() - start:.1f} s)")
        if status != 0:
            return None
        rows = []
        for mutant in mutants:
            start = time.monotonic()
            outcome, rel, detail = mutate_one(copy, env, mutant, timeout)
            seconds = time.monotonic() - start
            rows.append((mutant, outcome, rel, detail, seconds))
            log(f"  {mutant.name}: {outcome} ({seconds:.1f} s)")
        return rows
    finally:
        if keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
