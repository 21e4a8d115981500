// The PUCT search with tree reuse (search.py) over a capped node pool.
#pragma once

#include "eval_cache.hpp"
#include "evaluator.hpp"
#include "utility.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tw {

// search.MCTS over a node pool.  A node keeps no position: a simulation replays the moves of
// its path from the root's position (`place`, a few dozen operations a move), and only a new
// leaf gets its sight and territory (`play`).  A node's children are a prefix of its moves
// (highest prior first), linked first to last; a child's visits are its edge's count and
// its wsum the negated sum of the edge's values (the Python search keeps both, equal).
//
// Ties are broken as the Python search breaks them, so the two pick the same moves: a node's
// moves are stable-sorted by prior, highest first (ties keep the evaluator's order: cell order
// for the network and at the root, prior-group order below the root for the territory
// evaluator); selection keeps the first maximum in that order, and the unvisited move wins
// only when strictly above it; the answer is the most visited move, then the higher mean value,
// then the higher prior, then the first in that order.  The floating-point expressions are the
// Python ones in the same order (and never fused: see the pragma at the top).
struct Node {
    double wsum;
    double value;
    int32_t visits;
    int32_t first_child, last_child, next_sibling;
    uint32_t edges;  // offset of its moves and priors
    uint8_t nmoves, nchildren, move, terminal;
};

struct Stat {
    int move;
    int visits;
};

class MCTS {
  public:
    Evaluator *evaluator;
    double c_puct, fpu_reduction;
    bool reuse = true;
    // the pool: capped, never grown past the caps (see `full`)
    size_t node_cap, edge_cap;
    std::vector<Node> nodes;
    std::vector<double> priors;
    std::vector<uint8_t> moves;
    int32_t root = -1;
    Pos root_pos;
    int last_sims = 0;
    int last_reused = 0;
    bool stopped_full = false;
    std::vector<Stat> last_stats;  // root moves by visits, most first (stable)
    double last_root_value = 0.0;  // the root's value for its side to move (see root_value)
    Evaluation scratch;
    std::vector<int> legal_scratch;
    // Options of issue 43, off by default (the search is then the Python one, move for move):
    Utility utility;             // what a leaf and an end are worth (default: the win value)
    EvalCache *cache = nullptr;  // evaluations of positions met again (none: evaluate each)
    // Time where it matters (bot.hpp sets them for a clocked search): past the deadline, go on
    // up to `hard_deadline` while the choice is unsettled, in steps of `extend_step` of the
    // allotment; with `early_stop`, stop when the leader cannot be overtaken in time.
    double hard_deadline = -1.0;
    double extend_step = 0.25;
    double close_ratio = 0.8;  // runner-up's visits over the leader's that count as close
    bool early_stop = false;
    bool last_extended = false, last_stopped_early = false;

    MCTS(Evaluator *e, double c, double fpu, size_t node_cap_, size_t edge_cap_)
        : evaluator(e), c_puct(c), fpu_reduction(fpu), node_cap(node_cap_), edge_cap(edge_cap_) {
        // reserved, not touched: pages become resident only as the tree grows, and no
        // reallocation ever moves a node
        nodes.reserve(node_cap);
        priors.reserve(edge_cap);
        moves.reserve(edge_cap);
    }

    void reset() {
        root = -1;
        nodes.clear();
        priors.clear();
        moves.clear();
    }
    bool full() const { return nodes.size() + 1 >= node_cap || priors.size() + NUM_CELLS + 1 >= edge_cap; }

    // A new node for position p (its Info `info`), evaluated; `root`: priors over the legal moves.
    int32_t make_node(const Pos &p, const Info &info, bool as_root, double &value_out) {
        Node n;
        n.wsum = 0;
        n.value = 0;
        n.visits = 0;
        n.first_child = n.last_child = n.next_sibling = -1;
        n.edges = uint32_t(priors.size());
        n.nmoves = 0;
        n.nchildren = 0;
        n.move = 0;
        n.terminal = p.over ? 1 : 0;
        if (p.over) {
            n.value = utility.terminal(p, info);
        } else {
            Evaluation &ev = scratch;
            if (!cache || !cache->get(p, as_root, ev)) {
                evaluator->evaluate(p, info, as_root, ev);
                if (cache) cache->put(p, as_root, ev);
            }
            size_t m = ev.moves.size();
            if (as_root) {  // trust the rules engine: renormalise over the legal moves
                double total = 0.0;
                for (size_t k = 0; k < m; ++k) total += std::max(0.0, ev.priors[k]);
                for (size_t k = 0; k < m; ++k)
                    ev.priors[k] = total > 0.0 ? std::max(0.0, ev.priors[k]) / total : 1.0 / double(m);
            }
            // highest prior first, ties in the evaluator's order (a stable insertion sort)
            int order[NUM_CELLS + 1];
            for (size_t k = 0; k < m; ++k) {
                size_t j = k;
                while (j > 0 && ev.priors[size_t(order[j - 1])] < ev.priors[k]) {
                    order[j] = order[j - 1];
                    --j;
                }
                order[j] = int(k);
            }
            for (size_t k = 0; k < m; ++k) {
                priors.push_back(ev.priors[size_t(order[k])]);
                moves.push_back(uint8_t(ev.moves[size_t(order[k])]));
            }
            n.nmoves = uint8_t(m);
            n.value = utility.leaf(p, info, ev);
        }
        n.visits = 1;
        n.wsum = n.value;
        nodes.push_back(n);
        value_out = n.value;
        return int32_t(nodes.size() - 1);
    }

    // The next child of node (its position p, changed to the child's), evaluated.
    int32_t make_child(int32_t ni, Pos &p, double &value) {
        Node &node = nodes[size_t(ni)];
        int k = node.nchildren;
        int move = moves[node.edges + uint32_t(k)];
        Info info;
        play(p, move == PASS ? PASS : move, info);
        int32_t ci = make_node(p, info, false, value);
        Node &parent = nodes[size_t(ni)];  // make_node may move the pool
        nodes[size_t(ci)].move = uint8_t(move);
        if (parent.last_child < 0)
            parent.first_child = ci;
        else
            nodes[size_t(parent.last_child)].next_sibling = ci;
        parent.last_child = ci;
        parent.nchildren += 1;
        return ci;
    }

    std::vector<int32_t> path;

    // One simulation from the root (search._simulate); false (nothing changed) when the pool
    // is full.  `path`: the nodes whose edge was followed, root first.
    bool simulate() {
        int32_t ni = root;
        Pos p = root_pos;
        path.clear();
        double value;
        const double c = c_puct;
        while (true) {
            Node &node = nodes[size_t(ni)];
            if (node.terminal) {
                value = node.value;
                node.visits += 1;
                node.wsum += value;
                break;
            }
            int k = node.nchildren;
            double sq = c * std::sqrt(double(node.visits));
            double best = -1e30;
            int bi = k;
            int32_t bc = -1;
            const double *pr = &priors[node.edges];
            int i = 0;
            // PUCT: q + c * sqrt(N) * prior / (1 + n) over the visited moves ...
            for (int32_t ci = node.first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling, ++i) {
                const Node &ch = nodes[size_t(ci)];
                double q = -ch.wsum / ch.visits;
                double a = pr[i] / (1 + ch.visits);
                double u = q + sq * a;
                if (u > best) {
                    best = u;
                    bi = i;
                    bc = ci;
                }
            }
            // ... and the best unvisited one, at the first-play urgency
            if (k < node.nmoves) {
                if (node.wsum / node.visits - fpu_reduction + sq * pr[k] > best) bi = k;
            }
            if (bi == k) {
                if (full()) return false;
                path.push_back(ni);
                make_child(ni, p, value);
                break;
            }
            path.push_back(ni);
            place(p, nodes[size_t(bc)].move);
            ni = bc;
        }
        // value: for the side to move below the last node of the path
        for (size_t k = path.size(); k-- > 0;) {
            value = -value;
            Node &n = nodes[size_t(path[k])];
            n.visits += 1;
            n.wsum += value;
        }
        return true;
    }

    int32_t find(const Pos &p) const {
        if (root < 0) return -1;
        if (same_position(root_pos, p)) return root;
        const Node &r = nodes[size_t(root)];
        for (int32_t ci = r.first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling) {
            if (nodes[size_t(ci)].move == p.last_move) {
                Pos q = root_pos;
                place(q, nodes[size_t(ci)].move);
                q.over = nodes[size_t(ci)].terminal != 0;
                if (same_position(q, p)) return ci;
            }
        }
        return -1;
    }

    void observe(const Pos &p) {
        int32_t n = reuse ? find(p) : -1;
        if (n < 0) {
            reset();
        } else {
            root = n;
            root_pos = p;
        }
    }

    // Keep only the subtree of `keep` (sliding compaction: nodes and edges keep their order).
    int32_t compact(int32_t keep) {
        std::vector<int32_t> live;
        live.push_back(keep);
        for (size_t k = 0; k < live.size(); ++k)
            for (int32_t ci = nodes[size_t(live[k])].first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling)
                live.push_back(ci);
        std::sort(live.begin(), live.end());
        std::vector<int32_t> remap(nodes.size(), -1);
        for (size_t k = 0; k < live.size(); ++k) remap[size_t(live[k])] = int32_t(k);
        uint32_t edge_top = 0;
        for (size_t k = 0; k < live.size(); ++k) {
            Node n = nodes[size_t(live[k])];
            uint32_t e = edge_top;
            for (int j = 0; j < n.nmoves; ++j) {
                priors[e + uint32_t(j)] = priors[n.edges + uint32_t(j)];
                moves[e + uint32_t(j)] = moves[n.edges + uint32_t(j)];
            }
            edge_top += n.nmoves;
            n.edges = e;
            n.first_child = n.first_child >= 0 ? remap[size_t(n.first_child)] : -1;
            n.last_child = n.last_child >= 0 ? remap[size_t(n.last_child)] : -1;
            n.next_sibling = n.next_sibling >= 0 && remap[size_t(n.next_sibling)] >= 0
                                 ? remap[size_t(n.next_sibling)]
                                 : -1;
            nodes[k] = n;
        }
        nodes.resize(live.size());
        priors.resize(edge_top);
        moves.resize(edge_top);
        nodes[size_t(remap[size_t(keep)])].next_sibling = -1;
        return remap[size_t(keep)];
    }

    void root_for(const Pos &p) {
        int32_t n = reuse ? find(p) : -1;
        legal_scratch.clear();
        Info info;
        analyse(p, info);
        legal_moves(p, info, legal_scratch);
        if (n >= 0 && !nodes[size_t(n)].terminal) {
            // the kept node's moves are the legal moves (the evaluator lists them all)
            if (nodes.size() * 2 > node_cap || priors.size() * 2 > edge_cap) n = compact(n);
            root = n;
            root_pos = p;
            return;
        }
        reset();
        root_pos = p;
        double v;
        root = make_node(p, info, true, v);
    }

    // The search's value of the root for its side to move, from its children `kids`: their
    // values from its side, weighed by their visits (the root's own evaluation left out); 0
    // before any visit.
    double root_value(const std::vector<int32_t> &kids) const {
        double sum = 0.0;
        long visits = 0;
        for (int32_t k : kids) {
            sum -= nodes[size_t(k)].wsum;
            visits += nodes[size_t(k)].visits;
        }
        return visits > 0 ? sum / double(visits) : 0.0;
    }

    int best_index() const {
        const Node &r = nodes[size_t(root)];
        int bi = 0;
        int best_n = -1;
        double best_q = 0, best_p = 0;
        std::vector<int32_t> kids = children(root);
        for (int i = 0; i < r.nmoves; ++i) {
            int ni = i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0;
            double qi = ni ? -nodes[size_t(kids[size_t(i)])].wsum / ni : -2.0;
            double pi = priors[r.edges + uint32_t(i)];
            bool better = best_n < 0 || ni > best_n || (ni == best_n && (qi > best_q || (qi == best_q && pi > best_p)));
            if (better) {
                best_n = ni;
                best_q = qi;
                best_p = pi;
                bi = i;
            }
        }
        return bi;
    }

    std::vector<int32_t> children(int32_t ni) const {
        std::vector<int32_t> out;
        for (int32_t ci = nodes[size_t(ni)].first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling)
            out.push_back(ci);
        return out;
    }

    // Best move for p's side to move; stops at the deadline or after max_sims (search.search).
    // The root's two most visited children (visits, then the first in the moves' order) and
    // whether the runner-up comes close (or has the better mean): the choice is unsettled.
    void leaders(int32_t &first, int32_t &second) const {
        first = second = -1;
        for (int32_t ci = nodes[size_t(root)].first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling) {
            int v = nodes[size_t(ci)].visits;
            if (first < 0 || v > nodes[size_t(first)].visits) {
                second = first;
                first = ci;
            } else if (second < 0 || v > nodes[size_t(second)].visits) {
                second = ci;
            }
        }
    }
    bool unsettled(long sims, long leader_since) const {
        int32_t a, b;
        leaders(a, b);
        if (a < 0 || b < 0) return false;
        const Node &x = nodes[size_t(a)], &y = nodes[size_t(b)];
        if (double(y.visits) >= close_ratio * double(x.visits)) return true;
        if (-y.wsum / y.visits > -x.wsum / x.visits) return true;
        return leader_since * 5 > sims * 4;  // the leader took over in the last fifth
    }
    // The leader's lead is more than the simulations left at the rate so far.
    bool settled(double t, double deadline, double t0, long sims) const {
        if (t <= t0 || sims <= 0) return false;
        int32_t a, b;
        leaders(a, b);
        if (a < 0) return false;
        double rate = double(sims) / (t - t0);
        double left = rate * std::max(0.0, deadline - t);
        int lead = nodes[size_t(a)].visits - (b < 0 ? 0 : nodes[size_t(b)].visits);
        return double(lead) > left;
    }

    template <class Clock>
    int search(const Pos &p, double deadline, long max_sims, Clock now) {
        const bool managed = deadline >= 0 && (early_stop || hard_deadline > deadline);
        const double t0 = managed ? now() : 0.0;
        const double step = managed ? std::max(0.0, deadline - t0) * extend_step : 0.0;
        last_extended = last_stopped_early = false;
        root_for(p);
        stopped_full = false;
        last_reused = nodes[size_t(root)].visits - 1;
        long sims = 0;
        const int root_moves = nodes[size_t(root)].nmoves;
        if (root_moves > 1) {
            for (int i = nodes[size_t(root)].nchildren; i < root_moves; ++i) {
                if ((deadline >= 0 && now() >= deadline) || (max_sims >= 0 && sims >= max_sims)) break;
                if (full()) {
                    stopped_full = true;
                    break;
                }
                Pos q = root_pos;
                double value;
                int32_t ci = make_child(root, q, value);
                value = -value;
                nodes[size_t(root)].visits += 1;
                nodes[size_t(root)].wsum += value;
                ++sims;
                // a move that wins at once is played (with the points utility, the search
                // weighs it against wins by more)
                if (!utility.points && nodes[size_t(ci)].terminal && -value < 0.0) {
                    int move = nodes[size_t(ci)].move;
                    last_sims = int(sims);
                    last_stats.assign(1, Stat{move, 1});
                    last_root_value = value;
                    root = reuse ? ci : -1;
                    root_pos = q;
                    if (!reuse) reset();
                    return move;
                }
            }
            int32_t leader = -1;
            long leader_since = 0;
            while (!stopped_full) {
                if (max_sims >= 0 && sims >= max_sims) break;
                if (managed) {
                    if ((sims & 31) == 0) {
                        int32_t a, b;
                        leaders(a, b);
                        if (a != leader) {
                            leader = a;
                            leader_since = sims;
                        }
                    }
                    double t = now();
                    if (t >= deadline) {
                        if (t < hard_deadline && step > 0.0 && unsettled(sims, leader_since)) {
                            deadline = std::min(hard_deadline, t + step);
                            last_extended = true;
                        } else {
                            break;
                        }
                    }
                    if (early_stop && (sims & 31) == 0 && settled(t, deadline, t0, sims)) {
                        last_stopped_early = true;
                        break;
                    }
                } else if (deadline >= 0 && now() >= deadline) {
                    break;
                }
                if (!simulate()) {
                    stopped_full = true;
                    break;
                }
                ++sims;
            }
        }
        last_sims = int(sims);
        const Node *r = &nodes[size_t(root)];
        int bi = best_index();
        std::vector<int32_t> kids = children(root);
        last_root_value = root_value(kids);
        last_stats.clear();
        for (int i = 0; i < r->nmoves; ++i)
            last_stats.push_back(Stat{moves[r->edges + uint32_t(i)],
                                      i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0});
        std::stable_sort(last_stats.begin(), last_stats.end(),
                         [](const Stat &x, const Stat &y) { return x.visits > y.visits; });
        int move = moves[r->edges + uint32_t(bi)];
        if (reuse && bi < int(kids.size())) {
            root = kids[size_t(bi)];
            Pos q = root_pos;
            Info info;
            play(q, move, info);
            root_pos = q;
        } else {
            reset();
        }
        return move;
    }

    // The kept tree's favourite for p, -1 if none (players.BotPlayer._fallback).
    int favourite(const Pos &p) const {
        int32_t n = find(p);
        if (n < 0 || nodes[size_t(n)].terminal || nodes[size_t(n)].nmoves == 0) return -1;
        const Node &node = nodes[size_t(n)];
        std::vector<int32_t> kids = children(n);
        long total = 0;
        for (int32_t k : kids) total += nodes[size_t(k)].visits;
        if (total <= 0) return -1;
        int bi = 0, best_n = -1;
        double best_p = 0;
        for (int i = 0; i < node.nmoves; ++i) {
            int ni = i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0;
            double pi = priors[node.edges + uint32_t(i)];
            if (best_n < 0 || ni > best_n || (ni == best_n && pi > best_p)) {
                best_n = ni;
                best_p = pi;
                bi = i;
            }
        }
        return moves[node.edges + uint32_t(bi)];
    }
};

}  // namespace tw
