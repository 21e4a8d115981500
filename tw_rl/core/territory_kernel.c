/* The CodeCup territory simulation of tw_rl.core.territory, compiled: one board at a time, every
 * legal placement played in turn with the sight kept up to date incrementally.
 *
 * Loaded through ctypes by tw_rl/core/kernel.py (compiled on first use with the system's C
 * compiler); the numpy simulation in territory.py is the reference it is tested equal to.
 *
 * Placement order does not matter (docs/rules.md, "End and score"), so a fill sweeps the cells
 * back and forth until a sweep changes no owner. Reinforcements change no owner and no sight:
 * the second filler's never matter, and the first filler's only set the heights the second
 * filler must beat, so they are applied once, at the end of the first fill (a reinforcement
 * that was ever legal stays legal, up to the filler's final sight).
 *
 * seen[c * 6 + d]: the first stack on the ray from c in direction d (-1 if none); cnt[k * n + c]:
 * how many of c's six first stacks are red (k = 0) / white (k = 1). Directions d and d ^ 1 are
 * opposite (tw_rl.core.hexgrid.DIRECTIONS); rays[(c * 6 + d) * len + k] is the k-th cell along
 * ray d from c (-1 past the edge), order[d * n + i] lists the cells nearest the edge along d first. */
#include <stdint.h>
#include <string.h>

#define EMPTY 0
#define RED 1
#define WHITE 2
#define MAX_CELLS 331 /* the 11-board */

struct grid {
    int n, len;
    const int32_t *nb, *rays, *order;
};

static void look(const struct grid *g, const int8_t *own, int16_t *seen, int8_t *cnt)
{
    int n = g->n;
    memset(cnt, 0, 2 * (size_t)n);
    for (int d = 0; d < 6; d++) {
        const int32_t *order = g->order + d * n;
        for (int i = 0; i < n; i++) {
            int c = order[i];
            int z = g->nb[c * 6 + d];
            int s = z < 0 ? -1 : own[z] != EMPTY ? z : seen[z * 6 + d];
            seen[c * 6 + d] = (int16_t)s;
            if (s >= 0 && (own[s] == RED || own[s] == WHITE))
                cnt[(own[s] - 1) * n + c]++;
        }
    }
}

/* The cells that see c along d ^ 1 (up to and including the first stack) stop seeing `lost`
 * there and see the mover's new stack on c instead. */
static void retarget(const struct grid *g, int c, int was, int mover, int8_t *own, int16_t *seen, int8_t *cnt)
{
    int n = g->n;
    int8_t *mine = cnt + (mover - 1) * n;
    for (int d = 0; d < 6; d++) {
        int lost = was;
        if (was == EMPTY) {
            int behind = seen[c * 6 + (d ^ 1)];
            lost = behind >= 0 ? own[behind] : EMPTY;
        }
        int8_t *lost_row = (lost == RED || lost == WHITE) && lost != mover ? cnt + (lost - 1) * n : 0;
        int gain = lost != mover;
        if (was != EMPTY && !gain)
            continue;
        const int32_t *ray = g->rays + ((size_t)c * 6 + d) * g->len;
        for (int k = 0; k < g->len; k++) {
            int z = ray[k];
            if (z < 0)
                break;
            if (was == EMPTY)
                seen[z * 6 + (d ^ 1)] = (int16_t)c;
            if (lost_row)
                lost_row[z]--;
            mine[z] += gain;
            if (own[z] != EMPTY)
                break;
        }
    }
}

/* mover takes every cell it may (CodeCup-legal placements that change the owner) until none is
 * left; with `reinforce`, its stacks then get the heights its last reinforcements would give. */
static void fill(const struct grid *g, int8_t *own, int8_t *hgt, int16_t *seen, int8_t *cnt, int mover, int reinforce)
{
    int n = g->n;
    int8_t *mine = cnt + (mover - 1) * n, *theirs = cnt + (2 - mover) * n;
    for (int changed = 1, sweep = 0; changed; sweep++) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            int c = sweep & 1 ? n - 1 - i : i;
            int s = mine[c];
            if (s < 1 || s <= hgt[c] || theirs[c] > s || own[c] == mover)
                continue;
            int was = own[c];
            own[c] = (int8_t)mover;
            hgt[c] = (int8_t)s;
            retarget(g, c, was, mover, own, seen, cnt);
            changed = 1;
        }
    }
    if (reinforce)
        for (int c = 0; c < n; c++)
            if (own[c] == mover && mine[c] > hgt[c] && theirs[c] <= mine[c])
                hgt[c] = mine[c];
}

/* owner, height: [batch, n] int8; nb: [n, 6]; rays: [n, 6, len]; order: [6, n] (see above);
 * out: [batch, 2, n] uint8, red's territory then white's. Returns 0, or -1 for a bad size. */
int tw_territory(int batch, int n, int len, const int32_t *nb, const int32_t *rays, const int32_t *order,
                 const int8_t *owner, const int8_t *height, uint8_t *out)
{
    int8_t own0[MAX_CELLS], own[MAX_CELLS], hgt[MAX_CELLS];
    int8_t cnt0[2 * MAX_CELLS], cnt[2 * MAX_CELLS];
    int16_t seen0[6 * MAX_CELLS], seen[6 * MAX_CELLS];
    struct grid g = {n, len, nb, rays, order};
    if (n > MAX_CELLS || n < 1 || len < 1)
        return -1;
    for (int b = 0; b < batch; b++) {
        memcpy(own0, owner + (size_t)b * n, (size_t)n);
        look(&g, own0, seen0, cnt0);
        for (int target = RED; target <= WHITE; target++) {
            memcpy(own, own0, (size_t)n);
            memcpy(hgt, height + (size_t)b * n, (size_t)n);
            memcpy(cnt, cnt0, 2 * (size_t)n);
            memcpy(seen, seen0, 6 * sizeof(int16_t) * (size_t)n);
            fill(&g, own, hgt, seen, cnt, 3 - target, 1); /* the opponent fills first */
            fill(&g, own, hgt, seen, cnt, target, 0);
            uint8_t *row = out + ((size_t)b * 2 + (target - 1)) * n;
            for (int c = 0; c < n; c++)
                row[c] = own[c] == target;
        }
    }
    return 0;
}
