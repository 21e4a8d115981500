// The bot (players.BotPlayer): its options, the node pool's size, and choosing a move.
#pragma once

#include "clock.hpp"
#include "search.hpp"
#include "territory_evaluator.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace tw {

struct Options {
    double time = DEFAULT_BUDGET, safety = DEFAULT_SAFETY, c_puct = DEFAULT_C_PUCT,
           fpu = DEFAULT_FPU_REDUCTION, per_empty = DEFAULT_PER_EMPTY;
    bool no_weights = false;
    std::string weights;
    long seed = 0;
    long sims = -1;               // fixed simulations per move (tests); -1: the clock decides
    double pool_mib = 160.0;      // node pool cap
    bool verbose = false;
};

// Node and edge caps for a pool of `mib` MiB (one Node plus ~40 edges of 9 bytes per node).
inline void pool_caps(double mib, size_t &node_cap, size_t &edge_cap) {
    double bytes = mib * 1024.0 * 1024.0;
    double per_node = double(sizeof(Node)) + 4.0 /* compaction map */ + 40.0 * 9.0;
    node_cap = size_t(bytes / per_node);
    edge_cap = node_cap * 40;
    if (node_cap < 1024) node_cap = 1024;
    if (edge_cap < 1024 * 40) edge_cap = 1024 * 40;
}

class Bot {  // players.BotPlayer
  public:
    Evaluator *evaluator;
    TerritoryEvaluator quick;
    TimeControl tc;
    long max_sims;
    MCTS mcts;
    Bot(Evaluator *e, const Options &o, size_t node_cap, size_t edge_cap)
        : evaluator(e), tc(o.time, o.safety, o.per_empty), max_sims(o.sims),
          mcts(e, o.c_puct, o.fpu, node_cap, edge_cap) {}

    void observe(const Pos &p) { mcts.observe(p); }

    int fallback(const Pos &p, const Info &info, const std::vector<int> &legal) {
        int fav = mcts.favourite(p);
        if (fav >= 0 && std::find(legal.begin(), legal.end(), fav) != legal.end()) return fav;
        Evaluation ev;
        quick.evaluate(p, info, true, ev);
        int best = legal[0];
        double bp = -1.0;
        for (int m : legal) {
            double pm = 0.0;
            for (size_t k = 0; k < ev.moves.size(); ++k)
                if (ev.moves[k] == m) pm = ev.priors[k];
            if (pm > bp) {
                bp = pm;
                best = m;
            }
        }
        return best;
    }

    int choose(const Pos &p, double seconds_left) {
        double start = monotonic();
        Info info;
        analyse(p, info);
        std::vector<int> legal;
        legal_moves(p, info, legal);
        int move;
        if (legal.size() == 1) {
            move = legal[0];
            mcts.reset();
        } else if (max_sims >= 0) {
            move = mcts.search(p, -1.0, max_sims, monotonic);
        } else {
            double allot = tc.allotment(seconds_left, p);
            if (allot <= 0.0) {
                move = fallback(p, info, legal);
                mcts.reset();
            } else {
                move = mcts.search(p, start + allot, -1, monotonic);
            }
        }
        if (std::find(legal.begin(), legal.end(), move) == legal.end()) {
            move = legal[0];
            mcts.reset();
        }
        return move;
    }
};

}  // namespace tw
