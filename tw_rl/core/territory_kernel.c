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
#include <stdlib.h>
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
    word vf[6][MAX_CELLS + 1], vs[6][MAX_CELLS + 1], empty[MAX_CELLS + 1];
};

/* a > b for counts held in three bit planes */
static inline word greater(word a0, word a1, word a2, word b0, word b1, word b2)
{
    return (a2 & ~b2) | (~(a2 ^ b2) & ((a1 & ~b1) | (~(a1 ^ b1) & a0 & ~b0)));
}

/* The three bit planes of a0 + ... + a5 (one-bit counts): two full adders and a two-bit sum. */
static inline void add6(word a0, word a1, word a2, word a3, word a4, word a5, word *b0, word *b1, word *b2)
{
    word t = a0 ^ a1, u = a3 ^ a4;
    word s1 = t ^ a2, k1 = (a0 & a1) | (t & a2);
    word s2 = u ^ a5, k2 = (a3 & a4) | (u & a5);
    word k3 = s1 & s2;
    t = k1 ^ k2;
    *b0 = s1 ^ s2;
    *b1 = t ^ k3;
    *b2 = (k1 & k2) | (k3 & t);
}

/* The views of every cell along every direction, from the stacks of p. order: [6, n] pairs
 * c | z << 16 (z: c's neighbour along d, n off the board), the neighbour's pair first. The view
 * along d of a cell is what its neighbour z holds, or through an empty z, z's own view along d. */
static void scan(int n, const int32_t *order, const struct planes *p, struct sight *v)
{
    for (int c = 0; c < n; c++)
        v->empty[c] = ~(p->f[c] | p->s[c] | p->x[c]);
    v->empty[n] = ZERO;
    for (int d = 0; d < 6; d++) {
        const int32_t *pairs = order + d * n;
        word *vf = v->vf[d], *vs = v->vs[d];
        vf[n] = vs[n] = ZERO;
        for (int i = 0; i < n; i++) {
            int c = pairs[i] & 0xFFFF, z = pairs[i] >> 16;
            word e = v->empty[z];
            vf[c] = p->f[z] | (e & vf[z]);
            vs[c] = p->s[z] | (e & vs[z]);
        }
    }
}

/* Cell c's sight of F and of S from its six views. */
static inline void count(struct sight *v, int c)
{
    add6(v->vf[0][c], v->vf[1][c], v->vf[2][c], v->vf[3][c], v->vf[4][c], v->vf[5][c], &v->f0[c], &v->f1[c], &v->f2[c]);
    add6(v->vs[0][c], v->vs[1][c], v->vs[2][c], v->vs[3][c], v->vs[4][c], v->vs[5][c], &v->s0[c], &v->s1[c], &v->s2[c]);
}

/* Every cell's sight of F and of S. */
static void look(int n, const int32_t *order, const struct planes *p, struct sight *v)
{
    scan(n, order, p, v);
    for (int c = 0; c < n; c++)
        count(v, c);
}

/* The filler takes cell c on the boards where it may (see fill); returns those boards. */
static inline word take_cell(struct planes *p, const word *m0, const word *m1, const word *m2, const word *o0,
                             const word *o1, const word *o2, word *mine, word *theirs, int c)
{
    word take = greater(m0[c], m1[c], m2[c], p->h0[c], p->h1[c], p->h2[c]) &
                ~greater(o0[c], o1[c], o2[c], m0[c], m1[c], m2[c]) & ~mine[c];
    mine[c] |= take;
    theirs[c] &= ~take;
    p->x[c] &= ~take;
    p->h0[c] = (p->h0[c] & ~take) | (m0[c] & take);
    p->h1[c] = (p->h1[c] & ~take) | (m1[c] & take);
    p->h2[c] = (p->h2[c] & ~take) | (m2[c] & take);
    return take;
}

/* One fill: the first filler (second = 0) or the second (1) takes cells until it has none: in
 * every round each cell whose owner it may change (sight above the height, not below the other
 * side's) becomes its own, decided from the sight before the round. v holds the sight of the
 * position on entry, and on return that of the final position. */
static void fill(int n, const int32_t *order, struct planes *p, struct sight *v, int second)
{
    const word *m0 = second ? v->s0 : v->f0, *m1 = second ? v->s1 : v->f1, *m2 = second ? v->s2 : v->f2;
    const word *o0 = second ? v->f0 : v->s0, *o1 = second ? v->f1 : v->s1, *o2 = second ? v->f2 : v->s2;
    word *mine = second ? p->s : p->f, *theirs = second ? p->f : p->s;
    word any = ZERO;
    for (int c = 0; c < n; c++)
        any |= take_cell(p, m0, m1, m2, o0, o1, o2, mine, theirs, c);
    while (any) {
        /* The views come from the stacks before this round's takes; a take changes only its own
         * cell, whose sight it does not use, so counting and taking go cell by cell. */
        scan(n, order, p, v);
        any = ZERO;
        for (int c = 0; c < n; c++) {
            count(v, c);
            any |= take_cell(p, m0, m1, m2, o0, o1, o2, mine, theirs, c);
        }
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

/* Bit j of the result: the low bit of byte j of y (bytes 0 or 1). */
static inline uint64_t gather8(uint64_t y)
{
    return (y * 0x0102040810204080ULL) >> 56;
}

/* Byte j of the result: bit j of b (0 or 1). */
static inline uint64_t spread8(uint64_t b)
{
    uint64_t r = (b * 0x0101010101010101ULL) & 0x8040201008040201ULL;
    return (((r + 0x7F7F7F7F7F7F7F7FULL) | r) & 0x8080808080808080ULL) >> 7;
}

static inline uint64_t bytes8(const int8_t *at)
{
    uint64_t y;
    memcpy(&y, at, 8);
    return y;
}

/* One block of 64 boards, cell-major ([n][64] bytes: owner_t, height_t with heights 0..7), into
 * bit planes: red's stacks in f, white's in s, the neutral ones in x, the heights in h0..h2.
 * Eight boards at a time: their eight bytes are one word, split into bits by shifts and masks. */
static void load(int n, const int8_t (*owner_t)[64], const int8_t (*height_t)[64], struct planes *p)
{
    const uint64_t ones = 0x0101010101010101ULL;
    for (int c = 0; c < n; c++) {
        word f = 0, s = 0, x = 0, h0 = 0, h1 = 0, h2 = 0;
        for (int k = 0; k < 64; k += 8) {
            uint64_t y = bytes8(owner_t[c] + k);
            uint64_t b0 = y & ones, b1 = (y >> 1) & ones; /* EMPTY 0, RED 1, WHITE 2, NEUTRAL 3 */
            f |= gather8(b0 & ~b1) << k;
            s |= gather8(b1 & ~b0) << k;
            x |= gather8(b0 & b1) << k;
            if (height_t) {
                y = bytes8(height_t[c] + k);
                h0 |= gather8(y & ones) << k;
                h1 |= gather8((y >> 1) & ones) << k;
                h2 |= gather8((y >> 2) & ones) << k;
            }
        }
        p->f[c] = f;
        p->s[c] = s;
        p->x[c] = x;
        p->h0[c] = h0;
        p->h1[c] = h1;
        p->h2[c] = h2;
    }
    p->f[n] = p->s[n] = p->x[n] = ZERO; /* off the board: nothing there */
}

/* The count in planes a0..a2 of a block's 64 lanes as 64 bytes of out, 8 at a time; spread:
 * spread8 of every byte value. */
static void store(const uint64_t *spread, word a0, word a1, word a2, uint8_t *out)
{
    for (int k = 0; k < 64; k += 8) {
        uint64_t y = spread[(a0 >> k) & 0xFF] | spread[(a1 >> k) & 0xFF] << 1 | spread[(a2 >> k) & 0xFF] << 2;
        memcpy(out + k, &y, 8);
    }
}

/* One bit plane of a block's 64 lanes as 64 bytes (0 or 1) of out. */
static void store1(const uint64_t *spread, word a, uint8_t *out)
{
    for (int k = 0; k < 64; k += 8)
        memcpy(out + k, &spread[(a >> k) & 0xFF], 8);
}

static void swap(word *a, word *b, int n)
{
    for (int c = 0; c < n; c++) {
        word t = a[c];
        a[c] = b[c];
        b[c] = t;
    }
}

struct work { /* per call, not static: callers may run in several threads */
    struct planes start, p;
    struct sight v, v0;
    int8_t owner_t[MAX_CELLS][64], height_t[MAX_CELLS][64]; /* a block of boards, cell-major */
    uint8_t out_t[2][MAX_CELLS][64];
    uint64_t spread[256]; /* spread8 of every byte */
};

static struct work *new_work(void)
{
    struct work *w = malloc(sizeof *w);
    if (w)
        for (int b = 0; b < 256; b++)
            w->spread[b] = spread8((uint64_t)b);
    return w;
}

/* Boards g .. g + lanes - 1 of rows ([batch, n] int8) into block (cell-major, 64 lanes; the
 * missing lanes empty), values above top clamped to top. */
static void block_in(int n, int g, int lanes, const int8_t *rows, int top, int8_t (*block)[64])
{
    for (int c = 0; c < n; c++)
        memset(block[c] + lanes, 0, 64 - lanes);
    for (int j = 0; j < lanes; j++) {
        const int8_t *row = rows + (size_t)(g + j) * n;
        for (int c = 0; c < n; c++)
            block[c][j] = row[c] < top ? row[c] : (int8_t)top;
    }
}

/* The two cell-major planes of a block back to rows [batch, 2, n] for boards g .. g + lanes - 1. */
static void block_out(int n, int g, int lanes, const uint8_t (*block)[MAX_CELLS][64], uint8_t *rows)
{
    for (int j = 0; j < lanes; j++) {
        uint8_t *row = rows + (size_t)(g + j) * 2 * n;
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < n; c++)
                row[k * n + c] = block[k][c][j];
    }
}

/* owner, height: [batch, n] int8; order: [6, n], per direction the pairs c | z << 16 of the cells
 * and their neighbours along it (z = n: off the board), nearest the edge first; out: [batch, 2, n] uint8, red's
 * territory then white's; sight: 0, or [batch, 2, n] int8 for the position's sight (tw_sight's
 * answer, computed on the way). Returns 0, -1 for a board size it cannot hold, -2 out of memory. */
int tw_territory(int batch, int n, const int32_t *order, const int8_t *owner,
                 const int8_t *height, uint8_t *out, int8_t *sight)
{
    if (n > MAX_CELLS || n < 1)
        return -1;
    struct work *w = new_work();
    if (!w)
        return -2;
    struct planes *start = &w->start, *p = &w->p;
    struct sight *v = &w->v, *v0 = &w->v0;
    for (int g = 0; g < batch; g += 64) {
        int lanes = batch - g < 64 ? batch - g : 64;
        block_in(n, g, lanes, owner, NEUTRAL, w->owner_t);
        block_in(n, g, lanes, height, 7, w->height_t); /* no sight beats 7: three bits suffice */
        load(n, (const int8_t (*)[64])w->owner_t, (const int8_t (*)[64])w->height_t, start); /* red in f, white in s */
        look(n, order, start, v0);
        if (sight) { /* the position's own sight, as tw_sight gives it */
            for (int c = 0; c < n; c++) {
                store(w->spread, v0->f0[c], v0->f1[c], v0->f2[c], w->out_t[0][c]);
                store(w->spread, v0->s0[c], v0->s1[c], v0->s2[c], w->out_t[1][c]);
            }
            block_out(n, g, lanes, (const uint8_t (*)[MAX_CELLS][64])w->out_t, (uint8_t *)sight);
        }
        for (int target = RED; target <= WHITE; target++) {
            /* The opponent fills first: for red's territory white is F, so the roles swap. */
            *p = *start;
            memcpy(v->f0, v0->f0, sizeof(word) * n);
            memcpy(v->f1, v0->f1, sizeof(word) * n);
            memcpy(v->f2, v0->f2, sizeof(word) * n);
            memcpy(v->s0, v0->s0, sizeof(word) * n);
            memcpy(v->s1, v0->s1, sizeof(word) * n);
            memcpy(v->s2, v0->s2, sizeof(word) * n);
            if (target == RED) {
                swap(p->f, p->s, n);
                swap(v->f0, v->s0, n);
                swap(v->f1, v->s1, n);
                swap(v->f2, v->s2, n);
            }
            fill(n, order, p, v, 0);
            fill(n, order, p, v, 1);
            for (int c = 0; c < n; c++)
                store1(w->spread, p->s[c], w->out_t[target - 1][c]);
        }
        block_out(n, g, lanes, (const uint8_t (*)[MAX_CELLS][64])w->out_t, out);
    }
    free(w);
    return 0;
}

/* The sight of every board: out [batch, 2, n] int8, how many red (0) and white (1) stacks each
 * cell sees (tw_rl.core.sight.compute_sight). Same tables and return codes as tw_territory. */
int tw_sight(int batch, int n, const int32_t *order, const int8_t *owner, int8_t *out)
{
    if (n > MAX_CELLS || n < 1)
        return -1;
    struct work *w = new_work();
    if (!w)
        return -2;
    for (int g = 0; g < batch; g += 64) {
        int lanes = batch - g < 64 ? batch - g : 64;
        block_in(n, g, lanes, owner, NEUTRAL, w->owner_t);
        load(n, (const int8_t (*)[64])w->owner_t, 0, &w->start);
        look(n, order, &w->start, &w->v);
        const struct sight *v = &w->v;
        for (int c = 0; c < n; c++) {
            store(w->spread, v->f0[c], v->f1[c], v->f2[c], w->out_t[0][c]);
            store(w->spread, v->s0[c], v->s1[c], v->s2[c], w->out_t[1][c]);
        }
        block_out(n, g, lanes, (const uint8_t (*)[MAX_CELLS][64])w->out_t, (uint8_t *)out);
    }
    free(w);
    return 0;
}
