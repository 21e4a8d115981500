"""Fixtures of the native bot's tests: the generated C++ submission and the tools binary (the
same parts plus the --test, --bench and --selfplay modes), the shipped student embedded in both,
each compiled once per test session with warnings as errors; skipped with a reason when no
compiler is installed (CI installs g++, see .ci/run)."""

from __future__ import annotations

import shutil

import pytest

from tw_rl.codecup.evaluation import default_weights
from tw_rl.native import build


def _compiler_or_skip() -> None:
    try:
        build.compiler()
    except build.CompilerMissing as err:
        pytest.skip(f"native bot tests need a C++ compiler: {err}")


@pytest.fixture(scope="session")
def native_source(tmp_path_factory):
    """The one-file submission with the shipped student, as `tw-rl export --target cpp` writes it."""
    folder = tmp_path_factory.mktemp("native")
    return build.build_native_submission(default_weights(6), folder / "submission.cpp").path


@pytest.fixture(scope="session")
def native_bin(native_source):
    """The submission compiled with -std=c++17 -O2 -Wall -Wextra -pedantic -Werror."""
    _compiler_or_skip()
    return build.compile_source(native_source, native_source.with_name("bot"), build.STRICT_FLAGS)


@pytest.fixture(scope="session")
def native_tools_source(tmp_path_factory):
    """The tools binary's one-file source with the shipped student (build.build_native_tools)."""
    folder = tmp_path_factory.mktemp("native-tools")
    return build.build_native_tools(default_weights(6), folder / "bot-tools.cpp").path


@pytest.fixture(scope="session")
def native_tools_bin(native_tools_source):
    """The tools binary compiled with -std=c++17 -O2 -Wall -Wextra -pedantic -Werror."""
    _compiler_or_skip()
    return build.compile_source(
        native_tools_source, native_tools_source.with_name("bot-tools"), build.STRICT_FLAGS
    )


@pytest.fixture(scope="session")
def compile_variant(tmp_path_factory):
    """compile_variant(name, text, flags): a binary of a changed source (mutants, other flags)."""
    _compiler_or_skip()
    folder = tmp_path_factory.mktemp("variants")

    def make(name: str, text: str, flags: tuple[str, ...] = build.STRICT_FLAGS):
        source = folder / f"{name}.cpp"
        source.write_text(text)
        return build.compile_source(source, folder / name, flags)

    return make


@pytest.fixture(scope="session")
def python_bot_command():
    """The Python bot as a program (its own interpreter)."""
    import sys

    return [sys.executable, "-m", "tw_rl.codecup"]


def has_compiler() -> bool:
    return shutil.which("g++") is not None
