/* The CodeCup territory simulation of tw_rl.core.territory, compiled and bit-sliced: 64 boards
 * at a time, one bit per board in every 64-bit word, so that each operation below serves the 64
 * boards at once and no branch depends on a board.
 *
 * Loaded through ctypes by tw_rl/core/kernel.py (compiled on first use with the system's C
 * compiler); the numpy simulation in territory.py is the reference it is tested equal to.
 *
 * Per cell a group holds the stacks of the filler (F: the side that fills first), of the
 * territory's owner (S: the second filler), the neutral stacks (X) and the height in three bit
 * planes. A round recomputes every cell's sight of F and of S (three bit planes each): along
 * each direction the cells are visited nearest the edge first, so the view of a cell is its
 * neighbour's stack or, through an empty neighbour, the neighbour's own view. Then the filler
 * plays all its placements that change an owner at once (docs/rules.md: the end does not depend
 * on the order, and a batch with heights from before it is exact), until a round has none.
 * Reinforcements change no owner and no sight: the second filler's never matter, and the first
 * filler's only set the heights the second must beat, so they are applied once at the end of
 * the first fill (a reinforcement that was ever legal stays legal, up to the final sight). */
#include <stdint.h>
#include <string.h>

#define EMPTY 0
#define RED 1
#define WHITE 2
#define NEUTRAL 3
#define MAX_CELLS 331 /* the 11-board */

typedef uint64_t word;
#define ZERO ((word){0})

struct planes {
    word f[MAX_CELLS + 1], s[MAX_CELLS + 1], x[MAX_CELLS + 1]; /* the last cell: off the board */
    word h0[MAX_CELLS], h1[MAX_CELLS], h2[MAX_CELLS];
};

struct sight {
    word f0[MAX_CELLS], f1[MAX_CELLS], f2[MAX_CELLS], s0[MAX_CELLS], s1[MAX_CELLS], s2[MAX_CELLS];
    word vf[MAX_CELLS + 1], vs[MAX_CELLS + 1], empty[MAX_CELLS + 1];
};

/* a > b for counts held in three bit planes */
static inline word greater(word a0, word a1, word a2, word b0, word b1, word b2)
{
    return (a2 & ~b2) | (~(a2 ^ b2) & ((a1 & ~b1) | (~(a1 ^ b1) & a0 & ~b0)));
}

/* nb: [n, 6] neighbours with n for off the board; order: [6, n] */
static void look(int n, const int32_t *nb, const int32_t *order, const struct planes *p, struct sight *v)
{
    memset(v->f0, 0, sizeof(word) * n);
    memset(v->f1, 0, sizeof(word) * n);
    memset(v->f2, 0, sizeof(word) * n);
    memset(v->s0, 0, sizeof(word) * n);
    memset(v->s1, 0, sizeof(word) * n);
    memset(v->s2, 0, sizeof(word) * n);
    for (int c = 0; c < n; c++)
        v->empty[c] = ~(p->f[c] | p->s[c] | p->x[c]);
    v->empty[n] = ZERO;
    v->vf[n] = v->vs[n] = ZERO;
    for (int d = 0; d < 6; d++) {
        const int32_t *ord = order + d * n;
        for (int i = 0; i < n; i++) {
            int c = ord[i];
            int z = nb[c * 6 + d];
            word e = v->empty[z];
            word a = p->f[z] | (e & v->vf[z]);
            word b = p->s[z] | (e & v->vs[z]);
            v->vf[c] = a;
            v->vs[c] = b;
            word t = v->f0[c] & a; /* add one bit to the three-plane counters */
            v->f0[c] ^= a;
            v->f2[c] |= v->f1[c] & t;
            v->f1[c] ^= t;
            t = v->s0[c] & b;
            v->s0[c] ^= b;
            v->s2[c] |= v->s1[c] & t;
            v->s1[c] ^= t;
        }
    }
}

/* One fill: the first filler (second = 0) or the second (1) takes cells until it has none. */
static void fill(int n, const int32_t *nb, const int32_t *order, struct planes *p, struct sight *v, int second)
{
    const word *m0 = second ? v->s0 : v->f0, *m1 = second ? v->s1 : v->f1, *m2 = second ? v->s2 : v->f2;
    const word *o0 = second ? v->f0 : v->s0, *o1 = second ? v->f1 : v->s1, *o2 = second ? v->f2 : v->s2;
    word *mine = second ? p->s : p->f, *theirs = second ? p->f : p->s;
    for (;;) {
        look(n, nb, order, p, v);
        word any = ZERO;
        for (int c = 0; c < n; c++) {
            word take = greater(m0[c], m1[c], m2[c], p->h0[c], p->h1[c], p->h2[c]) &
                        ~greater(o0[c], o1[c], o2[c], m0[c], m1[c], m2[c]) & ~mine[c];
            any |= take;
            mine[c] |= take;
            theirs[c] &= ~take;
            p->x[c] &= ~take;
            p->h0[c] = (p->h0[c] & ~take) | (m0[c] & take);
            p->h1[c] = (p->h1[c] & ~take) | (m1[c] & take);
            p->h2[c] = (p->h2[c] & ~take) | (m2[c] & take);
        }
        if (!any)
            break;
    }
    if (second)
        return;
    for (int c = 0; c < n; c++) { /* the first filler's reinforcements, to its final sight */
        word up = mine[c] & greater(m0[c], m1[c], m2[c], p->h0[c], p->h1[c], p->h2[c]) &
                  ~greater(o0[c], o1[c], o2[c], m0[c], m1[c], m2[c]);
        p->h0[c] = (p->h0[c] & ~up) | (m0[c] & up);
        p->h1[c] = (p->h1[c] & ~up) | (m1[c] & up);
        p->h2[c] = (p->h2[c] & ~up) | (m2[c] & up);
    }
}

/* owner, height: [batch, n] int8; nb: [n, 6] neighbours (n: off the board); order: [6, n], per
 * direction the cells nearest the edge along it first; out: [batch, 2, n] uint8, red's
 * territory then white's. Returns 0, or -1 for a board size it cannot hold. */
int tw_territory(int batch, int n, const int32_t *nb, const int32_t *order, const int8_t *owner,
                 const int8_t *height, uint8_t *out)
{
    struct planes start, p; /* on the stack (about 56 KB): callers may run in several threads */
    struct sight v;
    word red[MAX_CELLS], white[MAX_CELLS];
    if (n > MAX_CELLS || n < 1)
        return -1;
    for (int g = 0; g < batch; g += 64) {
        int lanes = batch - g < 64 ? batch - g : 64;
        memset(&start, 0, sizeof start);
        memset(red, 0, sizeof(word) * n);
        memset(white, 0, sizeof(word) * n);
        for (int j = 0; j < lanes; j++) {
            const int8_t *own = owner + (size_t)(g + j) * n, *hgt = height + (size_t)(g + j) * n;
            word bit = (word)1 << j;
            for (int c = 0; c < n; c++) {
                int h = hgt[c] < 7 ? hgt[c] : 7; /* 7 stands for any height no sight can beat */
                red[c] |= own[c] == RED ? bit : 0;
                white[c] |= own[c] == WHITE ? bit : 0;
                start.x[c] |= own[c] == NEUTRAL ? bit : 0;
                start.h0[c] |= h & 1 ? bit : 0;
                start.h1[c] |= h & 2 ? bit : 0;
                start.h2[c] |= h & 4 ? bit : 0;
            }
        }
        for (int target = RED; target <= WHITE; target++) {
            p = start;
            memcpy(p.f, target == RED ? white : red, sizeof(word) * n); /* the opponent fills first */
            memcpy(p.s, target == RED ? red : white, sizeof(word) * n);
            fill(n, nb, order, &p, &v, 0);
            fill(n, nb, order, &p, &v, 1);
            for (int j = 0; j < lanes; j++) {
                uint8_t *row = out + ((size_t)(g + j) * 2 + (target - 1)) * n;
                for (int c = 0; c < n; c++)
                    row[c] = (uint8_t)((p.s[c] >> j) & 1);
            }
        }
    }
    return 0;
}
