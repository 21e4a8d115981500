// The bot (players.BotPlayer): its options, the node pool's size, and choosing a move.
#pragma once

#include "clock.hpp"
#include "endgame.hpp"
#include "eval_cache.hpp"
#include "opening_book.hpp"
#include "search.hpp"
#include "territory_evaluator.hpp"

#include <algorithm>
#include <memory>
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
    // issue 43's options (docs/bot.md, "Options for the CodeCup's points"): off by default but the utility
    std::string utility = "auto";            // --utility auto|win|points (see use_points)
    double points_mix = DEFAULT_POINTS_MIX;  // --points-mix
    double margin_scale = DEFAULT_MARGIN_SCALE;
    int endgame_cells = 0;       // --endgame N: solve exactly at N undecided cells or fewer
    double endgame_share = 0.5;  // of the move's allotment the solver may spend
    long endgame_nodes = 2000000;
    double time_extend = 1.0;  // --time-extend F: up to F allotments while the choice is unsettled
    bool early_stop = false;   // --early-stop
    double eval_cache_mib = 0.0;  // --eval-cache-mib M: 0, none
    bool book = false;            // --book: red's first move from the opening book
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

// The utility a search of `e` uses: "points" and "win" as asked; "auto" (the default) the points
// where the evaluator forecasts the margin (the native network: its real-clock A/B won), the win
// value otherwise (the student: the simulated territory is no forecast).
inline bool use_points(const Options &o, const Evaluator *e) {
    return o.utility == "points" || (o.utility == "auto" && e->forecasts_margin());
}

class Bot {  // players.BotPlayer
  public:
    Evaluator *evaluator;
    TerritoryEvaluator quick;
    TimeControl tc;
    long max_sims;
    MCTS mcts;
    Options opt;
    std::unique_ptr<EvalCache> cache;
    std::unique_ptr<EndgameSolver> solver;
    EndgameResult last_endgame;  // the last solver's answer (nodes 0: none ran)
    Bot(Evaluator *e, const Options &o, size_t node_cap, size_t edge_cap)
        : evaluator(e), tc(o.time, o.safety, o.per_empty), max_sims(o.sims),
          mcts(e, o.c_puct, o.fpu, node_cap, edge_cap), opt(o) {
        mcts.utility.points = use_points(o, e);
        mcts.utility.mix = o.points_mix;
        mcts.utility.scale = o.margin_scale;
        mcts.early_stop = o.early_stop;
        if (o.eval_cache_mib > 0) {
            cache.reset(new EvalCache(o.eval_cache_mib));
            mcts.cache = cache.get();
        }
        if (o.endgame_cells > 0) solver.reset(new EndgameSolver());
    }

    // The exact endgame when few cells are undecided: true (and `move`) when it proves the
    // best margin, or a win it can keep; else the search decides.
    bool endgame(const Pos &p, const Info &info, double deadline, int &move) {
        last_endgame = EndgameResult();
        if (!solver || EndgameSolver::undecided(info) > opt.endgame_cells) return false;
        last_endgame = solver->solve(p, deadline, opt.endgame_nodes);
        const EndgameResult &r = last_endgame;
        if (!(r.exact() || r.won())) return false;
        move = r.move;
        mcts.reset();
        return true;
    }

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
        int from_book = opt.book ? book_move(p) : -1;
        if (from_book >= 0 && std::find(legal.begin(), legal.end(), from_book) != legal.end()) {
            move = from_book;
            mcts.reset();
        } else if (legal.size() == 1) {
            move = legal[0];
            mcts.reset();
        } else if (max_sims >= 0) {
            if (!endgame(p, info, -1.0, move)) move = mcts.search(p, -1.0, max_sims, monotonic);
        } else {
            double allot = tc.allotment(seconds_left, p);
            if (allot <= 0.0) {
                move = fallback(p, info, legal);
                mcts.reset();
            } else if (!endgame(p, info, start + allot * opt.endgame_share, move)) {
                mcts.hard_deadline =
                    opt.time_extend > 1.0 ? start + tc.extended(allot, seconds_left, opt.time_extend) : -1.0;
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
