// Positions and the rules (rules.py): the territory simulation, legal moves, play, the score.
#pragma once

#include "sight.hpp"

#include <vector>

namespace tw {

struct Pos {
    Bits red, white, neutral;
    Planes h;  // heights as 3 bit planes
    int to_move = RED;
    int passes = 0;
    int ply = 0;
    int last_move = -1;
    bool over = false;
    int forfeit = 0;
};

// What a position computes once: sight, territory, comparisons (rules.Position's caches).
struct Info {
    Planes rc, wc;
    Bits tr, tw;
    Bits red_up, white_up, red_more, white_more;
};

inline Bits empty_of(const Pos &p) { return BOARD.mask & ~(p.red | p.white | p.neutral); }

// One CodeCup territory simulation: `first` fills every legal placement, then `second` does;
// `second`'s stacks at the end (rules.territory_bits, one lane pair).
inline Bits simulate(Bits first, Bits second, Bits neutral, Planes h, Planes f, Planes s) {
    const Bits &mask = BOARD.mask;
    Bits up, sui;
    while (true) {
        up = greater(f, h);
        sui = greater(s, f);
        Bits fresh = up & ~sui & ~first;
        if (!any(fresh)) break;
        first |= fresh;
        second &= ~fresh;
        neutral &= ~fresh;
        Bits empty = mask & ~(first | second | neutral);
        sight2(first, second, empty, f, s);
    }
    Bits fix = first & up & ~sui;
    if (any(fix)) {
        Bits keep = ~fix;
        for (int k = 0; k < 3; ++k) h.p[k] = (h.p[k] & keep) | (f.p[k] & fix);
    }
    while (true) {
        up = greater(s, h);
        sui = greater(f, s);
        Bits fresh = up & ~sui & ~second;
        if (!any(fresh)) break;
        second |= fresh;
        first &= ~fresh;
        neutral &= ~fresh;
        Bits empty = mask & ~(first | second | neutral);
        sight2(first, second, empty, f, s);
    }
    return second;
}

inline void analyse(const Pos &p, Info &info) {
    sight2(p.red, p.white, empty_of(p), info.rc, info.wc);
    info.red_up = greater(info.rc, p.h);
    info.white_up = greater(info.wc, p.h);
    info.red_more = greater(info.rc, info.wc);
    info.white_more = greater(info.wc, info.rc);
    info.tr = simulate(p.white, p.red, p.neutral, p.h, info.wc, info.rc);
    info.tw = simulate(p.red, p.white, p.neutral, p.h, info.rc, info.wc);
}

inline Bits legal_bits(const Info &info, int colour) {
    return colour == RED ? info.red_up & ~info.white_more : info.white_up & ~info.red_more;
}

// Sorted legal placements, or the pass alone (rules.Position.legal_moves, CodeCup).
inline void legal_moves(const Pos &p, const Info &info, std::vector<int> &out) {
    out.clear();
    if (p.over) return;
    BOARD.cells(legal_bits(info, p.to_move), [&](int c) { out.push_back(c); });
    if (out.empty()) out.push_back(PASS);
}

// Sight of one cell for a colour, by walking its 6 rays.
inline int sight_at(const Pos &p, int cell, int colour) {
    const Bits &mine = colour == RED ? p.red : p.white;
    int n = 0;
    for (int d = 0; d < 6; ++d) {
        int j = BOARD.nbr[cell][d];
        while (j < NUM_CELLS) {
            if (BOARD.has(p.red, j) || BOARD.has(p.white, j) || BOARD.has(p.neutral, j)) {
                if (BOARD.has(mine, j)) ++n;
                break;
            }
            j = BOARD.nbr[j][d];
        }
    }
    return n;
}

// The stacks after a legal move (no end test): the move's height is the mover's sight.
inline void place(Pos &p, int move) {
    int mover = p.to_move;
    if (move == PASS) {
        p.passes += 1;
    } else {
        int s = sight_at(p, move, mover);
        if (mover == RED) {
            BOARD.set(p.red, move);
            BOARD.clear(p.white, move);
        } else {
            BOARD.set(p.white, move);
            BOARD.clear(p.red, move);
        }
        BOARD.clear(p.neutral, move);
        for (int k = 0; k < 3; ++k) {
            if (s >> k & 1)
                BOARD.set(p.h.p[k], move);
            else
                BOARD.clear(p.h.p[k], move);
        }
        p.passes = 0;
    }
    p.ply += 1;
    p.last_move = move;
    p.to_move = 3 - mover;
}

// A legal move with the CodeCup end test; `info` becomes the new position's.
inline void play(Pos &p, int move, Info &info) {
    place(p, move);
    analyse(p, info);
    if (p.passes >= 2) {
        p.over = true;
    } else if ((info.tr | info.tw) == BOARD.mask) {
        p.over = true;
    }
}

inline Pos start_position(int red_cell, int white_cell) {
    Pos p;
    p.red = BOARD.bit(red_cell);
    p.white = BOARD.bit(white_cell);
    p.neutral = BOARD.bit(BOARD.centre);
    p.h.p[0] = p.red | p.white;
    p.h.p[1] = p.neutral;
    p.h.p[2] = zero_bits();
    return p;
}

inline bool same_position(const Pos &a, const Pos &b) {
    return a.to_move == b.to_move && a.red == b.red && a.white == b.white && a.neutral == b.neutral &&
           a.h.p[0] == b.h.p[0] && a.h.p[1] == b.h.p[1] && a.h.p[2] == b.h.p[2] && a.passes == b.passes &&
           a.over == b.over;
}

inline void score(const Info &info, int &r_points, int &w_points) {
    int r = count(info.tr), w = count(info.tw);
    if (r > w) {
        r_points = 200 + r;
        w_points = 100 + w;
    } else if (w > r) {
        r_points = 100 + r;
        w_points = 200 + w;
    } else {
        r_points = 100 + r;
        w_points = 100 + w;
    }
}

// +1 / -1 / 0: a finished game's result for the side to move (search.result_value, CodeCup).
inline double result_value(const Pos &p, const Info &info) {
    int r = count(info.tr), w = count(info.tw);
    int winner = r > w ? RED : w > r ? WHITE : 0;
    if (winner == 0) return 0.0;
    return winner == p.to_move ? 1.0 : -1.0;
}

}  // namespace tw
