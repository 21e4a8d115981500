"""The worked example of a new player kind (``test_worked_example_kind.py`` uses it).

A new kind is this much: one ``PlayerKind`` subclass and one ``register`` line, here or in a
module of ``tw_rl/rating`` (then imported beside the built-ins in ``player_specs``). ``first``
plays the lowest legal action of every game: cell 0 first, the pass last.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.rating.kinds import Context, PlayerKind, PlayerSpec, kind_named, register


def first_legal(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
    """[B] the lowest legal action of each game."""
    return rules.legal_mask(state).argmax(axis=1)


class FirstLegal(PlayerKind):
    name = "first"  # PlayerSpec.kind and the kind stored in the results database
    words = ("first",)  # first:NOTE (any note: a second first-legal player, for the example)
    syntax = "first[:NOTE]"

    def claims(self, text: str) -> bool:
        return text == "first"

    def parse(self, text: str, name: str, context: Context) -> list[PlayerSpec]:
        note = "" if text == "first" else text
        return [PlayerSpec(self.name, name or f"first{':' + note if note else ''}", {"note": note})]

    def build(self, spec: PlayerSpec, rules: Rules, device: str = "cpu"):
        return first_legal


if kind_named(FirstLegal.name) is None:  # served in another process, it registers there too
    register(FirstLegal())
