// The evaluator interface (evaluation.py): what the search asks of a position.
#pragma once

#include "position.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tw {

// The seam (evaluation.py): moves in the evaluator's order with their priors, and a value for
// the side to move.  `root`: the moves must be the legal moves in cell order (the search then
// renormalises, as search.Node.expand does with `legal`).
struct Evaluation {
    std::vector<int> moves;
    std::vector<double> priors;
    double value = 0.0;
    double margin = 0.0;        // expected final cell margin (own minus opponent's), side to move
    bool has_margin = false;    // whether the evaluator fills `margin`
};

// Logits to priors in place: a softmax with the largest logit subtracted first; a lone move's
// prior is 1.  (The student's and the native network's evaluations both end here.)
inline void softmax_in_place(std::vector<double> &logits) {
    if (logits.size() == 1) {
        logits[0] = 1.0;
        return;
    }
    double top = *std::max_element(logits.begin(), logits.end());
    double total = 0.0;
    for (double &x : logits) {
        x = std::exp(x - top);
        total += x;
    }
    const double inv = 1.0 / total;
    for (double &x : logits) x = x * inv;
}

class Evaluator {
  public:
    virtual ~Evaluator() = default;
    virtual void evaluate(const Pos &p, const Info &info, bool root, Evaluation &out) = 0;
    // Whether its evaluations forecast the final margin (`Evaluation::has_margin`), which the
    // points utility then uses (`--utility auto`).
    virtual bool forecasts_margin() const { return false; }
};

}  // namespace tw
