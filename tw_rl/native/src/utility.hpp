// The search's utility (issue 43, item 1): what a position is worth to the side to move, in
// [-1, 1] for the search's backup.  "win" (the default) is the evaluator's value alone, as the
// Python search has it; "points" mixes in the CodeCup's points, where each cell of territory is
// a point beside the winner's 200 and the loser's 100.
#pragma once

#include "evaluator.hpp"

#include <algorithm>
#include <cmath>

namespace tw {

constexpr double DEFAULT_POINTS_MIX = 0.2;     // λ of --utility points
constexpr double DEFAULT_MARGIN_SCALE = 20.0;  // cells where tanh(margin / scale) is 0.76

// The zero-sum form of the CodeCup's points: my points minus the opponent's are 100 * (2 P(win)
// - 1) + (my cells - theirs), a sum of the win value v = 2 P(win) - 1 and the margin.  The
// utility keeps both in [-1, 1]: u = (1 - λ) v + λ tanh(margin / scale).  For small margins
// that is v + margin * λ / ((1 - λ) scale) in units of v, the points' ratio when λ / (1 - λ) is
// scale / 100 (λ = 1/6 at scale 20); a larger λ weighs the cells more.
struct Utility {
    bool points = false;
    double mix = DEFAULT_POINTS_MIX;
    double scale = DEFAULT_MARGIN_SCALE;

    // The margin the evaluator expects, else the judge's count if the game ended now: the
    // cells each side's simulation gives it (every evaluator can afford that, `info` has it).
    static double expected_margin(const Pos &p, const Info &info, const Evaluation &ev) {
        if (ev.has_margin) return ev.margin;
        return territory_margin(p, info);
    }
    static double territory_margin(const Pos &p, const Info &info) {
        int r = count(info.tr), w = count(info.tw);
        return p.to_move == RED ? double(r - w) : double(w - r);
    }

    double mixed(double value, double margin) const {
        return (1.0 - mix) * value + mix * std::tanh(margin / scale);
    }
    // A leaf's worth from its evaluation (value clipped to [-1, 1] as the search always did).
    double leaf(const Pos &p, const Info &info, const Evaluation &ev) const {
        double v = std::max(-1.0, std::min(1.0, ev.value));
        if (!points) return v;
        return mixed(v, expected_margin(p, info, ev));
    }
    // A finished game's worth: its result, and with points its final margin.
    double terminal(const Pos &p, const Info &info) const {
        double v = result_value(p, info);
        if (!points) return v;
        return mixed(v, territory_margin(p, info));
    }
};

}  // namespace tw
