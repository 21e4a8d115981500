// Bit planes (small counts per cell, one bit plane each) and the sight counts along the six lines.
#pragma once

#include "board.hpp"

namespace tw {

struct Planes {
    Bits p[3];  // bit k of every cell's count
};

// Cells where count a > count b (rules.greater).
inline Bits greater(const Planes &a, const Planes &b) {
    const Bits &a0 = a.p[0], &a1 = a.p[1], &a2 = a.p[2];
    const Bits &b0 = b.p[0], &b1 = b.p[1], &b2 = b.p[2];
    return (a2 & ~b2) | (~(a2 ^ b2) & ((a1 & ~b1) | (~(a1 ^ b1) & a0 & ~b0)));
}

inline int count_at(const Planes &pl, int i) {
    return (BOARD.has(pl.p[0], i) ? 1 : 0) + (BOARD.has(pl.p[1], i) ? 2 : 0) + (BOARD.has(pl.p[2], i) ? 4 : 0);
}

// Occluded fill of two generators through one propagator: cells see up (views travel down).
template <int STEP>
inline void fill_down(const Bits &empty, Bits &g1, Bits &g2) {
    Bits pr = empty;
    g1 |= pr & shr<STEP>(g1);
    g2 |= pr & shr<STEP>(g2);
    pr &= shr<STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<2 * STEP>(g1);
    g2 |= pr & shr<2 * STEP>(g2);
    pr &= shr<2 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<4 * STEP>(g1);
    g2 |= pr & shr<4 * STEP>(g2);
    pr &= shr<4 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<8 * STEP>(g1);
    g2 |= pr & shr<8 * STEP>(g2);
    pr &= shr<8 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<16 * STEP>(g1);  // runs of empty cells are shorter than 16 on every board here
    g2 |= pr & shr<16 * STEP>(g2);
}
template <int STEP>
inline void fill_up(const Bits &empty, Bits &g1, Bits &g2) {
    Bits pr = empty;
    g1 |= pr & shl<STEP>(g1);
    g2 |= pr & shl<STEP>(g2);
    pr &= shl<STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<2 * STEP>(g1);
    g2 |= pr & shl<2 * STEP>(g2);
    pr &= shl<2 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<4 * STEP>(g1);
    g2 |= pr & shl<4 * STEP>(g2);
    pr &= shl<4 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<8 * STEP>(g1);
    g2 |= pr & shl<8 * STEP>(g2);
    pr &= shl<8 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<16 * STEP>(g1);
    g2 |= pr & shl<16 * STEP>(g2);
}

inline Planes adder(const Bits v[6]) {
    Bits t = v[0] ^ v[1];
    Bits s1 = t ^ v[2];
    Bits k1 = (v[0] & v[1]) | (t & v[2]);
    t = v[3] ^ v[4];
    Bits s2 = t ^ v[5];
    Bits k2 = (v[3] & v[4]) | (t & v[5]);
    Bits k3 = s1 & s2;
    t = k1 ^ k2;
    Planes out;
    out.p[0] = s1 ^ s2;
    out.p[1] = t ^ k3;
    out.p[2] = (k1 & k2) | (k3 & t);
    return out;
}

// How many rays from each cell see a stack of `a` (resp. `b`) first; `empty`: the empty cells.
inline void sight2(const Bits &a, const Bits &b, const Bits &empty, Planes &pa, Planes &pb) {
    const Bits &mask = BOARD.mask;
    Bits va[6], vb[6];
    va[0] = (add(empty, shl<1>(a)) ^ empty) & mask;  // (0, -1): a carry up each row
    vb[0] = (add(empty, shl<1>(b)) ^ empty) & mask;
    Bits ga = a, gb = b;
    fill_down<STRIDE>(empty, ga, gb);
    va[1] = shr<STRIDE>(ga) & mask;
    vb[1] = shr<STRIDE>(gb) & mask;
    ga = a, gb = b;
    fill_down<1>(empty, ga, gb);
    va[2] = shr<1>(ga) & mask;
    vb[2] = shr<1>(gb) & mask;
    ga = a, gb = b;
    fill_down<STRIDE + 1>(empty, ga, gb);
    va[3] = shr<STRIDE + 1>(ga) & mask;
    vb[3] = shr<STRIDE + 1>(gb) & mask;
    ga = a, gb = b;
    fill_up<STRIDE>(empty, ga, gb);
    va[4] = shl<STRIDE>(ga) & mask;
    vb[4] = shl<STRIDE>(gb) & mask;
    ga = a, gb = b;
    fill_up<STRIDE + 1>(empty, ga, gb);
    va[5] = shl<STRIDE + 1>(ga) & mask;
    vb[5] = shl<STRIDE + 1>(gb) & mask;
    pa = adder(va);
    pb = adder(vb);
}

}  // namespace tw
