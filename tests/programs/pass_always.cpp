// A C++ CodeCup-protocol test player (for the rating's C++ releases): it reads the start cells and
// every request, and answers "Pass" to each, which the referee scores as a fault while a placement
// exists. Enough of the protocol to be started, asked, answered and stopped: `Quit` ends it.
//     tw_rl-9.9.cpp (a copy) [--time SECONDS]
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    bool time_given = argc == 3 && std::string(argv[1]) == "--time";
    if (argc != 1 && !time_given) {
        std::cerr << "pass_always: usage: pass_always [--time SECONDS]" << std::endl;
        return 2;
    }
    std::string line;
    int starts = 0;
    while (std::getline(std::cin, line)) {
        if (line == "Quit") return 0;
        if (starts < 2) {  // the two start cells come first; no answer to them
            ++starts;
            continue;
        }
        std::cout << "Pass" << std::endl;  // to "Start" or to the opponent's move
    }
    return 0;
}
