/* The CodeCup territory simulation of tw_rl.core.territory, compiled: one board at a time, every
 * legal placement played in turn with the sight kept up to date incrementally.
 *
 * Loaded through ctypes by tw_rl/core/kernel.py (compiled on first use with the system's C
 * compiler); the numpy simulation in territory.py is the reference it is tested equal to.
 * Placement order does not matter (docs/rules.md, "End and score"), so the fill simply sweeps
 * the cells until a sweep plays nothing. seen[c][d] is the first stack on the ray from c in
 * direction d (-1 if none); cnt[k][c] is how many of those belong to red (k = 0) / white (1).
 * Directions d and d ^ 1 are opposite (tw_rl.core.hexgrid.DIRECTIONS). */
#include <stdint.h>
#include <string.h>

#define EMPTY 0
#define RED 1
#define WHITE 2
#define MAX_CELLS 331 /* the 11-board */

static void look(int n, const int32_t *nb, const int8_t *own, int32_t *seen, int8_t *cnt)
{
    memset(cnt, 0, 2 * (size_t)n);
    for (int c = 0; c < n; c++) {
        for (int d = 0; d < 6; d++) {
            int z = nb[c * 6 + d];
            while (z >= 0 && own[z] == EMPTY)
                z = nb[z * 6 + d];
            seen[c * 6 + d] = z;
            if (z >= 0 && (own[z] == RED || own[z] == WHITE))
                cnt[(own[z] - 1) * n + c]++;
        }
    }
}

/* mover plays every CodeCup-legal placement (captures, reinforcements) until it has none. */
static void fill(int n, const int32_t *nb, int8_t *own, int8_t *hgt, int32_t *seen, int8_t *cnt, int mover)
{
    int8_t *mine = cnt + (mover - 1) * n, *theirs = cnt + (2 - mover) * n;
    int played = 1;
    while (played) {
        played = 0;
        for (int c = 0; c < n; c++) {
            int s = mine[c];
            if (s < 1 || s <= hgt[c] || theirs[c] > s)
                continue;
            played = 1;
            int was = own[c];
            hgt[c] = (int8_t)s;
            if (was == mover)
                continue; /* a reinforcement changes no sight */
            own[c] = (int8_t)mover;
            for (int d = 0; d < 6; d++) {
                int behind = seen[c * 6 + (d ^ 1)];
                int z = nb[c * 6 + d];
                /* the cells that see c along d ^ 1: up to and including the first stack */
                while (z >= 0) {
                    if (was == EMPTY) { /* c hid nothing before: z saw what c sees behind it */
                        if (behind >= 0 && (own[behind] == RED || own[behind] == WHITE))
                            cnt[(own[behind] - 1) * n + z]--;
                        seen[z * 6 + (d ^ 1)] = c;
                    } else if (was == RED || was == WHITE) {
                        cnt[(was - 1) * n + z]--;
                    }
                    cnt[(mover - 1) * n + z]++;
                    if (own[z] != EMPTY)
                        break;
                    z = nb[z * 6 + d];
                }
            }
        }
    }
}

/* owner, height: [batch, n] int8; nb: [n, 6] neighbours (-1 off the board);
 * out: [batch, 2, n] uint8, red's territory then white's. Returns 0, or -1 for too many cells. */
int tw_territory(int batch, int n, const int32_t *nb, const int8_t *owner, const int8_t *height, uint8_t *out)
{
    int8_t own0[MAX_CELLS], own[MAX_CELLS], hgt[MAX_CELLS];
    int8_t cnt0[2 * MAX_CELLS], cnt[2 * MAX_CELLS];
    int32_t seen0[6 * MAX_CELLS], seen[6 * MAX_CELLS];
    if (n > MAX_CELLS || n < 1)
        return -1;
    for (int b = 0; b < batch; b++) {
        memcpy(own0, owner + (size_t)b * n, (size_t)n);
        look(n, nb, own0, seen0, cnt0);
        for (int target = RED; target <= WHITE; target++) {
            memcpy(own, own0, (size_t)n);
            memcpy(hgt, height + (size_t)b * n, (size_t)n);
            memcpy(cnt, cnt0, 2 * (size_t)n);
            memcpy(seen, seen0, 6 * sizeof(int32_t) * (size_t)n);
            fill(n, nb, own, hgt, seen, cnt, 3 - target); /* the opponent fills first */
            fill(n, nb, own, hgt, seen, cnt, target);
            uint8_t *row = out + ((size_t)b * 2 + (target - 1)) * n;
            for (int c = 0; c < n; c++)
                row[c] = own[c] == target;
        }
    }
    return 0;
}
