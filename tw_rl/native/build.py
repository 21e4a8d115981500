"""The one-file C++ submission (``tw-rl export --target cpp``), the tools binary's source, and
compiling them (standard library only).

The native bot's source is in parts under ``src/`` (package data beside this module), one
concept each, as headers that include what they use (``#pragma once``), so that they also
compile on their own: ``g++ -I src src/main_play.cpp``.  The CodeCup takes one source file, so
``assemble`` joins the parts of a manifest in its order, as SQLite ships its amalgamation: each
part under a ``// part: NAME`` line, without its ``#pragma once`` and without its includes of
project parts (each must name a part already in, or the assembly refuses), a standard header
included once, where it is first asked for.  Two manifests:

- ``SUBMISSION_PARTS``: the shared parts and the playing ``main`` (``main_play.cpp``): the
  submission;
- ``TOOLS_PARTS``: the shared parts, the test, bench and self-play data modes and their
  ``main`` (``tools/``): the binary of the tests, ``scripts/bench_bot.py`` and ``tw_rl.expert``,
  which the submission does not carry.

A new part goes in ``src/`` and in ``SHARED_PARTS`` (or a tool's list) after the parts it
includes: a new evaluator after ``evaluator.hpp`` and before ``evaluator_factory.hpp``, which
picks an evaluator by the weights file's ``arch`` tag.

``build_native_submission`` assembles the submission with the marked weights line replaced by
the weights file's bytes as base64 text (an array of short string literals, so that no literal
exceeds what ISO C++ asks compilers to support and ``-pedantic`` stays quiet), checks the
weights as the Python bot would load them, refuses a file over the CodeCup size limit, and
writes it atomically; ``build_native_tools`` does the same for the tools binary's source (no
size limit).  ``compile_source`` runs ``g++ -std=c++17 -O2 -Wall -Wextra`` on a source; a
missing compiler is ``CompilerMissing`` (the command line reports it in one line, exit 2).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tw_rl.codecup.evaluation import make_evaluator
from tw_rl.codecup.weights import read_weights
from tw_rl.files import same_bytes, write_atomic
from tw_rl.native import nnue_file

PARTS_DIR = Path(__file__).resolve().with_name("src")
# The manifest: the parts in assembly order (each after every part it includes).
SHARED_PARTS = (
    "prelude.hpp",  # the file's comment and the no-FMA pragma: first, before any code
    "constants.hpp",
    "board.hpp",
    "sight.hpp",
    "position.hpp",
    "errors.hpp",
    "sha256_base64.hpp",
    "json.hpp",
    "weights_file.hpp",
    "evaluator.hpp",
    "student_network.hpp",
    "nnue_features.hpp",
    "nnue_network.hpp",
    "territory_evaluator.hpp",
    "evaluator_factory.hpp",
    "position_key.hpp",
    "utility.hpp",
    "eval_cache.hpp",
    "search.hpp",
    "clock.hpp",
    "endgame.hpp",
    "opening_book_data.hpp",  # written by scripts/make_opening_book.py
    "opening_book.hpp",
    "bot.hpp",
    "protocol.hpp",
    "embedded_weights.hpp",
    "command_line.hpp",
)
SUBMISSION_PARTS = (*SHARED_PARTS, "main_play.cpp")
TOOLS_PARTS = (
    *SHARED_PARTS,
    "tools/position_lines.hpp",
    "tools/bench_mode.hpp",
    "tools/test_mode.hpp",
    "tools/npz_writer.hpp",
    "tools/selfplay_data.hpp",
    "tools/main_tools.cpp",
)
BANNER = (
    "// Assembled by tw_rl/native/build.py (tw-rl export --target cpp) from the parts in\n"
    "// tw_rl/native/src, in the order of its manifest: edit the parts, not this file.\n"
)
PART_LINE = "// " + "-" * 60 + " part: {}\n"
_PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
_SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>")
_PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\s*$")
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


def assemble(parts: tuple[str, ...] = SUBMISSION_PARTS, folder: Path = PARTS_DIR) -> str:
    """One source of ``parts`` (names relative to ``folder``), in order: see the module's text."""
    if len(set(parts)) != len(parts):
        raise NativeBuildError("the manifest names a part twice")
    out = [BANNER]
    done: set[str] = set()
    system: set[str] = set()
    for name in parts:
        try:
            text = (folder / name).read_text(encoding="utf-8")
        except OSError as err:
            raise NativeBuildError(f"cannot read native part {name}: {err.strerror or err}") from None
        kept: list[str] = []
        for line in text.splitlines(keepends=True):
            project = _PROJECT_INCLUDE.match(line)
            if project:
                if project.group(1) not in done:
                    raise NativeBuildError(
                        f"native part {name} includes {project.group(1)}, "
                        "which the manifest does not put before it"
                    )
                continue
            header = _SYSTEM_INCLUDE.match(line)
            if header and header.group(1) in system:
                continue
            if header:
                system.add(header.group(1))
            if _PRAGMA_ONCE.match(line) or (not line.strip() and (not kept or not kept[-1].strip())):
                continue  # no #pragma once; blank lines not doubled where the includes were
            kept.append(line if line.endswith("\n") else line + "\n")
        while kept and not kept[-1].strip():
            kept.pop()
        out += ["\n", PART_LINE.format(name), *kept]
        done.add(name)
    return "".join(out)


def part_paths(parts: tuple[str, ...] = TOOLS_PARTS) -> list[Path]:
    """The files of ``parts``."""
    return [PARTS_DIR / name for name in parts]


def sources_mtime(parts: tuple[str, ...] = TOOLS_PARTS) -> float:
    """The newest modification time of ``parts`` and of this module (which assembles them)."""
    return max(path.stat().st_mtime for path in [*part_paths(parts), Path(__file__)])


def render(source: str, weights: tuple[str, bytes] | None) -> str:
    """The source's text with the marked weights lines filled in (``None``: left as they are)."""
    lines = source.splitlines(keepends=True)
    weights_at = [i for i, line in enumerate(lines) if WEIGHTS_MARKER in line]
    name_at = [i for i, line in enumerate(lines) if NAME_MARKER in line]
    if len(weights_at) != 1 or len(name_at) != 1:
        raise NativeBuildError("the assembled native source must hold each weights marker exactly once")
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
    """Refuse a weights file the bot would refuse at start-up: a student loaded as the Python
    bot does, the native network (arch nnue-1, which the Python bot does not play) by
    ``nnue_file.check``."""
    try:
        parsed = read_weights(str(weights), board_size)
        if parsed.header.get("arch") == nnue_file.ARCH:
            nnue_file.check(parsed)
        else:
            make_evaluator(str(weights), board_size=board_size)
    except Exception as err:  # EvaluatorError / WeightsError; any other failure refuses it too
        raise NativeBuildError(f"the bot would refuse these weights: {err}; nothing written") from None


def build_native_submission(
    weights: Path | None = None, out: Path = Path("submission.cpp")
) -> NativeSubmissionInfo:
    """Write the one-file C++ submission at ``out`` (``weights``: the .twnet file to embed)."""
    return _build(SUBMISSION_PARTS, weights, Path(out), SIZE_LIMIT)


def build_native_tools(
    weights: Path | None = None, out: Path = Path("bot-tools.cpp")
) -> NativeSubmissionInfo:
    """Write the tools binary's one-file source at ``out``: the bot with its --test, --bench and
    --selfplay modes (``weights``: the .twnet file to embed, as in the submission)."""
    return _build(TOOLS_PARTS, weights, Path(out), None)


def _build(
    parts: tuple[str, ...], weights: Path | None, out: Path, limit: int | None
) -> NativeSubmissionInfo:
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
    text = render(assemble(parts), weights_data)
    data = text.encode("utf-8")
    if limit is not None and len(data) > limit:
        raise NativeBuildError(
            f"the submission would be {len(data):,} bytes: over the CodeCup limit of {limit:,} bytes; "
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
