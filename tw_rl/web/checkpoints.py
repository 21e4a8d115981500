"""A checkpoint for the web page (a bot's search, a study's policy and value), by path or
``default`` (the shipped teacher), checked against the game's board, with one-line errors."""

from __future__ import annotations

from pathlib import Path

from tw_rl.core.rules import Rules
from tw_rl.training.checkpoint import (
    CheckpointError,
    load_checkpoint,
    net_from_checkpoint,
    resolve_checkpoint,
)
from tw_rl.training.net import NetPolicyValue


def load_policy_value(name: str, rules: Rules) -> tuple[NetPolicyValue, dict]:
    """The checkpoint's network as a policy-value function on ``rules`` (CPU, float32) and its
    payload; ``CheckpointError`` ("checkpoint NAME: ...") when it is missing, damaged or for
    another board size."""
    try:
        path = Path(resolve_checkpoint(name))
        if not path.is_file():
            raise CheckpointError("no such file")
        payload = load_checkpoint(path)
        if int(payload["size"]) != rules.size:
            raise CheckpointError(f"it is for board size {payload['size']}, this game is size {rules.size}")
        net = net_from_checkpoint(payload, "cpu")
    except (CheckpointError, KeyError, RuntimeError, OSError) as err:
        raise CheckpointError(f"checkpoint {name}: {err}") from None
    return NetPolicyValue(net, rules, "cpu"), payload
