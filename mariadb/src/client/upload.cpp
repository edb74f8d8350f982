#include "sluice/mariadb/upload.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "session.hpp"
#include "sluice/mariadb/exchange/local_infile.hpp"
#include "sluice/mariadb/protocol/commands.hpp"

namespace sluice::mariadb {

namespace detail {
OkInfo run_upload(Connection& conn, std::string_view sql, exchange::LocalInfileSource& source) {
    Session& s = conn.session();
    const std::string_view name = source.name;
    return s.guarded([&] {
        s.begin_command();
        s.send([&](protocol::Writer& w) { protocol::write_command(w, protocol::Command::query, sql); });
        s.read_result_head(false, nullptr, &source);
        if (s.result.phase != detail::Phase::idle) {
            s.drain();
            throw Error(ErrorKind::usage, "upload statement returned a result set instead of reading '" +
                                              std::string(name) + "'");
        }
        return s.result.ok;
    });
}
}  // namespace detail

OkInfo upload(Connection& conn, std::string_view sql, std::string_view name, const UploadReader& reader,
              const UploadOptions& options) {
    // Registered for this one command: only its head's request is answered
    // from it (exchange/local_infile.hpp).
    exchange::LocalInfileSource source{name, &reader,
                                       std::vector<std::uint8_t>(std::max<std::size_t>(options.chunk_size, 1))};
    return detail::run_upload(conn, sql, source);
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
