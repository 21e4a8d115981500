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
    int lower = -NUM_CELLS, upper = NUM_CELLS;  // proven bounds of the best margin
    int move = -1;    // a move that keeps at least `lower` (-1: none proven)
    int depth = 0;    // plies of the deepest finished pass
    long nodes = 0;   // positions visited
    bool exact() const { return lower == upper && move >= 0; }
    bool won() const { return lower >= 1 && move >= 0; }
    bool lost() const { return upper <= -1; }
};

// Iterative deepening over plies d = 1, 2, ... .  Each pass is two negamax searches with
// alpha-beta over integer margins, where a line still going after d plies is scored as the
// worst margin for the root's side to move (the pessimistic pass: a proven lower bound, and a
// move that keeps it) or as the best (the optimistic pass: a proven upper bound).  They meet
// when every line ends within d plies: the margin is exact.  A table keeps each position's
// bounds for its pass (mode and plies left), so each pass is an exact alpha-beta of its own
// game; the moves it found best order the next passes.  At each position every move is played
// once: the moves that end the game are scored at once, the others searched the table's move
// first, then by the mover's simulated-territory margin after the move.  It stops at a
// deadline or a node limit, keeping what the finished passes proved.
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
    EndgameResult solve(const Pos &root, double deadline, long node_limit, int max_depth = 400) {
        EndgameResult r;
        nodes_ = 0;
        aborted_ = false;
        has_deadline_ = deadline >= 0;
        deadline_ = deadline;
        limit_ = node_limit;
        root_red_ = root.to_move == RED;
        Pos p = root;
        p.over = false;
        for (int d = 1; d <= max_depth; ++d) {
            int move = -1, unused = -1;
            pessimistic_ = true;
            int lower = search(p, -NUM_CELLS - 1, NUM_CELLS + 1, d, 0, move);
            if (aborted_) break;
            pessimistic_ = false;
            int upper = search(p, -NUM_CELLS - 1, NUM_CELLS + 1, d, 0, unused);
            if (aborted_) break;
            if (lower > r.lower || r.move < 0) {
                r.lower = lower;
                r.move = move;
            }
            r.upper = std::min(r.upper, upper);
            r.depth = d;
            if (r.lower >= r.upper) break;
        }
        r.nodes = nodes_;
        return r;
    }

  private:
    struct Entry {
        PositionKey key{};
        bool used = false;
        int16_t depth = 0;  // plies left when stored (with the key's mode: the pass's game)
        int8_t lower = -NUM_CELLS, upper = NUM_CELLS;
        uint8_t best = 255;
    };
    std::vector<Entry> table_;
    size_t mask_ = 0;
    long nodes_ = 0, limit_ = -1;
    bool aborted_ = false, has_deadline_ = false, pessimistic_ = true, root_red_ = true;
    double deadline_ = -1;

    static int final_margin(const Pos &p, const Info &info) {
        int r = count(info.tr), w = count(info.tw);
        return p.to_move == RED ? r - w : w - r;
    }

    bool out_of_time() {
        if (limit_ >= 0 && nodes_ > limit_) return true;
        if (has_deadline_ && (nodes_ & 255) == 0 && monotonic() >= deadline_) return true;
        return false;
    }

    // A line cut after its plies: the worst margin for the root's side (pessimistic) or the
    // best, seen from p's side to move.
    int horizon(const Pos &p) const {
        bool root_moves = (p.to_move == RED) == root_red_;
        return (root_moves == pessimistic_) ? -NUM_CELLS : NUM_CELLS;
    }

    // The margin for p's side to move, fail-soft within (alpha, beta), lines cut after
    // `depth` plies; at ply 0 `move` is a move that reaches the returned value.
    int search(const Pos &p, int alpha, int beta, int depth, int ply, int &move) {
        ++nodes_;
        if (out_of_time()) {
            aborted_ = true;
            return 0;
        }
        if (depth == 0) return horizon(p);
        PositionKey key = position_key(p, (pessimistic_ ? 2u : 0u) | (root_red_ ? 1u : 0u));
        Entry &slot = table_[size_t(key.hash) & mask_];
        int lower = -NUM_CELLS, upper = NUM_CELLS, hint = -1;
        if (slot.used && slot.key == key) {
            hint = slot.best == 255 ? -1 : int(slot.best);
            if (ply > 0 && slot.depth == depth) {  // the root searches its whole window, to name a move that reaches it
                lower = slot.lower;
                upper = slot.upper;
                if (lower >= beta) return lower;
                if (upper <= alpha) return upper;
                if (lower == upper) return lower;
            }
        }
        const int a0 = std::max(alpha, lower), b0 = std::min(beta, upper);
        Info info;
        analyse(p, info);
        std::vector<int> legal;
        legal_moves(p, info, legal);
        struct Child {
            int score, move;
            Pos pos;
        };
        std::vector<Child> children;
        children.reserve(legal.size());
        int best = -NUM_CELLS - 1, best_move = legal[0], a = a0;
        for (int m : legal) {
            Child c{0, m, p};
            Info qi;
            play(c.pos, m, qi);
            if (c.pos.over) {
                int v = -final_margin(c.pos, qi);
                if (v > best) {
                    best = v;
                    best_move = m;
                }
                if (best > a) a = best;
                if (a >= b0) break;
                continue;
            }
            c.score = (m == hint ? 1000 : 0) - final_margin(c.pos, qi);
            children.push_back(c);
        }
        if (a < b0) {
            std::stable_sort(children.begin(), children.end(),
                             [](const Child &x, const Child &y) { return x.score > y.score; });
            for (const Child &c : children) {
                int unused;
                int v = -search(c.pos, -b0, -a, depth - 1, ply + 1, unused);
                if (aborted_) return 0;
                if (v > best) {
                    best = v;
                    best_move = c.move;
                }
                if (best > a) a = best;
                if (a >= b0) break;
            }
        }
        // store: the result bounds the pass's value as the window says
        Entry &e = table_[size_t(key.hash) & mask_];
        if (!(e.used && e.key == key && e.depth == depth)) {
            e.used = true;
            e.key = key;
            e.depth = int16_t(depth);
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
