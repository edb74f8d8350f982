#include "sluice/mariadb/upload.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "access.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb {

namespace detail {

// What upload() registers on the session for the duration of its command.
struct LocalInfileSource {
    std::string_view name;
    const UploadReader* reader;
    std::vector<std::uint8_t> buffer;
};

void Session::answer_local_infile(const std::string& requested) {
    using namespace protocol;
    LocalInfileSource* source = local_infile;
    const bool registered = source != nullptr && source->reader != nullptr && requested == source->name;
    std::exception_ptr reader_failure;
    if (registered) {
        try {
            for (;;) {
                const std::size_t n = (*source->reader)(source->buffer);
                if (n == 0) break;
                if (n > source->buffer.size()) {
                    throw Error(ErrorKind::usage, "upload reader returned " + std::to_string(n) +
                                                      " bytes for a buffer of " +
                                                      std::to_string(source->buffer.size()));
                }
                chan().send_packet(Bytes(source->buffer.data(), n));
            }
        } catch (const Error& e) {
            // The channel's own failures break the session; anything else is
            // the reader's, after which the exchange is still in step.
            if (chan().broken()) throw;
            reader_failure = std::current_exception();
        } catch (...) {
            reader_failure = std::current_exception();
        }
    }
    chan().send_packet(Bytes{});  // end of data (for a refusal: an empty file)
    Bytes reply = read();
    if (is_err(reply)) {
        if (reader_failure) std::rethrow_exception(reader_failure);
        throw_server_error(reply);
    }
    set_ok(parse_ok(reply, capabilities));
    if (reader_failure) std::rethrow_exception(reader_failure);
    if (!registered) {
        throw Error(ErrorKind::usage, "server requested LOCAL INFILE '" + requested +
                                          "', which is not the source registered for this statement: refused, "
                                          "nothing was read");
    }
}

}  // namespace detail

OkInfo upload(Connection& conn, std::string_view sql, std::string_view name, const UploadReader& reader,
              const UploadOptions& options) {
    detail::Session& s = detail::Access::session(conn);
    detail::LocalInfileSource source{name, &reader, std::vector<std::uint8_t>(std::max<std::size_t>(options.chunk_size, 1))};
    return s.guarded([&] {
        s.begin_command();
        s.local_infile = &source;
        struct Unregister {
            detail::Session& s;
            ~Unregister() { s.local_infile = nullptr; }
        } unregister{s};
        s.send([&](protocol::Writer& w) { protocol::write_command(w, protocol::Command::query, sql); });
        s.read_result_head(false);
        if (s.result.phase != detail::Phase::idle) {
            s.drain();
            throw Error(ErrorKind::usage, "upload statement returned a result set instead of reading '" +
                                              std::string(name) + "'");
        }
        return s.result.ok;
    });
}

OkInfo upload(Connection& conn, std::string_view sql, std::string_view name, std::istream& in,
              const UploadOptions& options) {
    UploadReader reader = [&in](std::span<std::uint8_t> buf) -> std::size_t {
        in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
        if (in.bad()) throw Error(ErrorKind::io, "reading the upload stream failed");
        return static_cast<std::size_t>(in.gcount());
    };
    return upload(conn, sql, name, reader, options);
}

}  // namespace sluice::mariadb
