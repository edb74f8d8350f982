#include "sluice/mariadb/protocol/bulk.hpp"

namespace sluice::mariadb::protocol {

namespace {
std::uint8_t type_flag(const ParamValue& v) noexcept { return v.kind == ParamValue::Kind::uint64 ? 0x80 : 0x00; }
bool sends_value(const BulkParam& p) noexcept {
    return p.indicator == Indicator::none && p.value.kind != ParamValue::Kind::null;
}
}  // namespace

BulkPacket::BulkPacket(std::vector<std::uint8_t>& out, std::uint32_t statement_id, std::size_t params)
    : out_(out), params_(params), typed_(params, false) {
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
        if (!sends_value(p) || !typed_[i]) continue;
        const std::uint8_t* t = out_.data() + types_at_ + 2 * i;
        if (t[0] != static_cast<std::uint8_t>(p.value.wire_type()) || t[1] != type_flag(p.value)) {
            return Append::type_change;
        }
    }
    const std::size_t before = out_.size();
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
    for (std::size_t i = 0; i < params_; ++i) {
        const BulkParam& p = row[i];
        if (!sends_value(p) || typed_[i]) continue;
        out_[types_at_ + 2 * i] = static_cast<std::uint8_t>(p.value.wire_type());
        out_[types_at_ + 2 * i + 1] = type_flag(p.value);
        typed_[i] = true;
    }
    ++rows_;
    return Append::added;
}

}  // namespace sluice::mariadb::protocol
