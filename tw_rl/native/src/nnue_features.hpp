// The NNUE's sparse inputs (arch 'nnue-1'): four active (cell, feature) rows per cell, seen
// from the side to move (tw_rl/expert/nnue_features.py computes the same from Python's rules).
#pragma once

#include "position.hpp"

namespace tw {

// Per cell, four groups, one code each; the row of (cell, group, code) is
// cell * NNUE_PER_CELL + the group's offset + code.
//   content   14: 0 empty, 1-6 own stack of height 1-6, 7-12 the opponent's, 13 neutral
//   sight     25: min(own sight, 4) * 5 + min(opponent's sight, 4)
//   legal      4: 2 if the side to move may place here, + 1 if the opponent may
//   territory  4: 2 if the cell is in the side to move's simulated territory, + 1 if in the opponent's
constexpr int NNUE_CONTENT = 14, NNUE_SIGHT = 25, NNUE_LEGAL = 4, NNUE_TERRITORY = 4;
constexpr int NNUE_SIGHT_AT = NNUE_CONTENT, NNUE_LEGAL_AT = NNUE_SIGHT_AT + NNUE_SIGHT,
              NNUE_TERRITORY_AT = NNUE_LEGAL_AT + NNUE_LEGAL;
constexpr int NNUE_PER_CELL = NNUE_TERRITORY_AT + NNUE_TERRITORY;  // 47
constexpr int NNUE_GROUPS = 4;
constexpr int NNUE_INPUTS = NUM_CELLS * NNUE_PER_CELL;              // 4277 on the 6-board
constexpr int NNUE_ACTIVE = NUM_CELLS * NNUE_GROUPS;                // 364

inline int nnue_cap4(int x) { return x > 4 ? 4 : x; }

// The active rows of position p (its Info `info`), cell by cell, groups in order.
inline void nnue_features(const Pos &p, const Info &info, int (&rows)[NNUE_ACTIVE]) {
    const int me = p.to_move;
    const Bits &mine = me == RED ? p.red : p.white, &theirs = me == RED ? p.white : p.red;
    const Planes &my_sight = me == RED ? info.rc : info.wc, &their_sight = me == RED ? info.wc : info.rc;
    const Bits &my_land = me == RED ? info.tr : info.tw, &their_land = me == RED ? info.tw : info.tr;
    const Bits my_legal = legal_bits(info, me), their_legal = legal_bits(info, 3 - me);
    for (int i = 0; i < NUM_CELLS; ++i) {
        int height = count_at(p.h, i);
        height = height < 1 ? 1 : height > 6 ? 6 : height;
        int content = BOARD.has(mine, i)     ? height
                      : BOARD.has(theirs, i) ? 6 + height
                      : BOARD.has(p.neutral, i) ? 13
                                                : 0;
        int sight = nnue_cap4(count_at(my_sight, i)) * 5 + nnue_cap4(count_at(their_sight, i));
        int legal = (BOARD.has(my_legal, i) ? 2 : 0) + (BOARD.has(their_legal, i) ? 1 : 0);
        int land = (BOARD.has(my_land, i) ? 2 : 0) + (BOARD.has(their_land, i) ? 1 : 0);
        const int base = i * NNUE_PER_CELL;
        rows[NNUE_GROUPS * i] = base + content;
        rows[NNUE_GROUPS * i + 1] = base + NNUE_SIGHT_AT + sight;
        rows[NNUE_GROUPS * i + 2] = base + NNUE_LEGAL_AT + legal;
        rows[NNUE_GROUPS * i + 3] = base + NNUE_TERRITORY_AT + land;
    }
}

}  // namespace tw
