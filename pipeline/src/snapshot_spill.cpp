#include "sluice/pipeline/snapshot_spill.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sluice::pipeline {

// A row is its four cells, each a kind byte and then 8 bytes (integers,
// doubles) or a 4-byte length and the bytes (text); null is the byte alone.

void SnapshotSpill::fail(const char* what) const {
    throw std::runtime_error(std::string("pipeline: the snapshot's spill file (in $TMPDIR): ") + what + ": " +
                             std::strerror(errno));
}

void SnapshotSpill::begin() {
    if (!file_) {
        file_.reset(std::tmpfile());
        if (!file_) fail("cannot create it");
    }
    std::rewind(file_.get());
    rows_ = 0;
    chunk_.clear();
    text_.clear();
}

void SnapshotSpill::write(const void* bytes, std::size_t n) {
    if (n != 0 && std::fwrite(bytes, 1, n, file_.get()) != n) fail("cannot write it");
}

void SnapshotSpill::read(void* bytes, std::size_t n) {
    if (n != 0 && std::fread(bytes, 1, n, file_.get()) != n) fail("cannot read it back");
}

void SnapshotSpill::add(const SourceChange& change) {
    if (!file_) throw std::logic_error("pipeline: SnapshotSpill::add before begin()");
    if (change.op != SourceChange::Op::insert || !change.after)
        throw std::logic_error("pipeline: a snapshot row that is no insert");
    for (const SourceValue& v : *change.after) {
        const auto kind = static_cast<std::uint8_t>(v.kind);
        write(&kind, 1);
        switch (v.kind) {
            case SourceValue::Kind::null: break;
            case SourceValue::Kind::signed_integer: write(&v.i, 8); break;
            case SourceValue::Kind::unsigned_integer: write(&v.u, 8); break;
            case SourceValue::Kind::floating: write(&v.d, 8); break;
            case SourceValue::Kind::text: {
                const auto n = static_cast<std::uint32_t>(v.text.size());
                write(&n, 4);
                write(v.text.data(), v.text.size());
                break;
            }
        }
    }
    ++rows_;
}

void SnapshotSpill::read_back(std::size_t rows_per_chunk,
                              const std::function<void(std::span<const SourceChange>)>& chunk) {
    if (!file_) return;  // no snapshot began
    if (std::fflush(file_.get()) != 0) fail("cannot write it");
    const long end = std::ftell(file_.get());
    std::rewind(file_.get());
    std::vector<std::size_t> text_at;  // per text cell of the chunk, where it starts in text_
    for (std::uint64_t done = 0; done < rows_;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(rows_per_chunk, rows_ - done));
        chunk_.assign(n, SourceChange{SourceChange::Op::insert, std::nullopt, RowImage{}});
        text_.clear();
        text_at.clear();
        for (SourceChange& c : chunk_) {
            RowImage& row = c.after.emplace();
            for (SourceValue& v : row) {
                std::uint8_t kind = 0;
                read(&kind, 1);
                v.kind = static_cast<SourceValue::Kind>(kind);
                switch (v.kind) {
                    case SourceValue::Kind::null: break;
                    case SourceValue::Kind::signed_integer: read(&v.i, 8); break;
                    case SourceValue::Kind::unsigned_integer: read(&v.u, 8); break;
                    case SourceValue::Kind::floating: read(&v.d, 8); break;
                    case SourceValue::Kind::text: {
                        std::uint32_t size = 0;
                        read(&size, 4);
                        text_at.push_back(text_.size());
                        text_.resize(text_.size() + size);
                        read(text_.data() + text_at.back(), size);
                        break;
                    }
                    default: throw std::logic_error("pipeline: the snapshot's spill file holds a cell of no kind");
                }
            }
        }
        // The views, once text_ has stopped growing.
        std::size_t next_text = 0;
        for (SourceChange& c : chunk_)
            for (SourceValue& v : *c.after) {
                if (v.kind != SourceValue::Kind::text) continue;
                const std::size_t at = text_at[next_text++];
                const std::size_t size = (next_text < text_at.size() ? text_at[next_text] : text_.size()) - at;
                v.text = std::string_view(text_.data() + at, size);
            }
        done += n;
        chunk(chunk_);
    }
    // At its end again, as add() left it.
    if (std::fseek(file_.get(), end, SEEK_SET) != 0) fail("cannot seek in it");
}

}  // namespace sluice::pipeline
