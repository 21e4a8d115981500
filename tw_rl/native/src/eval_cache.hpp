// The evaluation cache (issue 43, item 5): placements commute, so many move orders reach one
// position; a fixed-size table keeps each position's evaluation and answers it again.
#pragma once

#include "evaluator.hpp"
#include "position_key.hpp"

#include <cstdint>
#include <vector>

namespace tw {

// A direct-mapped table keyed by the position (position_key.hpp: the stacks, the side to move,
// whether the last move passed, which the network reads) and whether the evaluation was asked
// for a root (the territory evaluator orders a root's moves otherwise).  An entry keeps the
// whole key, so a hit is the same position, never a hash collision; a new position overwrites
// its slot.  Priors are kept as doubles: a hit answers exactly what the evaluator answered.
class EvalCache {
  public:
    uint64_t hits = 0, misses = 0;

    explicit EvalCache(double mib) {
        size_t want = size_t(mib * 1024.0 * 1024.0 / double(sizeof(Entry)));
        size_t n = 1;
        while (n * 2 <= want) n *= 2;
        table_.assign(n, Entry());
        mask_ = n - 1;
    }
    size_t entries() const { return table_.size(); }

    bool get(const Pos &p, bool root, Evaluation &out) {
        PositionKey k = position_key(p, root ? 1u : 0u);
        const Entry &e = table_[size_t(k.hash) & mask_];
        if (!e.used || !(e.key == k)) {
            ++misses;
            return false;
        }
        ++hits;
        out.value = e.value;
        out.margin = e.margin;
        out.has_margin = e.has_margin;
        out.moves.resize(e.nmoves);
        out.priors.resize(e.nmoves);
        for (int i = 0; i < e.nmoves; ++i) {
            out.moves[size_t(i)] = e.moves[i];
            out.priors[size_t(i)] = e.priors[i];
        }
        return true;
    }

    void put(const Pos &p, bool root, const Evaluation &ev) {
        if (ev.moves.size() > size_t(NUM_CELLS + 1)) return;
        PositionKey k = position_key(p, root ? 1u : 0u);
        Entry &e = table_[size_t(k.hash) & mask_];
        e.used = true;
        e.key = k;
        e.value = ev.value;
        e.margin = ev.margin;
        e.has_margin = ev.has_margin;
        e.nmoves = int(ev.moves.size());
        for (int i = 0; i < e.nmoves; ++i) {
            e.moves[i] = uint8_t(ev.moves[size_t(i)]);
            e.priors[i] = ev.priors[size_t(i)];
        }
    }

  private:
    struct Entry {
        PositionKey key{};
        bool used = false, has_margin = false;
        int nmoves = 0;
        double value = 0.0, margin = 0.0;
        uint8_t moves[NUM_CELLS + 1] = {};
        double priors[NUM_CELLS + 1] = {};
    };
    std::vector<Entry> table_;
    size_t mask_ = 0;
};

}  // namespace tw
