// The territory evaluator (evaluation.TerritoryEvaluator): the bot without a network.
#pragma once

#include "evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tw {

// evaluation.TerritoryEvaluator with its defaults: value from the territory and control
// margins, priors by move type, in groups of equal weight.
class TerritoryEvaluator : public Evaluator {
  public:
    void evaluate(const Pos &p, const Info &info, bool root, Evaluation &out) override {
        const bool red = p.to_move == RED;
        const Bits &mine = red ? p.red : p.white, &theirs = red ? p.white : p.red;
        Bits neutral = p.neutral;
        const Planes &b = red ? info.wc : info.rc;
        const Bits &a_more = red ? info.red_more : info.white_more, &b_more = red ? info.white_more : info.red_more;
        const Bits &a_up = red ? info.red_up : info.white_up, &b_up = red ? info.white_up : info.red_up;
        Bits t_mine = red ? info.tr : info.tw, t_theirs = red ? info.tw : info.tr;
        int t_margin = count(t_mine) - count(t_theirs);
        Bits empty = BOARD.mask & ~(mine | theirs | neutral);
        int c_margin = count(empty & a_more) - count(empty & b_more) + count(mine & ~(b_up & ~a_more)) -
                       count(theirs & ~(a_up & ~b_more)) + count(neutral & a_more & a_up) -
                       count(neutral & b_more & b_up);
        out.value = std::tanh(TERRITORY_K * (1.0 * t_margin + 1.0 * c_margin) / ((1.0 + 1.0) * NUM_CELLS));
        out.moves.clear();
        out.priors.clear();
        Bits legal = a_up & ~b_more;
        if (!any(legal)) {
            out.moves.push_back(PASS);
            out.priors.push_back(1.0);
            return;
        }
        struct Group {
            Bits cells;
            double w;
        };
        std::vector<Group> groups;
        Bits lempty = legal & ~(mine | theirs | neutral);
        Bits b_sees = b.p[0] | b.p[1] | b.p[2];
        Bits less = lempty & a_more & b_sees;
        Bits unseen = lempty & a_more & ~b_sees;
        Bits capture = legal & theirs;
        Bits lneutral = neutral & legal;
        Bits safe = legal & mine & ~b_up;
        Bits contested = legal & ~(less | unseen | capture | lneutral | safe);
        t_theirs = t_theirs & ~t_mine;
        Bits elsewhere = ~(t_mine | t_theirs);
        const Group base[6] = {{capture, 1.5}, {contested, 1.0}, {lneutral, 0.7},
                               {less, 0.5},    {unseen, 0.15},   {safe, 0.05}};
        for (const Group &g : base) {
            if (!any(g.cells)) continue;
            const Group parts[3] = {{g.cells & elsewhere, 1.0}, {g.cells & t_mine, 0.1}, {g.cells & t_theirs, 0.3}};
            for (const Group &part : parts)
                if (any(part.cells)) groups.push_back({part.cells, g.w * part.w});
        }
        double total = 0.0;
        for (const Group &g : groups) total += count(g.cells) * g.w;
        double inv = 1.0 / total;
        std::stable_sort(groups.begin(), groups.end(), [](const Group &x, const Group &y) { return x.w > y.w; });
        if (root) {  // the legal moves in cell order (a dict of the priors, read in legal order)
            std::vector<double> prior(NUM_CELLS, 0.0);
            for (const Group &g : groups) {
                double v = g.w * inv;
                BOARD.cells(g.cells, [&](int c) { prior[size_t(c)] = v; });
            }
            BOARD.cells(legal, [&](int c) {
                out.moves.push_back(c);
                out.priors.push_back(prior[size_t(c)]);
            });
            return;
        }
        for (const Group &g : groups) {
            double v = g.w * inv;
            BOARD.cells(g.cells, [&](int c) {
                out.moves.push_back(c);
                out.priors.push_back(v);
            });
        }
    }
};

}  // namespace tw
