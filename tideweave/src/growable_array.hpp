// An array of trivially copyable values that grows keeping its contents
// where they are: a large array is an anonymous mapping of its own, and
// growing it extends the mapping (mremap: the kernel moves the pages'
// mappings when it cannot extend in place, it copies no byte), so only the
// added part is fresh memory.
//
// Why: the identity index's slot table doubles as the index grows. A table
// grown by allocating a new one and copying leaves every earlier table
// behind as memory the kernel had to hand over and clear: at 2M events held
// the last table is 32 MB, the earlier ones another 32 MB, fresh in every
// sample of a stream that starts empty. Grown here, those earlier pages are
// the first half of the new table (docs/tideweave.md, "Memory layout").
//
// Small arrays (under huge_page_threshold) live on the heap and grow by
// copying, like a vector; large ones are whole huge pages, aligned to them
// and marked for transparent huge pages (huge_pages.hpp), also after a move.
// New elements are zero bytes: T's empty value must be all zeros (T's
// default member initializers are not run).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "huge_pages.hpp"

namespace sluice::tideweave {

template <typename T>
class GrowableArray {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    GrowableArray() = default;
    GrowableArray(const GrowableArray&) = delete;
    GrowableArray& operator=(const GrowableArray&) = delete;
    GrowableArray(GrowableArray&& other) noexcept { swap(other); }
    GrowableArray& operator=(GrowableArray&& other) noexcept {
        GrowableArray gone(std::move(other));
        swap(gone);
        return *this;
    }
    void swap(GrowableArray& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(mapped_bytes_, other.mapped_bytes_);
    }
    ~GrowableArray() { release(); }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }

    // `n` elements: the first min(n, size()) as they were, the rest zero.
    void resize(std::size_t n) {
        if (n == size_) return;
        const std::size_t bytes = n * sizeof(T);
        if (n == 0) {
            release();
        } else if (bytes < huge_page_threshold) {
            T* p = static_cast<T*>(::operator new(bytes));
            const std::size_t kept = n < size_ ? n : size_;
            if (kept != 0) std::memcpy(static_cast<void*>(p), data_, kept * sizeof(T));
            std::memset(static_cast<void*>(p + kept), 0, (n - kept) * sizeof(T));
            release();
            data_ = p;
        } else if (mapped_bytes_ == 0) {  // from the heap (or nothing) to a mapping
            const std::size_t mapped = round_up(bytes);
            void* p = map_aligned(mapped, PROT_READ | PROT_WRITE);
            if (size_ != 0) std::memcpy(p, static_cast<const void*>(data_), size_ * sizeof(T));
            release();
            data_ = static_cast<T*>(p);
            mapped_bytes_ = mapped;
        } else {
            remap(round_up(bytes));
            // A shrunk mapping may keep elements past n (its last huge page):
            // they must read as zero when it grows again.
            if (n < size_) std::memset(static_cast<void*>(data_ + n), 0, mapped_bytes_ - bytes);
        }
        size_ = n;
    }

    // `n` zero elements.
    void assign_zero(std::size_t n) {
        release();
        resize(n);
    }

private:
    static std::size_t round_up(std::size_t bytes) {
        return (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    }

    // A mapping of `bytes` (whole huge pages) aligned to a huge page.
    static void* map_aligned(std::size_t bytes, int protection) {
        void* raw = ::mmap(nullptr, bytes + huge_page_bytes, protection, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) throw std::bad_alloc();
        const auto start = reinterpret_cast<std::uintptr_t>(raw);
        const std::uintptr_t aligned = (start + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
        if (aligned != start) ::munmap(raw, aligned - start);
        const std::uintptr_t tail = start + bytes + huge_page_bytes - (aligned + bytes);
        if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
        void* p = reinterpret_cast<void*>(aligned);
        ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint; its failure changes nothing
        return p;
    }

    // Resizes the mapping to `bytes`: in place if the address space after it
    // is free, else moved (pages and all) to a place aligned to a huge page.
    void remap(std::size_t bytes) {
        if (bytes == mapped_bytes_) return;
        void* p = ::mremap(data_, mapped_bytes_, bytes, 0);
        if (p == MAP_FAILED) {
            void* target = map_aligned(bytes, PROT_NONE);  // reserved, then replaced
            p = ::mremap(data_, mapped_bytes_, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, target);
            if (p == MAP_FAILED) {
                ::munmap(target, bytes);
                throw std::bad_alloc();
            }
            ::madvise(p, bytes, MADV_HUGEPAGE);
        }
        data_ = static_cast<T*>(p);
        mapped_bytes_ = bytes;
    }

    void release() {
        if (data_ != nullptr) {
            if (mapped_bytes_ != 0) {
                ::munmap(data_, mapped_bytes_);
            } else {
                ::operator delete(data_);
            }
        }
        data_ = nullptr;
        size_ = 0;
        mapped_bytes_ = 0;
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t mapped_bytes_ = 0;  // 0: on the heap
};

}  // namespace sluice::tideweave
