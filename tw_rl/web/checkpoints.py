"""A checkpoint for the web page (a bot's search, an analysis's policy and value), by the path
the server was started with or ``default`` (the shipped teacher), checked against the game's
board, with one-line errors that name it as the page does."""

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


def load_policy_value(path: str, rules: Rules, label: str | None = None) -> tuple[NetPolicyValue, dict]:
    """The checkpoint's network as a policy-value function on ``rules`` (CPU, float32) and its
    payload; ``CheckpointError`` ("checkpoint LABEL: ...") when it is missing, damaged or for
    another board size."""
    label = label or path
    file = Path(path)
    try:
        file = Path(resolve_checkpoint(path))
        if not file.is_file():
            raise CheckpointError("the file is gone from the server")
        payload = load_checkpoint(file)
        if int(payload["size"]) != rules.size:
            raise CheckpointError(f"it is for board size {payload['size']}, this game is size {rules.size}")
        net = net_from_checkpoint(payload, "cpu")
    except (CheckpointError, KeyError, RuntimeError, OSError) as err:
        message = str(err)
        for shown in {str(path), str(file)}:  # the page knows the checkpoint by its label only
            message = message.replace(shown, label)
        raise CheckpointError(f"checkpoint {label}: {message}") from None
    return NetPolicyValue(net, rules, "cpu"), payload
