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

inline std::vector<std::string> words(const std::string &line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && line[i] == ' ') ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ') ++j;
        if (j > i) out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

// A position from its stacks, cell by cell (the solve command's hand-made endings).
inline Pos stacks_position(const std::string &to_move, const std::string &owners, const std::string &heights) {
    if (owners.size() != size_t(NUM_CELLS) || heights.size() != size_t(NUM_CELLS))
        throw Error{"owners and heights need one digit per cell"};
    if (to_move != "1" && to_move != "2") throw Error{"the side to move is 1 (red) or 2 (white)"};
    Pos p;
    p.red = p.white = p.neutral = zero_bits();
    for (int k = 0; k < 3; ++k) p.h.p[k] = zero_bits();
    for (int c = 0; c < NUM_CELLS; ++c) {
        int o = owners[size_t(c)] - '0', h = heights[size_t(c)] - '0';
        if (o < 0 || o > 3 || h < 0 || h > 6 || (o == 0) != (h == 0)) throw Error{"bad stack at cell " + std::to_string(c)};
        if (o == RED) BOARD.set(p.red, c);
        if (o == WHITE) BOARD.set(p.white, c);
        if (o == NEUTRAL) BOARD.set(p.neutral, c);
        for (int k = 0; k < 3; ++k)
            if (h >> k & 1) BOARD.set(p.h.p[k], c);
    }
    p.to_move = to_move == "1" ? RED : WHITE;
    return p;
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
            } else if (cmd == "timed") {
                // timed MS EXTEND EARLY position: a fresh search of MS milliseconds with the
                // student, stretched up to EXTEND times while unsettled, stopped early if EARLY
                if (!net) throw Error{"no network loaded"};
                if (v.size() < 3) throw Error{"timed needs milliseconds, an extension and an early-stop flag"};
                Pos p = replay(v, 3, info);
                if (p.over) throw Error{"the game is over"};
                MCTS m(net, o.c_puct, o.fpu, node_cap, edge_cap);
                m.reuse = false;
                m.early_stop = v[2] != 0;
                double start = monotonic(), allot = double(v[0]) / 1000.0;
                m.hard_deadline = v[1] > 1 ? start + allot * double(v[1]) : -1.0;
                int move = m.search(p, start + allot, -1, monotonic);
                std::printf("move %d sims %d ms %.1f extended %d early %d\n", move, m.last_sims,
                            (monotonic() - start) * 1000.0, m.last_extended ? 1 : 0, m.last_stopped_early ? 1 : 0);
            } else if (cmd == "solve") {
                // solve NODES TO_MOVE OWNERS HEIGHTS: the exact solver on stacks given cell by
                // cell (owner 0 empty, 1 red, 2 white, 3 neutral; height 0 to 6)
                std::vector<std::string> w = words(line);
                if (w.size() != 5) throw Error{"solve needs NODES TO_MOVE OWNERS HEIGHTS"};
                Pos p = stacks_position(w[2], w[3], w[4]);
                EndgameSolver solver(16.0);
                EndgameResult r = solver.solve(p, -1.0, std::stol(w[1]));
                std::printf("lower %d upper %d move %d depth %d nodes %ld\n", r.lower, r.upper, r.move, r.depth,
                            r.nodes);
            } else if (cmd == "endgame") {
                // endgame NODES MS position: the exact solver, at most NODES positions and MS
                // milliseconds (0: no deadline); CPU milliseconds spent
                if (v.size() < 2) throw Error{"endgame needs a node limit and milliseconds"};
                Pos p = replay(v, 2, info);
                if (p.over) throw Error{"the game is over"};
                EndgameSolver solver(16.0);
                double t0 = process_time();
                double deadline = v[1] > 0 ? monotonic() + double(v[1]) / 1000.0 : -1.0;
                EndgameResult r = solver.solve(p, deadline, v[0]);
                double ms = (process_time() - t0) * 1000.0;
                std::printf("undecided %d lower %d upper %d move %d depth %d nodes %ld ms %.1f\n",
                            EndgameSolver::undecided(info), r.lower, r.upper, r.move, r.depth, r.nodes, ms);
            } else if (cmd == "book") {
                // book R W: the opening book's move for red at this start, -1 if none
                if (v.size() != 2) throw Error{"book needs the two start cells"};
                Pos p = replay(v, 0, info);
                std::printf("move %d\n", book_move(p));
            } else if (cmd == "utility") {
                // utility MIX SCALE position: the points utility of the position's evaluation by
                // the territory evaluator (value and margin), or of its end
                if (v.size() < 2) throw Error{"utility needs a mix and a scale"};
                Utility u;
                u.points = true;
                u.mix = double(v[0]) / 100.0;
                u.scale = double(v[1]);
                Pos p = replay(v, 2, info);
                Evaluation ev;
                double value, margin = Utility::territory_margin(p, info);
                if (p.over) {
                    value = result_value(p, info);
                    std::printf("utility %.17g value %.17g margin %.17g\n", u.terminal(p, info), value, margin);
                } else {
                    territory.evaluate(p, info, false, ev);
                    std::printf("utility %.17g value %.17g margin %.17g\n", u.leaf(p, info, ev), ev.value, margin);
                }
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
