// The native bot's own network (arch 'nnue-1', tw_rl/expert/nnue_net.py is its torch twin):
// a sparse first layer with a weight row per (cell, feature) pair (nnue_features.hpp), summed
// into an accumulator of `width` lanes, a clipped ReLU, one dense layer of `hidden` lanes, and
// three heads: the win probability, the final margin, a policy logit per cell.
//
// A file with quantization 'int8' or 'int16' is played in integers, exactly as the torch twin
// simulates them, on the grids of its scheme (nnue_file.py): int8 has the first layer's weights
// and sums at q / 256 (int8 weights), the activations at q / 64 clipped to 0..127 and the dense
// weights at q / 128 (int8); int16 has them at q / 2048 (int16 weights), q / 512 clipped to
// 0..1016, and q / 1024 (at most 2047, so that no int32 sum of 1,024 lanes overflows). The
// accumulator's lanes are int16 when no position can leave int16 (checked at load), else int32;
// the dense sums are int32 at the activations' grid times the dense weights'; a sum goes to the
// activations' grid to the nearest (halves up). A file with quantization 'float32' (the same
// network before quantization) is played in doubles: the reference that quantization is measured
// against.
//
//   acc     = ft_b + sum of the 364 active rows of ft_w           (width lanes)
//   a1      = clamp(round(acc), 0, 127/64)              (round: to the activations' grid)
//   a2      = clamp(round(l2_w a1 + l2_b), 0, 127/64)   (hidden lanes)
//   (v, m)  = out_w a2 + out_b
//   value   = 2 sigmoid(v) - 1 = tanh(v / 2)     margin = 91 m cells   (side to move)
//   logit_c = pol_w[c] . a1 + pol_b[c] + the sum of pol_cell over the cell's four active rows
//
// The accumulator is updated, not refreshed: the network keeps, for each side to move, the
// active rows and the accumulator of the last position it evaluated with that side to move,
// and when fewer than half of the 364 rows differ it subtracts the old rows and adds the new
// ones (integer sums: the same lanes as a refresh).  The search's consecutive evaluations are
// near one another in the tree, and a move changes about 14 of the 364 rows for a fixed side
// (docs/bot.md).  Compiled with -DTW_NNUE_FULL_REFRESH it refreshes every time (the bench's
// comparison).
#pragma once

#include "evaluator.hpp"
#include "nnue_features.hpp"
#include "weights_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

// The lanes' loops are what the network costs; g++'s -O2 (the CodeCup's) leaves loops of int16
// sums and widening products scalar, so this part asks for the vectoriser with the dynamic cost
// model (restored at the end of the part).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

namespace tw {

constexpr const char *NNUE_ARCH = "nnue-1";
constexpr int NNUE_MAX_WIDTH = 1024, NNUE_MAX_HIDDEN = 256;

// An integer network's grids (nnue_file.SCHEMES): a value is q / one, |q| at most its top.
struct NnueScheme {
    int ft_one;   // the first layer's weights and sums
    int w_one;    // the dense layers' weights
    int one;      // activations
    int act_max;  // the clipped ReLU's top, in q
    int ft_top;   // |q| of a first-layer weight
    int w_top;    // |q| of a dense weight
    int sum_one() const { return w_one * one; }  // the dense sums: activation times weight
};
constexpr NnueScheme NNUE_INT8{256, 128, 64, 127, 127, 127};
constexpr NnueScheme NNUE_INT16{2048, 1024, 512, 1016, 32767, 2047};

class NnueNetwork : public Evaluator {
  public:
    bool forecasts_margin() const override { return true; }
    int width = 0, hidden = 0;
    bool quantized = true;
    NnueScheme scheme = NNUE_INT8;
    bool narrow = false;  // int16 accumulator lanes
    // the integer network (quantization 'int8' or 'int16'); the first layer's weights are
    // int16 in either, the lanes int16 or int32
    std::vector<int16_t> ft_w, l2_w, pol_w;
    std::vector<int32_t> ft_b, l2_b, out_w, pol_b, pol_cell;
    int32_t out_b[2] = {0, 0};
    // the float network (quantization 'float32')
    std::vector<double> f_ft, f_ft_b, f_l2_w, f_l2_b, f_out_w, f_out_b, f_pol_w, f_pol_b, f_pol_cell;
    // scratch: the first layer's output of the last position
    std::vector<int16_t> a1;
    std::vector<double> f_a1;
    // the incremental accumulator: per side to move (RED - 1, WHITE - 1) the last rows and sums
    int last_rows[2][NNUE_ACTIVE];
    bool have_last[2] = {false, false};
    std::vector<int16_t> acc16[2];
    std::vector<int32_t> acc32[2];
    uint64_t evaluations = 0, refreshes = 0, updated_rows = 0;

    explicit NnueNetwork(const Weights &w) {
        const Json *arch = w.header.get("arch");
        if (!arch || arch->kind != Json::STR || arch->str != NNUE_ARCH)
            throw Error{"the weights file holds a '" + (arch && arch->kind == Json::STR ? arch->str : "?") +
                        "' network, not '" + NNUE_ARCH + "'"};
        const Json *jw = w.header.get("width"), *jh = w.header.get("hidden"), *jq = w.header.get("quantization");
        const Json *jf = w.header.get("features");
        if (!jw || !jh || !jq || !jf || jw->kind != Json::NUM || jh->kind != Json::NUM || jq->kind != Json::STR ||
            jf->kind != Json::NUM)
            throw Error{"the weights file's header lacks width, hidden, features or quantization"};
        width = int(jw->num);
        hidden = int(jh->num);
        if (width < 1 || hidden < 1 || width > NNUE_MAX_WIDTH || hidden > NNUE_MAX_HIDDEN)
            throw Error{"the weights file's width or hidden size is out of range"};
        if (int(jf->num) != NNUE_PER_CELL)
            throw Error{"the weights file has " + std::to_string(int(jf->num)) + " features per cell, this bot " +
                        std::to_string(NNUE_PER_CELL)};
        if (jq->str != "int8" && jq->str != "int16" && jq->str != "float32")
            throw Error{"the weights file has an unknown quantization '" + jq->str + "'"};
        quantized = jq->str != "float32";
        scheme = jq->str == "int16" ? NNUE_INT16 : NNUE_INT8;
        const int W = width, H = hidden;
        auto expect = [&](const char *name, std::vector<int> shape) -> const Tensor & {
            const Tensor &t = w.tensor(name);
            if (t.shape != shape) throw Error{std::string("tensor '") + name + "' has the wrong shape"};
            return t;
        };
        const Tensor &ft = expect("ft_w", {NNUE_INPUTS, W});
        const Tensor &fb = expect("ft_b", {W});
        const Tensor &lw = expect("l2_w", {H, W});
        const Tensor &lb = expect("l2_b", {H});
        const Tensor &ow = expect("out_w", {2, H});
        const Tensor &ob = expect("out_b", {2});
        const Tensor &pw = expect("pol_w", {NUM_CELLS, W});
        const Tensor &pb = expect("pol_b", {NUM_CELLS});
        const Tensor &pc = expect("pol_cell", {NNUE_INPUTS});
        a1.assign(size_t(W), 0);
        f_a1.assign(size_t(W), 0.0);
        for (int s = 0; s < 2; ++s) {
            acc16[s].assign(size_t(W), 0);
            acc32[s].assign(size_t(W), 0);
        }
        if (!quantized) {
            f_ft = ft.values, f_ft_b = fb.values, f_l2_w = lw.values, f_l2_b = lb.values, f_out_w = ow.values;
            f_out_b = ob.values, f_pol_w = pw.values, f_pol_b = pb.values, f_pol_cell = pc.values;
            return;
        }
        const std::string kind = jq->str;
        auto grid = [&kind](const char *name, const Tensor &t, double one, double top, auto &out) {
            out.resize(t.values.size());
            for (size_t k = 0; k < t.values.size(); ++k) {
                double x = t.values[k] * one, q = std::nearbyint(x);
                if (!(std::fabs(x - q) < 1e-6) || std::fabs(q) > top)
                    throw Error{std::string("tensor '") + name + "' is off the integer grid of an " + kind +
                                " nnue-1 file"};
                out[k] = typename std::decay<decltype(out)>::type::value_type(q);
            }
        };
        const NnueScheme &g = scheme;
        grid("ft_w", ft, g.ft_one, g.ft_top, ft_w);
        grid("ft_b", fb, g.ft_one, 32767, ft_b);
        grid("l2_w", lw, g.w_one, g.w_top, l2_w);
        grid("l2_b", lb, g.sum_one(), 1 << 24, l2_b);
        grid("out_w", ow, g.w_one, g.w_top, out_w);
        std::vector<int32_t> ob_q;
        grid("out_b", ob, g.sum_one(), 1 << 24, ob_q);
        out_b[0] = ob_q[0];
        out_b[1] = ob_q[1];
        grid("pol_w", pw, g.w_one, g.w_top, pol_w);
        grid("pol_b", pb, g.sum_one(), 1 << 24, pol_b);
        grid("pol_cell", pc, g.w_one, 32767, pol_cell);
        for (int32_t &x : pol_cell) x *= g.one;  // to the dense sums' grid
        // int16 lanes when |bias| + the largest row of every (cell, group) fits in every lane
        double bound = 0.0;
        for (int j = 0; j < W; ++j) {
            double b = std::fabs(double(ft_b[size_t(j)]));
            const int lo[4] = {0, NNUE_SIGHT_AT, NNUE_LEGAL_AT, NNUE_TERRITORY_AT};
            const int hi[4] = {NNUE_SIGHT_AT, NNUE_LEGAL_AT, NNUE_TERRITORY_AT, NNUE_PER_CELL};
            for (int i = 0; i < NUM_CELLS; ++i)
                for (int gr = 0; gr < 4; ++gr) {
                    int top = 0;
                    for (int r = lo[gr]; r < hi[gr]; ++r)
                        top = std::max(top, std::abs(int(ft_w[size_t(i * NNUE_PER_CELL + r) * W + size_t(j)])));
                    b += top;
                }
            bound = std::max(bound, b);
        }
        narrow = bound <= 32767.0;
    }

    // The first layer in integers: a1 = clamp(ft_b + the active rows, 0, act_max), the sums
    // (lanes of type Lane) kept for side `side` and brought up to date from its last position
    // (see the file's comment).  WC: the width as a compile-time constant (0: read it), so that
    // -O2 vectorises the lanes.
    template <class Lane, int WC>
    void accumulate(const int (&rows)[NNUE_ACTIVE], int side) {
        const int W = WC ? WC : width;
        Lane *acc = nullptr;
        if constexpr (sizeof(Lane) == 2)
            acc = acc16[side].data();
        else
            acc = acc32[side].data();
        int *last = last_rows[side];
        int changed = 0;
        if (have_last[side])
            for (int k = 0; k < NNUE_ACTIVE; ++k) changed += rows[k] != last[k] ? 1 : 0;
#ifdef TW_NNUE_FULL_REFRESH
        const bool refresh = true;
#else
        const bool refresh = !have_last[side] || 2 * changed >= NNUE_ACTIVE;
#endif
        const int16_t *table = ft_w.data();
        if (refresh) {
            ++refreshes;
            for (int j = 0; j < W; ++j) acc[j] = Lane(ft_b[size_t(j)]);
            for (int k = 0; k < NNUE_ACTIVE; ++k) {
                const int16_t *row = &table[size_t(rows[k]) * size_t(W)];
                for (int j = 0; j < W; ++j) acc[j] = Lane(acc[j] + row[j]);
            }
        } else {
            updated_rows += uint64_t(changed);
            for (int k = 0; k < NNUE_ACTIVE; ++k) {
                if (rows[k] == last[k]) continue;
                const int16_t *old_row = &table[size_t(last[k]) * size_t(W)];
                const int16_t *row = &table[size_t(rows[k]) * size_t(W)];
                for (int j = 0; j < W; ++j) acc[j] = Lane(acc[j] - old_row[j] + row[j]);
            }
        }
        for (int k = 0; k < NNUE_ACTIVE; ++k) last[k] = rows[k];
        have_last[side] = true;
        int16_t *out = a1.data();
        const int down = scheme.ft_one / scheme.one, top = scheme.act_max;  // to the activations' grid,
        for (int j = 0; j < W; ++j) {                                       // to the nearest (halves up)
            int32_t x = acc[j] < 0 ? 0 : (int32_t(acc[j]) + down / 2) / down;
            out[j] = int16_t(x > top ? top : x);
        }
    }

    // The heads in integers from a1: o[0] (value logit) and o[1] (margin / 91), on the sums' grid.
    void dense(int32_t (&o)[2]) {
        const int W = width, H = hidden;
        const int16_t *a = a1.data();
        int32_t a2[NNUE_MAX_HIDDEN];
        for (int k = 0; k < H; ++k) {
            const int16_t *row = &l2_w[size_t(k) * size_t(W)];
            int32_t s = l2_b[size_t(k)];
            for (int j = 0; j < W; ++j) s += int32_t(a[j]) * int32_t(row[j]);
            const int down = scheme.w_one;  // the sums' grid over the activations'
            int32_t y = s < 0 ? 0 : (s + down / 2) / down;  // to the nearest (halves up)
            a2[k] = y > scheme.act_max ? scheme.act_max : y;
        }
        for (int h = 0; h < 2; ++h) {
            int32_t s = out_b[h];
            for (int k = 0; k < H; ++k) s += a2[k] * out_w[size_t(h * H + k)];
            o[h] = s;
        }
    }

    // One cell's policy logit in integers (on the sums' grid), from a1 and the cell's active rows.
    int32_t cell_logit(int c, const int (&rows)[NNUE_ACTIVE]) const {
        const int W = width;
        const int16_t *row = &pol_w[size_t(c) * size_t(W)], *a = a1.data();
        int32_t s = pol_b[size_t(c)];
        for (int j = 0; j < W; ++j) s += int32_t(a[j]) * int32_t(row[j]);
        for (int g = 0; g < NNUE_GROUPS; ++g) s += pol_cell[size_t(rows[NNUE_GROUPS * c + g])];
        return s;
    }

    // The float network: value logit, margin / 91 and f_a1, from the active rows.
    void float_forward(const int (&rows)[NNUE_ACTIVE], double (&o)[2]) {
        const int W = width, H = hidden;
        const double top = 127.0 / 64.0;  // act_max / one in every scheme
        std::vector<double> &acc = f_a1;
        for (int j = 0; j < W; ++j) acc[size_t(j)] = f_ft_b[size_t(j)];
        for (int k = 0; k < NNUE_ACTIVE; ++k) {
            const double *row = &f_ft[size_t(rows[k]) * size_t(W)];
            for (int j = 0; j < W; ++j) acc[size_t(j)] += row[j];
        }
        for (double &x : acc) x = std::min(std::max(x, 0.0), top);
        double a2[NNUE_MAX_HIDDEN];
        for (int k = 0; k < H; ++k) {
            double s = f_l2_b[size_t(k)];
            for (int j = 0; j < W; ++j) s += acc[size_t(j)] * f_l2_w[size_t(k * W + j)];
            a2[k] = std::min(std::max(s, 0.0), top);
        }
        for (int h = 0; h < 2; ++h) {
            double s = f_out_b[size_t(h)];
            for (int k = 0; k < H; ++k) s += a2[k] * f_out_w[size_t(h * H + k)];
            o[h] = s;
        }
    }

    double float_cell_logit(int c, const int (&rows)[NNUE_ACTIVE]) const {
        const int W = width;
        double s = f_pol_b[size_t(c)];
        for (int j = 0; j < W; ++j) s += f_a1[size_t(j)] * f_pol_w[size_t(c * W + j)];
        for (int g = 0; g < NNUE_GROUPS; ++g) s += f_pol_cell[size_t(rows[NNUE_GROUPS * c + g])];
        return s;
    }

    // The network's outputs for a position: value logit, margin / 91, and the logits of `cells`
    // (PASS: 0).  `rows`: the position's active rows (nnue_features).
    // `side`: the side to move (RED or WHITE), whose incremental accumulator is used.
    void run(const int (&rows)[NNUE_ACTIVE], int side, const std::vector<int> &cells, double &value_logit,
             double &margin_share, std::vector<double> &logits) {
        logits.resize(cells.size());
        if (!quantized) {
            double o[2];
            float_forward(rows, o);
            value_logit = o[0];
            margin_share = o[1];
            for (size_t m = 0; m < cells.size(); ++m)
                logits[m] = cells[m] == PASS ? 0.0 : float_cell_logit(cells[m], rows);
            return;
        }
        const int s = side == WHITE ? 1 : 0;
        if (narrow && width == 128)
            accumulate<int16_t, 128>(rows, s);
        else if (narrow)
            accumulate<int16_t, 0>(rows, s);
        else if (width == 128)
            accumulate<int32_t, 128>(rows, s);
        else
            accumulate<int32_t, 0>(rows, s);
        int32_t o[2];
        dense(o);
        const double inv = 1.0 / scheme.sum_one();
        value_logit = double(o[0]) * inv;
        margin_share = double(o[1]) * inv;
        for (size_t m = 0; m < cells.size(); ++m)
            logits[m] = cells[m] == PASS ? 0.0 : double(cell_logit(cells[m], rows)) * inv;
    }

    // The search's evaluation: softmax of the legal moves' logits, value tanh(v / 2), margin 91 m.
    void evaluate(const Pos &p, const Info &info, bool, Evaluation &out) override {
        out.moves.clear();
        BOARD.cells(legal_bits(info, p.to_move), [&](int c) { out.moves.push_back(c); });
        if (out.moves.empty()) out.moves.push_back(PASS);
        int rows[NNUE_ACTIVE];
        nnue_features(p, info, rows);
        double v, m;
        std::vector<double> &logits = out.priors;
        run(rows, p.to_move, out.moves, v, m, logits);
        ++evaluations;
        out.value = std::tanh(0.5 * v);
        out.margin = double(NUM_CELLS) * m;
        out.has_margin = true;
        softmax_in_place(logits);
    }
};

}  // namespace tw

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
