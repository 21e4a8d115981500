// The board and its bitboards (rules.py's layout): cells, neighbours, the lines of sight.
#pragma once

#include "constants.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tw {

constexpr int SIZE = 6;  // the CodeCup board
constexpr int SPAN = 2 * SIZE - 1;
constexpr int STRIDE = 2 * SIZE;  // rules.py layout: cell (c, r) is bit c * STRIDE + r
constexpr int NBITS = STRIDE * STRIDE;
constexpr int NW = (NBITS + 63) / 64;
constexpr int NUM_CELLS = 3 * SIZE * (SIZE - 1) + 1;
constexpr int PASS = NUM_CELLS;
enum { EMPTY = 0, RED = 1, WHITE = 2, NEUTRAL = 3 };
static const int DIRS[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};

struct Bits {
    uint64_t w[NW];
};

inline Bits operator&(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] & b.w[i];
    return r;
}
inline Bits operator|(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] | b.w[i];
    return r;
}
inline Bits operator^(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] ^ b.w[i];
    return r;
}
inline Bits operator~(const Bits &a) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = ~a.w[i];
    return r;
}
inline Bits &operator|=(Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i) a.w[i] |= b.w[i];
    return a;
}
inline Bits &operator&=(Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i) a.w[i] &= b.w[i];
    return a;
}
inline bool operator==(const Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i)
        if (a.w[i] != b.w[i]) return false;
    return true;
}
inline bool any(const Bits &a) {
    uint64_t x = 0;
    for (int i = 0; i < NW; ++i) x |= a.w[i];
    return x != 0;
}
inline int popcount64(uint64_t x) {
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        ++n;
    }
    return n;
#endif
}
inline int lowest_bit(uint64_t x) {  // x != 0
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int k = 0;
    while (!(x & 1)) {
        x >>= 1;
        ++k;
    }
    return k;
#endif
}
inline int count(const Bits &a) {
    int n = 0;
    for (int i = 0; i < NW; ++i) n += popcount64(a.w[i]);
    return n;
}
inline Bits zero_bits() {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = 0;
    return r;
}
template <int K>
inline Bits shl(const Bits &a) {
    constexpr int q = K / 64, s = K % 64;
    Bits r;
    for (int i = NW - 1; i >= 0; --i) {
        uint64_t v = 0;
        if (i - q >= 0) {
            v = a.w[i - q] << s;
            if (s && i - q - 1 >= 0) v |= a.w[i - q - 1] >> (64 - s);
        }
        r.w[i] = v;
    }
    return r;
}
template <int K>
inline Bits shr(const Bits &a) {
    constexpr int q = K / 64, s = K % 64;
    Bits r;
    for (int i = 0; i < NW; ++i) {
        uint64_t v = 0;
        if (i + q < NW) {
            v = a.w[i + q] >> s;
            if (s && i + q + 1 < NW) v |= a.w[i + q + 1] << (64 - s);
        }
        r.w[i] = v;
    }
    return r;
}
inline Bits add(const Bits &a, const Bits &b) {
    Bits r;
    uint64_t carry = 0;
    for (int i = 0; i < NW; ++i) {
        uint64_t s = a.w[i] + carry;
        uint64_t c1 = s < carry ? 1 : 0;
        uint64_t t = s + b.w[i];
        uint64_t c2 = t < s ? 1 : 0;
        r.w[i] = t;
        carry = c1 | c2;
    }
    return r;
}

struct Board {
    int coord_c[NUM_CELLS], coord_r[NUM_CELLS];
    int index[SPAN][SPAN];  // -1: not a cell
    int bit_word[NUM_CELLS];
    uint64_t bit_mask[NUM_CELLS];
    int nbr[NUM_CELLS][6];  // first cell along each direction, NUM_CELLS off the board
    int centre;
    bool border[NUM_CELLS];
    int16_t cell_of_bit[NW * 64];  // -1: not a cell
    Bits mask;

    Board() {
        int n = 0;
        for (int c = 0; c < SPAN; ++c)
            for (int r = 0; r < SPAN; ++r) {
                if (std::abs(c - r) <= SIZE - 1) {
                    coord_c[n] = c;
                    coord_r[n] = r;
                    index[c][r] = n++;
                } else {
                    index[c][r] = -1;
                }
            }
        mask = zero_bits();
        for (int k = 0; k < NW * 64; ++k) cell_of_bit[k] = -1;
        for (int i = 0; i < NUM_CELLS; ++i) {
            int b = coord_c[i] * STRIDE + coord_r[i];
            cell_of_bit[b] = int16_t(i);
            bit_word[i] = b / 64;
            bit_mask[i] = uint64_t(1) << (b % 64);
            mask.w[b / 64] |= bit_mask[i];
            int around = 0;
            for (int d = 0; d < 6; ++d) {
                int cc = coord_c[i] + DIRS[d][0], rr = coord_r[i] + DIRS[d][1];
                bool on = cc >= 0 && rr >= 0 && cc < SPAN && rr < SPAN && index[cc][rr] >= 0;
                nbr[i][d] = on ? index[cc][rr] : NUM_CELLS;
                around += on ? 1 : 0;
            }
            border[i] = around < 6;
        }
        centre = index[SIZE - 1][SIZE - 1];
    }
    bool has(const Bits &b, int i) const { return (b.w[bit_word[i]] & bit_mask[i]) != 0; }
    void set(Bits &b, int i) const { b.w[bit_word[i]] |= bit_mask[i]; }
    void clear(Bits &b, int i) const { b.w[bit_word[i]] &= ~bit_mask[i]; }
    Bits bit(int i) const {
        Bits b = zero_bits();
        set(b, i);
        return b;
    }
    template <class F>
    void cells(const Bits &b, F f) const {  // cell order = bit order
        for (int wi = 0; wi < NW; ++wi) {
            uint64_t x = b.w[wi];
            while (x) {
                int cell = cell_of_bit[wi * 64 + lowest_bit(x)];
                x &= x - 1;
                if (cell >= 0) f(cell);
            }
        }
    }
    std::string name(int i) const {
        return std::string(1, char('A' + coord_c[i])) + std::to_string(coord_r[i] + 1);
    }
    // Cell index of a name such as "F6" (text already stripped), -1 if not a cell.
    int parse(const std::string &s) const {
        if (s.size() < 2) return -1;
        int c = s[0] - 'A';
        if (c < 0 || c >= SPAN || s[1] == '0') return -1;
        long r = 0;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] < '0' || s[k] > '9') return -1;
            r = r * 10 + (s[k] - '0');
            if (r > 1000) return -1;
        }
        r -= 1;
        if (r < 0 || r >= SPAN) return -1;
        return index[c][r];
    }
};

static const Board BOARD;

}  // namespace tw
