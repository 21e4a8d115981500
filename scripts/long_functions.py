"""List the functions longer than a limit (lines from ``def`` to the last line, docstring and
decorators' lines not counted above ``def``), longest first: how readable a room's code is.

    python scripts/long_functions.py tw_rl/training              # over 60 lines
    python scripts/long_functions.py tw_rl/training --over 40
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def long_functions(paths: list[Path], over: int) -> list[tuple[int, str]]:
    """(lines, "file:Class.function") of every function over ``over`` lines, longest first."""
    found = []
    files = [p for path in paths for p in (sorted(path.rglob("*.py")) if path.is_dir() else [path])]
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        found += _walk(tree, file, "", over)
    return sorted(found, key=lambda item: (-item[0], item[1]))


def _walk(node: ast.AST, file: Path, prefix: str, over: int) -> list[tuple[int, str]]:
    found = []
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found += _walk(child, file, prefix, over)  # functions inside blocks (with, if, ...) too
            continue
        name = prefix + child.name
        lines = child.end_lineno - child.lineno + 1
        if lines > over and not isinstance(child, ast.ClassDef):
            found.append((lines, f"{file}:{name}"))
        found += _walk(child, file, name + ".", over)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders (searched for *.py)")
    parser.add_argument("--over", type=int, default=60, help="list functions longer than this (lines)")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        found = long_functions(args.paths, args.over)
    except SyntaxError as err:
        print(f"error: {err.filename}:{err.lineno}: not Python ({err.msg})", file=sys.stderr)
        return 2
    for lines, name in found:
        print(f"{lines:5d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
