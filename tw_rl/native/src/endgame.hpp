// The exact endgame (issue 43, item 3): when few cells are still undecided, an alpha-beta over
// every remaining move to the judge's end (both pass, or the two territory simulations cover
// the board) replaces the network's value.
#pragma once

#include "clock.hpp"
#include "position_key.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tw {

// The solver's answer for the side to move.  The final margin (own cells minus the
// opponent's, the judge's count) decides the result, so maximising it puts a win first and
// then the most points (winner 200 + cells, loser 100 + cells); a lost ending loses by as
// little as it can.
struct EndgameResult {
    bool outcome_known = false;  // win, draw or loss is proven
    bool exact = false;          // the best margin is proven (and `move` reaches it)
    int outcome = 0;             // +1 win, 0 draw, -1 loss (when outcome_known)
    int margin = 0;              // the best margin (when exact)
    int move = -1;               // exact: a best move; else a move that keeps a proven win or draw
    long nodes = 0;              // positions visited
};

// Negamax with alpha-beta over integer margins, a table of bounds (every search here runs to
// the end, so a bound holds whatever the depth), the table's move first, then the moves on
// undecided cells.  It stops (unsolved) at a deadline or a node limit.
class EndgameSolver {
  public:
    explicit EndgameSolver(double mib = 16.0) {
        size_t want = size_t(mib * 1024.0 * 1024.0 / double(sizeof(Entry)));
        size_t n = 1;
        while (n * 2 <= want) n *= 2;
        table_.assign(n, Entry());
        mask_ = n - 1;
    }

    static int undecided(const Info &info) { return NUM_CELLS - count(info.tr | info.tw); }

    // deadline (monotonic() seconds) < 0: none; node_limit < 0: none.
    EndgameResult solve(const Pos &root, double deadline, long node_limit) {
        EndgameResult r;
        nodes_ = 0;
        aborted_ = false;
        has_deadline_ = deadline >= 0;
        deadline_ = deadline;
        limit_ = node_limit;
        Pos p = root;
        p.over = false;
        int move = -1;
        // is it a win? (a value >= 1 against the window (0, 1))
        int v = search(p, 0, 1, 0, move);
        if (aborted_) return finish(r);
        if (v >= 1) {
            r.outcome_known = true;
            r.outcome = 1;
            r.move = move;
            int best = search(p, 0, NUM_CELLS + 1, 0, move);
            if (aborted_) return finish(r);
            r.exact = true;
            r.margin = best;
            r.move = move;
            return finish(r);
        }
        // a draw at least? (a value >= 0 against the window (-1, 0))
        v = search(p, -1, 0, 0, move);
        if (aborted_) return finish(r);
        r.outcome_known = true;
        if (v >= 0) {  // and <= 0 from the first search: exactly a draw
            r.outcome = 0;
            r.exact = true;
            r.margin = 0;
            r.move = move;
            return finish(r);
        }
        r.outcome = -1;
        int best = search(p, -NUM_CELLS - 1, 0, 0, move);
        if (aborted_) return finish(r);
        r.exact = true;
        r.margin = best;
        r.move = move;
        return finish(r);
    }

  private:
    struct Entry {
        PositionKey key{};
        bool used = false;
        int8_t lower = -NUM_CELLS, upper = NUM_CELLS;
        uint8_t best = 255;
    };
    std::vector<Entry> table_;
    size_t mask_ = 0;
    long nodes_ = 0, limit_ = -1;
    bool aborted_ = false, has_deadline_ = false;
    double deadline_ = -1;

    EndgameResult &finish(EndgameResult &r) const {
        r.nodes = nodes_;
        return r;
    }

    static int final_margin(const Pos &p, const Info &info) {
        int r = count(info.tr), w = count(info.tw);
        return p.to_move == RED ? r - w : w - r;
    }

    bool out_of_time() {
        if (limit_ >= 0 && nodes_ > limit_) return true;
        if (has_deadline_ && (nodes_ & 255) == 0 && monotonic() >= deadline_) return true;
        return false;
    }

    // The best margin for p's side to move, fail-soft within (alpha, beta); at ply 0 `move`
    // is a move that reaches the returned value.
    int search(const Pos &p, int alpha, int beta, int ply, int &move) {
        ++nodes_;
        if (out_of_time()) {
            aborted_ = true;
            return 0;
        }
        PositionKey key = position_key(p);
        Entry &slot = table_[size_t(key.hash) & mask_];
        int lower = -NUM_CELLS, upper = NUM_CELLS, hint = -1;
        if (slot.used && slot.key == key) {
            lower = slot.lower;
            upper = slot.upper;
            hint = slot.best == 255 ? -1 : int(slot.best);
            if (ply > 0) {
                if (lower >= beta) return lower;
                if (upper <= alpha) return upper;
                if (lower == upper) return lower;
            } else {  // the root searches its whole window, to name a move that reaches its value
                lower = -NUM_CELLS;
                upper = NUM_CELLS;
            }
        }
        const int a0 = std::max(alpha, lower), b0 = std::min(beta, upper);
        Info info;
        analyse(p, info);
        std::vector<int> legal;
        legal_moves(p, info, legal);
        // the table's move, then moves on undecided cells, then the others (cell order within)
        Bits open = BOARD.mask & ~(info.tr | info.tw);
        std::vector<int> order;
        order.reserve(legal.size());
        if (hint >= 0 && std::find(legal.begin(), legal.end(), hint) != legal.end()) order.push_back(hint);
        for (int m : legal)
            if (m != hint && (m == PASS || BOARD.has(open, m))) order.push_back(m);
        for (int m : legal)
            if (m != hint && m != PASS && !BOARD.has(open, m)) order.push_back(m);
        int best = -NUM_CELLS - 1, best_move = order[0], a = a0;
        for (int m : order) {
            Pos q = p;
            Info qi;
            play(q, m, qi);
            int v;
            if (q.over) {
                v = -final_margin(q, qi);
            } else {
                int unused;
                v = -search(q, -b0, -a, ply + 1, unused);
                if (aborted_) return 0;
            }
            if (v > best) {
                best = v;
                best_move = m;
            }
            if (best > a) a = best;
            if (a >= b0) break;
        }
        // store: the result bounds the true value as the window says
        Entry &e = table_[size_t(key.hash) & mask_];
        if (!(e.used && e.key == key)) {
            e.used = true;
            e.key = key;
            e.lower = int8_t(-NUM_CELLS);
            e.upper = int8_t(NUM_CELLS);
        }
        if (best <= a0) {
            e.upper = int8_t(std::min(int(e.upper), best));
        } else if (best >= b0) {
            e.lower = int8_t(std::max(int(e.lower), best));
        } else {
            e.lower = e.upper = int8_t(best);
        }
        e.best = uint8_t(best_move);
        move = best_move;
        return best;
    }
};

}  // namespace tw
