// The student network (network.py, arch 'student-1'): the same fixed-point mixing as Python.
#pragma once

#include "evaluator.hpp"
#include "weights_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tw {

constexpr int MAX_H = 6;
constexpr int OWNER_ROWS = 4 * (MAX_H + 1);  // 28
constexpr int SIGHT_ROWS = 49;
constexpr int STATUS_ROWS = 16;
constexpr int ROWS = OWNER_ROWS + SIGHT_ROWS + STATUS_ROWS;  // 93
constexpr int NUM_CODES = OWNER_ROWS * SIGHT_ROWS * STATUS_ROWS;

class Network : public Evaluator {
  public:
    int width = 0, hidden = 0, directions = 1;
    std::vector<double> self_rows, msg_rows;  // ROWS x W (msg: D * ROWS x W, already / 6)
    std::vector<int64_t> const_q;             // per cell: round((bias + missing edges) * 2**20)
    std::vector<double> policy_w_fixed, hidden_w, hidden_g, hidden_b, value_w, pass_w;
    double policy_b = 0, value_b = 0, pass_b = 0;
    std::vector<int64_t> hidden_q;  // H x W: round(G * 2**24)
    int col_bias_exp = 0;
    // code -> slot; slots hold the packed self vector and D messages
    std::vector<int32_t> slot_of;
    std::vector<int64_t> slots;
    // int32 copies when no sum of 8 rows can leave int32 (checked at load): twice the SIMD lanes
    bool narrow = false;
    std::vector<int32_t> slots32, const_q32;
    std::vector<double> h;  // per cell x W: the hidden values in fixed point (exact integers)
    std::vector<int64_t> sum_scratch, gq_scratch;
    std::vector<double> g_scratch, z_scratch;
    uint64_t evaluations = 0;

    explicit Network(const Weights &w) {
        const Json *arch = w.header.get("arch");
        if (!arch || arch->kind != Json::STR || arch->str != "student-1")
            throw Error{"the weights file holds a '" + (arch && arch->kind == Json::STR ? arch->str : "?") +
                        "' network, not 'student-1'"};
        const Json *jw = w.header.get("width"), *jh = w.header.get("hidden"), *jm = w.header.get("mixing");
        if (!jw || !jh || !jm || jw->kind != Json::NUM || jh->kind != Json::NUM || jm->kind != Json::STR)
            throw Error{"the weights file's header lacks width, hidden or mixing"};
        width = int(jw->num);
        hidden = int(jh->num);
        if (jm->str != "mean" && jm->str != "directional")
            throw Error{"the weights file has an unknown mixing '" + jm->str + "'"};
        directions = jm->str == "mean" ? 1 : 6;
        if (width < 1 || hidden < 1 || width > 4096 || hidden > 4096)
            throw Error{"the weights file's width or hidden size is out of range"};
        const int W = width, H = hidden, D = directions;
        auto expect = [&](const char *name, std::vector<int> shape) -> const Tensor & {
            const Tensor &t = w.tensor(name);
            if (t.shape != shape) throw Error{std::string("tensor '") + name + "' has the wrong shape"};
            return t;
        };
        const Tensor &st = expect("self_table", {ROWS, W});
        const Tensor &sb = expect("self_bias", {W});
        const Tensor &mt = expect("msg_table", {D * ROWS, W});
        const Tensor &ed = expect("edge", {D, W});
        const Tensor &pw = expect("policy_w", {W});
        const Tensor &pb = expect("policy_b", {1});
        const Tensor &hw = expect("hidden_w", {H, W});
        const Tensor &hg = expect("hidden_g", {H, 2});
        const Tensor &hb = expect("hidden_b", {H});
        const Tensor &vw = expect("value_w", {H});
        const Tensor &vb = expect("value_b", {1});
        const Tensor &qw = expect("pass_w", {H});
        const Tensor &qb = expect("pass_b", {1});
        const double sixth = 1.0 / 6.0;
        const double scale = double(1 << FIXED_BITS);
        self_rows = st.values;
        msg_rows = mt.values;
        for (double &x : msg_rows) x = x * sixth;
        std::vector<double> edge = ed.values;
        for (double &x : edge) x = x * sixth;
        const_q.resize(size_t(NUM_CELLS) * W);
        for (int i = 0; i < NUM_CELLS; ++i) {
            std::vector<double> k = sb.values;
            for (int d = 0; d < 6; ++d) {
                if (BOARD.nbr[i][d] == NUM_CELLS) {
                    const double *e = &edge[size_t(D == 6 ? d : 0) * W];
                    for (int j = 0; j < W; ++j) k[j] = k[j] + e[j];
                }
            }
            for (int j = 0; j < W; ++j) const_q[size_t(i) * W + j] = int64_t(std::nearbyint(k[j] * scale));
        }
        const double inv_scale = 1.0 / scale;
        policy_w_fixed = pw.values;
        for (double &x : policy_w_fixed) x = x * inv_scale;
        policy_b = pb.values[0];
        hidden_w = hw.values;
        hidden_g = hg.values;
        hidden_b = hb.values;
        value_w = vw.values;
        value_b = vb.values[0];
        pass_w = qw.values;
        pass_b = qb.values[0];
        double top = 0.0;
        for (double x : hidden_w) top = std::max(top, std::fabs(x));
        int e = 0;
        std::frexp(top, &e);
        col_bias_exp = HIDDEN_BITS + std::max(1, e + 1);
        hidden_q.resize(size_t(H) * W);
        for (size_t k = 0; k < hidden_q.size(); ++k)
            hidden_q[k] = int64_t(std::nearbyint(hidden_w[k] * double(1 << HIDDEN_BITS)));
        slot_of.assign(NUM_CODES, -1);
        h.resize(size_t(NUM_CELLS) * W);
        // |self| + |const| + 6 |message| of any cell, any lane, in fixed point (+1 per rounding)
        double bound = 0.0;
        for (int j = 0; j < W; ++j) {
            double sm[3] = {0, 0, 0}, mm[3] = {0, 0, 0}, km = 0;
            const int lo[3] = {0, OWNER_ROWS, OWNER_ROWS + SIGHT_ROWS}, hi[3] = {OWNER_ROWS, OWNER_ROWS + SIGHT_ROWS, ROWS};
            for (int part = 0; part < 3; ++part)
                for (int row = lo[part]; row < hi[part]; ++row) {
                    sm[part] = std::max(sm[part], std::fabs(self_rows[size_t(row) * W + j]));
                    for (int d = 0; d < D; ++d)
                        mm[part] = std::max(mm[part], std::fabs(msg_rows[(size_t(d) * ROWS + row) * W + j]));
                }
            for (int i = 0; i < NUM_CELLS; ++i) km = std::max(km, std::fabs(double(const_q[size_t(i) * W + j])));
            double b = km + (sm[0] + sm[1] + sm[2]) * scale + 1 + 6 * ((mm[0] + mm[1] + mm[2]) * scale + 1);
            bound = std::max(bound, b);
        }
        narrow = bound * NUM_CELLS < 2.0e9;  // the sum over the cells too
        if (narrow) const_q32.assign(const_q.begin(), const_q.end());
    }

    // The packed rows of a cell code: self vector, then D messages (network._rows, _pack).
    const int64_t *entry(int a, int b, int c) {
        int code = (a * SIGHT_ROWS + b) * STATUS_ROWS + c;
        int32_t s = slot_of[size_t(code)];
        const int W = width, D = directions;
        const size_t per = size_t(W) * (1 + D);
        if (s < 0) {
            s = int32_t(slots.size() / per);
            slot_of[size_t(code)] = s;
            slots.resize(slots.size() + per);
            int64_t *out = &slots[size_t(s) * per];
            const double scale = double(1 << FIXED_BITS);
            const double *ta = &self_rows[size_t(a) * W], *tb = &self_rows[size_t(OWNER_ROWS + b) * W],
                         *tc = &self_rows[size_t(OWNER_ROWS + SIGHT_ROWS + c) * W];
            for (int j = 0; j < W; ++j) out[j] = int64_t(std::nearbyint((ta[j] + tb[j] + tc[j]) * scale));
            for (int d = 0; d < D; ++d) {
                size_t o = size_t(d) * ROWS;
                const double *ma = &msg_rows[(o + a) * W], *mb = &msg_rows[(o + OWNER_ROWS + b) * W],
                             *mc = &msg_rows[(o + OWNER_ROWS + SIGHT_ROWS + c) * W];
                for (int j = 0; j < W; ++j)
                    out[W * (1 + d) + j] = int64_t(std::nearbyint((ma[j] + mb[j] + mc[j]) * scale));
            }
            if (narrow) slots32.insert(slots32.end(), out, out + per);
        }
        return &slots[size_t(s) * per];
    }

    // h_i = relu(self + const + the neighbours' messages) for every cell, and their sum.
    // WC: the width as a compile-time constant (0: read it from the file), so that the compiler
    // knows the trip counts and vectorises the lanes at -O2.
    template <class T, int WC>
    void mix(const std::vector<T> &table, const std::vector<T> &konst, const int (&slot)[NUM_CELLS],
             int64_t *sum_out) {
        const int W = WC ? WC : width, D = directions;
        const size_t per = size_t(W) * (1 + D);
        T acc[WC ? WC : 4096], sum[WC ? WC : 4096];
        for (int j = 0; j < W; ++j) sum[j] = 0;
        for (int i = 0; i < NUM_CELLS; ++i) {
            const T *s = &table[size_t(slot[i]) * per], *k = &konst[size_t(i) * W];
            for (int j = 0; j < W; ++j) acc[j] = T(s[j] + k[j]);
            for (int d = 0; d < 6; ++d) {
                int nb = BOARD.nbr[i][d];
                if (nb == NUM_CELLS) continue;  // the edge constant is in konst
                const T *m = &table[size_t(slot[nb]) * per + size_t(W) * (1 + (D == 6 ? d : 0))];
                for (int j = 0; j < W; ++j) acc[j] = T(acc[j] + m[j]);
            }
            double *hi = &h[size_t(i) * W];
            for (int j = 0; j < W; ++j) {
                T x = acc[j] < 1 ? T(0) : acc[j];
                hi[j] = double(x);
                sum[j] = T(sum[j] + x);
            }
        }
        for (int j = 0; j < W; ++j) sum_out[j] = int64_t(sum[j]);
    }

    // (logits of `cells`, value) for one position (network.Network.run).
    double run(const Pos &p, const Info &info, const std::vector<int> &cells, std::vector<double> &logits) {
        const int W = width, H = hidden;
        const int me = p.to_move;
        const Bits &mine = me == RED ? p.red : p.white, &theirs = me == RED ? p.white : p.red;
        const Planes &a_s = me == RED ? info.rc : info.wc, &b_s = me == RED ? info.wc : info.rc;
        const Bits &tm = me == RED ? info.tr : info.tw, &tt = me == RED ? info.tw : info.tr;
        Bits legal_me = legal_bits(info, me), legal_them = legal_bits(info, 3 - me);
        int codes[NUM_CELLS][3];
        for (int i = 0; i < NUM_CELLS; ++i) {
            int owner = BOARD.has(mine, i) ? 1 : BOARD.has(theirs, i) ? 2 : BOARD.has(p.neutral, i) ? 3 : 0;
            int height = count_at(p.h, i);
            if (height > MAX_H) height = MAX_H;
            int a = owner * 7 + height;
            int b = count_at(a_s, i) * 7 + count_at(b_s, i);
            int c = (BOARD.has(legal_me, i) ? 8 : 0) + (BOARD.has(legal_them, i) ? 4 : 0) +
                    (BOARD.has(tm, i) ? 1 : 0) + (BOARD.has(tt, i) ? 2 : 0);
            codes[i][0] = a;
            codes[i][1] = b;
            codes[i][2] = c;
            entry(a, b, c);  // made now: a new entry may move the slots
        }
        int slot[NUM_CELLS];
        for (int i = 0; i < NUM_CELLS; ++i)
            slot[i] = slot_of[size_t((codes[i][0] * SIGHT_ROWS + codes[i][1]) * STATUS_ROWS + codes[i][2])];
        std::vector<int64_t> &sum = sum_scratch;
        sum.assign(size_t(W), 0);
        if (narrow && W == 32)
            mix<int32_t, 32>(slots32, const_q32, slot, sum.data());
        else if (narrow && W == 16)
            mix<int32_t, 16>(slots32, const_q32, slot, sum.data());
        else if (narrow && W == 64)
            mix<int32_t, 64>(slots32, const_q32, slot, sum.data());
        else if (narrow)
            mix<int32_t, 0>(slots32, const_q32, slot, sum.data());
        else
            mix<int64_t, 0>(slots, const_q, slot, sum.data());
        const double inv = (1.0 / double(NUM_CELLS)) / double(1 << FIXED_BITS);
        std::vector<double> &g = g_scratch, &z = z_scratch;
        g.resize(size_t(W));
        z.resize(size_t(H));
        for (int j = 0; j < W; ++j) g[size_t(j)] = double(sum[size_t(j)]) * inv;
        double r = me == RED ? 1.0 : 0.0, ps = p.passes ? 1.0 : 0.0;
        hidden_layer(g, r, ps, z);
        double v = 0.0;
        for (int k = 0; k < H; ++k) v += value_w[size_t(k)] * z[size_t(k)];
        double value = std::tanh(v + value_b);
        logits.resize(cells.size());
        const double *u = policy_w_fixed.data();
        size_t m = 0;
        // four moves at a time: four independent sums, each in the order of the Python code
        for (; m + 4 <= cells.size() && cells[m + 3] != PASS; m += 4) {
            const double *h0 = &h[size_t(cells[m]) * W], *h1 = &h[size_t(cells[m + 1]) * W],
                         *h2 = &h[size_t(cells[m + 2]) * W], *h3 = &h[size_t(cells[m + 3]) * W];
            double x0 = 0.0, x1 = 0.0, x2 = 0.0, x3 = 0.0;
            for (int j = 0; j < W; ++j) {
                x0 += h0[j] * u[j];
                x1 += h1[j] * u[j];
                x2 += h2[j] * u[j];
                x3 += h3[j] * u[j];
            }
            logits[m] = x0 + policy_b;
            logits[m + 1] = x1 + policy_b;
            logits[m + 2] = x2 + policy_b;
            logits[m + 3] = x3 + policy_b;
        }
        for (; m < cells.size(); ++m) {
            int y = cells[m];
            double x = 0.0;
            if (y == PASS) {
                for (int k = 0; k < H; ++k) x += pass_w[size_t(k)] * z[size_t(k)];
                logits[m] = x + pass_b;
            } else {
                const double *hy = &h[size_t(y) * W];
                for (int j = 0; j < W; ++j) x += hy[j] * u[j];
                logits[m] = x + policy_b;
            }
        }
        return value;
    }

    void hidden_layer(const std::vector<double> &g, double r, double ps, std::vector<double> &z) {
        const int W = width, H = hidden;
        const double scale = double(1 << HIDDEN_BITS);
        std::vector<int64_t> &gq = gq_scratch;
        gq.resize(size_t(W));
        int64_t total = 0;
        bool negative = false;
        bool fits = true;
        for (int j = 0; j < W; ++j) {
            double x = std::nearbyint(g[size_t(j)] * scale);
            if (!(std::fabs(x) < 9.0e18)) fits = false;
            gq[size_t(j)] = fits ? int64_t(x) : 0;
            if (gq[size_t(j)] < 0) negative = true;
            total += gq[size_t(j)];
        }
        // network._hidden_layer: fixed point when total * 2 * col_bias < 2**63
        bool fixed = fits && !negative && col_bias_exp < 62 && total < (int64_t(1) << (62 - col_bias_exp));
        if (fixed) {
            const double inv = 1.0 / (scale * scale);
            for (int k = 0; k < H; ++k) {
                int64_t acc = 0;
                const int64_t *row = &hidden_q[size_t(k) * W];
                for (int j = 0; j < W; ++j) acc += gq[size_t(j)] * row[j];
                double x = double(acc) * inv + hidden_g[size_t(2 * k)] * r + hidden_g[size_t(2 * k + 1)] * ps +
                           hidden_b[size_t(k)];
                z[size_t(k)] = x > 0.0 ? x : 0.0;
            }
            return;
        }
        for (int k = 0; k < H; ++k) {
            double x = 0.0;
            for (int j = 0; j < W; ++j) x += hidden_w[size_t(k) * W + j] * g[size_t(j)];
            x = x + hidden_g[size_t(2 * k)] * r + hidden_g[size_t(2 * k + 1)] * ps + hidden_b[size_t(k)];
            z[size_t(k)] = x > 0.0 ? x : 0.0;
        }
    }

    // NetworkEvaluator.evaluate: softmax of the logits over the legal moves.
    void evaluate(const Pos &p, const Info &info, bool, Evaluation &out) override {
        out.moves.clear();
        BOARD.cells(legal_bits(info, p.to_move), [&](int c) { out.moves.push_back(c); });
        if (out.moves.empty()) out.moves.push_back(PASS);
        std::vector<double> &logits = out.priors;
        out.value = run(p, info, out.moves, logits);
        ++evaluations;
        softmax_in_place(logits);
    }
};

}  // namespace tw
