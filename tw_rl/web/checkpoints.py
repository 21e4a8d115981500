"""A checkpoint for the web page (a bot's search, an analysis's policy and value), by the path
the server was started with or ``default`` (the shipped teacher), read through the one loader
and its one board-size check (``tw_rl.training.checkpoint.load_net``), with one-line errors that
name it as the page does (never by its path on the server)."""

from __future__ import annotations

from pathlib import Path

from tw_rl.core.rules import Rules
from tw_rl.training.checkpoint import CheckpointError, load_net, resolve_checkpoint
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
        net, payload = load_net(file, rules.size, "cpu", user="this game")
    except (CheckpointError, KeyError, RuntimeError, OSError) as err:
        message = _without_paths(str(err), (path, file), label)
        raise CheckpointError(f"checkpoint {label}: {message}") from None
    return NetPolicyValue(net, rules, "cpu"), payload


def _without_paths(message: str, paths: tuple, label: str) -> str:
    """The loader's message as the page says it: the checkpoint is "it" where the message starts
    with its path, and its label wherever else a path stood (the longest first)."""
    for shown in sorted({str(p) for p in paths}, key=len, reverse=True):
        if message.startswith(shown + " "):
            message = "it" + message[len(shown) :]
        message = message.replace(shown, label)
    return message
