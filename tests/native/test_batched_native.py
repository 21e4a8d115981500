"""The batched engine (compiled kernel and numpy reference) against the native bot's rules:
legal moves, sight, territory, game end and score of every position of random CodeCup games
on the 6-board (the native engine's board), end positions included, through the binary's
``--test`` mode (``rules R W m1 m2 ...``)."""

from __future__ import annotations

import numpy as np
import pytest
from native_crosscheck import ask

from tw_rl.core import kernel
from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE


def cells(xs) -> str:
    return ",".join(str(int(x)) for x in xs)


def batched_games(games: int, seed: int) -> list[tuple[str, str]]:
    """(the position as the binary reads it, the batched engine's answer) for every position."""
    rules = Rules(6, "codecup")
    rng = np.random.default_rng(seed)
    state = rules.init(games, rng)
    starts = [(int(np.flatnonzero(o == RED)[0]), int(np.flatnonzero(o == WHITE)[0])) for o in state.owner]
    moves: list[list[int]] = [[] for _ in range(games)]
    records = []
    was_over = np.zeros(games, dtype=bool)
    while True:
        legal = rules.legal_mask(state)
        score = rules.score(state)
        territory = rules.territory_of(state)
        for g in np.flatnonzero(~was_over):
            answer = (
                f"legal {cells(np.flatnonzero(legal[g]))} "
                f"rs {''.join(map(str, state.sight[g, 0]))} ws {''.join(map(str, state.sight[g, 1]))} "
                f"tr {cells(np.flatnonzero(territory[g, 0]))} tw {cells(np.flatnonzero(territory[g, 1]))} "
                f"over {int(state.terminated[g])} score {score[g, 0]},{score[g, 1]}"
            )
            records.append((" ".join(map(str, [*starts[g], *moves[g]])), answer))
        if state.terminated.all():
            return records
        was_over = state.terminated.copy()
        actions = (rng.random(legal.shape) * legal).argmax(axis=1)
        for g in np.flatnonzero(~was_over):
            moves[g].append(int(actions[g]))
        state = rules.step(state, actions)


@pytest.mark.parametrize("path", ["c", "numpy"])
def test_batched_engine_agrees_with_the_native_rules(native_tools_bin, path):
    if path == "c" and not kernel.compiled_available():
        pytest.skip(f"the compiled kernel is unavailable: {kernel.why_unavailable()}")
    with kernel.engine(path):
        records = batched_games(12, seed=5)
    assert len(records) > 1000
    assert sum(" over 1 " in answer for _, answer in records) == 12  # every game's end
    answers = ask(native_tools_bin, ["rules " + position for position, _ in records])
    wrong = [(p, want, got) for (p, want), got in zip(records, answers, strict=True) if got != want]
    assert wrong == []
