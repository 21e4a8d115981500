// .npy and .npz (a zip of stored entries) writers: what numpy.load reads (the self-play shards).
#pragma once

#include "prelude.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tw {

inline uint32_t crc32_of(const std::string &data) {
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t n = 0; n < 256; ++n) {
            uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
        ready = true;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char ch : data) c = table[(c ^ ch) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// IEEE half precision of a float, rounded to nearest even (numpy's float16).
inline uint16_t half_bits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    int biased = int((x >> 23) & 0xff);
    uint32_t mant = x & 0x7fffffu;
    if (biased == 0) return uint16_t(sign);
    if (biased == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
    int exp = biased - 127 + 15;
    if (exp >= 31) return uint16_t(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return uint16_t(sign);
        mant |= 0x800000u;
        int shift = 14 - exp;
        uint32_t h = mant >> shift, rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (h & 1))) ++h;
        return uint16_t(sign | h);
    }
    uint32_t h = (uint32_t(exp) << 10) | (mant >> 13), rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;  // a carry rounds into the exponent
    return uint16_t(sign | h);
}

inline void put_le(std::string &s, uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) s.push_back(char((v >> (8 * k)) & 0xff));
}

// A .npy file: the version 1.0 header (padded to 64 bytes) and the little-endian data.
inline std::string npy(const std::string &descr, const std::vector<size_t> &shape, const std::string &data) {
    std::string dims;  // Python's tuple: (), (B,) or (B, N)
    for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
    if (shape.size() == 1) dims += ",";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + header.size() + 1) % 64) header.push_back(' ');
    header.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back('\x01');
    out.push_back('\x00');
    put_le(out, header.size(), 2);
    return out + header + data;
}

struct ZipWriter {
    std::string bytes, directory;
    int entries = 0;
    void add(const std::string &name, const std::string &data) {
        uint32_t crc = crc32_of(data);
        size_t offset = bytes.size();
        auto common = [&](std::string &s) {
            put_le(s, 20, 2);       // version needed: 2.0
            put_le(s, 0, 2);        // flags
            put_le(s, 0, 2);        // method: stored
            put_le(s, 0, 2);        // time
            put_le(s, 0x21, 2);     // date: 1980-01-01
            put_le(s, crc, 4);
            put_le(s, data.size(), 4);
            put_le(s, data.size(), 4);
            put_le(s, name.size(), 2);
            put_le(s, 0, 2);        // extra field
        };
        put_le(bytes, 0x04034b50u, 4);
        common(bytes);
        bytes += name + data;
        put_le(directory, 0x02014b50u, 4);
        put_le(directory, 20, 2);  // made by
        common(directory);
        put_le(directory, 0, 2);   // comment
        put_le(directory, 0, 2);   // disk
        put_le(directory, 0, 2);   // internal attributes
        put_le(directory, 0, 4);   // external attributes
        put_le(directory, offset, 4);
        directory += name;
        ++entries;
    }
    std::string finish() const {
        std::string end;
        put_le(end, 0x06054b50u, 4);
        put_le(end, 0, 2);
        put_le(end, 0, 2);
        put_le(end, entries, 2);
        put_le(end, entries, 2);
        put_le(end, directory.size(), 4);
        put_le(end, bytes.size(), 4);
        put_le(end, 0, 2);
        return bytes + directory + end;
    }
};

}  // namespace tw
