// The tools binary's `main`: the playing bot plus the --test, --bench and --selfplay modes
// (tests, scripts/bench_bot.py, tw_rl/expert); never part of the submission.
#include "command_line.hpp"
#include "territory_evaluator.hpp"
#include "tools/bench_mode.hpp"
#include "tools/selfplay_data.hpp"
#include "tools/test_mode.hpp"

#include <cstdio>
#include <memory>
#include <string>

namespace {

const char *const TOOLS_USAGE =
    "usage: bot [--time S] [--safety F] [--c-puct C] [--fpu F] [--per-empty F] [--weights FILE | --no-weights]\n"
    "           [--seed S] [--size 6] [--sims N] [--pool-mib M] [--test | --bench N | --defaults]\n"
    "           [--utility auto|win|points] [--points-mix F] [--margin-scale S] [--endgame N] [--endgame-share F]\n"
    "           [--endgame-nodes N] [--time-extend F] [--early-stop] [--eval-cache-mib M] [--book]\n"
    "       bot --selfplay GAMES --out DIR [--sims N] [--seed S] [--temperature-moves K] [--generation G]\n"
    "           [--worker W] [--weights FILE]   (training shards of self-play games)\n"
    "Play one CodeCup Tumbleweed game on stdin/stdout (the native twin of python -m tw_rl.codecup).\n";

}  // namespace

int main(int argc, char **argv) {
    using namespace tw;
    ignore_sigpipe();
    Options o;
    bool test = false, defaults = false;
    long bench = -1;
    SelfPlayOptions selfplay;
    bool selfplay_given = false;
    std::string selfplay_only;  // the last self-play option given (an error without --selfplay)
    Arguments args(argc, argv);
    std::string a;
    while (args.next(a)) {
        if (play_option(args, a, o)) continue;
        if (a == "--test")
            test = true;
        else if (a == "--bench")
            bench = int_option(a, args.value());
        else if (a == "--defaults")
            defaults = true;
        else if (a == "--selfplay") {
            selfplay.games = int_option(a, args.value());
            selfplay_given = true;
        } else if (a == "--out") {
            selfplay.out = args.value();
            selfplay_only = a;
        } else if (a == "--temperature-moves") {
            selfplay.temperature_moves = int_option(a, args.value());
            selfplay_only = a;
        } else if (a == "--generation") {
            selfplay.generation = int_option(a, args.value());
            selfplay_only = a;
        } else if (a == "--worker") {
            selfplay.worker = int_option(a, args.value());
            selfplay_only = a;
        } else if (a == "-h" || a == "--help") {
            std::fputs(TOOLS_USAGE, stdout);
            return 0;
        } else
            args.unrecognized();
    }
    check_play_options(o);
    if (selfplay_given) {
        if (selfplay.games < 1) usage_error("--selfplay needs at least 1 game");
        if (selfplay.out.empty()) usage_error("--selfplay needs --out DIR");
        if (selfplay.temperature_moves < 0) usage_error("--temperature-moves must be >= 0");
        if (selfplay.generation < 0 || selfplay.worker < -1) usage_error("--generation and --worker must be >= 0");
        if (o.seed < 0) usage_error("--seed must be >= 0 with --selfplay");
    } else if (!selfplay_only.empty()) {
        usage_error("argument " + selfplay_only + ": not allowed without --selfplay");
    }
    if (defaults) return print_defaults();
    std::unique_ptr<Evaluator> network;
    if (!load_network(o, network)) return 2;
    if (test) return test_mode(network.get(), o);
    TerritoryEvaluator territory;
    Evaluator *e = network ? network.get() : &territory;
    if (bench >= 0) {
        if (bench < 1) usage_error("--bench needs at least 1 simulation");
        return bench_mode(e, o, bench);
    }
    if (selfplay_given) {
        try {
            return selfplay_mode(e, o, selfplay);
        } catch (const Error &ex) {
            std::fprintf(stderr, "tw_rl.native: %s\n", ex.message.c_str());
            return 1;
        }
    }
    return play_one_game(e, o);
}
