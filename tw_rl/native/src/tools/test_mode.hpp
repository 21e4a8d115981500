// --test: one command a line on stdin, one answer a line on stdout (tests/native/ compares
// them with the Python bot).
#pragma once

#include "nnue_network.hpp"
#include "tools/bench_mode.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace tw {

inline std::string digits(const Planes &pl) {
    std::string s;
    for (int i = 0; i < NUM_CELLS; ++i) s.push_back(char('0' + count_at(pl, i)));
    return s;
}

inline std::string cell_list(const Bits &b) {
    std::string s;
    BOARD.cells(b, [&](int c) {
        if (!s.empty()) s += ',';
        s += std::to_string(c);
    });
    return s;
}

inline int test_mode(Evaluator *net, const Options &o) {
    TerritoryEvaluator territory;
    std::string line;
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    while (read_line(line)) {
        line = strip(line);
        if (line.empty()) continue;
        try {
            size_t sp = line.find(' ');
            std::string cmd = line.substr(0, sp);
            std::vector<long> v = sp == std::string::npos ? std::vector<long>() : numbers(line, sp);
            Info info;
            if (cmd == "rules") {
                Pos p = replay(v, 0, info);
                std::vector<int> legal;
                legal_moves(p, info, legal);
                std::string ls;
                for (int m : legal) ls += (ls.empty() ? "" : ",") + std::to_string(m);
                int rs, ws;
                score(info, rs, ws);
                std::printf("legal %s rs %s ws %s tr %s tw %s over %d score %d,%d\n", ls.c_str(),
                            digits(info.rc).c_str(), digits(info.wc).c_str(), cell_list(info.tr).c_str(),
                            cell_list(info.tw).c_str(), p.over ? 1 : 0, rs, ws);
            } else if (cmd == "eval" || cmd == "teval") {
                Evaluator *e = cmd == "eval" ? net : &territory;
                if (!e) throw Error{"no network loaded"};
                Pos p = replay(v, 0, info);
                Evaluation ev;
                e->evaluate(p, info, false, ev);
                std::printf("value %.17g priors", ev.value);
                for (size_t k = 0; k < ev.moves.size(); ++k) std::printf(" %d:%.17g", ev.moves[k], ev.priors[k]);
                std::printf("\n");
            } else if (cmd == "nfeat") {
                // nfeat position: the NNUE's active input rows (nnue_features.hpp)
                Pos p = replay(v, 0, info);
                int rows[NNUE_ACTIVE];
                nnue_features(p, info, rows);
                std::printf("rows");
                for (int r : rows) std::printf(" %d", r);
                std::printf("\n");
            } else if (cmd == "nnue") {
                // nnue position: the loaded NNUE's raw outputs, a policy logit for every cell
                NnueNetwork *nn = dynamic_cast<NnueNetwork *>(net);
                if (!nn) throw Error{"the loaded network is not an nnue-1 network"};
                Pos p = replay(v, 0, info);
                int rows[NNUE_ACTIVE];
                nnue_features(p, info, rows);
                std::vector<int> cells;
                for (int c = 0; c < NUM_CELLS; ++c) cells.push_back(c);
                std::vector<double> logits;
                double vl, ms;
                nn->run(rows, p.to_move, cells, vl, ms, logits);
                std::printf("value_logit %.17g margin_share %.17g logits", vl, ms);
                for (double x : logits) std::printf(" %.17g", x);
                std::printf("\n");
            } else if (cmd == "search" || cmd == "tsearch") {
                // search SIMS position: a fresh tree, SIMS simulations
                Evaluator *e = cmd == "search" ? net : &territory;
                if (!e) throw Error{"no network loaded"};
                if (v.empty()) throw Error{"search needs a simulation count"};
                Pos p = replay(v, 1, info);
                if (p.over) throw Error{"the game is over"};
                MCTS m(e, o.c_puct, o.fpu, node_cap, edge_cap);
                m.reuse = false;
                int move = m.search(p, -1.0, v[0], monotonic);
                std::printf("move %d sims %d sig %u\n", move, m.last_sims, signature(0, m.last_stats));
            } else {
                throw Error{"unknown command " + py_repr(cmd)};
            }
        } catch (const Error &e) {
            std::printf("error %s\n", e.message.c_str());
        }
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace tw
