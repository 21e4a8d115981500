"""The compiled territory simulation: ``territory_kernel.c`` built on first use and called through
ctypes, with the numpy simulation (``tw_rl.core.territory``) as the reference and the fallback.

The source is compiled once per machine with the system's C compiler (``$CC``, else ``cc`` or
``gcc``) into ``$TW_RL_CACHE/kernels/`` (default ``~/.cache/tw_rl/kernels/``), under a name
that carries a hash of the source and the flags, written to a temporary file and renamed into
place so that concurrent processes never load a half-written library. Without a compiler, or
when the build fails, every caller gets the numpy path; nothing is needed at install time.

``TW_RL_KERNEL`` chooses: ``auto`` (default: compiled when it builds, else numpy), ``numpy``
(always the reference) or ``c`` (the compiled one, an error when it cannot be built);
``engine(name)`` overrides it inside a ``with`` block (the tests use it).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np

from tw_rl.core.hexgrid import HexGrid

SOURCE = Path(__file__).with_name("territory_kernel.c")
FLAGS = ("-O3", "-shared", "-fPIC", "-std=c99")
CHOICES = ("auto", "numpy", "c")
MAX_CELLS = 331  # the 11-board; MAX_CELLS in the C source
_LOCK = threading.Lock()  # the build and the tables: the referee's games call in from threads


class KernelUnavailable(RuntimeError):
    """TW_RL_KERNEL=c was asked for and the compiled kernel cannot be built or loaded."""


_override: list[str] = []  # engine() blocks, innermost last


def choice() -> str:
    """The engine asked for: the innermost ``engine()`` block, else TW_RL_KERNEL (``auto``)."""
    if _override:
        return _override[-1]
    value = os.environ.get("TW_RL_KERNEL", "auto").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"TW_RL_KERNEL must be one of {CHOICES}, got {value!r}")
    return value


@contextlib.contextmanager
def engine(name: str):
    """Inside the block, ``simulate_territory`` and ``compute_sight`` take ``name``'s path
    (``auto``, ``numpy`` or ``c``), whatever TW_RL_KERNEL says."""
    if name not in CHOICES:
        raise ValueError(f"the engine must be one of {CHOICES}, got {name!r}")
    _override.append(name)
    try:
        yield
    finally:
        _override.pop()


def _compiler() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name and shutil.which(name):
            return name
    return None


def _cache_dir() -> Path:
    base = os.environ.get("TW_RL_CACHE")  # the project's cache (the releases live there too)
    return (Path(base) if base else Path.home() / ".cache" / "tw_rl") / "kernels"


def _build() -> tuple[ctypes.CDLL | None, str]:
    """(library, "") once built (or found built) and loaded, else (None, why not); one thread
    builds, the others wait for its answer."""
    with _LOCK:
        return _build_once()


@functools.cache
def _build_once() -> tuple[ctypes.CDLL | None, str]:
    source = SOURCE.read_bytes()
    tag = hashlib.sha256(source + " ".join(FLAGS).encode()).hexdigest()[:16]
    folder = _cache_dir()
    target = folder / f"territory-{tag}.so"
    try:
        if not target.exists():
            compiler = _compiler()
            if compiler is None:
                return None, "no C compiler on the PATH (set CC, or install cc / gcc)"
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
            os.close(fd)
            try:
                done = subprocess.run(
                    [compiler, *FLAGS, str(SOURCE), "-o", tmp],
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
                if done.returncode != 0:
                    first = (done.stderr.strip().splitlines() or ["no message"])[0]
                    return None, f"{compiler} failed on {SOURCE.name}: {first}"
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        library = ctypes.CDLL(str(target))
    except (OSError, subprocess.SubprocessError) as err:
        return None, f"could not build or load {target}: {err}"
    for name, pointers in (("tw_territory", 5), ("tw_sight", 3)):
        function = getattr(library, name)
        function.restype = ctypes.c_int
        function.argtypes = [ctypes.c_int] * 2 + [ctypes.c_void_p] * pointers
    return library, ""


def compiled_available() -> bool:
    """Whether the compiled kernel builds and loads on this machine (builds it if needed)."""
    return _build()[0] is not None


def why_unavailable() -> str:
    """Why the compiled kernel cannot be used here, in one line ("" when it can)."""
    return _build()[1]


def use_compiled() -> bool:
    """Whether ``simulate_territory`` takes the compiled path now (TW_RL_KERNEL and the build)."""
    wanted = choice()
    if wanted == "numpy":
        return False
    library, why = _build()
    if library is None and wanted == "c":
        raise KernelUnavailable(f"TW_RL_KERNEL=c but the compiled territory kernel is unavailable: {why}")
    return library is not None


def _tables(grid: HexGrid) -> np.ndarray:
    """The kernel's geometry [6, N] int32: per direction d, every cell c with its neighbour z along
    d (N past the edge) as c | z << 16, in the order of the distance to the edge along d (so that
    a cell comes after its neighbour, whose view it extends). Computed once per grid, under the
    lock: every thread gets the one cached array."""
    with _LOCK:
        return _tables_once(grid)


@functools.cache
def _tables_once(grid: HexGrid) -> np.ndarray:
    num = grid.num_cells
    neighbours = np.where(grid.neighbours < 0, num, grid.neighbours).astype(np.int64)  # [N, 6]
    reach = (grid.rays < num).sum(axis=2)  # [N, 6] cells on each ray
    order = np.argsort(reach.T, axis=1, kind="stable")  # [6, N]
    pairs = order | np.take_along_axis(neighbours.T, order, axis=1) << 16
    return np.ascontiguousarray(pairs, dtype=np.int32)


def _library() -> ctypes.CDLL:
    library, why = _build()
    if library is None:
        raise KernelUnavailable(f"the compiled territory kernel is unavailable: {why}")
    return library


def _check(code: int, num: int) -> None:
    if code == -1:
        raise ValueError(f"the compiled kernel takes boards of 1 to {MAX_CELLS} cells, got {num}")
    if code != 0:
        raise MemoryError("the compiled kernel could not allocate its work space")


def compiled_territory(grid: HexGrid, owner: np.ndarray, height: np.ndarray) -> np.ndarray:
    """[B, 2, N] bool: red's and white's simulated territory, by the compiled kernel."""
    return _territory(grid, owner, height, with_sight=False)[1]


def compiled_sight_and_territory(
    grid: HexGrid, owner: np.ndarray, height: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(``compiled_sight``, ``compiled_territory``) in one pass: the simulation starts from the
    position's sight anyway."""
    sight, territory = _territory(grid, owner, height, with_sight=True)
    return sight, territory


def _territory(grid: HexGrid, owner: np.ndarray, height: np.ndarray, with_sight: bool):
    library = _library()
    owner = np.ascontiguousarray(owner, dtype=np.int8)
    height = np.ascontiguousarray(height, dtype=np.int8)
    batch, num = owner.shape
    out = np.empty((batch, 2, num), dtype=np.uint8)
    sight = np.empty((batch, 2, num), dtype=np.int8) if with_sight else None
    tables = _tables(grid)  # every array the kernel reads or writes is held by a name here
    pointers = [a.ctypes.data for a in (tables, owner, height, out)]
    pointers.append(None if sight is None else sight.ctypes.data)
    _check(library.tw_territory(batch, num, *pointers), num)
    return sight, out.view(bool)


def compiled_sight(grid: HexGrid, owner: np.ndarray) -> np.ndarray:
    """[B, 2, N] int8: the red and white stacks every cell sees, by the compiled kernel."""
    library = _library()
    owner = np.ascontiguousarray(owner, dtype=np.int8)
    batch, num = owner.shape
    out = np.empty((batch, 2, num), dtype=np.int8)
    tables = _tables(grid)  # held by a name while the kernel reads it
    _check(library.tw_sight(batch, num, *(a.ctypes.data for a in (tables, owner, out))), num)
    return out
