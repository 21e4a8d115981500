// The one error type: a message the command line prints in one line.
#pragma once

#include "prelude.hpp"

#include <string>

namespace tw {

struct Error {
    std::string message;
};

}  // namespace tw
