#pragma once
// ReactorSocket: AsyncConnection's descriptor registered with the reactor of
// an executor's context (never owning the fd), with the two waits
// AsioConnection needs: a read, and a wait for readiness.
//
// Why not asio::posix::stream_descriptor: its async_read_some always tries
// the read at once before it waits, and right after a request went out the
// reply is never there yet, so every round trip paid a read() that said
// EAGAIN (one syscall in four of a point SELECT). The read here tells the
// reactor when it left the socket empty (a short read of a stream), asio's
// own signal for skipping the next attempt (`done_and_exhausted`, which its
// stream sockets give only at end of file): the next read then waits for
// the edge that says data came. Everything else is asio's descriptor read
// and wait operations as they are (the handler's allocator and executor,
// the work count, cancellation), through asio's reactor interface, which is
// not a public API: the static_assert below pins the asio it was written
// against, so another asio fails to build here rather than misbehave.
#include <asio/associated_allocator.hpp>
#include <asio/any_io_executor.hpp>
#include <asio/error.hpp>
#include <asio/execution/context.hpp>
#include <asio/query.hpp>
#include <asio/version.hpp>
#include <asio/detail/bind_handler.hpp>
#include <asio/detail/fenced_block.hpp>
#include <asio/detail/handler_alloc_helpers.hpp>
#include <asio/detail/handler_cont_helpers.hpp>
#include <asio/detail/handler_work.hpp>
#include <asio/detail/reactor.hpp>
#include <asio/detail/reactor_op.hpp>
#include <asio/detail/throw_error.hpp>

#include <cerrno>
#include <cstddef>
#include <memory>
#include <utility>

#include <unistd.h>

static_assert(ASIO_VERSION / 100 == 1022 && ASIO_HAS_EPOLL,
              "ReactorSocket uses asio 1.22's epoll reactor interface (asio::detail::reactor::start_op and "
              "the reactor_op layout): check them against this asio before changing the version here");

namespace sluice::mariadb::detail {

class ReactorSocket {
public:
    explicit ReactorSocket(const asio::any_io_executor& executor)
        : executor_(executor),
          reactor_(asio::use_service<asio::detail::reactor>(asio::query(executor, asio::execution::context))) {
        reactor_.init_task();  // as asio's own descriptor services do
    }
    ReactorSocket(const ReactorSocket&) = delete;
    ReactorSocket& operator=(const ReactorSocket&) = delete;
    ~ReactorSocket() { release(); }

    bool is_open() const noexcept { return fd_ >= 0; }

    // Registers `fd` (non-blocking already: AsyncConnection's own) for
    // reading, edge-triggered. An error registering is an std::system_error.
    void assign(int fd) {
        release();
        if (const int error = reactor_.register_descriptor(fd, data_)) {
            data_ = nullptr;
            asio::detail::throw_error(asio::error_code(error, asio::error::get_system_category()),
                                      "register the connection's socket with the reactor");
        }
        fd_ = fd;
    }

    // Lets go of the fd (not closed); pending operations end with
    // operation_aborted.
    void release() noexcept {
        if (fd_ < 0) return;
        reactor_.deregister_descriptor(fd_, data_, false);
        reactor_.cleanup_descriptor_data(data_);
        data_ = nullptr;
        fd_ = -1;
    }

    // Pending operations end with operation_aborted.
    void cancel() noexcept {
        if (fd_ >= 0) reactor_.cancel_ops(fd_, data_);
    }

    // Reads what has come, up to `size` bytes: handler(error_code, bytes),
    // asio::error::eof at the end of the stream.
    template <class Handler>
    void async_read_some(void* into, std::size_t size, Handler handler) {
        start<ReadOp<Handler>>(asio::detail::reactor::read_op, true, handler, fd_, into, size);
    }

    // Waits until the socket is readable (or writable): handler(error_code, 0).
    template <class Handler>
    void async_wait(bool writable, Handler handler) {
        start<WaitOp<Handler>>(writable ? asio::detail::reactor::write_op : asio::detail::reactor::read_op, false,
                               handler);
    }

private:
    // Completion, as asio's descriptor_read_op does it: the memory is
    // freed before the upcall (a sub-object of the handler may own it), the
    // upcall goes through the handler's executor.
    template <class Op, class Handler>
    static void complete(void* owner, Op* o) {
        typename Op::ptr p = {std::addressof(o->handler_), o, o};
        asio::detail::handler_work<Handler, asio::any_io_executor> work(std::move(o->work_));
        asio::detail::binder2<Handler, asio::error_code, std::size_t> bound(o->handler_, o->ec_,
                                                                             o->bytes_transferred_);
        p.h = std::addressof(bound.handler_);
        p.reset();
        if (owner) {
            asio::detail::fenced_block b(asio::detail::fenced_block::half);
            work.complete(bound, bound.handler_);
        }
    }

    template <class Handler>
    class ReadOp : public asio::detail::reactor_op {
    public:
        ASIO_DEFINE_HANDLER_PTR(ReadOp);
        ReadOp(Handler& handler, const asio::any_io_executor& executor, int fd, void* into, std::size_t size)
            : reactor_op(asio::error_code(), &ReadOp::perform_read, &ReadOp::do_complete),
              fd_(fd),
              into_(into),
              size_(size),
              handler_(std::move(handler)),
              work_(handler_, executor) {}

    private:
        friend class ReactorSocket;
        static status perform_read(reactor_op* base) {
            auto* o = static_cast<ReadOp*>(base);
            for (;;) {
                const ssize_t n = ::read(o->fd_, o->into_, o->size_);
                if (n > 0) {
                    o->ec_ = asio::error_code();
                    o->bytes_transferred_ = static_cast<std::size_t>(n);
                    // A stream read that got less than it asked for left the
                    // socket empty: new data brings a new edge.
                    return o->bytes_transferred_ < o->size_ ? done_and_exhausted : done;
                }
                o->bytes_transferred_ = 0;
                if (n == 0) {
                    o->ec_ = asio::error::eof;
                    return done;
                }
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
                o->ec_ = asio::error_code(errno, asio::error::get_system_category());
                return done;
            }
        }
        static void do_complete(void* owner, asio::detail::operation* base, const asio::error_code&, std::size_t) {
            ReactorSocket::complete<ReadOp, Handler>(owner, static_cast<ReadOp*>(base));
        }

        int fd_;
        void* into_;
        std::size_t size_;
        Handler handler_;
        asio::detail::handler_work<Handler, asio::any_io_executor> work_;
    };

    template <class Handler>
    class WaitOp : public asio::detail::reactor_op {
    public:
        ASIO_DEFINE_HANDLER_PTR(WaitOp);
        WaitOp(Handler& handler, const asio::any_io_executor& executor)
            : reactor_op(asio::error_code(), &WaitOp::perform_wait, &WaitOp::do_complete),
              handler_(std::move(handler)),
              work_(handler_, executor) {}

    private:
        friend class ReactorSocket;
        static status perform_wait(reactor_op*) { return done; }
        static void do_complete(void* owner, asio::detail::operation* base, const asio::error_code&, std::size_t) {
            ReactorSocket::complete<WaitOp, Handler>(owner, static_cast<WaitOp*>(base));
        }

        Handler handler_;
        asio::detail::handler_work<Handler, asio::any_io_executor> work_;
    };

    template <class Op, class Handler, class... Args>
    void start(int op_type, bool allow_speculative, Handler& handler, Args... args) {
        const bool is_continuation = asio_handler_cont_helpers::is_continuation(handler);
        typename Op::ptr p = {std::addressof(handler), Op::ptr::allocate(handler), nullptr};
        p.p = new (p.v) Op(handler, executor_, args...);
        // No descriptor (never assigned, or released): start_op posts
        // bad_descriptor.
        reactor_.start_op(op_type, fd_, data_, p.p, is_continuation, allow_speculative);
        p.v = p.p = nullptr;
    }

    asio::any_io_executor executor_;
    asio::detail::reactor& reactor_;
    asio::detail::reactor::per_descriptor_data data_ = nullptr;
    int fd_ = -1;
};

}  // namespace sluice::mariadb::detail
