// The evaluator interface (evaluation.py): what the search asks of a position.
#pragma once

#include "position.hpp"

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

class Evaluator {
  public:
    virtual ~Evaluator() = default;
    virtual void evaluate(const Pos &p, const Info &info, bool root, Evaluation &out) = 0;
};

}  // namespace tw
