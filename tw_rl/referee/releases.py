"""Frozen released submissions as programs: ``tw_rl-VERSION.py`` or ``tw_rl-VERSION.cpp``.

Releases lie in the source checkout's ``baselines/`` (or the folder ``$TW_RL_RELEASES`` names).
A Python release runs as ``python tw_rl-VERSION.py --time SECONDS``. A C++ release (made by
``tw-rl export --target cpp``) is compiled once with ``g++ -std=c++17 -O2`` into a cache folder
keyed by the source's sha256 (``$TW_RL_CACHE/releases/``, default ``~/.cache/tw_rl/releases/``)
and runs as ``BINARY --time SECONDS``; the binary is written under a temporary name and renamed,
so a killed compile leaves nothing half-written. A missing ``g++`` or a compile error is one
``ReleaseError`` line. Either way the release is identified by its source file's sha256.

``release:VERSION[@SECONDS]`` names one, wherever a program is asked for (``tw-rl referee``, the
rating run): ``@`` is its clock in seconds a GAME (``split_clock``).
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tw_rl.files import file_sha256
from tw_rl.referee.process import Program

DEFAULT_RELEASES = Path(__file__).resolve().parents[2] / "baselines"
SUFFIXES = (".py", ".cpp")
COMPILER = ("g++", "-std=c++17", "-O2")
COMPILE_SECONDS = 600


class ReleaseError(ValueError):
    """A release that cannot be played (no such file, no compiler, a compile error): one line."""


@dataclass(frozen=True)
class Release:
    """A release ready to run: its source, the argv prefix that runs it, the source's sha256."""

    version: str
    source: Path
    argv: tuple[str, ...]  # without --time
    sha256: str

    def command(self, seconds: float) -> tuple[str, ...]:
        return (*self.argv, "--time", f"{seconds:g}")


def releases_dir() -> Path:
    return Path(os.environ.get("TW_RL_RELEASES") or DEFAULT_RELEASES)


def cache_dir() -> Path:
    base = os.environ.get("TW_RL_CACHE") or Path.home() / ".cache" / "tw_rl"
    return Path(base) / "releases"


def versions(folder: Path | None = None) -> list[str]:
    """The versions in the releases folder (``0.1``, ``0.3``), oldest first."""
    folder = releases_dir() if folder is None else folder
    found = {p.stem.removeprefix("tw_rl-") for s in SUFFIXES for p in folder.glob(f"tw_rl-*{s}")}
    return sorted(found, key=lambda v: [int(x) if x.isdigit() else x for x in v.replace("-", ".").split(".")])


def release_file(version: str) -> Path:
    """``tw_rl-VERSION.py`` or ``.cpp`` (``VERSION`` may end in the suffix to choose one)."""
    folder = releases_dir()
    names = [f"tw_rl-{version}"] if version.endswith(SUFFIXES) else [f"tw_rl-{version}{s}" for s in SUFFIXES]
    found = [folder / n for n in names if (folder / n).is_file()]
    if len(found) == 1:
        return found[0]
    if found:
        both = " and ".join(p.name for p in found)
        raise ReleaseError(f"release:{version}: both {both} are there; name one (release:{version}.py)")
    known = versions(folder)
    there = f"releases here: {', '.join(known)}" if known else f"no releases in {folder}"
    raise ReleaseError(f"release:{version}: no {' or '.join(names)}; {there}")


def compile_cpp(source: Path, sha256: str) -> Path:
    """The binary of a C++ release, compiled on first use into the cache (keyed by sha256)."""
    binary = cache_dir() / sha256 / source.stem
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    if shutil.which(COMPILER[0]) is None:
        raise ReleaseError(f"{source.name}: cannot compile the C++ release: {COMPILER[0]} is not installed")
    binary.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{source.stem}-", dir=binary.parent)
    os.close(fd)
    try:
        done = subprocess.run(
            [*COMPILER, "-o", tmp, str(source)], capture_output=True, text=True, timeout=COMPILE_SECONDS
        )
        if done.returncode != 0:
            errors = [
                line for line in done.stderr.splitlines() if "error" in line
            ] or done.stderr.splitlines()
            first = errors[0].strip() if errors else f"exit code {done.returncode}"
            raise ReleaseError(f"{source.name}: {COMPILER[0]} could not compile it: {first[:200]}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, binary)
    except subprocess.TimeoutExpired:
        raise ReleaseError(f"{source.name}: {COMPILER[0]} took over {COMPILE_SECONDS} s") from None
    except OSError as err:
        raise ReleaseError(f"{source.name}: cannot compile into {binary.parent}: {err}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return binary


def cached_sha(program: str) -> str:
    """The source sha256 of a C++ release's cached binary at ``program``, else ''."""
    path = Path(program).resolve()
    key = path.parent.name
    if path.parent.parent == cache_dir().resolve() and len(key) == 64 and path.is_file():
        return key
    return ""


def release(version: str) -> Release:
    """The release ``VERSION`` ready to run (a C++ one compiled if it is not cached)."""
    source = release_file(version)
    sha256 = file_sha256(source)
    if source.suffix == ".cpp":
        argv: tuple[str, ...] = (str(compile_cpp(source, sha256)),)
    else:
        argv = (sys.executable, str(source))
    return Release(version, source, argv, sha256)


def split_clock(text: str, default: float, *, positive: bool = True) -> tuple[str, float]:
    """``X@SECONDS`` -> (X, seconds a game), (text, default) without ``@`` (or with one inside a
    folder name); ``ValueError`` (a one-line message) for a clock that cannot be meant. SECONDS
    is a plain decimal number (``30``, ``0.5``, ``-1`` reads but is refused): no exponent, no
    ``inf``/``nan``, no spaces. ``positive=False`` skips the refusal of a clock <= 0 (or too
    large to be finite) for a caller that checks its own range (the web page's bot@S)."""
    head, at, tail = text.rpartition("@")
    if not at or "/" in tail:
        return text, default
    if not re.fullmatch(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)", tail):
        raise ValueError(f"@{tail} is not a number of seconds a game (a plain number such as 30 or 0.5)")
    seconds = float(tail)
    if positive and not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"@{tail}: the clock must be positive (seconds a game)")
    return head, seconds


def release_program(name: str, text: str, seconds: float) -> Program:
    """The program of ``VERSION[@SECONDS]`` (the text after ``release:``) for the referee, on its
    own clock (``seconds`` without ``@``), which the judge keeps for it; ``ReleaseError`` in one
    line."""
    try:
        version, seconds = split_clock(text, seconds)
    except ValueError as err:
        raise ReleaseError(f"release:{text}: {err}") from None
    found = release(version)
    argv = found.command(seconds)
    return Program(name, shlex.join(argv), argv, found.sha256, seconds)
