"""Build the one-file CodeCup submission from the ``tw_rl.codecup`` sources (``tw-rl export``).

The CodeCup takes ONE Python source file (at most ``SIZE_LIMIT`` bytes) that may use the
standard library only.  ``build_submission`` generates it afresh from the package every time;
there is no hand-kept copy to drift out of date.

Design: embedded sources, not concatenation.  Every module of ``tw_rl/codecup`` (found with
``pkgutil.iter_modules``, so a new module is picked up without a list to update) is stored
verbatim as a string in a dict ``_SOURCES`` keyed by its dotted name.  A short bootstrap puts
a ``sys.meta_path`` finder/loader first in line that serves ``tw_rl``, ``tw_rl.codecup`` and
``tw_rl.codecup.*`` from that dict (``tw_rl`` itself is a stub package: the real
``tw_rl/__init__.py`` belongs to the numpy side and is not embedded), then calls the package's
``main`` (``tw_rl/codecup/__main__.py``) with the submission's own ``sys.argv`` and its
embedded weights.  So the submission takes exactly the options of ``python -m tw_rl.codecup`` and
plays the default bot without any.  Why not concatenate modules in dependency order: the
modules would share one namespace (``_read``, ``RED``, helpers with equal names clash), every
``from tw_rl.codecup.x import y`` line would have to be rewritten, and tracebacks would point
into a 1,500-line blob.  Here the code runs unchanged, each module keeps its namespace, and
tracebacks name ``<embedded>/tw_rl/codecup/<module>.py`` (the ``traceback`` module also shows
the source line: the loader has ``get_source``).  The exporter checks (by AST) that every
embedded module imports only the standard library and embedded modules; anything else is an
error before a file is written.

Weights: ``--weights FILE`` embeds the file's bytes base64-encoded (``_WEIGHTS_B64``, with
its base name in ``_WEIGHTS_NAME``).  At start-up the bootstrap decodes them and hands the bytes
themselves to the bot, ``main(argv, embedded_weights=...)`` of ``tw_rl.codecup.__main__``, where
they stand in for the shipped student (the codecup seam takes a weights file's path or its
bytes, ``weights.load_weights``, with the same checks either way).  No file is written, so the
submission plays with its network even where no temporary folder is writable; a ``--weights
FILE`` or ``--no-weights`` on the user's command line still wins.  A weights file the bot would
refuse (damaged, wrong format version, board size, architecture or checksum) is refused by the
exporter with one line, and nothing is written: a submission that dies before its first move is
the worst outcome in a competition.

The output is deterministic for given sources, weights and git state (no time stamp), written
atomically (temporary file beside it, then ``os.replace``), and refused with one line when it
would exceed ``SIZE_LIMIT``.  ``tw_rl.export.submission_check`` plays a built file through whole
games (``tw-rl export --check``).

This module stays light: standard library plus ``tw_rl.codecup`` (itself standard library).
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import pkgutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tw_rl.codecup.evaluation import make_evaluator
from tw_rl.codecup.weights import CODECUP_SIZE
from tw_rl.files import same_bytes, write_atomic

PACKAGE = "tw_rl.codecup"
ROOT_PACKAGE = "tw_rl"
SIZE_LIMIT = 1_474_560  # bytes: the CodeCup's limit on a submitted source file
BOARD_SIZE = CODECUP_SIZE  # cells per side of the CodeCup board, where the submission plays
_ROOT_STUB = '"""tw_rl reduced to the CodeCup bot (a stub package made by tw-rl export)."""\n'


class SubmissionError(Exception):
    """The submission cannot be built (bad weights file, non-stdlib import, too large, I/O)."""


@dataclass
class SubmissionInfo:
    """What ``build_submission`` wrote."""

    path: Path
    size: int  # bytes
    modules: tuple[str, ...]  # dotted names embedded, the tw_rl stub first
    weights: tuple[str, int] | None  # (file name, bytes) when a weights file is embedded
    sha256: str
    version: str
    commit: str | None

    def summary_lines(self) -> list[str]:
        lines = [
            f"wrote {self.path}: {self.size:,} bytes (CodeCup limit {SIZE_LIMIT:,}), sha256 {self.sha256}",
            f"modules ({len(self.modules)}): {', '.join(self.modules)}",
        ]
        if self.weights is None:
            lines.append("weights: none")
        else:
            lines.append(f"weights: {self.weights[0]} ({self.weights[1]:,} bytes, embedded as base64)")
        return lines


# ------------------------------------------------------------------------------ sources


def _collect(package: str, sources: dict[str, str], packages: set[str]) -> None:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None:
        raise SubmissionError(f"{package} is not a package")
    source = spec.loader.get_source(package) if spec.loader is not None else None
    if source is None:
        raise SubmissionError(f"no source for {package}")
    sources[package] = source
    packages.add(package)
    for info in sorted(pkgutil.iter_modules(spec.submodule_search_locations), key=lambda i: i.name):
        if not info.name.isidentifier():
            continue
        name = f"{package}.{info.name}"
        if info.ispkg:
            _collect(name, sources, packages)
            continue
        sub = info.module_finder.find_spec(name)
        source = sub.loader.get_source(name) if sub is not None and sub.loader is not None else None
        if source is None:
            raise SubmissionError(f"{name} has no Python source (an extension module cannot be embedded)")
        sources[name] = source


def package_sources(package: str = PACKAGE) -> tuple[dict[str, str], set[str]]:
    """({dotted name: source} of the package and all its modules, {package names})."""
    sources: dict[str, str] = {}
    packages: set[str] = set()
    _collect(package, sources, packages)
    return sources, packages


def _check_imports(sources: dict[str, str], packages: set[str]) -> None:
    """Every import is standard library or an embedded module; else SubmissionError."""
    stdlib = sys.stdlib_module_names
    for name, source in sources.items():
        try:
            tree = ast.parse(source, filename=name)
        except SyntaxError as err:
            raise SubmissionError(f"{name} does not compile: {err}") from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against the module's package
                    base = name if name in packages else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    module = f"{base}.{node.module}" if node.module else base
                else:
                    module = node.module or ""
                targets = [module]
                if module in packages:  # from pkg import submodule
                    targets += [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in sources]
            else:
                continue
            for target in targets:
                top = target.partition(".")[0]
                if top == ROOT_PACKAGE:
                    if target not in sources:
                        raise SubmissionError(
                            f"{name} (line {node.lineno}) imports {target}, which is not embedded"
                        )
                elif top not in stdlib:
                    raise SubmissionError(
                        f"{name} (line {node.lineno}) imports {target}: not in the standard library"
                    )


def _literal(source: str) -> str:
    """A Python literal for ``source``: a readable raw triple-quoted string when exact, else repr."""
    if "'''" not in source and not source.endswith("\\") and "\r" not in source:
        candidate = "r'''" + source + "'''"
        try:
            if ast.literal_eval(candidate) == source:
                return candidate
        except (SyntaxError, ValueError):
            pass
    return repr(source)


# ------------------------------------------------------------------------------ metadata


def package_version() -> str:
    """The installed tw_rl version, or 'unknown'."""
    try:
        return metadata.version(ROOT_PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state() -> str | None:
    """'<commit>' or '<commit> (tw_rl/codecup has uncommitted changes)'; None outside git."""
    codecup = Path(__file__).resolve().parents[1] / "codecup"
    commit = _git(["rev-parse", "HEAD"], codecup)
    if not commit:
        return None
    dirty = _git(["status", "--porcelain", "--", "."], codecup)
    return f"{commit} (tw_rl/codecup has uncommitted changes)" if dirty else commit


# ------------------------------------------------------------------------------ bootstrap

_HEADER = """\
#!/usr/bin/env python3
# Tumbleweed CodeCup submission: the tw_rl.codecup bot in one file, standard library only.
# tw_rl version {version}; git commit {commit}.
# Modules: {modules}.
# Weights: {weights}.
# Generated by tw-rl export; do not edit.  Rebuild with: tw-rl export [--weights FILE]
# Usage: python3 submission.py [the options of python -m tw_rl.codecup]; none plays the default bot.
"""

_BOOTSTRAP = '''
import sys

_PACKAGES = {packages!r}
_WEIGHTS_NAME = {weights_name!r}  # the embedded weights file's name; the bot gets its bytes (_weights)


def _install():
    """Serve tw_rl, tw_rl.codecup and tw_rl.codecup.* from _SOURCES, ahead of any other finder."""
    import importlib.abc
    import importlib.util

    class EmbeddedImporter(importlib.abc.MetaPathFinder, importlib.abc.InspectLoader):
        def find_spec(self, fullname, path=None, target=None):
            if fullname not in _SOURCES:
                return None
            spec = importlib.util.spec_from_loader(
                fullname, self, origin=self.get_filename(fullname), is_package=fullname in _PACKAGES
            )
            spec.has_location = True  # __file__ = <embedded>/tw_rl/codecup/...
            return spec

        def get_filename(self, fullname):
            tail = "/__init__.py" if fullname in _PACKAGES else ".py"
            return "<embedded>/" + fullname.replace(".", "/") + tail

        def is_package(self, fullname):
            return fullname in _PACKAGES

        def get_source(self, fullname):
            if fullname not in _SOURCES:
                raise ImportError(fullname, name=fullname)
            return _SOURCES[fullname]

        def get_code(self, fullname):
            return compile(self.get_source(fullname), self.get_filename(fullname), "exec", dont_inherit=True)

    sys.meta_path.insert(0, EmbeddedImporter())


def _weights():
    """The bytes of the embedded weights file, or None: handed to the bot as they are."""
    if _WEIGHTS_B64 is None:
        return None
    import base64

    return base64.b64decode(_WEIGHTS_B64)


def _main():
    _install()
    from tw_rl.codecup.__main__ import main

    sys.exit(main(sys.argv[1:], embedded_weights=_weights()))
'''


def _render(
    sources: dict[str, str],
    packages: set[str],
    weights: tuple[str, bytes] | None,
    version: str,
    commit: str | None,
) -> str:
    names = list(sources)
    if weights is None:
        weights_text = "none"
    else:
        weights_text = f"{weights[0]} ({len(weights[1]):,} bytes, base64 in _WEIGHTS_B64)"
    parts = [
        _HEADER.format(
            version=version,
            commit=commit or "unknown",
            modules=", ".join(names),
            weights=weights_text,
        ),
        _BOOTSTRAP.format(
            packages=tuple(sorted(packages)), weights_name=None if weights is None else weights[0]
        ),
        "\n# ------------------------------------------------------------ embedded module sources\n",
        "_SOURCES = {}\n",
    ]
    for name in names:
        parts.append(f"\n_SOURCES[{name!r}] = {_literal(sources[name])}\n")
    parts.append("\n# ------------------------------------------------------------ embedded weights\n")
    if weights is None:
        parts.append("_WEIGHTS_B64 = None\n")
    else:
        # b64decode skips the newlines of this multi-line string.
        parts.append('_WEIGHTS_B64 = """\n' + base64.encodebytes(weights[1]).decode("ascii") + '"""\n')
    parts.append('\n\nif __name__ == "__main__":\n    _main()\n')
    return "".join(parts)


# ------------------------------------------------------------------------------ build


def _read_weights(weights: Path) -> tuple[str, bytes]:
    if not weights.exists():
        raise SubmissionError(f"weights file not found: {weights}")
    if not weights.is_file():
        raise SubmissionError(f"weights path is not a file: {weights}")
    try:
        return weights.name, weights.read_bytes()
    except OSError as err:
        raise SubmissionError(f"cannot read weights file {weights}: {err.strerror or err}") from None


def check_weights(weights: Path, board_size: int = BOARD_SIZE) -> None:
    """Refuse (``SubmissionError``) a weights file the embedded bot would refuse at start-up, by
    loading it exactly as the bot does for a game on the ``board_size`` board."""
    try:
        make_evaluator(str(weights), board_size=board_size)
    except Exception as err:  # EvaluatorError / WeightsError; any other failure refuses it too
        raise SubmissionError(f"the bot would refuse these weights: {err}; nothing written") from None


def _write(path: Path, data: bytes) -> None:
    try:
        write_atomic(path, data, same_bytes(data))  # read back before it takes the name
    except OSError as err:
        raise SubmissionError(f"cannot write {path}: {err.strerror or err}") from None


def build_submission(weights: Path | None = None, out: Path = Path("submission.py")) -> SubmissionInfo:
    """Generate the one-file submission at ``out`` from the current ``tw_rl.codecup`` sources."""
    out = Path(out)
    weights_data = _read_weights(Path(weights)) if weights is not None else None
    if weights is not None:
        check_weights(Path(weights))
    if out.is_dir():
        raise SubmissionError(f"output path is a directory: {out}")
    sources, packages = package_sources(PACKAGE)
    _check_imports(sources, packages)
    sources = {ROOT_PACKAGE: _ROOT_STUB, **sources}
    packages = packages | {ROOT_PACKAGE}
    version = package_version()
    commit = git_state()
    text = _render(sources, packages, weights_data, version, commit)
    try:
        compile(text, str(out), "exec", dont_inherit=True)
    except SyntaxError as err:  # cannot happen unless the template is broken
        raise SubmissionError(f"the generated file does not compile: {err}") from None
    data = text.encode("utf-8")
    if len(data) > SIZE_LIMIT:
        extra = f", of which weights {len(weights_data[1]):,} bytes before base64" if weights_data else ""
        raise SubmissionError(
            f"the submission would be {len(data):,} bytes{extra}: over the CodeCup limit of "
            f"{SIZE_LIMIT:,} bytes; nothing written"
        )
    _write(out, data)
    return SubmissionInfo(
        path=out,
        size=len(data),
        modules=tuple(sources),
        weights=None if weights_data is None else (weights_data[0], len(weights_data[1])),
        sha256=hashlib.sha256(data).hexdigest(),
        version=version,
        commit=commit,
    )
