// The evaluator a weights file asks for, by the `arch` tag of its header.
//
// The one place that knows every network: a new architecture adds its part (after the
// evaluator interface, before this one in build.py's manifest) and one branch here.
#pragma once

#include "nnue_network.hpp"
#include "student_network.hpp"
#include "weights_file.hpp"

#include <memory>
#include <string>

namespace tw {

inline std::unique_ptr<Evaluator> make_network(const Weights &w) {
    const Json *arch = w.header.get("arch");
    if (arch && arch->kind == Json::STR && arch->str == NNUE_ARCH)
        return std::unique_ptr<Evaluator>(new NnueNetwork(w));
    // 'student-1' and anything else: the student refuses a tag it does not know with the
    // Python bot's message.
    return std::unique_ptr<Evaluator>(new Network(w));
}

}  // namespace tw
