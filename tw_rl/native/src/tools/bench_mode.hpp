// --bench N: a fresh search of N simulations on each position of stdin; one JSON line of
// figures and the bench signature (scripts/bench_bot.py).
#pragma once

#include "bot.hpp"
#include "protocol.hpp"
#include "tools/position_lines.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace tw {

// The bench signature of one search (the Python side computes the same from last_stats).
inline uint32_t signature(uint32_t sig, const std::vector<Stat> &stats) {
    for (const Stat &s : stats) sig = sig * 31u + uint32_t(s.move) * 1009u + uint32_t(s.visits);
    return sig;
}

// --bench: positions "R W m1 ..." on stdin, a fresh search of --bench-sims each; one line of
// figures (CPU seconds: the figure holds when other work shares the machine).
inline int bench_mode(Evaluator *e, const Options &o, long sims) {
    std::vector<Pos> positions;
    std::string line;
    while (read_line(line)) {
        line = strip(line);
        if (line.empty()) continue;
        Info info;
        positions.push_back(replay(numbers(line, 0), 0, info));
        if (positions.back().over) positions.pop_back();  // nothing to search
    }
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    long total = 0;
    uint32_t sig = 0;
    // --eval-cache-mib: one cache for the run, as the bot keeps one for its game
    std::unique_ptr<EvalCache> cache(o.eval_cache_mib > 0 ? new EvalCache(o.eval_cache_mib) : nullptr);
    double t0 = process_time();
    for (const Pos &p : positions) {
        MCTS m(e, o.c_puct, o.fpu, node_cap, edge_cap);
        m.reuse = false;
        m.utility.points = use_points(o, e);
        m.utility.mix = o.points_mix;
        m.utility.scale = o.margin_scale;
        m.cache = cache.get();
        m.search(p, -1.0, sims, monotonic);
        total += m.last_sims;
        sig = signature(sig, m.last_stats);
    }
    double spent = process_time() - t0;
    std::string extra;
    if (cache)
        extra = ", \"cache_hits\": " + std::to_string(cache->hits) + ", \"cache_misses\": " +
                std::to_string(cache->misses);
    std::printf("{\"positions\": %zu, \"sims\": %ld, \"seconds\": %.6f, \"sims_per_s\": %.1f, \"signature\": %u%s}\n",
                positions.size(), total, spent, spent > 0 ? double(total) / spent : 0.0, sig, extra.c_str());
    return 0;
}

}  // namespace tw
