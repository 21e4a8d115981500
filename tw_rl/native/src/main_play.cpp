// The playing `main`: the CodeCup submission's entry point (one game on stdin/stdout).
#include "command_line.hpp"
#include "territory_evaluator.hpp"

#include <cstdio>
#include <memory>
#include <string>

namespace {

const char *const PLAY_USAGE =
    "usage: bot [--time S] [--safety F] [--c-puct C] [--fpu F] [--per-empty F] [--weights FILE | --no-weights]\n"
    "           [--seed S] [--size 6] [--sims N] [--pool-mib M] [--defaults]\n"
    "           [--utility auto|win|points] [--points-mix F] [--margin-scale S] [--endgame N] [--endgame-share F]\n"
    "           [--endgame-nodes N] [--time-extend F] [--early-stop] [--eval-cache-mib M] [--book]\n"
    "Play one CodeCup Tumbleweed game on stdin/stdout (the native twin of python -m tw_rl.codecup).\n";

}  // namespace

int main(int argc, char **argv) {
    using namespace tw;
    ignore_sigpipe();
    Options o;
    bool defaults = false;
    Arguments args(argc, argv);
    std::string a;
    while (args.next(a)) {
        if (play_option(args, a, o)) continue;
        if (a == "--defaults")
            defaults = true;
        else if (a == "-h" || a == "--help") {
            std::fputs(PLAY_USAGE, stdout);
            return 0;
        } else
            args.unrecognized();
    }
    check_play_options(o);
    if (defaults) return print_defaults();
    std::unique_ptr<Evaluator> network;
    if (!load_network(o, network)) return 2;
    TerritoryEvaluator territory;
    return play_one_game(network ? network.get() : &territory, o);
}
