#pragma once
// Streamed LOAD DATA LOCAL INFILE.
//
//   std::ifstream csv("rows.csv", std::ios::binary);
//   OkInfo ok = upload(conn, "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE t", "rows.csv", csv);
//
// The server answers a LOAD DATA LOCAL statement by naming the file it wants;
// that name is only a request. This client never opens a file on the
// server's say-so: it sends data only from the source the caller registered
// for that one statement, and only when the server asks for exactly the
// registered name. Any other request (a different name, or any request
// during query(), execute() or a statement) is refused: the client sends an
// empty file, reads the server's reply, and throws Error{usage} naming the
// requested file. Nothing is read and the connection stays usable.
//
// Memory: the source is read in chunks of UploadOptions::chunk_size, each
// sent as one packet before the next is read, so an upload of any size runs
// in about two chunks of memory.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string_view>

#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/result_set.hpp"

namespace sluice::mariadb {

// Fills (a prefix of) buf and returns the number of bytes written; 0 ends
// the data. An exception aborts the upload: the server is told the file
// ended (it keeps what it got unless the statement fails), and the exception
// propagates with the connection still usable.
using UploadReader = std::function<std::size_t(std::span<std::uint8_t> buf)>;

struct UploadOptions {
    std::size_t chunk_size = 64u << 10;
};

// Runs `sql`, a LOAD DATA LOCAL INFILE statement naming `name`, with `reader`
// as the only source the server may receive. Returns the statement's OK
// (affected rows, warnings, "Records: ..." info).
OkInfo upload(Connection& conn, std::string_view sql, std::string_view name, const UploadReader& reader,
              const UploadOptions& options = {});
// The same with the bytes of a std::istream (read until EOF; a stream error
// aborts with Error{io}).
OkInfo upload(Connection& conn, std::string_view sql, std::string_view name, std::istream& in,
              const UploadOptions& options = {});

}  // namespace sluice::mariadb
