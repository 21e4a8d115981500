"""The seam of the rating's players: a player kind is one ``PlayerKind`` subclass and one ``register``.

A kind says, in one place, everything the rating room does with its players:

- its spec syntax: the words before the colon (``ckpt`` in ``ckpt:PATH@N``; ``words``), or bare
  texts it claims (``random``, ``run/x.pt``; ``claims``), and its mapping form (``from_mapping``);
  ``parse`` turns the text after the word into ``PlayerSpec``s (a glob may stand for many);
- its identity in the results database (``identity``; its ``Identity.kind`` is the kind's
  ``name``, the one vocabulary of the database);
- how it plays: in-process as a batched player (``build``, ``in_process = True``), or as an
  outside program through the referee (``program``, ``in_process = False``);
- how it is served: an in-process player in a refereed game runs as ``python -m
  tw_rl.rating.serve`` with its whole ``PlayerSpec`` as JSON (``PlayerSpec.to_json``; nothing is
  dropped, the served process rebuilds it with ``build``);
- how it is described: ``syntax`` (one line of the usage text) and ``summary`` (a few words
  beside it in help texts: ``tw_rl.rating.player_specs.syntax_help``), the display name ``parse``
  proposes, and ``curve`` (drawn as a rating curve over training, like checkpoints) in the Elo
  pictures.

A kind whose ``parse`` returns specs of another kind is a spelling of that kind: ``weights:`` and
``release:`` make ``program`` specs (the bot and the frozen releases are outside programs).

``@`` after a clocked player is its clock, seconds a GAME (``seconds_suffix``); a number that
cannot be meant (``@0``, ``@-1``, ``@abc``) is one ``RatingError``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.rating.results_db import Identity
from tw_rl.referee.process import Program
from tw_rl.referee.releases import split_clock

__all__ = [
    "RatingError",
    "Context",
    "Player",
    "PlayerKind",
    "PlayerSpec",
    "kind_named",
    "kind_of",
    "kind_for_word",
    "kinds",
    "register",
    "seconds_suffix",
    "split_suffix",
]


class RatingError(ValueError):
    """A bad player, setting or file: a one-line message for the user."""


@dataclass
class PlayerSpec:
    """One concrete player (a checkpoint glob expands into one spec per file).

    ``options`` is the kind's own record (JSON-ready: what ``build`` or ``program`` needs); the
    other fields are what the results database keeps of every player."""

    kind: str  # a registered kind's name
    name: str  # display name proposed for the results database
    options: dict = field(default_factory=dict)
    sha256: str = ""  # of the player's file (checkpoint, weights, script), "" if none
    path: str = ""  # that file, as last seen
    run_dir: str = ""  # the training run folder it belongs to ("" if none)
    generation: int | None = None
    step: int | None = None
    size: int | None = None  # the board its file is for (None: any)

    @property
    def in_process(self) -> bool:
        return kind_of(self).in_process

    def identity(self) -> Identity:
        return kind_of(self).identity(self)

    def to_json(self) -> str:
        """Every field, with the module that registers the kind (a served player imports it)."""
        data = dataclasses.asdict(self)
        data["module"] = type(kind_of(self)).__module__
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PlayerSpec:
        """The inverse of ``to_json`` (the kind's module is imported when it is not registered)."""
        data = json.loads(text)
        module = data.pop("module", "")
        if data.get("kind") not in _KINDS and module:
            importlib.import_module(module)
        return cls(**data)


@dataclass(frozen=True)
class Context:
    """What a kind may need to know of the games to be played while parsing."""

    simulations: int = 64  # a checkpoint's search without @N
    size: int = 6  # the board played


class PlayerKind:
    """One kind of player; subclass, set the class attributes, override what applies, ``register``."""

    name: str = ""  # the kind: PlayerSpec.kind and Identity.kind
    words: tuple[str, ...] = ()  # WORD:REST spellings (the first also names the mapping form's kind)
    syntax: str = ""  # one line of the usage text, e.g. "ckpt:PATH[@N]"
    summary: str = ""  # what the player is and what the syntax's parts mean, for help texts
    in_process: bool = True  # build() a batched player; False: program() for the referee
    uses_torch: bool = False  # its in-process players run torch (the rating run sets its thread count)
    curve: bool = False  # Elo pictures: a curve over training (checkpoints), else a reference line

    def claims(self, text: str) -> bool:
        """Whether a text without a known ``WORD:`` is this kind's (then ``parse(text)``)."""
        return False

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        """The specs of the text after ``WORD:`` (or of a claimed text); ``name``: the display
        name asked for ("" for the kind's own); ``context``: the defaults of the games to be played."""
        raise NotImplementedError

    def from_mapping(self, item: Mapping, name: str, context: Context) -> list[PlayerSpec]:
        """The mapping form (``{kind: ..., path: ..., name: ...}``); by default its ``spec``
        key is parsed as the text after the word."""
        return self.parse(str(item.get("spec", item.get("path", ""))), name, context)

    def identity(self, spec: PlayerSpec) -> Identity:
        """What makes two players of this kind the same player (default: the file and options)."""
        return Identity(self.name, sha256=spec.sha256, search=dict(spec.options))

    def build(self, spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
        """The batched in-process player of a spec."""
        raise RatingError(f"{spec.name}: a {spec.kind} player cannot play in-process")

    def program(self, spec: PlayerSpec) -> Program:
        """The program the referee runs for a spec of an outside kind."""
        raise RatingError(f"{spec.name}: a {spec.kind} player is not a program")


_KINDS: dict[str, PlayerKind] = {}  # by name
_WORDS: dict[str, PlayerKind] = {}  # by WORD


def register(kind: PlayerKind) -> PlayerKind:
    """Add a kind (its name and words must be new); returns it."""
    if not kind.name:
        raise ValueError(f"{type(kind).__name__} has no name")
    if kind.name in _KINDS:
        raise ValueError(f"player kind {kind.name!r} is registered already")
    for word in kind.words:
        if word in _WORDS:
            raise ValueError(f"player kind {kind.name!r}: {word}: is {_WORDS[word].name}'s")
    _KINDS[kind.name] = kind
    for word in kind.words:
        _WORDS[word] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind (tests that register one of their own)."""
    kind = _KINDS.pop(name)
    for word in kind.words:
        _WORDS.pop(word, None)


def kinds() -> list[PlayerKind]:
    """The registered kinds, in the order they were registered."""
    return list(_KINDS.values())


def kind_named(name: str) -> PlayerKind | None:
    """The kind of this name (``Identity.kind``, ``PlayerSpec.kind``), or None."""
    return _KINDS.get(name)


def kind_for_word(word: str) -> PlayerKind | None:
    """The kind spelt ``WORD:``, or None."""
    return _WORDS.get(word)


def kind_of(spec: PlayerSpec) -> PlayerKind:
    kind = _KINDS.get(spec.kind)
    if kind is None:
        raise RatingError(f"{spec.name}: unknown player kind {spec.kind!r}")
    return kind


# ----------------------------------------------------------------------- the @ suffix


def split_suffix(text: str) -> tuple[str, str | None]:
    """``X@TAIL`` -> (X, TAIL); (text, None) without an ``@`` (or one inside a folder name)."""
    head, at, tail = text.rpartition("@")
    if not at or "/" in tail:
        return text, None
    return head, tail


def seconds_suffix(text: str, label: str, default: float = DEFAULT_BUDGET) -> tuple[str, float]:
    """``X@SECONDS`` -> (X, seconds a game); without ``@``, ``default`` (the CodeCup clock)."""
    try:
        return split_clock(text, default)
    except ValueError as err:
        raise RatingError(f"player {label}: {err}") from None


def count_suffix(
    text: str, label: str, what: str, default: int, least: int, raw: bool = False
) -> tuple[str, int]:
    """``X@N`` -> (X, N) for a whole number N >= ``least`` (``@raw`` = 0 when ``raw``)."""
    head, tail = split_suffix(text)
    if tail is None:
        return text, default
    if raw and tail == "raw":
        return head, 0
    if not tail.isdigit() or int(tail) < least:
        extra = " or raw" if raw else ""
        raise RatingError(f"player {label}: @{tail}: {what} must be a whole number >= {least}{extra}")
    return head, int(tail)
