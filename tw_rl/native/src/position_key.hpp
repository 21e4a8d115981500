// A position's key for tables (the evaluation cache, the endgame's transpositions): its stacks,
// the side to move, whether the last move passed, and a 64-bit hash of them.
#pragma once

#include "position.hpp"

#include <cstdint>

namespace tw {

// The stacks are red, white and the heights: a neutral stack is an occupied cell that is
// neither red nor white (heights are never 0 on an occupied cell).  The key is whole, so a
// table that compares keys never mistakes one position for another; the hash picks the slot.
struct PositionKey {
    Bits red, white, h0, h1, h2;
    uint64_t hash;
    uint8_t flags;  // 1: red to move, 2: the last move passed, 4 and up: the caller's own bits

    bool operator==(const PositionKey &o) const {
        return hash == o.hash && flags == o.flags && red == o.red && white == o.white && h0 == o.h0 &&
               h1 == o.h1 && h2 == o.h2;
    }
};

inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

// `extra` (0 to 63): the caller's own distinction (a root evaluation, a search's mode).
inline PositionKey position_key(const Pos &p, unsigned extra = 0) {
    PositionKey k;
    k.red = p.red;
    k.white = p.white;
    k.h0 = p.h.p[0];
    k.h1 = p.h.p[1];
    k.h2 = p.h.p[2];
    k.flags = uint8_t((p.to_move == RED ? 1u : 0u) | (p.passes ? 2u : 0u) | (extra << 2));
    uint64_t h = 0x9e3779b97f4a7c15ULL * (uint64_t(k.flags) + 1);
    const Bits *parts[5] = {&k.red, &k.white, &k.h0, &k.h1, &k.h2};
    for (const Bits *b : parts)
        for (int i = 0; i < NW; ++i) h = mix64(h ^ b->w[i]) + 0x9e3779b97f4a7c15ULL;
    k.hash = h;
    return k;
}

}  // namespace tw
