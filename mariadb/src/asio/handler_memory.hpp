#pragma once
// Memory for the asynchronous operations of one connection, reused from one
// wait to the next (asio's custom allocation: a handler's associated
// allocator). A connection has at most `Slots` operations of a kind
// outstanding at once (one socket wait; a timer wait and the cancelled one
// before it), so in the steady state a query allocates nothing, where asio's
// per-thread cache (two blocks shared by every connection on the thread)
// misses whenever another connection's operation took the block.
// Larger operations, or more at once, fall back to operator new.
#include <array>
#include <cstddef>
#include <new>
#include <utility>

namespace sluice::mariadb::detail {

template <std::size_t Slots, std::size_t SlotSize = 512>
class HandlerMemory {
public:
    HandlerMemory() = default;
    HandlerMemory(const HandlerMemory&) = delete;
    HandlerMemory& operator=(const HandlerMemory&) = delete;

    void* allocate(std::size_t size) {
        if (size <= SlotSize) {
            for (std::size_t i = 0; i < Slots; ++i) {
                if (!in_use_[i]) {
                    in_use_[i] = true;
                    return slots_[i].bytes;
                }
            }
        }
        return ::operator new(size);
    }

    void deallocate(void* p) noexcept {
        for (std::size_t i = 0; i < Slots; ++i) {
            if (p == slots_[i].bytes) {
                in_use_[i] = false;
                return;
            }
        }
        ::operator delete(p);
    }

private:
    struct Slot {
        alignas(std::max_align_t) unsigned char bytes[SlotSize];
    };
    std::array<Slot, Slots> slots_{};
    std::array<bool, Slots> in_use_{};
};

template <class T, class Memory>
class HandlerAllocator {
public:
    using value_type = T;
    explicit HandlerAllocator(Memory& memory) noexcept : memory_(&memory) {}
    template <class U>
    HandlerAllocator(const HandlerAllocator<U, Memory>& other) noexcept : memory_(other.memory_) {}

    T* allocate(std::size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
    void deallocate(T* p, std::size_t) noexcept { memory_->deallocate(p); }
    template <class U>
    bool operator==(const HandlerAllocator<U, Memory>& other) const noexcept {
        return memory_ == other.memory_;
    }

private:
    template <class, class>
    friend class HandlerAllocator;
    Memory* memory_;
};

// A completion handler whose operation memory comes from `memory`.
template <class Handler, class Memory>
class WithMemory {
public:
    using allocator_type = HandlerAllocator<void, Memory>;
    WithMemory(Handler handler, Memory& memory) : handler_(std::move(handler)), memory_(&memory) {}
    allocator_type get_allocator() const noexcept { return allocator_type(*memory_); }
    template <class... Args>
    void operator()(Args&&... args) {
        handler_(std::forward<Args>(args)...);
    }

private:
    Handler handler_;
    Memory* memory_;
};

}  // namespace sluice::mariadb::detail
