"""Self-play samples on disk: the shard format, shards written atomically, a replay window.

A shard is one ``.npz`` file (numpy's zip of ``.npy`` arrays, uncompressed or compressed) of
finished games' samples. It is written to a temporary name and renamed, so a shard either exists
whole or not at all; one that is damaged anyway (a copy cut short, a full disk) is skipped with a
warning when read. A shard of another format version or board size is refused with a
``ShardFormatError`` (one line naming the file and what is wrong), never skipped as damaged.

Shard format 2 (``SHARD_FORMAT``), the arrays of the ``.npz`` by name; B samples, a board of
``board_size`` cells a side with N = 3 * size * (size - 1) + 1 cells, cells in the order of
``tw_rl.core.hexgrid``::

    format_version  int64 []         2
    board_size      int64 []         cells per side: 6, 8, 10 or 11
    owner           int8 [B, N]      per cell 0 empty, 1 red, 2 white (the position; sight and
    height          int8 [B, N]      stack height           territory are recomputed when encoding)
    to_move         int8 [B]         1 red or 2 white
    passes          int8 [B]         consecutive passes before the position
    policy          float16 [B, N+1] the search policy (training target), the pass last
    value           int8 [B]         final result for the side to act: 1 win, 0 draw, -1 loss
    territory       int8 [B, N]      final simulated territory: 1 mine, -1 theirs, 0 neither or both
    score           float32 [B]      final territory margin / N for the side to act

Other arrays are ignored here; the native self-play (``tw_rl/native/src/tools/selfplay_data.hpp``)
adds ``search_value`` float32 [B], the search's value of the position for the side to act,
which ``tw_rl.expert.nnue_train`` can mix into the value target. Format 1 is the same without
``format_version`` and ``board_size`` (shards written before tw_rl 0.3);
``python -m tw_rl.training.replay_buffer FOLDER`` upgrades the format-1 shards of a folder in
place (the board size is read from the arrays' width).

Names: ``shard-g<generation>-<index>-n<games>.npz`` from the training process, and
``shard-g<generation>-w<worker>-<index>-n<games>.npz`` from a self-play worker of a Ray run
(``tw_rl.training.ray_selfplay``), so that workers writing into one folder never pick the same name.
Both count toward a generation's games and both are read by the replay window.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from tw_rl.files import atomic_writer

SHARD_FORMAT = 2  # the version this module writes and reads (see the module docstring)
COLUMNS = {  # array -> (dtype, shape after the batch axis: "N" cells, "A" = N + 1 actions)
    "owner": (np.int8, "N"),
    "height": (np.int8, "N"),
    "to_move": (np.int8, ""),
    "passes": (np.int8, ""),
    "policy": (np.float16, "A"),
    "value": (np.int8, ""),
    "territory": (np.int8, "N"),
    "score": (np.float32, ""),
}
SHARD_PATTERN = re.compile(
    r"shard-g(?P<generation>\d+)-(?:w(?P<worker>\d+)-)?(?P<index>\d+)-n(?P<games>\d+)\.npz$"
)


class ShardFormatError(ValueError):
    """A whole shard of another format version or board size; the message says so in one line."""


def board_cells(size: int) -> int:
    """Cells of a board with ``size`` cells a side."""
    return 3 * size * (size - 1) + 1


@dataclass
class Samples:
    """A column-wise batch of samples (see the module docstring)."""

    owner: np.ndarray
    height: np.ndarray
    to_move: np.ndarray
    passes: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    territory: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    def __getitem__(self, index) -> Samples:
        return Samples(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @staticmethod
    def concatenate(parts: list[Samples]) -> Samples:
        return Samples(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Samples)}
        )


def write_shard(
    folder: Path, generation: int, games: int, samples: Samples, worker: int | None = None
) -> Path:
    """Write one shard atomically (format ``SHARD_FORMAT``, the board size read from the
    samples' width); its name records the generation, the writing worker (None: the training
    process itself) and the games it holds."""
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"shard-g{generation:06d}-" + ("" if worker is None else f"w{worker:03d}-")
    index = len(shard_paths(folder, generation, worker))
    path = folder / f"{prefix}{index:04d}-n{games}.npz"
    while path.exists():
        index += 1
        path = folder / f"{prefix}{index:04d}-n{games}.npz"

    def read_back(written: Path) -> None:
        back = load_shard(written)
        if len(back) != len(samples) or not np.array_equal(back.value, samples.value):
            raise ValueError(f"{path.name}: the written shard does not read back as written")

    size = size_of_cells(samples.owner.shape[1])
    with atomic_writer(path, read_back) as handle:
        _save(handle, samples, size)
    return path


def _save(handle, samples: Samples, size: int) -> None:
    columns = {name: np.asarray(getattr(samples, name), dtype=dtype) for name, (dtype, _) in COLUMNS.items()}
    np.savez(handle, format_version=np.int64(SHARD_FORMAT), board_size=np.int64(size), **columns)


def size_of_cells(cells: int) -> int:
    """The board size (cells a side) of a board of ``cells`` cells; ValueError if none has it."""
    for size in range(2, 64):
        if board_cells(size) == cells:
            return size
    raise ValueError(f"no hexagonal board has {cells} cells")


def load_shard(path: Path, size: int | None = None) -> Samples:
    """A shard's samples. ``ShardFormatError`` for a whole file of another format version, of
    another board size than ``size`` (None: any) or whose arrays break the format; ValueError
    (or OSError) when the file is damaged."""
    path = Path(path)
    try:
        with np.load(path) as data:
            names = set(data.files)
            if "format_version" not in names:
                raise ShardFormatError(
                    f"{path}: a shard of format 1 (written before tw_rl 0.3, no format_version), "
                    f"this tw_rl reads format {SHARD_FORMAT}; upgrade the folder in place with "
                    f"`python -m tw_rl.training.replay_buffer {path.parent}`"
                )
            version = int(data["format_version"])
            if version != SHARD_FORMAT:
                raise ShardFormatError(
                    f"{path}: a shard of format {version}, this tw_rl reads format {SHARD_FORMAT}"
                )
            if "board_size" not in names:
                raise ShardFormatError(f"{path}: shard format {version} without its board_size")
            found = int(data["board_size"])
            if size is not None and found != size:
                raise ShardFormatError(f"{path}: a shard of board size {found}, this run plays size {size}")
            missing = sorted(set(COLUMNS) - names)
            if missing:
                raise ShardFormatError(f"{path}: shard format {version} without the arrays {missing}")
            samples = Samples(**{name: data[name] for name in COLUMNS})
    except (KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(str(err)) from None
    _check_columns(path, samples, found)
    return samples


def _check_columns(path: Path, samples: Samples, size: int) -> None:
    """ShardFormatError unless every array has the format's dtype, shape and one length."""
    cells = board_cells(size)
    width = {"N": (cells,), "A": (cells + 1,), "": ()}
    for name, (dtype, kind) in COLUMNS.items():
        array = getattr(samples, name)
        if array.dtype != dtype or array.ndim != 1 + len(width[kind]) or array.shape[1:] != width[kind]:
            want = f"{np.dtype(dtype).name} [B{''.join(f', {w}' for w in width[kind])}]"
            raise ShardFormatError(
                f"{path}: array {name} is {array.dtype.name} {list(array.shape)}, "
                f"format {SHARD_FORMAT} at board size {size} wants {want}"
            )
    if len({len(getattr(samples, name)) for name in COLUMNS}) != 1:
        raise ShardFormatError(f"{path}: the arrays hold different numbers of samples")


def read_shard(path: Path, size: int | None = None) -> Samples | None:
    """A shard's samples, or None (with a warning) when the file is damaged; a shard of
    another format or board size raises ``ShardFormatError`` (see ``load_shard``)."""
    try:
        return load_shard(path, size)
    except ShardFormatError:
        raise
    except (OSError, ValueError) as err:
        warnings.warn(f"skipping damaged shard {path.name}: {err}", stacklevel=2)
        return None


def upgrade_folder(folder: Path) -> list[Path]:
    """Rewrite the format-1 shards of a folder in format ``SHARD_FORMAT`` (atomically, in
    place; the board size from the arrays' width); returns the shards upgraded."""
    upgraded = []
    for path in sorted(Path(folder).glob("shard-*.npz")):
        with np.load(path) as data:
            if "format_version" in data.files:
                continue
            samples = Samples(**{name: data[name] for name in COLUMNS})
        size = size_of_cells(samples.owner.shape[1])
        with atomic_writer(path, lambda written, size=size: load_shard(written, size)) as handle:
            _save(handle, samples, size)
        upgraded.append(path)
    return upgraded


def shard_paths(folder: Path, generation: int, worker: int | None | str = "any") -> list[Path]:
    """A generation's shards: all of them (``worker="any"``), the training process's own
    (``None``) or one worker's."""
    out = []
    for path in Path(folder).glob(f"shard-g{generation:06d}-*.npz"):
        match = SHARD_PATTERN.search(path.name)
        if not match:
            continue
        found = match.group("worker")
        if worker == "any" or (None if found is None else int(found)) == worker:
            out.append(path)
    return out


def shard_games(folder: Path, generation: int, worker: int | None | str = "any") -> int:
    """Games already stored for a generation (to resume its self-play where it stopped), by
    every writer or by one (see ``shard_paths``)."""
    return sum(
        int(SHARD_PATTERN.search(p.name).group("games")) for p in shard_paths(folder, generation, worker)
    )


class ReplayWindow:
    """The newest ``window`` samples of a shard folder, reloaded as shards arrive; every shard
    read must be of board size ``size`` (None: any; ``ShardFormatError`` otherwise)."""

    def __init__(self, folder: Path, window: int, size: int | None = None):
        self.folder = Path(folder)
        self.window = window
        self.size = size
        self._cache: dict[str, Samples | None] = {}
        self.samples: Samples | None = None
        self.arrived = 0  # samples of the shards read so far (each counted once, when first read)
        self.arrived_games = 0  # games of those shards (from their names)

    def refresh(self) -> int:
        """Read new shards; returns the number of samples in the window."""
        paths = sorted(self.folder.glob("shard-*.npz"), key=_shard_key, reverse=True)
        parts, visited, total = [], set(), 0
        for path in paths:
            visited.add(path.name)
            if path.name not in self._cache:
                self._cache[path.name] = read_shard(path, self.size)
                if self._cache[path.name] is not None:
                    self.arrived += len(self._cache[path.name])
                    self.arrived_games += int(SHARD_PATTERN.search(path.name).group("games"))
            part = self._cache[path.name]
            if part is None or not len(part):
                continue
            parts.append(part)
            total += len(part)
            if total >= self.window:
                break
        # Forget shards that fell out of the window (damaged ones stay known, to warn once).
        self._cache = {k: v for k, v in self._cache.items() if k in visited or v is None}
        if not parts:
            self.samples = None
            return 0
        merged = Samples.concatenate(parts[::-1])
        self.samples = merged[-self.window :] if len(merged) > self.window else merged
        return len(self.samples)

    def sample(self, count: int, rng: np.random.Generator) -> Samples:
        if self.samples is None or not len(self.samples):
            raise RuntimeError("the replay window is empty")
        return self.samples[rng.integers(0, len(self.samples), size=count)]


def _shard_key(path: Path) -> tuple[int, int, int]:
    match = SHARD_PATTERN.search(path.name)
    if not match:
        return (-1, -1, -1)
    worker = match.group("worker")
    return (int(match.group("generation")), int(match.group("index")), -1 if worker is None else int(worker))


def main(argv: list[str] | None = None) -> int:
    """``python -m tw_rl.training.replay_buffer FOLDER...``: upgrade format-1 shards in place."""
    parser = argparse.ArgumentParser(description="Upgrade format-1 shards in place to the current format.")
    parser.add_argument("folders", nargs="+", type=Path, help="shard folders (a run's selfplay/)")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not folder.is_dir():
            print(f"error: {folder} is not a folder", file=sys.stderr)
            return 2
        try:
            upgraded = upgrade_folder(folder)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
            print(f"error: {folder}: {err}", file=sys.stderr)
            return 1
        print(f"{folder}: {len(upgraded)} shards upgraded to format {SHARD_FORMAT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
