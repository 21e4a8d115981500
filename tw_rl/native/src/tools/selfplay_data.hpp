// --selfplay GAMES --out DIR: games of the bot against itself written as training shards.
#pragma once

#include "bot.hpp"
#include "errors.hpp"
#include "tools/npz_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace tw {

// --selfplay GAMES --out DIR: games of the bot against itself (one tree, reused by both sides)
// from judge-drawn starts, written as training shards of tw_rl/training/replay_buffer.py's
// format 2 (one .npz per game).  Exploration: for the first --temperature-moves plies the move
// is drawn in proportion to the root's visits, after that it is the search's own answer.  Every
// position with more than one legal move is searched (--sims, 800 by default) and recorded with
// its visit distribution over the legal moves (summing to one) and the search's value of the
// position (MCTS::root_value, an extra array search_value); a forced move is not recorded.
// A shard is written under a temporary name and renamed, so a killed run loses only its game
// in flight; names are shard-g<generation>-w<worker>-<index>-n1.npz (--generation, --worker).
constexpr long SELFPLAY_DEFAULT_SIMS = 800;
constexpr int SHARD_FORMAT = 2;  // replay_buffer.SHARD_FORMAT

struct SelfPlayOptions {
    long games = 0;
    std::string out;
    long temperature_moves = 8;
    long generation = 0;
    long worker = -1;  // -1: the seed
};

// The judge's start (rules.judge_start): two cells off the border and the centre, not neighbours.
inline void judge_start(std::mt19937_64 &rng, int &red_cell, int &white_cell) {
    std::vector<int> allowed;
    for (int i = 0; i < NUM_CELLS; ++i)
        if (!BOARD.border[i] && i != BOARD.centre) allowed.push_back(i);
    red_cell = allowed[std::uniform_int_distribution<size_t>(0, allowed.size() - 1)(rng)];
    std::vector<int> apart;
    for (int i : allowed) {
        bool near = false;
        for (int d = 0; d < 6; ++d) near = near || BOARD.nbr[red_cell][d] == i;
        if (i != red_cell && !near) apart.push_back(i);
    }
    white_cell = apart[std::uniform_int_distribution<size_t>(0, apart.size() - 1)(rng)];
}

// One recorded position: the stacks, the side to move, the search's visit distribution and its
// value of the position for the side to move.
struct Sample {
    int8_t owner[NUM_CELLS], height[NUM_CELLS];
    int8_t to_move, passes;
    float policy[NUM_CELLS + 1];
    float search_value;
};

struct SelfPlayGame {
    std::vector<Sample> samples;
    Bits red_territory, white_territory;
    int winner = 0;  // RED, WHITE or 0
};

inline Sample sample_of(const Pos &p, const std::vector<Stat> &stats, double search_value) {
    Sample s;
    s.search_value = float(search_value);
    for (int i = 0; i < NUM_CELLS; ++i) {
        s.owner[i] = int8_t(BOARD.has(p.red, i) ? RED : BOARD.has(p.white, i) ? WHITE
                                                     : BOARD.has(p.neutral, i) ? NEUTRAL
                                                                               : EMPTY);
        s.height[i] = int8_t(count_at(p.h, i));
    }
    s.to_move = int8_t(p.to_move);
    s.passes = int8_t(p.passes);
    long total = 0;
    for (const Stat &st : stats) total += st.visits;
    for (float &v : s.policy) v = 0.0f;
    for (const Stat &st : stats) s.policy[st.move] = float(double(st.visits) / double(total));
    return s;
}

// A move drawn in proportion to the root's visits.
inline int sample_by_visits(const std::vector<Stat> &stats, std::mt19937_64 &rng) {
    long total = 0;
    for (const Stat &st : stats) total += st.visits;
    long pick = std::uniform_int_distribution<long>(0, total - 1)(rng);
    for (const Stat &st : stats) {
        if (pick < st.visits) return st.move;
        pick -= st.visits;
    }
    return stats.front().move;
}

inline SelfPlayGame play_selfplay_game(MCTS &mcts, long sims, long temperature_moves, std::mt19937_64 &rng) {
    SelfPlayGame game;
    int red_cell, white_cell;
    judge_start(rng, red_cell, white_cell);
    Pos p = start_position(red_cell, white_cell);
    Info info;
    analyse(p, info);
    mcts.reset();
    std::vector<int> legal;
    for (long ply = 0; !p.over; ++ply) {
        legal.clear();
        legal_moves(p, info, legal);
        int move = legal[0];
        if (legal.size() > 1) {
            int searched = mcts.search(p, -1.0, sims, monotonic);
            game.samples.push_back(sample_of(p, mcts.last_stats, mcts.last_root_value));
            move = ply < temperature_moves ? sample_by_visits(mcts.last_stats, rng) : searched;
        }
        play(p, move, info);
    }
    game.red_territory = info.tr;
    game.white_territory = info.tw;
    int r = count(info.tr), w = count(info.tw);
    game.winner = r > w ? RED : w > r ? WHITE : 0;
    return game;
}

// The shard of one game (replay_buffer's format 2): targets from each position's mover's side.
inline std::string shard_bytes(const SelfPlayGame &game) {
    const size_t b = game.samples.size(), n = NUM_CELLS;
    std::string owner, height, to_move, passes, policy, value, territory, score, search_value;
    int red_view[NUM_CELLS];
    long margin = 0;
    for (int i = 0; i < NUM_CELLS; ++i) {
        red_view[i] = (BOARD.has(game.red_territory, i) ? 1 : 0) - (BOARD.has(game.white_territory, i) ? 1 : 0);
        margin += red_view[i];
    }
    for (const Sample &s : game.samples) {
        int side = s.to_move == RED ? 1 : -1;
        owner.append(reinterpret_cast<const char *>(s.owner), n);
        height.append(reinterpret_cast<const char *>(s.height), n);
        to_move.push_back(char(s.to_move));
        passes.push_back(char(s.passes));
        for (float v : s.policy) put_le(policy, half_bits(v), 2);
        value.push_back(char(game.winner == 0 ? 0 : game.winner == s.to_move ? 1 : -1));
        for (int i = 0; i < NUM_CELLS; ++i) territory.push_back(char(side * red_view[i]));
        float margin_here = float(double(side * margin) / double(n));
        uint32_t bits;
        std::memcpy(&bits, &margin_here, sizeof bits);
        put_le(score, bits, 4);
        std::memcpy(&bits, &s.search_value, sizeof bits);
        put_le(search_value, bits, 4);
    }
    std::string version, size;
    put_le(version, SHARD_FORMAT, 8);
    put_le(size, SIZE, 8);
    ZipWriter zip;
    zip.add("format_version.npy", npy("<i8", {}, version));
    zip.add("board_size.npy", npy("<i8", {}, size));
    zip.add("owner.npy", npy("|i1", {b, n}, owner));
    zip.add("height.npy", npy("|i1", {b, n}, height));
    zip.add("to_move.npy", npy("|i1", {b}, to_move));
    zip.add("passes.npy", npy("|i1", {b}, passes));
    zip.add("policy.npy", npy("<f2", {b, n + 1}, policy));
    zip.add("value.npy", npy("|i1", {b}, value));
    zip.add("territory.npy", npy("|i1", {b, n}, territory));
    zip.add("score.npy", npy("<f4", {b}, score));
    zip.add("search_value.npy", npy("<f4", {b}, search_value));
    return zip.finish();
}

inline bool file_exists(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (f) std::fclose(f);
    return f != nullptr;
}

// Write bytes under a temporary name, then rename: the shard exists whole or not at all.
inline void write_renamed(const std::string &path, const std::string &temporary, const std::string &data) {
    std::FILE *f = std::fopen(temporary.c_str(), "wb");
    if (!f) throw Error{"cannot write " + temporary + ": " + std::strerror(errno)};
    bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw Error{"cannot write " + path + ": " + std::strerror(errno)};
    }
}

inline std::string shard_name(long generation, long worker, long index) {
    char name[96];
    std::snprintf(name, sizeof name, "shard-g%06ld-w%03ld-%04ld-n1.npz", generation, worker, index);
    return name;
}

// One JSON line a game (its shard, positions, CPU seconds) and one of totals at the end.
inline int selfplay_mode(Evaluator *e, const Options &o, const SelfPlayOptions &so) {
    std::error_code err;
    std::filesystem::create_directories(so.out, err);
    if (err) throw Error{"cannot create " + so.out + ": " + err.message()};
    long sims = o.sims > 0 ? o.sims : SELFPLAY_DEFAULT_SIMS;
    long worker = so.worker >= 0 ? so.worker : o.seed;
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    MCTS mcts(e, o.c_puct, o.fpu, node_cap, edge_cap);
    long index = 0, positions = 0;
    double started = process_time();
    for (long g = 0; g < so.games; ++g) {
        std::mt19937_64 rng(uint64_t(o.seed) * 0x9E3779B97F4A7C15ull + uint64_t(g));
        double t0 = process_time();
        SelfPlayGame game = play_selfplay_game(mcts, sims, so.temperature_moves, rng);
        std::string name = shard_name(so.generation, worker, index);
        while (file_exists(so.out + "/" + name)) name = shard_name(so.generation, worker, ++index);
        ++index;
        char tag[32];  // .<name>.<8 characters>.tmp: tw_rl.files' temporary names (remove_temporaries)
        std::snprintf(tag, sizeof tag, ".%08ld.tmp", worker % 100000000);
        write_renamed(so.out + "/" + name, so.out + "/." + name + tag, shard_bytes(game));
        positions += long(game.samples.size());
        std::printf("{\"game\": %ld, \"shard\": \"%s\", \"positions\": %zu, \"winner\": %d, \"seconds\": %.3f}\n",
                    g + 1, name.c_str(), game.samples.size(), game.winner, process_time() - t0);
        std::fflush(stdout);
    }
    double spent = process_time() - started;
    std::printf("{\"games\": %ld, \"positions\": %ld, \"sims\": %ld, \"seconds\": %.3f, \"games_per_s\": %.4f, "
                "\"positions_per_s\": %.2f}\n",
                so.games, positions, sims, spent, spent > 0 ? double(so.games) / spent : 0.0,
                spent > 0 ? double(positions) / spent : 0.0);
    return 0;
}

}  // namespace tw
