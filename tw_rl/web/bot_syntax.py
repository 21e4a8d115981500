"""The page's bot specs, spelt once: the words a client or ``tw-rl serve --bot`` names an opponent
with, and their defaults (``tw_rl.web.bots`` parses them and makes the players).

Only the core's baselines are imported here, no torch and no web server, so that the help of
``tw-rl serve`` takes the syntax from here while ``tw-rl --help`` stays quick.
"""

from __future__ import annotations

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.core.baselines import BASELINES

DEFAULT_GAME_SECONDS = DEFAULT_BUDGET  # the CodeCup clock (its one home: tw_rl.codecup.clock)
DEFAULT_BOT = f"bot@{DEFAULT_GAME_SECONDS:g}"
DEFAULT_SIMULATIONS = 64
SYNTAX = (
    "bot[@SECONDS] (SECONDS for the whole game, as in the rating run), ckpt:NAME[@SIMULATIONS] "
    f"(NAME: a checkpoint this server offers, or its number), {' or '.join(BASELINES)}"
)
USAGE = f"use {SYNTAX}"
