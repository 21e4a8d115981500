// The CodeCup protocol (protocol.py): one game on stdin/stdout, its bad inputs answered as
// the Python bot answers them.
#pragma once

#include "bot.hpp"

#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace tw {

struct ProtocolError {
    std::string message;
};
struct Quit {};
struct Eof {};
struct OutputClosed {};

inline std::string strip(const std::string &s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace((unsigned char)s[a])) ++a;
    while (b > a && std::isspace((unsigned char)s[b - 1])) --b;
    return s.substr(a, b - a);
}

// Python's repr() of a str, for the messages the Python bot writes (ASCII escapes).
inline std::string py_repr(const std::string &s) {
    bool has_single = s.find('\'') != std::string::npos, has_double = s.find('"') != std::string::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char ch : s) {
        if (ch == '\\')
            out += "\\\\";
        else if (ch == (unsigned char)q)
            out += std::string("\\") + char(q);
        else if (ch == '\t')
            out += "\\t";
        else if (ch == '\n')
            out += "\\n";
        else if (ch == '\r')
            out += "\\r";
        else if (ch < 0x20 || ch == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", ch);
            out += buf;
        } else
            out += char(ch);
    }
    return out + q;
}

// The first 40 characters of a UTF-8 string (Python's text[:40]).
inline std::string head40(const std::string &s) {
    size_t chars = 0, i = 0;
    while (i < s.size() && chars < 40) {
        ++i;
        while (i < s.size() && ((unsigned char)s[i] & 0xC0) == 0x80) ++i;
        ++chars;
    }
    return s.substr(0, i);
}

inline bool read_line(std::string &line) {
    line.clear();
    int ch;
    bool got = false;
    while ((ch = std::getchar()) != EOF) {
        got = true;
        if (ch == '\n') return true;
        line.push_back(char(ch));
    }
    return got;
}

// (line, time read): blank lines skipped; Quit and EOF thrown (protocol._read).
inline std::string read_request(double &t) {
    std::string raw;
    while (true) {
        if (!read_line(raw)) throw Eof{};
        std::string line = strip(raw);
        if (!line.empty()) {
            t = monotonic();
            if (line == "Quit") throw Quit{};
            return line;
        }
    }
}

inline void say(const std::string &text) {
    std::fputs((text + "\n").c_str(), stderr);
    std::fflush(stderr);
}

inline int parse_move(const std::string &text) {
    if (text == "Pass") return PASS;
    int c = BOARD.parse(strip(text));
    if (c < 0) throw ProtocolError{"not a move: " + py_repr(head40(text))};
    return c;
}

inline std::string move_name(int move) { return move == PASS ? "Pass" : BOARD.name(move); }

inline void apply_opponent(Pos &p, const std::string &text) {
    int move = parse_move(text);
    if (p.over) p.over = false;  // our engine ended the game but the judge goes on
    Info info;
    analyse(p, info);
    std::vector<int> legal;
    legal_moves(p, info, legal);
    if (std::find(legal.begin(), legal.end(), move) == legal.end())
        throw ProtocolError{"illegal move from the opponent: " + py_repr(head40(text))};
    play(p, move, info);
}

inline void answer(Bot &bot, Pos &p, GameClock &clock) {
    if (p.over) p.over = false;
    int move = bot.choose(p, clock.seconds_left());
    std::string text = move_name(move) + "\n";
    if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) throw OutputClosed{};
    clock.stop();
    Info info;
    play(p, move, info);
}

inline int converse(Bot &bot, Pos &p, int colour, double budget, double first_request, double startup) {
    GameClock clock(budget, startup);
    try {
        if (p.to_move == colour && !p.over) {
            clock.start(first_request);
            answer(bot, p, clock);
        }
        while (true) {
            double t;
            std::string line = read_request(t);
            clock.start(t);
            apply_opponent(p, line);
            bot.observe(p);
            answer(bot, p, clock);
        }
    } catch (const Quit &) {
        return 0;
    } catch (const Eof &) {
        say("end of input before Quit; exiting");
        return 0;
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    } catch (const OutputClosed &) {
        say("output closed (BrokenPipeError); exiting");
        return 1;
    }
}

inline int run_game(Bot &bot, double budget, double startup) {
    Pos p;
    double t = 0;
    std::string third;
    try {
        double t0;
        int red_cell = parse_move(read_request(t0));
        int white_cell = parse_move(read_request(t0));
        if (red_cell == PASS || white_cell == PASS) throw ProtocolError{"a start cell cannot be Pass"};
        if (red_cell == white_cell)
            throw ProtocolError{"bad start position: red and white start cells must differ"};
        if (red_cell == BOARD.centre || white_cell == BOARD.centre)
            throw ProtocolError{"bad start position: a start cell may not be the centre"};
        p = start_position(red_cell, white_cell);
        third = read_request(t);
    } catch (const Quit &) {
        return 0;
    } catch (const Eof &) {
        say("end of input before the game started; exiting");
        return 0;
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    }
    if (third == "Start") return converse(bot, p, RED, budget, t, startup);
    try {
        apply_opponent(p, third);
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    }
    bot.observe(p);
    return converse(bot, p, WHITE, budget, t, startup);
}

}  // namespace tw
