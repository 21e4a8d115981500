// Positions as text lines "R W m1 m2 ...": the start cells and the moves (the tools' input).
#pragma once

#include "errors.hpp"
#include "position.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace tw {

inline std::vector<long> numbers(const std::string &line, size_t from) {
    std::vector<long> out;
    const char *s = line.c_str() + from;
    char *end;
    while (true) {
        while (*s == ' ') ++s;
        if (!*s) break;
        long v = std::strtol(s, &end, 10);
        if (end == s) throw Error{"bad number in: " + line.substr(0, 60)};
        out.push_back(v);
        s = end;
    }
    return out;
}

inline Pos replay(const std::vector<long> &v, size_t from, Info &info) {
    if (v.size() < from + 2) throw Error{"a position needs two start cells"};
    Pos p = start_position(int(v[from]), int(v[from + 1]));
    analyse(p, info);
    for (size_t k = from + 2; k < v.size(); ++k) play(p, int(v[k]), info);
    return p;
}

}  // namespace tw
