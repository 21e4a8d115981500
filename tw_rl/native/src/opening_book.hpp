// The opening book (issue 43, item 4): red's first move for each class of the judge's starts
// under the board's 12 symmetries, from long searches (opening_book_data.hpp, written by
// scripts/make_opening_book.py).
#pragma once

#include "opening_book_data.hpp"
#include "position.hpp"

namespace tw {

// Symmetry k (0 to 11) of a cell: a mirror (swapping the two axes) when k >= 6, then k % 6
// turns by 60 degrees about the centre, (q, s) -> (q - s, q) in the board's axes.
inline int board_symmetry(int k, int cell) {
    int q = BOARD.coord_c[cell] - (SIZE - 1), s = BOARD.coord_r[cell] - (SIZE - 1);
    if (k >= 6) {
        int t = q;
        q = s;
        s = t;
    }
    for (int i = 0; i < k % 6; ++i) {
        int nq = q - s;
        s = q;
        q = nq;
    }
    return BOARD.index[q + SIZE - 1][s + SIZE - 1];
}

// The book's move for a start (red to move, nothing played), -1 when its class is not in the
// book: the class's representative is the smallest (red, white) pair of its 12 images; the
// book's move there is mapped back by the symmetry that gave it.
inline int book_move(const Pos &p) {
    if (p.ply != 0 || p.to_move != RED || count(p.red) != 1 || count(p.white) != 1) return -1;
    int red = -1, white = -1;
    BOARD.cells(p.red, [&](int c) { red = c; });
    BOARD.cells(p.white, [&](int c) { white = c; });
    int best_k = 0, br = NUM_CELLS, bw = NUM_CELLS;
    for (int k = 0; k < 12; ++k) {
        int r = board_symmetry(k, red), w = board_symmetry(k, white);
        if (r < br || (r == br && w < bw)) {
            br = r;
            bw = w;
            best_k = k;
        }
    }
    for (int i = 0; i < OPENING_BOOK_SIZE; ++i) {
        const BookEntry &e = OPENING_BOOK[i];
        if (e.red != br || e.white != bw) continue;
        for (int c = 0; c < NUM_CELLS; ++c)
            if (board_symmetry(best_k, c) == e.move) return c;
    }
    return -1;
}

}  // namespace tw
