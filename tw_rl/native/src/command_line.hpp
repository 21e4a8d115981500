// The command line shared by the playing bot and the tools binary (__main__.py): the playing
// options, their checks, --defaults, the evaluator to load, and one game.
//
// Errors are one line on stderr after "tw_rl.native: ", exit code 2 (argparse's habit).
#pragma once

#include "bot.hpp"
#include "constants.hpp"
#include "embedded_weights.hpp"
#include "errors.hpp"
#include "evaluator_factory.hpp"
#include "protocol.hpp"
#include "sha256_base64.hpp"
#include "weights_file.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

namespace tw {

[[noreturn]] inline void usage_error(const std::string &message) {
    std::fprintf(stderr, "tw_rl.native: %s\n", message.c_str());
    std::exit(2);
}

inline double number_option(const std::string &name, const char *text) {
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || std::isnan(v))
        usage_error("argument " + name + ": invalid float value: '" + text + "'");
    return v;
}

inline long int_option(const std::string &name, const char *text) {
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0') usage_error("argument " + name + ": invalid int value: '" + text + "'");
    return v;
}

// The arguments one by one: "--name value" or "--name=value".
class Arguments {
  public:
    Arguments(int argc, char **argv) : argc_(argc), argv_(argv) {}

    // The next option's name in `name`; false after the last one.
    bool next(std::string &name) {
        if (++i_ >= argc_) return false;
        name = argv_[i_];
        eq_ = name.find('=');
        inline_value_ = name.rfind("--", 0) == 0 && eq_ != std::string::npos;
        if (inline_value_) name = name.substr(0, eq_);
        name_ = name;
        return true;
    }
    // The option's value: after its '=', else the next argument.
    const char *value() {
        if (inline_value_) return argv_[i_] + (eq_ + 1);
        if (i_ + 1 >= argc_) usage_error("argument " + name_ + ": expected one argument");
        return argv_[++i_];
    }
    [[noreturn]] void unrecognized() const { usage_error("unrecognized arguments: " + std::string(argv_[i_])); }

  private:
    int argc_;
    char **argv_;
    int i_ = 0;
    size_t eq_ = std::string::npos;
    bool inline_value_ = false;
    std::string name_;
};

// One of the playing options (the bot's, the clock's, the search's): read into `o`; false when
// `name` is none of them.
inline bool play_option(Arguments &args, const std::string &name, Options &o) {
    if (name == "--time")
        o.time = number_option(name, args.value());
    else if (name == "--safety")
        o.safety = number_option(name, args.value());
    else if (name == "--c-puct")
        o.c_puct = number_option(name, args.value());
    else if (name == "--fpu")
        o.fpu = number_option(name, args.value());
    else if (name == "--per-empty")
        o.per_empty = number_option(name, args.value());
    else if (name == "--weights")
        o.weights = args.value();
    else if (name == "--no-weights")
        o.no_weights = true;
    else if (name == "--seed")
        o.seed = int_option(name, args.value());
    else if (name == "--size") {
        long s = int_option(name, args.value());
        if (s != SIZE) usage_error("argument --size: this build plays the size-6 board only");
    } else if (name == "--sims")
        o.sims = int_option(name, args.value());
    else if (name == "--pool-mib")
        o.pool_mib = number_option(name, args.value());
    else if (name == "--utility") {
        std::string u = args.value();
        if (u != "auto" && u != "win" && u != "points")
            usage_error("argument --utility: invalid choice: '" + u + "' (choose from 'auto', 'win', 'points')");
        o.utility = u;
    } else if (name == "--points-mix")
        o.points_mix = number_option(name, args.value());
    else if (name == "--margin-scale")
        o.margin_scale = number_option(name, args.value());
    else if (name == "--endgame")
        o.endgame_cells = int(int_option(name, args.value()));
    else if (name == "--endgame-share")
        o.endgame_share = number_option(name, args.value());
    else if (name == "--endgame-nodes")
        o.endgame_nodes = int_option(name, args.value());
    else if (name == "--time-extend")
        o.time_extend = number_option(name, args.value());
    else if (name == "--early-stop")
        o.early_stop = true;
    else if (name == "--book")
        o.book = true;
    else if (name == "--eval-cache-mib")
        o.eval_cache_mib = number_option(name, args.value());
    else
        return false;
    return true;
}

inline void check_play_options(const Options &o) {
    if (!o.weights.empty() && o.no_weights) usage_error("argument --no-weights: not allowed with argument --weights");
    if (!(o.time > 0)) usage_error("--time must be positive, got " + std::to_string(o.time));
    if (!(o.safety > 0 && o.safety <= 1)) usage_error("--safety must be in (0, 1], got " + std::to_string(o.safety));
    if (!(o.c_puct > 0) || !(o.per_empty > 0)) usage_error("--c-puct and --per-empty must be positive");
    if (!(o.pool_mib >= 1 && o.pool_mib <= 4096)) usage_error("--pool-mib must be in [1, 4096]");
    if (o.sims == 0 || o.sims < -1) usage_error("--sims must be at least 1");
    if (!(o.points_mix >= 0 && o.points_mix <= 1)) usage_error("--points-mix must be in [0, 1]");
    if (!(o.margin_scale > 0)) usage_error("--margin-scale must be positive");
    if (o.endgame_cells < 0 || o.endgame_cells > NUM_CELLS) usage_error("--endgame must be in [0, 91]");
    if (!(o.endgame_share > 0 && o.endgame_share <= 1)) usage_error("--endgame-share must be in (0, 1]");
    if (o.endgame_nodes < 1) usage_error("--endgame-nodes must be at least 1");
    if (!(o.time_extend >= 1 && o.time_extend <= 10)) usage_error("--time-extend must be in [1, 10]");
    if (!(o.eval_cache_mib >= 0 && o.eval_cache_mib <= 1024)) usage_error("--eval-cache-mib must be in [0, 1024]");
}

// --defaults: the constants shared with Python (tests/native/ compares them) and whether a
// network is embedded.
inline int print_defaults() {
    std::printf("budget %.17g\nsafety %.17g\nper_empty %.17g\nc_puct %.17g\nfpu_reduction %.17g\n"
                "fixed_bits %d\nhidden_bits %d\nformat_version %d\nboard_size %d\nembedded_weights %d\n",
                DEFAULT_BUDGET, DEFAULT_SAFETY, DEFAULT_PER_EMPTY, DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION,
                FIXED_BITS, HIDDEN_BITS, FORMAT_VERSION, SIZE, EMBEDDED_WEIGHTS[0] != nullptr ? 1 : 0);
    return 0;
}

// The network to play with: --weights FILE, else the embedded one unless --no-weights; none
// (the territory evaluator) when there is neither.  A bad file: false, its one line written.
inline bool load_network(const Options &o, std::unique_ptr<Evaluator> &network) {
    try {
        if (!o.weights.empty()) {
            network = make_network(parse_weights(read_file(o.weights), "weights file " + o.weights));
        } else if (!o.no_weights && EMBEDDED_WEIGHTS[0] != nullptr) {
            std::string text;
            for (int k = 0; EMBEDDED_WEIGHTS[k] != nullptr; ++k) text += EMBEDDED_WEIGHTS[k];
            network = make_network(
                parse_weights(base64_decode(text), std::string("embedded weights ") + EMBEDDED_WEIGHTS_NAME));
        }
    } catch (const Error &e) {
        std::fprintf(stderr, "tw_rl.native: %s\n", e.message.c_str());
        return false;
    }
    return true;
}

// A closed pipe is an error to report, not a death.
inline void ignore_sigpipe() {
#ifdef SIGPIPE
    std::signal(SIGPIPE, SIG_IGN);
#endif
}

// One CodeCup game on stdin/stdout with evaluator `e`; the exit code.
inline int play_one_game(Evaluator *e, const Options &o) {
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    Bot bot(e, o, node_cap, edge_cap);
    try {
        // the CPU time so far (start-up, the weights) counts against the game clock
        return run_game(bot, o.time, process_time());
    } catch (const std::exception &ex) {
        std::fprintf(stderr, "tw_rl.native: internal error (%s); exiting\n", ex.what());
        return 1;
    }
}

}  // namespace tw
