"""Checkpoint files: write, read, find the newest, and rebuild the network one holds.

A checkpoint holds tensors and plain values only (``torch.load(..., weights_only=True)`` reads
it): the format version, board size, net config, model and optimizer state, generation and
step counters, the run config as a plain dict and the generation's metrics so far (self-play
and training; a run killed before it logged them finishes the line from these). It is written
to a temporary name, read back with ``weights_only=True`` and only then renamed (whole or
absent); a damaged one is skipped with a warning when looking for the newest.
Files are named ``ckpt-g<generation, 6 digits>.pt`` in a run's ``checkpoints/`` folder.

The package ships one checkpoint, the default teacher (``teacher-default.pt`` beside this
module, its model card ``teacher-default.md``): the name ``default`` stands for it wherever a
checkpoint is asked for (``resolve_checkpoint``).

Every reader goes through ``load_checkpoint``; given the board size it will be used on
(``size=``) it makes the one board-size check (``check_size``), so a checkpoint of another board
is refused with the same one line wherever it is read.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path

import torch

from tw_rl.config import NetConfig
from tw_rl.files import atomic_writer
from tw_rl.training.net import TumbleweedNet

CHECKPOINT_FORMAT = 1
CHECKPOINT_PATTERN = re.compile(r"ckpt-g(\d+)\.pt$")
DEFAULT_TEACHER = Path(__file__).resolve().with_name("teacher-default.pt")  # package data


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message says why in one line."""


def resolve_checkpoint(name: str | Path) -> Path:
    """``default`` -> the shipped teacher; any other name is a path."""
    if str(name) == "default":
        if not DEFAULT_TEACHER.is_file():
            raise CheckpointError(f"the shipped teacher {DEFAULT_TEACHER} is missing from this install")
        return DEFAULT_TEACHER
    return Path(name)


def initial_checkpoint(name: str | Path, size: int) -> tuple[Path, dict]:
    """The checkpoint a new run starts from (``init_from``): its path and payload, refused with
    a ``CheckpointError`` when it is for another board size."""
    path = resolve_checkpoint(name)
    return path, load_checkpoint(path, size=size, user="the run")


def checkpoint_path(folder: Path, generation: int) -> Path:
    """Where the checkpoint of ``generation`` lives in a checkpoints folder."""
    return Path(folder) / f"ckpt-g{generation:06d}.pt"


def checkpoint_paths(folder: Path) -> list[Path]:
    """The checkpoint files of a folder, oldest generation first."""
    found = [p for p in Path(folder).glob("ckpt-g*.pt") if CHECKPOINT_PATTERN.search(p.name)]
    return sorted(found, key=lambda p: int(CHECKPOINT_PATTERN.search(p.name).group(1)))


def checkpoint_payload(
    net: TumbleweedNet,
    optimizer: torch.optim.Optimizer,
    generation: int,
    step: int,
    run_config: dict,
    metrics: dict | None = None,
) -> dict:
    """What a checkpoint file holds (see the module docstring)."""
    plain = {str(k): v.item() if hasattr(v, "item") else v for k, v in (metrics or {}).items()}
    return {
        "format": CHECKPOINT_FORMAT,
        "size": net.size,
        "net": dataclasses.asdict(net.config),
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "generation": generation,
        "step": step,
        "config": run_config,
        "metrics": plain,
    }


def save_checkpoint(folder: Path, generation: int, payload: dict) -> Path:
    """Write a checkpoint atomically; returns its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = checkpoint_path(folder, generation)

    def read_back(written: Path) -> None:
        back = load_checkpoint(written)
        if back["generation"] != payload["generation"] or back["model"].keys() != payload["model"].keys():
            raise CheckpointError(f"{path}: the written checkpoint does not read back as written")

    with atomic_writer(path, read_back) as handle:
        torch.save(payload, handle)
    return path


def check_size(payload: dict, size: int, path: str | Path, user: str = "the game") -> None:
    """The one board-size check: ``CheckpointError`` when the checkpoint ``payload`` (read from
    ``path``) is for another board than ``size``, the board ``user`` plays."""
    if int(payload["size"]) != size:
        raise CheckpointError(f"{path} is for board size {payload['size']}, {user} plays size {size}")


def load_checkpoint(
    path: Path, map_location: str | torch.device = "cpu", *, size: int | None = None, user: str = "the game"
) -> dict:
    """Read a checkpoint safely (no pickle), checking its format; with ``size``, also its board
    (``check_size``, ``user`` naming who plays that board in the message)."""
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path}") from None
    except Exception as err:  # torch raises several kinds for a damaged file
        why = str(err).strip().split("\n")[0]  # the first line: torch's own messages run to paragraphs
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(err).__name__}: {why})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a tw_rl checkpoint of format {CHECKPOINT_FORMAT}")
    if size is not None:
        check_size(payload, size, path, user)
    return payload


def latest_checkpoint(folder: Path) -> tuple[Path, dict] | None:
    """The newest readable checkpoint in a folder; damaged ones are skipped with a warning."""
    for path in reversed(checkpoint_paths(folder)):
        try:
            return path, load_checkpoint(path)
        except CheckpointError as err:
            warnings.warn(f"skipping checkpoint: {err}", stacklevel=2)
    return None


def net_from_checkpoint(payload: dict, device: torch.device | str = "cpu") -> TumbleweedNet:
    """Rebuild the network a checkpoint holds."""
    net = TumbleweedNet(NetConfig(**payload["net"]), int(payload["size"]))
    net.load_state_dict(payload["model"])
    return net.to(device).eval()


def load_net(
    path: Path, size: int, device: torch.device | str = "cpu", user: str = "the game"
) -> tuple[TumbleweedNet, dict]:
    """The network of a checkpoint for the ``size`` board, and its payload (``CheckpointError``:
    unreadable, or for another board)."""
    payload = load_checkpoint(path, size=size, user=user)
    return net_from_checkpoint(payload, device), payload
