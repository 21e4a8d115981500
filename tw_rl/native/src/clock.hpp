// The clock (clock.py): the game's time budget and each move's share of it.
#pragma once

#include "position.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace tw {

inline double monotonic() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline double process_time() { return double(std::clock()) / CLOCKS_PER_SEC; }

struct GameClock {  // clock.GameClock
    double budget, used;
    double started = -1;
    GameClock(double b, double startup) : budget(b), used(startup) {}
    void start(double t) { started = t; }
    void stop() {
        if (started < 0) return;
        used += std::max(0.0, monotonic() - started);
        started = -1;
    }
    double seconds_left() const {
        double running = started < 0 ? 0.0 : std::max(0.0, monotonic() - started);
        return budget - used - running;
    }
};

struct TimeControl {  // clock.TimeControl
    double budget, safety, reserve, floor_s = 0.01, ceiling, share = 1.0, per_empty;
    TimeControl(double b, double s, double pe)
        : budget(b), safety(s), reserve(b * (1.0 - s)), ceiling(b * s / 8.0), per_empty(pe) {}
    double expected_own_moves(const Pos &p) const {
        int empty = NUM_CELLS - count(p.red | p.white | p.neutral);
        return std::max(6.0, per_empty * (empty - 0.35 * NUM_CELLS));
    }
    double allotment(double seconds_left, const Pos &p) const {
        double usable = seconds_left - reserve;
        if (usable <= 0.0) return 0.0;
        double allot = usable * share / expected_own_moves(p);
        allot = std::min(std::max(allot, floor_s), ceiling);
        return std::min(allot, usable);
    }
    // The most a move may take when its choice is unsettled (--time-extend F): up to F times
    // its allotment, never over a quarter of what is left above the reserve, never under the
    // allotment itself.
    double extended(double allot, double seconds_left, double factor) const {
        double usable = seconds_left - reserve;
        return std::max(allot, std::min(allot * factor, 0.25 * usable));
    }
};

}  // namespace tw
