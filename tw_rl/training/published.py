"""The network self-play plays with, published by the learner: ``<run_dir>/network.pt``.

The learner writes it to a temporary name and renames it (whole or absent), tagged with the
generation it is for; self-play workers (Ray actors, ``tw_rl.training.ray_selfplay``, or the
processes of an overlapped run, ``tw_rl.training.overlap``) read it with ``weights_only=True``.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import torch

from tw_rl.files import atomic_writer
from tw_rl.training.net import TumbleweedNet

PUBLISHED = "network.pt"  # in the run folder
PUBLISHED_FORMAT = 1
LOAD_PATIENCE_S = 60.0  # how long a worker waits for the published network to appear (shared filesystems lag)


def publish_network(run_dir: Path, net: TumbleweedNet, generation: int) -> Path:
    """Write the network that self-play of ``generation`` uses, atomically (weights only)."""
    path = Path(run_dir) / PUBLISHED
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": PUBLISHED_FORMAT,
        "generation": generation,
        "size": net.size,
        "net": dataclasses.asdict(net.config),
        "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
    }
    with atomic_writer(path) as handle:
        torch.save(payload, handle)
    return path


def load_published(run_dir: Path, generation: int, patience_s: float = LOAD_PATIENCE_S) -> dict:
    """The published network for ``generation``; waits while the file is missing or older."""
    path = Path(run_dir) / PUBLISHED
    deadline = time.monotonic() + patience_s
    while True:
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
            found = payload.get("generation") if isinstance(payload, dict) else None
            if found == generation and payload.get("format") == PUBLISHED_FORMAT:
                return payload
            problem = f"it holds generation {found}"
        except FileNotFoundError:
            problem = "it does not exist"
        except Exception as err:  # a damaged file: torch raises several kinds
            problem = f"it cannot be read ({type(err).__name__}: {err})"
        if time.monotonic() >= deadline:
            raise RuntimeError(f"no network for generation {generation} at {path}: {problem}")
        time.sleep(0.2)


def load_newest(run_dir: Path) -> dict | None:
    """The published network, whatever its generation, or None while there is none readable."""
    try:
        payload = torch.load(Path(run_dir) / PUBLISHED, map_location="cpu", weights_only=True)
    except Exception:  # missing, or (briefly, on a shared filesystem) unreadable: try again later
        return None
    return payload if isinstance(payload, dict) and payload.get("format") == PUBLISHED_FORMAT else None
