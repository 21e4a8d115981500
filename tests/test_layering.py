"""Imports point one way: every import inside tw_rl (function-level ones included) goes down the
layer order below, the package has no import cycle, and an import inside a function is allowed
only where it keeps an optional dependency optional.

    core, codecup  ->  files, config, cluster, machine, scalar_position, stats  ->  env | pettingzoo_env
        | referee | training | native  ->  export  ->  rating | expert  ->  web | reliability  ->  cli
    (scripts/ and notebooks/ sit on top)

Units on one level are siblings: they must not import each other (``env``, ``pettingzoo_env``,
``referee`` and ``training`` know nothing of each other; ``core`` and ``codecup`` neither).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tw_rl"

LAYERS = (
    ("core", "codecup"),
    ("files", "config", "cluster", "machine", "scalar_position", "stats"),
    ("env", "pettingzoo_env", "referee", "training", "native"),
    ("export",),
    ("rating", "expert"),
    ("web", "reliability"),
    ("cli",),
)
LEVEL = {unit: level for level, units in enumerate(LAYERS) for unit in units}

# (importing module, imported module) pairs allowed inside a function, and why.
FUNCTION_LEVEL_ALLOWED = {
    ("tw_rl.training.loop", "tw_rl.training.ray_selfplay"): "Ray is optional: imported only with ray.address",
    ("tw_rl.rating.rating_run", "tw_rl.rating.ray_games"): "Ray is optional: imported only with ray_address",
    # torch stays out of `tw-rl --help` and of the subcommands that need none (0.4 s instead of ~3 s)
    ("tw_rl.cli.rate", "tw_rl.rating.rating_run"): "torch, only when `tw-rl rate` runs",
    # the player registry (and the help texts taken from it) loads without torch
    ("tw_rl.rating.player_kinds", "tw_rl.rating.players"): "torch, only to build a player",
    ("tw_rl.rating.player_kinds", "tw_rl.training.checkpoint"): "torch, only to read a checkpoint",
    ("tw_rl.cli.export", "tw_rl.export.pipeline"): "torch, only for `tw-rl export --run` (a distillation)",
    # the web extra (Starlette, uvicorn) and torch, only when `tw-rl serve` runs
    ("tw_rl.cli.serve", "tw_rl.web.app"): "the web extra and torch, only when `tw-rl serve` runs",
    ("tw_rl.cli.serve", "tw_rl.web.bots"): "the web extra and torch, only when `tw-rl serve` runs",
    ("tw_rl.cli.serve", "tw_rl.web.study"): "the web extra and torch, only when `tw-rl serve` runs",
}


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit_of(module: str) -> str | None:
    """The layer unit of a tw_rl module: its subpackage or top-level module (None for tw_rl)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def tw_rl_imports(tree: ast.AST, importer: str, is_package: bool, modules: set[str]):
    """(imported tw_rl module, line, inside a function?) for every import in the tree."""
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = resolve(importer, is_package, child)
                # `from tw_rl.x import y` imports module tw_rl.x.y when that is a module
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in child.names]
            else:
                visit(child, inner)
                continue
            for name in names:
                if name == "tw_rl" or name.startswith("tw_rl."):
                    found.append((name, child.lineno, in_function))

    visit(tree, False)
    return found


def package_graph(root: Path = PACKAGE):
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(files)
    edges = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        edges[module] = tw_rl_imports(tree, module, path.name == "__init__.py", modules)
    return files, edges


def layering_violations(edges) -> list[str]:
    problems = []
    for importer, imports in edges.items():
        for imported, line, in_function in imports:
            where = f"{importer}:{line} imports {imported}"
            if in_function and (importer, imported) not in FUNCTION_LEVEL_ALLOWED:
                problems.append(f"{where} inside a function (move it to the top of the module)")
            a, b = unit_of(importer), unit_of(imported)
            if a is None or b is None or a == b:
                continue
            if a not in LEVEL or b not in LEVEL:
                problems.append(f"{where}: unit {a if a not in LEVEL else b!r} has no place in LAYERS")
            elif LEVEL[b] >= LEVEL[a]:
                kind = "a sibling" if LEVEL[b] == LEVEL[a] else "an upper layer"
                problems.append(f"{where}: {b} is {kind} of {a}")
    return problems


def import_cycles(edges) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each one cycle report."""
    graph = {m: sorted({i for i, _, _ in imports if i in edges and i != m}) for m, imports in edges.items()}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            connect(v)
    return cycles


def test_every_unit_has_a_layer():
    files, _ = package_graph()
    units = {unit_of(m) for m in files} - {None}
    assert units <= set(LEVEL), sorted(units - set(LEVEL))


def test_imports_point_down_the_layers():
    _, edges = package_graph()
    assert layering_violations(edges) == []


def test_no_import_cycles():
    _, edges = package_graph()
    assert import_cycles(edges) == []


def test_the_allowed_function_level_imports_exist():
    """A stale allowance would let a new function-level import of the same pair slip through."""
    _, edges = package_graph()
    present = {(m, i) for m, imports in edges.items() for i, _, inside in imports if inside}
    assert set(FUNCTION_LEVEL_ALLOWED) <= present


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("core/state.py", "from tw_rl.training import net\n", "training is an upper layer of core"),
        ("referee/game.py", "from tw_rl.rating import elo\n", "rating is an upper layer of referee"),
        ("training/net.py", "from tw_rl.env import TumbleweedEnv\n", "env is a sibling of training"),
        ("codecup/rules.py", "def f():\n    import tw_rl.core.rules\n", "inside a function"),
    ],
)
def test_a_planted_upward_import_is_caught(tmp_path, importer, source, expected):
    """The checker itself: the same package plus one planted import fails it."""
    copy = tmp_path / "tw_rl"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text())
    planted = copy / importer
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text((planted.read_text() if planted.exists() else "") + "\n" + source)
    _, edges = package_graph(copy)
    assert any(expected in problem for problem in layering_violations(edges))


def test_a_planted_cycle_is_caught(tmp_path):
    copy = tmp_path / "tw_rl"
    (copy / "core").mkdir(parents=True)
    (copy / "__init__.py").write_text("")
    (copy / "core" / "__init__.py").write_text("")
    (copy / "core" / "a.py").write_text("from tw_rl.core import b\n")
    (copy / "core" / "b.py").write_text("import tw_rl.core.a\n")
    _, edges = package_graph(copy)
    assert import_cycles(edges) == [["tw_rl.core.a", "tw_rl.core.b"]]
