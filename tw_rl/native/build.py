"""The one-file C++ submission (``tw-rl export --target cpp``) and compiling it (standard library only).

``bot.cpp`` (package data beside this module) is the whole native bot; it holds one marked line
for the weights.  ``build_native_submission`` copies it with that line replaced by the weights
file's bytes as base64 text (an array of short string literals, so that no literal exceeds what
ISO C++ asks compilers to support and ``-pedantic`` stays quiet), checks the weights as the
Python bot would load them, refuses a file over the CodeCup size limit, and writes it
atomically.  ``compile_source`` runs ``g++ -std=c++17 -O2 -Wall -Wextra`` on a source;
a missing compiler is ``CompilerMissing`` (the command line reports it in one line, exit 2).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tw_rl.codecup.evaluation import make_evaluator
from tw_rl.files import same_bytes, write_atomic

SOURCE = Path(__file__).resolve().with_name("bot.cpp")
SIZE_LIMIT = 1_474_560  # bytes: the CodeCup's limit on a submitted source file
BOARD_SIZE = 6
WEIGHTS_MARKER = "// @@EMBEDDED_WEIGHTS@@"
NAME_MARKER = "// @@EMBEDDED_WEIGHTS_NAME@@"
LINE_CHARS = 76  # base64 characters per string literal
FLAGS = ("-std=c++17", "-O2", "-Wall", "-Wextra")
STRICT_FLAGS = (*FLAGS, "-pedantic", "-Werror")


class NativeBuildError(Exception):
    """The C++ submission cannot be built or compiled; the message says why in one line."""


class CompilerMissing(NativeBuildError):
    """No C++ compiler on this machine."""


@dataclass
class NativeSubmissionInfo:
    """What ``build_native_submission`` wrote."""

    path: Path
    size: int  # bytes
    weights: tuple[str, int] | None  # (file name, bytes) when a weights file is embedded
    sha256: str

    def summary_lines(self) -> list[str]:
        weights = (
            "none (territory evaluator)"
            if self.weights is None
            else f"{self.weights[0]} ({self.weights[1]:,} bytes)"
        )
        return [
            f"wrote {self.path} ({self.size:,} bytes of {SIZE_LIMIT:,} allowed; C++17, standard library)",
            f"weights: {weights}",
            f"sha256: {self.sha256}",
            f"compile: g++ {' '.join(FLAGS)} {self.path} -o bot",
        ]


def _cpp_string(text: str) -> str:
    """A C++ string literal of base64 text (no character needs an escape)."""
    return '"' + text + '"'


def render(source: str, weights: tuple[str, bytes] | None) -> str:
    """The submission's text: ``source`` with the marked weights lines filled in."""
    lines = source.splitlines(keepends=True)
    weights_at = [i for i, line in enumerate(lines) if WEIGHTS_MARKER in line]
    name_at = [i for i, line in enumerate(lines) if NAME_MARKER in line]
    if len(weights_at) != 1 or len(name_at) != 1:
        raise NativeBuildError(f"{SOURCE.name} must hold each weights marker exactly once")
    if weights is None:
        return source
    name, data = weights
    text = base64.b64encode(data).decode("ascii")
    chunks = [text[i : i + LINE_CHARS] for i in range(0, len(text), LINE_CHARS)]
    body = "".join(f"    {_cpp_string(chunk)},\n" for chunk in chunks)
    lines[weights_at[0]] = f"static const char *const EMBEDDED_WEIGHTS[] = {{\n{body}    nullptr}};\n"
    safe_name = "".join(ch for ch in name if ch.isalnum() or ch in "._-")
    lines[name_at[0]] = f'static const char *const EMBEDDED_WEIGHTS_NAME = "{safe_name}";\n'
    return "".join(lines)


def check_weights(weights: Path, board_size: int = BOARD_SIZE) -> None:
    """Refuse a weights file the bot would refuse at start-up (loaded as the Python bot does)."""
    try:
        make_evaluator(str(weights), board_size=board_size)
    except Exception as err:  # EvaluatorError / WeightsError; any other failure refuses it too
        raise NativeBuildError(f"the bot would refuse these weights: {err}; nothing written") from None


def build_native_submission(
    weights: Path | None = None, out: Path = Path("submission.cpp")
) -> NativeSubmissionInfo:
    """Write the one-file C++ submission at ``out`` (``weights``: the .twnet file to embed)."""
    out = Path(out)
    weights_data = None
    if weights is not None:
        weights = Path(weights)
        if not weights.is_file():
            raise NativeBuildError(f"weights file not found: {weights}")
        check_weights(weights)
        try:
            weights_data = (weights.name, weights.read_bytes())
        except OSError as err:
            raise NativeBuildError(f"cannot read weights file {weights}: {err.strerror or err}") from None
    if out.is_dir():
        raise NativeBuildError(f"output path is a directory: {out}")
    text = render(SOURCE.read_text(encoding="utf-8"), weights_data)
    data = text.encode("utf-8")
    if len(data) > SIZE_LIMIT:
        raise NativeBuildError(
            f"the submission would be {len(data):,} bytes: over the CodeCup limit of {SIZE_LIMIT:,} bytes; "
            "nothing written"
        )
    try:
        write_atomic(out, data, same_bytes(data))
    except OSError as err:
        raise NativeBuildError(f"cannot write {out}: {err.strerror or err}") from None
    return NativeSubmissionInfo(
        path=out,
        size=len(data),
        weights=None if weights_data is None else (weights_data[0], len(weights_data[1])),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def compiler() -> str:
    """The C++ compiler: $CXX, else g++ on the PATH; CompilerMissing when there is none."""
    name = os.environ.get("CXX") or "g++"
    path = shutil.which(name)
    if path is None:
        raise CompilerMissing(f"no C++ compiler found ({name} is not on the PATH); install g++")
    return path


def compile_source(
    source: Path, binary: Path, flags: tuple[str, ...] = FLAGS, timeout: float = 300.0
) -> Path:
    """Compile ``source`` into ``binary``; NativeBuildError with the first error line if it fails."""
    command = [compiler(), *flags, str(source), "-o", str(binary)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise NativeBuildError(f"compiling {source} took over {timeout:g} s") from None
    except OSError as err:
        raise NativeBuildError(f"cannot run the compiler: {err.strerror or err}") from None
    if done.returncode != 0 or done.stderr.strip():
        first = (done.stderr.strip().splitlines() or ["(no message)"])[0][:200]
        what = "failed" if done.returncode != 0 else "warned"
        raise NativeBuildError(f"compiling {source} {what}: {first}")
    return binary
