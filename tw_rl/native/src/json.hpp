// A small JSON reader: the weights file's header.
#pragma once

#include "errors.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace tw {

struct Json {
    enum Kind { NUL, BOOL, NUM, STR, ARR, OBJ } kind = NUL;
    double num = 0;
    bool flag = false;
    std::string str;
    std::vector<Json> items;
    std::map<std::string, Json> fields;
    const Json *get(const std::string &k) const {
        auto it = fields.find(k);
        return it == fields.end() ? nullptr : &it->second;
    }
};

struct JsonReader {
    const std::string &s;
    size_t i = 0;
    explicit JsonReader(const std::string &text) : s(text) {}
    [[noreturn]] void fail() { throw Error{"not valid JSON"}; }
    void ws() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
    }
    Json value(int depth = 0) {
        if (depth > 64) fail();
        ws();
        if (i >= s.size()) fail();
        Json j;
        char ch = s[i];
        if (ch == '{') {
            j.kind = Json::OBJ;
            ++i;
            ws();
            if (i < s.size() && s[i] == '}') {
                ++i;
                return j;
            }
            while (true) {
                ws();
                if (i >= s.size() || s[i] != '"') fail();
                std::string key = string();
                ws();
                if (i >= s.size() || s[i] != ':') fail();
                ++i;
                j.fields[key] = value(depth + 1);
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < s.size() && s[i] == '}') {
                    ++i;
                    return j;
                }
                fail();
            }
        }
        if (ch == '[') {
            j.kind = Json::ARR;
            ++i;
            ws();
            if (i < s.size() && s[i] == ']') {
                ++i;
                return j;
            }
            while (true) {
                j.items.push_back(value(depth + 1));
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < s.size() && s[i] == ']') {
                    ++i;
                    return j;
                }
                fail();
            }
        }
        if (ch == '"') {
            j.kind = Json::STR;
            j.str = string();
            return j;
        }
        if (s.compare(i, 4, "true") == 0) {
            i += 4;
            j.kind = Json::BOOL;
            j.flag = true;
            return j;
        }
        if (s.compare(i, 5, "false") == 0) {
            i += 5;
            j.kind = Json::BOOL;
            return j;
        }
        if (s.compare(i, 4, "null") == 0) {
            i += 4;
            return j;
        }
        size_t start = i;
        while (i < s.size() && (std::strchr("+-0123456789.eE", s[i]) != nullptr)) ++i;
        if (start == i) fail();
        j.kind = Json::NUM;
        j.num = std::strtod(s.substr(start, i - start).c_str(), nullptr);
        return j;
    }
    std::string string() {
        std::string out;
        ++i;  // the opening quote
        while (i < s.size() && s[i] != '"') {
            if (s[i] == '\\') {
                ++i;
                if (i >= s.size()) fail();
                char e = s[i];
                if (e == 'u') {
                    if (i + 4 >= s.size()) fail();
                    unsigned code = unsigned(std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16));
                    out.push_back(code < 128 ? char(code) : '?');  // names in our headers are ASCII
                    i += 4;
                } else {
                    out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                                  : e == 'f'                          ? '\f'
                                                                      : e);
                }
                ++i;
            } else {
                out.push_back(s[i++]);
            }
        }
        if (i >= s.size()) fail();
        ++i;
        return out;
    }
};

}  // namespace tw
