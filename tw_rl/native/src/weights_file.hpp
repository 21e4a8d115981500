// The weights file (weights.py, format 1): the container any network's tensors come in.
// It checks the magic, lengths and checksum and reads the tensors; an evaluator reads the
// header's `arch` tag and takes the tensors it needs.
#pragma once

#include "board.hpp"
#include "json.hpp"
#include "sha256_base64.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace tw {

static const char MAGIC[8] = {'T', 'W', 'N', 'E', 'T', '\r', '\n', '\x1a'};

struct Tensor {
    std::vector<int> shape;
    std::vector<double> values;  // row-major
};

struct Weights {
    int board_size = 0;
    Json header;
    std::map<std::string, Tensor> tensors;
    const Tensor &tensor(const std::string &name) const {
        auto it = tensors.find(name);
        if (it == tensors.end()) throw Error{"the weights file has no tensor '" + name + "'"};
        return it->second;
    }
};

inline uint32_t le32(const unsigned char *p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline double f32_at(const unsigned char *p) {
    uint32_t u = le32(p);
    float f;
    std::memcpy(&f, &u, 4);
    return double(f);
}
inline double f16_at(const unsigned char *p) {
    unsigned u = unsigned(p[0]) | unsigned(p[1]) << 8;
    int sign = (u >> 15) & 1, e = (u >> 10) & 31, m = u & 1023;
    double v;
    if (e == 0)
        v = std::ldexp(double(m), -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = std::ldexp(double(m + 1024), e - 25);
    return sign ? -v : v;
}

// A z16 tensor's values (weights.py): zigzag-coded int16 in groups of 7 bits, low group first,
// the top bit set on every byte of a value but its last.  False unless [begin, end) holds
// exactly `count` of them.
inline bool zigzag_values(const unsigned char *begin, const unsigned char *end, size_t count, std::vector<int> &out) {
    out.clear();
    out.reserve(count);
    uint32_t x = 0;
    int shift = 0;
    for (const unsigned char *p = begin; p != end; ++p) {
        x |= uint32_t(*p & 127) << shift;
        if (*p & 128) {
            shift += 7;
            if (shift > 14) return false;
            continue;
        }
        int value = (x & 1) ? -int(x >> 1) - 1 : int(x >> 1);
        if (value > 32767 || value < -32767) return false;
        out.push_back(value);
        x = 0;
        shift = 0;
    }
    return shift == 0 && out.size() == count;
}

inline Weights parse_weights(const std::vector<unsigned char> &data, const std::string &name) {
    const size_t prefix = 20, digest_size = 32;
    if (data.size() < prefix + digest_size)
        throw Error{name + ": too short to be a tw_rl weights file (" + std::to_string(data.size()) + " bytes)"};
    if (std::memcmp(data.data(), MAGIC, 8) != 0) throw Error{name + ": not a tw_rl weights file (bad magic)"};
    int version = data[8] | data[9] << 8;
    int size = data[10] | data[11] << 8;
    uint64_t header_len = le32(&data[12]), data_len = le32(&data[16]);
    if (version != FORMAT_VERSION)
        throw Error{name + ": weights format version " + std::to_string(version) + ", this bot reads version " +
                    std::to_string(FORMAT_VERSION) + " only"};
    uint64_t end = prefix + header_len + data_len;
    if (data.size() != end + digest_size)
        throw Error{name + ": " + std::to_string(data.size()) + " bytes where its lengths say " +
                    std::to_string(end + digest_size) + " (truncated or padded)"};
    Sha256 sha;
    if (sha.digest(data.data(), size_t(end)) != std::string(data.begin() + long(end), data.end()))
        throw Error{name + ": checksum mismatch (the file is damaged)"};
    Weights w;
    w.board_size = size;
    std::string text(data.begin() + prefix, data.begin() + long(prefix + header_len));
    try {
        JsonReader reader(text);
        w.header = reader.value();
    } catch (const Error &) {
        throw Error{name + ": unreadable header (not valid JSON)"};
    }
    const Json *specs = w.header.kind == Json::OBJ ? w.header.get("tensors") : nullptr;
    if (specs == nullptr || specs->kind != Json::ARR) throw Error{name + ": unreadable header (no tensor list)"};
    struct Spec {
        std::string name, dtype;
        std::vector<int> shape;
        uint64_t bytes = 0;  // in the data section
    };
    std::vector<Spec> list;
    uint64_t need = 0;
    for (const Json &t : specs->items) {
        const Json *tn = t.get("name"), *ts = t.get("shape"), *td = t.get("dtype");
        if (!tn || !ts || !td || tn->kind != Json::STR || ts->kind != Json::ARR || td->kind != Json::STR)
            throw Error{name + ": unreadable header (a tensor lacks name, shape or dtype)"};
        Spec sp{tn->str, td->str, {}};
        for (const Json &d : ts->items) sp.shape.push_back(d.kind == Json::NUM ? int(d.num) : 0);
        bool ok_dtype = sp.dtype == "f32" || sp.dtype == "f16" || sp.dtype == "i8" || sp.dtype == "z16";
        int low = sp.shape.empty() ? 0 : *std::min_element(sp.shape.begin(), sp.shape.end());
        if (!ok_dtype || sp.shape.empty() || sp.shape.size() > 2 || low < 1)
            throw Error{name + ": tensor '" + sp.name + "' has an unsupported dtype or shape"};
        uint64_t n = 1;
        for (int d : sp.shape) n *= uint64_t(d);
        const uint64_t scales = 4 * uint64_t(sp.shape[0]);
        if (sp.dtype == "z16") {  // its length is stated, between one and three bytes a value
            const Json *tb = t.get("bytes");
            double stated = tb && tb->kind == Json::NUM ? tb->num : -1.0;
            if (!(stated >= double(scales + n) && stated <= double(scales + 3 * n)))
                throw Error{name + ": tensor '" + sp.name + "' states an impossible length"};
            sp.bytes = uint64_t(stated);
        } else {
            sp.bytes = sp.dtype == "f32" ? 4 * n : sp.dtype == "f16" ? 2 * n : scales + n;
        }
        need += sp.bytes;
        list.push_back(sp);
    }
    if (need != data_len)
        throw Error{name + ": the header describes " + std::to_string(need) + " data bytes, the file holds " +
                    std::to_string(data_len)};
    if (size != SIZE)
        throw Error{name + ": the network was made for the size-" + std::to_string(size) +
                    " board, not size " + std::to_string(SIZE)};
    size_t off = prefix + header_len;
    for (const Spec &sp : list) {
        Tensor t;
        t.shape = sp.shape;
        size_t n = 1;
        for (int d : sp.shape) n *= size_t(d);
        t.values.resize(n);
        if (sp.dtype == "f32") {
            for (size_t k = 0; k < n; ++k) t.values[k] = f32_at(&data[off + 4 * k]);
            off += 4 * n;
        } else if (sp.dtype == "f16") {
            for (size_t k = 0; k < n; ++k) t.values[k] = f16_at(&data[off + 2 * k]);
            off += 2 * n;
        } else if (sp.dtype == "i8") {
            size_t rows = size_t(sp.shape[0]), cols = n / rows;
            for (size_t r = 0; r < rows; ++r) {
                double scale = f32_at(&data[off + 4 * r]);
                for (size_t c = 0; c < cols; ++c) {
                    int q = int(int8_t(data[off + 4 * rows + r * cols + c]));
                    t.values[r * cols + c] = double(q) * scale;
                }
            }
            off += 4 * rows + n;
        } else {
            std::vector<int> q;
            size_t rows = size_t(sp.shape[0]), cols = n / rows;
            if (!zigzag_values(&data[off + 4 * rows], &data[off + sp.bytes], n, q))
                throw Error{name + ": tensor '" + sp.name + "' is not " + std::to_string(n) + " int16 values in " +
                            std::to_string(sp.bytes) + " bytes"};
            for (size_t r = 0; r < rows; ++r) {
                double scale = f32_at(&data[off + 4 * r]);
                for (size_t c = 0; c < cols; ++c) t.values[r * cols + c] = double(q[r * cols + c]) * scale;
            }
            off += sp.bytes;
        }
        w.tensors[sp.name] = t;
    }
    return w;
}

inline std::vector<unsigned char> read_file(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error{"weights file not found: " + path};
    std::vector<unsigned char> data;
    unsigned char buf[65536];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + got);
    bool bad = std::ferror(f) != 0;
    std::fclose(f);
    if (bad) throw Error{"cannot read weights file " + path};
    return data;
}

}  // namespace tw
