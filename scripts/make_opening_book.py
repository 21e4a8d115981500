"""Write the native bot's opening book (``--book``): red's first move for every class of the
judge's starts under the board's 12 symmetries, each from one long search.

    python scripts/make_opening_book.py           # 100,000 simulations a class, the shipped student
    python scripts/make_opening_book.py --sims 400000 --weights runs/X/student.twnet   # for a new network

The judge draws both first stacks off the border, not in the centre, apart (not neighbours):
``tw_rl.codecup.rules.judge_start``. Two starts are one class when a symmetry of the board (a
turn by a multiple of 60 degrees, with or without a mirror) maps one onto the other; a class's
representative is the smallest (red, white) pair of its images, as ``opening_book.hpp``
computes it. For each representative the tools binary (``build.build_native_tools`` with the
weights, ``g++ -O2``) searches red's first move with ``--sims`` simulations in a fresh tree
(``bot --test``'s ``search``), ``--jobs`` searches at a time, and the entries go to
``tw_rl/native/src/opening_book_data.hpp`` (``--out``), which the submission embeds; the file
names the command, the simulations and the weights' sha256. White's replies are not in the book.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tw_rl.codecup.rules import Board

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tw_rl" / "native" / "src" / "opening_book_data.hpp"


def symmetry(board: Board, k: int, cell: int) -> int:
    """Symmetry k (0 to 11) of a cell: a mirror when k >= 6, then k % 6 turns (opening_book.hpp)."""
    c, r = board.coords[cell]
    q, s = c - (board.size - 1), r - (board.size - 1)
    if k >= 6:
        q, s = s, q
    for _ in range(k % 6):
        q, s = q - s, q
    return board.index[(q + board.size - 1, s + board.size - 1)]


def canonical(board: Board, red: int, white: int) -> tuple[tuple[int, int], int]:
    """(the class's representative, the symmetry that maps the start onto it)."""
    images = [((symmetry(board, k, red), symmetry(board, k, white)), k) for k in range(12)]
    return min(images, key=lambda item: (item[0], item[1]))


def judge_starts(board: Board) -> list[tuple[int, int]]:
    allowed = [i for i in range(board.num_cells) if not board.on_border(i) and i != board.centre]
    return [(r, w) for r in allowed for w in allowed if w != r and w not in board.neighbours[r]]


def classes(board: Board) -> list[tuple[int, int]]:
    return sorted({canonical(board, r, w)[0] for r, w in judge_starts(board)})


def header(entries: list[tuple[int, int, int]], about: str) -> str:
    rows = "".join(f"    {{{r}, {w}, {m}}},\n" for r, w, m in entries) or "    {255, 255, 255},\n"
    return (
        "// The opening book's entries (opening_book.hpp); written by scripts/make_opening_book.py:\n"
        f"// {about}\n"
        "#pragma once\n\n#include <cstdint>\n\nnamespace tw {\n\n"
        "struct BookEntry {\n"
        "    uint8_t red, white, move;  // a class's representative start and red's move there\n"
        "};\n\n"
        f"constexpr int OPENING_BOOK_SIZE = {len(entries)};\n"
        f"static const BookEntry OPENING_BOOK[] = {{\n{rows}}};\n\n"
        "}  // namespace tw\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=100_000, help="simulations of each class's search")
    parser.add_argument("--weights", type=Path, help="the .twnet student (default: the shipped one)")
    parser.add_argument("--jobs", type=int, default=1, help="searches at a time")
    parser.add_argument("--limit", type=int, help="only the first N classes (a trial)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.sims < 1 or args.jobs < 1:
        parser.error("--sims and --jobs must be at least 1")
    from tw_rl.codecup.evaluation import default_weights
    from tw_rl.native import build

    weights = Path(args.weights or default_weights(6))
    if not weights.is_file():
        parser.error(f"weights file not found: {weights}")
    board = Board(6)
    todo = classes(board)[: args.limit]
    print(f"{len(judge_starts(board))} judge starts, {len(classes(board))} classes; searching {len(todo)}")
    with tempfile.TemporaryDirectory() as tmp:
        info = build.build_native_tools(weights, Path(tmp) / "bot-tools.cpp")
        binary = build.compile_source(info.path, Path(tmp) / "bot-tools", ("-std=c++17", "-O2"))

        def search(start: tuple[int, int]) -> int:
            done = subprocess.run(
                [str(binary), "--test"],
                input=f"search {args.sims} {start[0]} {start[1]}\n",
                capture_output=True,
                text=True,
                check=True,
            )
            return int(done.stdout.split()[1])

        t0 = time.monotonic()
        with ThreadPoolExecutor(args.jobs) as pool:
            moves = list(pool.map(search, todo))
        print(f"searched in {time.monotonic() - t0:.0f} s")
    sha = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
    about = (
        f"`python scripts/make_opening_book.py --sims {args.sims}"
        f"{'' if args.limit is None else f' --limit {args.limit}'}`, weights {weights.name} (sha256 {sha}...)"
    )
    text = header([(r, w, m) for (r, w), m in zip(todo, moves, strict=True)], about)
    tmp_out = args.out.with_suffix(".tmp")
    tmp_out.write_text(text)
    tmp_out.replace(args.out)
    print(f"wrote {args.out} ({len(todo)} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
