// Tumbleweed CodeCup bot, the native twin of tw_rl/codecup (C++17, standard library only).
//
// The source is in parts (tw_rl/native/src, one concept each); `tw-rl export --target cpp`
// assembles them in the order of tw_rl/native/build.py's manifest into the one file the CodeCup
// takes, with the student's .twnet file embedded as base64 text.  The parts, in order: the
// board and its rules (rules.py, the territory simulation included), the weights file
// (weights.py: sha256, base64, a small JSON reader), the evaluator interface and its two
// evaluators (network.py's student with the same fixed-point mixing, evaluation.py's
// territory evaluator), the PUCT search with tree reuse (search.py) over a capped node pool,
// the clock (clock.py), the bot (players.BotPlayer), the CodeCup protocol with its fallbacks
// (protocol.py), the command line (__main__.py) and the playing `main`.  The test, bench and
// self-play data modes are tools (tw_rl/native/src/tools) that the submission does not carry.
//
// Every floating-point expression is written in the order of the Python code, so that the two
// bots compute the same doubles and the search takes the same decisions (see the tests in
// tests/native/).  Build the assembled file: g++ -std=c++17 -O2 -Wall -Wextra submission.cpp -o bot
#pragma once

// The doubles must be the Python bot's: no a * b + c fused into one rounding (an FMA), which
// g++ would otherwise do in C++ with -march=native on a machine that has FMA.  This part comes
// first (every part includes it), so the pragma covers all the code after it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
