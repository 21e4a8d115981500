"""Self-play samples on disk: shards written atomically, and a replay window over them.

A shard is one ``.npz`` file of finished games' samples (compact positions plus targets). It is
written to a temporary name and renamed, so a shard either exists whole or not at all; one that
is damaged anyway (a copy cut short, a full disk) is skipped with a warning when read.

Names: ``shard-g<generation>-<index>-n<games>.npz`` from the training process, and
``shard-g<generation>-w<worker>-<index>-n<games>.npz`` from a self-play worker of a Ray run
(``tw_rl.training.ray_selfplay``), so that workers writing into one folder never pick the same name.
Both count toward a generation's games and both are read by the replay window.

Per sample::

    owner, height  int8 [N]   the position (sight and territory are recomputed when encoding)
    to_move        int8       RED or WHITE;  passes int8: consecutive passes before it
    policy         float16 [N+1]  the search policy (training target)
    value          int8       final result for the side to act: 1 win, 0 draw, -1 loss
    territory      int8 [N]   final simulated territory: 1 mine, -1 theirs, 0 neither or both
    score          float32    final territory margin / N for the side to act
"""

from __future__ import annotations

import re
import warnings
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from tw_rl.files import atomic_writer

SHARD_PATTERN = re.compile(
    r"shard-g(?P<generation>\d+)-(?:w(?P<worker>\d+)-)?(?P<index>\d+)-n(?P<games>\d+)\.npz$"
)


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
    """Write one shard atomically; its name records the generation, the writing worker (None:
    the training process itself) and the games it holds."""
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

    with atomic_writer(path, read_back) as handle:
        np.savez(handle, **{f.name: getattr(samples, f.name) for f in fields(samples)})
    return path


def load_shard(path: Path) -> Samples:
    """A shard's samples; ValueError (or OSError) when the file is damaged."""
    try:
        with np.load(path) as data:
            samples = Samples(**{f.name: data[f.name] for f in fields(Samples)})
    except (KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(str(err)) from None
    if len({len(getattr(samples, f.name)) for f in fields(samples)}) != 1:
        raise ValueError("columns of different lengths")
    return samples


def read_shard(path: Path) -> Samples | None:
    """A shard's samples, or None (with a warning) when the file is damaged."""
    try:
        return load_shard(path)
    except (OSError, ValueError) as err:
        warnings.warn(f"skipping damaged shard {path.name}: {err}", stacklevel=2)
        return None


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
    """The newest ``window`` samples of a shard folder, reloaded as shards arrive."""

    def __init__(self, folder: Path, window: int):
        self.folder = Path(folder)
        self.window = window
        self._cache: dict[str, Samples | None] = {}
        self.samples: Samples | None = None

    def refresh(self) -> int:
        """Read new shards; returns the number of samples in the window."""
        paths = sorted(self.folder.glob("shard-*.npz"), key=_shard_key, reverse=True)
        parts, visited, total = [], set(), 0
        for path in paths:
            visited.add(path.name)
            if path.name not in self._cache:
                self._cache[path.name] = read_shard(path)
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
