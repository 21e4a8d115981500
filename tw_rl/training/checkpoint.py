"""Checkpoint files: write, read, find the newest, and rebuild the network one holds.

A checkpoint holds tensors and plain values only (``torch.load(..., weights_only=True)`` reads
it): the format version, board size, net config, model and optimizer state, generation and
step counters, and the run config as a plain dict. It is written to a temporary name and
renamed (whole or absent); a damaged one is skipped with a warning when looking for the newest.
Files are named ``ckpt-g<generation, 6 digits>.pt`` in a run's ``checkpoints/`` folder.
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


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message says why in one line."""


def checkpoint_path(folder: Path, generation: int) -> Path:
    """Where the checkpoint of ``generation`` lives in a checkpoints folder."""
    return Path(folder) / f"ckpt-g{generation:06d}.pt"


def checkpoint_paths(folder: Path) -> list[Path]:
    """The checkpoint files of a folder, oldest generation first."""
    found = [p for p in Path(folder).glob("ckpt-g*.pt") if CHECKPOINT_PATTERN.search(p.name)]
    return sorted(found, key=lambda p: int(CHECKPOINT_PATTERN.search(p.name).group(1)))


def checkpoint_payload(
    net: TumbleweedNet, optimizer: torch.optim.Optimizer, generation: int, step: int, run_config: dict
) -> dict:
    """What a checkpoint file holds (see the module docstring)."""
    return {
        "format": CHECKPOINT_FORMAT,
        "size": net.size,
        "net": dataclasses.asdict(net.config),
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "generation": generation,
        "step": step,
        "config": run_config,
    }


def save_checkpoint(folder: Path, generation: int, payload: dict) -> Path:
    """Write a checkpoint atomically; returns its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = checkpoint_path(folder, generation)
    with atomic_writer(path) as handle:
        torch.save(payload, handle)
    return path


def load_checkpoint(path: Path, map_location: str | torch.device = "cpu") -> dict:
    """Read a checkpoint safely (no pickle), checking its format."""
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path}") from None
    except Exception as err:  # torch raises several kinds for a damaged file
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(err).__name__}: {err})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a tw_rl checkpoint of format {CHECKPOINT_FORMAT}")
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
