#pragma once
// Sans-I/O decoder of one binlog event stream (a COM_BINLOG_DUMP session,
// or the events of a binlog file in order). It keeps what later events
// need: the FORMAT_DESCRIPTION (checksum algorithm, post-header lengths),
// the TABLE_MAPs by table id, the current binlog file and offset (for
// error messages), and the schema hints the caller attached.
//
// decode() takes one whole event: in a dump stream, the bytes after the
// 0x00 OK marker (header, body and, when the stream has checksums, the
// 4-byte CRC32). Events over 16 MiB arrive split across packets: the
// transport joins them; decode() needs the joined bytes.
//
// Errors: Error{protocol} "binlog event <TYPE> at <file>:<offset>: ..."
// for a bad checksum (verified by default), a truncated event, a length
// that lies, rows for an unknown table id, and so on. A failed decode()
// leaves the decoder's state as it was before the call.
//
// LIFETIME: see events.hpp (views into the given bytes or into the inflate
// buffer, which the next decode() reuses).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/mariadb/binlog/events.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"

namespace sluice::mariadb::binlog {

struct DecoderOptions {
    // Verify each event's CRC32 when the stream has checksums. Turning it
    // off only skips the comparison (the 4 bytes are still stripped).
    bool verify_checksum = true;
};

struct BinlogPosition {
    std::string_view file;   // "" until a ROTATE or set_position() names it
    std::uint64_t offset = 0;
};

class Decoder {
public:
    explicit Decoder(DecoderOptions options = {});
    ~Decoder();
    Decoder(Decoder&&) noexcept;
    Decoder& operator=(Decoder&&) noexcept;
    Decoder(const Decoder&) = delete;
    Decoder& operator=(const Decoder&) = delete;

    Event decode(std::span<const std::uint8_t> event_bytes);

    // The checksum algorithm of the events before the first
    // FORMAT_DESCRIPTION (the dump stream's artificial ROTATE): the one the
    // session agreed with @master_binlog_checksum. Left undefined, the
    // decoder recognises a trailing CRC32 on those events by checking it.
    void expect_checksum(Checksum checksum) noexcept;
    // The stream's checksum algorithm as known now.
    Checksum checksum() const noexcept;

    // Where the next event starts (the end of the last one decoded). The
    // file name is a view valid until the next decode() or set_position().
    BinlogPosition position() const noexcept;
    void set_position(std::string file, std::uint64_t offset);

    // Schema hints (see table_map.hpp): applied to every later TABLE_MAP of
    // db.table whose column count matches the schema; replacing or clearing
    // a hint also re-applies it to the table maps already known.
    void set_schema(std::string_view db, std::string_view table, TableSchema schema);
    void clear_schema(std::string_view db, std::string_view table);

    // The last TABLE_MAP seen for this id, or nullptr.
    std::shared_ptr<const TableMap> table(std::uint64_t table_id) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Splits the contents of a binlog file, after its 4-byte magic
// (0xFE 'b' 'i' 'n'), into whole events by their event_length fields.
// Error{protocol} naming the offset when a length runs past the end or is
// shorter than a header. offset() is the file offset of the next event.
class EventSplitter {
public:
    // `file_bytes` is the whole file, magic included.
    explicit EventSplitter(std::span<const std::uint8_t> file_bytes);
    // The next event's bytes, or an empty span at the end.
    std::span<const std::uint8_t> next();
    std::uint64_t offset() const noexcept { return pos_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 4;
};

}  // namespace sluice::mariadb::binlog
