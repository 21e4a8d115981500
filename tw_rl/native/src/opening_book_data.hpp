// The opening book's entries (opening_book.hpp); written by scripts/make_opening_book.py,
// which says how.  Empty: no book yet.
#pragma once

#include <cstdint>

namespace tw {

struct BookEntry {
    uint8_t red, white, move;  // a class's representative start and red's move there
};

constexpr int OPENING_BOOK_SIZE = 0;
static const BookEntry OPENING_BOOK[] = {{255, 255, 255}};  // (a sentinel: ISO C++ has no empty array)

}  // namespace tw
