#include "sluice/mariadb/protocol/bulk.hpp"

#include <bit>
#include <cstring>

namespace sluice::mariadb::protocol {

namespace {
std::uint8_t type_flag(const ParamValue& v) noexcept { return v.kind == ParamValue::Kind::uint64 ? 0x80 : 0x00; }
bool sends_value(const BulkParam& p) noexcept {
    return p.indicator == Indicator::none && p.value.kind != ParamValue::Kind::null;
}

// The fast path of append(): rows whose values are all numbers, text,
// blobs or decimals (or indicators) are sized first, the buffer grows once,
// and the bytes are stored through a pointer. Byte for byte what the
// Writer path writes (write_param_value); other kinds (temporal values)
// take that path. Per-byte push_back was most of the client's CPU in a
// 5,000-row bulk insert (callgrind: ~900 instructions per 3-value row).
constexpr std::size_t not_fast = static_cast<std::size_t>(-1);

std::size_t fast_size(const ParamValue& v) noexcept {
    using K = ParamValue::Kind;
    switch (v.kind) {
        case K::int64:
        case K::uint64:
        case K::float64: return 8;
        case K::float32: return 4;
        case K::text:
        case K::blob:
        case K::decimal: return lenenc_size(v.bytes.size()) + v.bytes.size();
        default: return not_fast;
    }
}

template <std::size_t N, class T>
std::uint8_t* store_le(std::uint8_t* p, T v) noexcept {
    if constexpr (std::endian::native == std::endian::little && N == sizeof(T)) {
        std::memcpy(p, &v, N);  // one store
    } else {
        for (std::size_t i = 0; i < N; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    return p + N;
}

std::uint8_t* store_lenenc(std::uint8_t* p, std::uint64_t n) noexcept {
    if (n < 0xFB) {
        *p = static_cast<std::uint8_t>(n);
        return p + 1;
    }
    if (n <= 0xFFFF) {
        *p = 0xFC;
        return store_le<2>(p + 1, n);
    }
    if (n <= 0xFFFFFF) {
        *p = 0xFD;
        return store_le<3>(p + 1, n);
    }
    *p = 0xFE;
    return store_le<8>(p + 1, n);
}

std::uint8_t* store_fast(std::uint8_t* p, const ParamValue& v) noexcept {
    using K = ParamValue::Kind;
    switch (v.kind) {
        case K::int64: return store_le<8>(p, static_cast<std::uint64_t>(v.i));
        case K::uint64: return store_le<8>(p, v.u);
        case K::float64: return store_le<8>(p, std::bit_cast<std::uint64_t>(v.d));
        case K::float32: return store_le<4>(p, std::bit_cast<std::uint32_t>(v.f));
        default:  // text, blob, decimal (fast_size admitted nothing else)
            p = store_lenenc(p, v.bytes.size());
            if (!v.bytes.empty()) std::memcpy(p, v.bytes.data(), v.bytes.size());
            return p + v.bytes.size();
    }
}
}  // namespace

BulkPacket::BulkPacket(std::vector<std::uint8_t>& out, std::uint32_t statement_id, std::size_t params)
    : out_(out), params_(params), typed_kinds_(params, ParamValue::Kind::null), untyped_(params) {
    out_.clear();
    Writer w(out_);
    w.u8(com_stmt_bulk_execute);
    w.u32(statement_id);
    w.u16(bulk_flag::send_types_to_server);
    types_at_ = out_.size();
    // A parameter that is never bound with a value in this packet keeps
    // this placeholder type; the server reads no value for it.
    for (std::size_t i = 0; i < params; ++i) {
        w.u8(static_cast<std::uint8_t>(ColumnType::var_string));
        w.u8(0);
    }
}

BulkPacket::Append BulkPacket::append(std::span<const BulkParam> row, std::size_t max_bytes) {
    // Types first: a conflict must leave the packet untouched.
    for (std::size_t i = 0; i < params_; ++i) {
        const BulkParam& p = row[i];
        if (!sends_value(p) || typed_kinds_[i] == ParamValue::Kind::null) continue;
        // Kinds and announced (type, flag) pairs correspond one to one.
        if (p.value.kind != typed_kinds_[i]) return Append::type_change;
    }
    const std::size_t before = out_.size();
    std::size_t row_bytes = 0;
    for (const BulkParam& p : row) {
        const std::size_t n = sends_value(p) ? fast_size(p.value) : 0;
        if (n == not_fast) {
            row_bytes = not_fast;
            break;
        }
        row_bytes += 1 + n;  // the indicator, then the value
    }
    if (row_bytes != not_fast) {
        if (before + row_bytes > max_bytes) return Append::too_large;
        out_.resize(before + row_bytes);
        std::uint8_t* q = out_.data() + before;
        for (const BulkParam& p : row) {
            if (!sends_value(p)) {
                *q++ = static_cast<std::uint8_t>(p.indicator == Indicator::none ? Indicator::null : p.indicator);
                continue;
            }
            *q++ = static_cast<std::uint8_t>(Indicator::none);
            q = store_fast(q, p.value);
        }
        mark_types(row);
        ++rows_;
        return Append::added;
    }
    Writer w(out_);
    for (const BulkParam& p : row) {
        if (!sends_value(p)) {
            w.u8(static_cast<std::uint8_t>(p.indicator == Indicator::none ? Indicator::null : p.indicator));
            continue;
        }
        w.u8(static_cast<std::uint8_t>(Indicator::none));
        write_param_value(w, p.value);
    }
    if (out_.size() > max_bytes) {
        out_.resize(before);
        return Append::too_large;
    }
    mark_types(row);
    ++rows_;
    return Append::added;
}

void BulkPacket::mark_types(std::span<const BulkParam> row) {
    if (untyped_ == 0) return;  // every row after the first few
    for (std::size_t i = 0; i < params_; ++i) {
        const BulkParam& p = row[i];
        if (!sends_value(p) || typed_kinds_[i] != ParamValue::Kind::null) continue;
        out_[types_at_ + 2 * i] = static_cast<std::uint8_t>(p.value.wire_type());
        out_[types_at_ + 2 * i + 1] = type_flag(p.value);
        typed_kinds_[i] = p.value.kind;
        --untyped_;
    }
}

}  // namespace sluice::mariadb::protocol
