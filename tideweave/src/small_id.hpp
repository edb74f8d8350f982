// An event id as the engine holds it: 16 bytes, the id's bytes inline when
// it has at most 15 (the usual case), else a pointer to a heap copy.
//
// Why not std::string: the engine holds every active event's id twice (in
// its session's leaf, ordered by (ts, id), and in the identity index), and
// at millions of events these copies are most of the engine's memory. A
// std::string is 32 bytes with a 15-byte small buffer; this is the same
// small buffer in half the size, which cut the memory fresh per event (and
// the kernel's time zeroing it, the largest single cost of a long batched
// stream) by 32 bytes (docs/tideweave.md, "Memory layout").
//
// Layout: bytes_[15] is the length when the id is inline (0..15); the flag
// value heap_mark says the first 8 bytes are a pointer and the next 4 the
// length. A moved-from SmallId is empty.
//
// SmallIdBytes is that representation without the ownership: trivially
// copyable, and all-zero bytes are the empty id, so an array of them in
// memory fresh from the kernel needs no construction (the identity index's
// entries, id_index.hpp). Its holder frees a long id's heap copy (release())
// before dropping or overwriting it. SmallId is the owning wrapper.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace sluice::tideweave {

class SmallIdBytes {
public:
    // Makes this id `s`; it must hold no heap copy (empty, released, or
    // inline).
    void set(std::string_view s) {
        if (s.size() <= inline_capacity) {
            copy_short(s.data(), s.size());
            bytes_[inline_capacity] = static_cast<char>(s.size());
            return;
        }
        char* heap = new char[s.size()];
        std::memcpy(heap, s.data(), s.size());
        const auto size = static_cast<std::uint32_t>(s.size());
        std::memcpy(bytes_, &heap, sizeof heap);
        std::memcpy(bytes_ + sizeof heap, &size, sizeof size);
        bytes_[inline_capacity] = heap_mark;
    }
    // Frees a heap copy, leaving the id empty; an inline id is left as it
    // is (it owns nothing).
    void release() {
        if (!on_heap()) return;
        char* heap = nullptr;
        std::memcpy(&heap, bytes_, sizeof heap);
        delete[] heap;
        set_empty();
    }
    void set_empty() { bytes_[inline_capacity] = 0; }
    bool on_heap() const { return bytes_[inline_capacity] == heap_mark; }

    std::string_view view() const {
        if (!on_heap()) return {bytes_, static_cast<std::size_t>(static_cast<unsigned char>(bytes_[inline_capacity]))};
        const char* heap = nullptr;
        std::uint32_t size = 0;
        std::memcpy(&heap, bytes_, sizeof heap);
        std::memcpy(&size, bytes_ + sizeof heap, sizeof size);
        return {heap, size};
    }

private:
    static constexpr std::size_t inline_capacity = 15;
    static constexpr char heap_mark = static_cast<char>(0x80);

    // Copies n <= 15 bytes with two fixed-size, possibly overlapping copies
    // (each a single move instruction) instead of a call to memcpy with a
    // variable length: this runs twice per insert (leaf and identity index).
    void copy_short(const char* from, std::size_t n) {
        if (n >= 8) {
            std::memcpy(bytes_, from, 8);
            std::memcpy(bytes_ + n - 8, from + n - 8, 8);
        } else if (n >= 4) {
            std::memcpy(bytes_, from, 4);
            std::memcpy(bytes_ + n - 4, from + n - 4, 4);
        } else if (n > 0) {
            bytes_[0] = from[0];
            bytes_[n >> 1] = from[n >> 1];
            bytes_[n - 1] = from[n - 1];
        }
    }

    // Byte-aligned (every read is a memcpy): the identity index packs it
    // with a 12-byte entry into 28 bytes (id_index.hpp).
    char bytes_[16];
};

static_assert(sizeof(SmallIdBytes) == 16 && alignof(SmallIdBytes) == 1);
static_assert(std::is_trivially_copyable_v<SmallIdBytes> && std::is_trivially_default_constructible_v<SmallIdBytes>);

class SmallId {
public:
    SmallId() { id_.set_empty(); }
    explicit SmallId(std::string_view s) { id_.set(s); }
    SmallId(const SmallId& other) : SmallId(other.view()) {}
    SmallId& operator=(const SmallId& other) {
        if (this != &other) assign(other.view());
        return *this;
    }
    SmallId(SmallId&& other) noexcept : id_(other.id_) { other.id_.set_empty(); }
    SmallId& operator=(SmallId&& other) noexcept {
        if (this != &other) {
            id_.release();
            id_ = other.id_;
            other.id_.set_empty();
        }
        return *this;
    }
    ~SmallId() { id_.release(); }

    void assign(std::string_view s) {
        id_.release();
        id_.set(s);
    }
    void clear() {
        id_.release();
        id_.set_empty();
    }

    std::string_view view() const { return id_.view(); }
    operator std::string_view() const { return id_.view(); }  // NOLINT: an id reads as its bytes

private:
    SmallIdBytes id_;
};

static_assert(sizeof(SmallId) == 16 && alignof(SmallId) == 1);

}  // namespace sluice::tideweave
