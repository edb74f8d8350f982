#include "sluice/mariadb/cdc/change_events.hpp"

#include <cstring>

namespace sluice::mariadb::cdc {

void Transaction::add_rows(const binlog::Rows& rows) {
    // One allocation holds the three byte ranges the row reader needs.
    const std::size_t total = rows.columns_before.size() + rows.columns_after.size() + rows.rows.size() +
                              rows.extra_data.size();
    StoredRows s;
    s.bytes = std::make_unique_for_overwrite<std::uint8_t[]>(total == 0 ? 1 : total);  // (every byte is copied over)
    s.rows = rows;
    std::uint8_t* p = s.bytes.get();
    auto keep = [&p](binlog::Bytes b) {
        if (!b.empty()) std::memcpy(p, b.data(), b.size());
        binlog::Bytes kept(p, b.size());
        p += b.size();
        return kept;
    };
    s.rows.columns_before = keep(rows.columns_before);
    s.rows.columns_after = keep(rows.columns_after);
    s.rows.rows = keep(rows.rows);
    s.rows.extra_data = keep(rows.extra_data);
    bytes_ += total;
    rows_.push_back(std::move(s));
}

Field SnapshotChunk::field(std::size_t row, std::size_t column) const {
    const std::size_t n = columns->size();
    const Slot& slot = slots_[row * n + column];
    protocol::FieldSlice slice;
    slice.null = slot.null;
    slice.bytes = protocol::Bytes(bytes_.data() + slot.offset, slot.length);
    return Field((*columns)[column], slice, true);
}

void SnapshotChunk::add_row(const Row& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
        Field f = row[i];
        Slot slot;
        slot.null = f.is_null();
        if (!slot.null) {
            auto raw = f.raw();
            slot.offset = bytes_.size();
            slot.length = raw.size();
            bytes_.insert(bytes_.end(), raw.begin(), raw.end());
        }
        slots_.push_back(slot);
    }
    ++row_count_;
}

}  // namespace sluice::mariadb::cdc
