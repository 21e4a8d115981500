"""The native bot's opening book (``--book``, issue 43): every entry legal for every start of its
class under each of the board's 12 symmetries, the book complete over the judge's starts, the
native lookup the script's mapping, a start from the book answered from it and one outside it
searched."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from native_crosscheck import BOARD, ask

from tw_rl.codecup.rules import Position
from tw_rl.native import build

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from make_opening_book import canonical, classes, judge_starts, symmetry  # noqa: E402

ENTRY = re.compile(r"^\s*\{(\d+), (\d+), (\d+)\},$", re.MULTILINE)


def mapped_back(entries, red: int, white: int) -> int:
    """The book's move for a start, in the start's own frame (-1: its class is not in the book)."""
    rep, k = canonical(BOARD, red, white)
    if rep not in entries:
        return -1
    return next(c for c in range(BOARD.num_cells) if symmetry(BOARD, k, c) == entries[rep])


def book() -> dict[tuple[int, int], int]:
    text = (build.PARTS_DIR / "opening_book_data.hpp").read_text()
    size = int(re.search(r"OPENING_BOOK_SIZE = (\d+);", text).group(1))
    entries = {(int(r), int(w)): int(m) for r, w, m in ENTRY.findall(text)}
    entries.pop((255, 255), None)  # the empty book's sentinel
    assert len(entries) == size
    return entries


def test_the_symmetries_are_the_boards_twelve():
    images = {tuple(symmetry(BOARD, k, c) for c in range(BOARD.num_cells)) for k in range(12)}
    assert len(images) == 12
    for image in images:
        for c in range(BOARD.num_cells):
            assert {image[n] for n in BOARD.neighbours[c]} == set(BOARD.neighbours[image[c]])


def test_every_book_entry_is_legal_for_every_start_of_its_class():
    entries = book()
    if not entries:
        pytest.skip("the opening book is empty (scripts/make_opening_book.py writes it)")
    assert set(entries) == set(classes(BOARD))  # every class of the judge's starts
    for (red, white), move in entries.items():
        assert canonical(BOARD, red, white)[0] == (red, white)
        for k in range(12):
            pos = Position.start(BOARD, symmetry(BOARD, k, red), symmetry(BOARD, k, white))
            assert symmetry(BOARD, k, move) in pos.legal_moves(), (red, white, k)


def test_the_native_lookup_is_the_books_move_mapped_back(native_tools_bin):
    entries = book()
    starts = judge_starts(BOARD)[::7]
    answers = ask(native_tools_bin, [f"book {r} {w}" for r, w in starts] + ["book 0 1"])
    for (red, white), answer in zip(starts, answers, strict=False):
        assert answer == f"move {mapped_back(entries, red, white)}"
    assert answers[-1] == "move -1"  # border cells: no judge start, not in the book


def _first_answer(binary, red: int, white: int, *options: str) -> str:
    done = subprocess.run(
        [str(binary), "--time", "2", *options],
        input=f"{BOARD.name(red)}\n{BOARD.name(white)}\nStart\nQuit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout.strip()


def test_a_start_from_the_book_is_answered_from_it_and_one_outside_is_searched(native_bin, native_tools_bin):
    entries = book()
    if not entries:
        pytest.skip("the opening book is empty (scripts/make_opening_book.py writes it)")
    differs = 0
    for red, white in judge_starts(BOARD)[::300]:
        expected = BOARD.name(mapped_back(entries, red, white))
        assert _first_answer(native_bin, red, white, "--book", "--sims", "1") == expected
        differs += _first_answer(native_bin, red, white, "--sims", "1") != expected
    assert differs > 0  # a one-simulation search would not have played the book's moves
    # a border start is no judge start: searched, a legal move
    outside = _first_answer(native_bin, 0, 20, "--book", "--sims", "50")
    assert BOARD.parse(outside) in Position.start(BOARD, 0, 20).legal_moves()
