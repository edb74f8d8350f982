// The open transaction's undo log (Engine::begin_transaction ... commit,
// open_transaction.cpp): how to take back each mutation applied so far,
// only ever appended to, and read newest first only when the transaction is
// refused or rolled back.
//
// A 3M-row update leaves two records a row (a retraction and an insert), so
// held in memory the log would be ~240 MB while the transaction is open,
// more than the engine state the transaction adds (issue 25). The log
// therefore keeps one chunk (`chunk_bytes`, 1 MiB by default) in memory and
// appends each full chunk to an unlinked temporary file in $TMPDIR (or
// /tmp), which the page cache holds rather than the process; the file is
// emptied when the transaction ends and closed with the engine. A
// transaction whose log fits one chunk never creates the file.
//
// A record is 24 bytes (ts, a retraction's value, key, the id's size, the
// kind) followed by the id's bytes, unaligned; a chunk is read back whole
// and walked forward once to find its records, then taken back newest first.
//
// Errors: a file that cannot be created, written or read back is a
// std::runtime_error naming the directory or the offset and errno's text.
// Appending keeps the record either way (a failed spill leaves the chunk in
// memory), so a failure to spill leaves the transaction open and
// consistent; one to read back during take_back() leaves the engine's state
// part undone (the caller must drop the engine and restore a checkpoint, as
// the pipeline does at its restart).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "session_engine.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

class UndoLog {
public:
    struct Record {
        std::int64_t ts;
        double value;  // a retraction's retracted value
        KeyId key;
        Mutation::Kind kind;
        std::string_view id;  // valid during the callback only
    };

    static constexpr std::size_t default_chunk_bytes = std::size_t{1} << 20;
    explicit UndoLog(std::size_t chunk_bytes = default_chunk_bytes) : chunk_bytes_(chunk_bytes) {}
    ~UndoLog();
    UndoLog(const UndoLog&) = delete;
    UndoLog& operator=(const UndoLog&) = delete;

    [[gnu::always_inline]] void append(std::int64_t ts, double value, KeyId key, Mutation::Kind kind,
                                       std::string_view id) {
        char header[header_bytes];
        const auto id_size = static_cast<std::uint16_t>(id.size());
        const auto kind_byte = static_cast<std::uint8_t>(kind);
        std::memcpy(header, &ts, 8);
        std::memcpy(header + 8, &value, 8);
        std::memcpy(header + 16, &key, 4);
        std::memcpy(header + 20, &id_size, 2);
        header[22] = static_cast<char>(kind_byte);
        header[23] = 0;
        chunk_.append(header, header_bytes);
        chunk_.append(id);
        ++records_;
        if (chunk_.size() >= chunk_bytes_) [[unlikely]]
            spill();
    }

    // Calls take(const Record&) for every record, newest first, then
    // empties the log.
    template <class F>
    void take_back(F&& take) {
        take_back_chunk(chunk_, take);
        for (std::size_t c = spilled_.size(); c-- > 0;) {
            read_back(spilled_[c], chunk_);
            take_back_chunk(chunk_, take);
        }
        clear();
    }

    // Empties the log (the transaction ended): the file is truncated, the
    // chunk's memory kept only up to one chunk.
    void clear();

    std::uint64_t records() const noexcept { return records_; }
    std::size_t memory_bytes() const noexcept { return chunk_.capacity(); }
    std::uint64_t spilled_bytes() const noexcept { return file_end_; }

private:
    static constexpr std::size_t header_bytes = 24;
    struct Spilled {
        std::uint64_t at;
        std::uint32_t size;
    };

    void spill();  // appends chunk_ to the file and empties it
    void read_back(const Spilled& s, std::string& into) const;
    void open_file();

    template <class F>
    void take_back_chunk(const std::string& chunk, F& take) {
        offsets_.clear();
        for (std::size_t at = 0; at < chunk.size();) {
            offsets_.push_back(static_cast<std::uint32_t>(at));
            std::uint16_t id_size = 0;
            std::memcpy(&id_size, chunk.data() + at + 20, 2);
            at += header_bytes + id_size;
        }
        for (std::size_t i = offsets_.size(); i-- > 0;) {
            const char* p = chunk.data() + offsets_[i];
            Record r;
            std::uint16_t id_size = 0;
            std::memcpy(&r.ts, p, 8);
            std::memcpy(&r.value, p + 8, 8);
            std::memcpy(&r.key, p + 16, 4);
            std::memcpy(&id_size, p + 20, 2);
            r.kind = static_cast<Mutation::Kind>(static_cast<std::uint8_t>(p[22]));
            r.id = std::string_view(p + header_bytes, id_size);
            take(r);
        }
    }

    std::size_t chunk_bytes_;
    std::string chunk_;  // the newest records, not yet in the file
    std::vector<Spilled> spilled_;  // the file's chunks, oldest first
    std::vector<std::uint32_t> offsets_;  // take_back_chunk's scratch
    std::uint64_t records_ = 0;
    std::uint64_t file_end_ = 0;
    int fd_ = -1;
    std::string dir_;  // where the file is (for errors)
};

}  // namespace sluice::tideweave
