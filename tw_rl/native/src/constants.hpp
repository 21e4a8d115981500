// Constants shared with the Python bot (tw_rl/codecup); `bot --defaults` prints them.
#pragma once

#include "prelude.hpp"

namespace tw {

// Each one is the Python bot's; tests/native/ reads the Python values and compares them with
// what `bot --defaults` prints.
constexpr double DEFAULT_BUDGET = 30.0;         // clock.DEFAULT_BUDGET
constexpr double DEFAULT_SAFETY = 0.9;          // clock.DEFAULT_SAFETY
constexpr double DEFAULT_PER_EMPTY = 0.7;       // clock.DEFAULT_PER_EMPTY
constexpr double DEFAULT_C_PUCT = 1.5;          // search.DEFAULT_C_PUCT
constexpr double DEFAULT_FPU_REDUCTION = 0.2;   // search.DEFAULT_FPU_REDUCTION
constexpr int FIXED_BITS = 20;                  // network.FIXED_BITS
constexpr int HIDDEN_BITS = 24;                 // network.HIDDEN_BITS
constexpr double TERRITORY_K = 12.0;            // evaluation.TerritoryEvaluator k
constexpr int FORMAT_VERSION = 1;               // weights.FORMAT_VERSION

}  // namespace tw
