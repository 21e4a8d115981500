"""Player specs: the player language, parsed into PlayerSpecs (who plays, not how).

A player is a string or a mapping. The string is ``[NAME=]WORD:REST`` for a kind spelt ``WORD``,
or a bare text a kind claims (``random``, ``mcts@50``, ``runs/x/checkpoints``); the mapping has
``kind`` (a kind's name or word), ``name`` and the kind's own keys. The kinds and their syntax
are registered in ``tw_rl.rating.kinds`` (the built-ins: ``tw_rl.rating.player_kinds``), so the
language knows no kind by itself. ``NAME=`` gives a player its display name.

``@`` after a clocked player (``weights:``, ``release:``) is its clock in seconds a GAME; after
``ckpt:`` the simulations a move (``@raw``: none), after ``mcts`` the playouts a move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.rating import player_kinds
from tw_rl.rating.kinds import Context, PlayerSpec, RatingError, kind_for_word, kind_named, kind_of, kinds
from tw_rl.referee.releases import releases_dir

__all__ = [
    "BASELINE_NAMES",
    "RELEASES_DIR",
    "RatingError",
    "PlayerSpec",
    "checkpoint_spec",
    "make_player",
    "parse_player",
    "parse_players",
    "program_spec",
    "syntax_help",
    "usage",
]

BASELINE_NAMES = player_kinds.BASELINE_NAMES
checkpoint_spec = player_kinds.checkpoint_spec
program_spec = player_kinds.program_spec
RELEASES_DIR = releases_dir()
_NAME = re.compile(r"[A-Za-z0-9_.+\-/~]+")


def usage() -> str:
    """The syntax of every registered kind, for error messages."""
    return "use " + ", ".join(k.syntax for k in kinds() if k.syntax) + " (optionally NAME=...)"


def syntax_help() -> str:
    """Every registered kind's syntax with its summary, for help texts (``tw-rl rate``)."""
    parts = [f"{k.syntax} ({k.summary})" if k.summary else k.syntax for k in kinds() if k.syntax]
    return "; ".join(parts) + "; NAME=... names a player"


def _from_mapping(item: Mapping, context: Context) -> list[PlayerSpec]:
    word = str(item.get("kind", ""))
    kind = kind_named(word) or kind_for_word(word)
    if kind is None:
        names = sorted({w for k in kinds() for w in (k.name, *k.words)})
        raise RatingError(f"player {dict(item)}: kind must be one of {', '.join(names)}")
    return kind.from_mapping(item, str(item.get("name", "") or ""), context)


def _split_name(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` -> (NAME, SPEC) when SPEC is a player; ("", text) without a name."""
    head, eq, rest = text.partition("=")
    word, colon, _ = rest.partition(":")
    if not eq or ":" in head or not ((colon and kind_for_word(word)) or any(k.claims(rest) for k in kinds())):
        return "", text
    if not _NAME.fullmatch(head):
        raise RatingError(f"player {text!r}: the name {head!r} may only use letters, digits and _ . + - / ~")
    return head, rest


def _from_text(text: str, context: Context) -> list[PlayerSpec]:
    name, text = _split_name(text)
    word, colon, rest = text.partition(":")
    kind = kind_for_word(word) if colon else None
    if kind is not None:
        return kind.parse(rest, name, context)
    for kind in kinds():
        if kind.claims(text):
            return kind.parse(text, name, context)
    raise RatingError(f"player {text!r} is not understood; {usage()}")


def parse_player(item: str | Mapping, simulations: int = 64, size: int = 6) -> list[PlayerSpec]:
    """The players one list entry stands for (a checkpoint glob may stand for many);
    ``simulations``: a checkpoint's search without @N; ``size``: the board of the games."""
    context = Context(simulations, size)
    if isinstance(item, Mapping):
        return _from_mapping(item, context)
    return _from_text(str(item).strip(), context)


def parse_players(items: Sequence[str | Mapping], simulations: int = 64, size: int = 6) -> list[PlayerSpec]:
    """Every player of the list, globs expanded, duplicates (same identity) dropped."""
    out: list[PlayerSpec] = []
    seen: set[str] = set()
    for item in items:
        for spec in parse_player(item, simulations, size):
            key = spec.identity().key()
            if key not in seen:
                seen.add(key)
                out.append(spec)
    return out


def make_player(spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
    """The batched in-process player of a spec (checkpoints are loaded here)."""
    return kind_of(spec).build(spec, rules, device)
