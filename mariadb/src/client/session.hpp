#pragma once
// The state behind a Connection, shared by its ResultSets and Statements
// (which hold a pointer to it; the Connection owns it, so moving the
// Connection does not move it).
//
// Command life cycle: begin_command() discards whatever the previous command
// left unread, then the command is sent and read_result_head() reads the
// first response. A result with rows stays in phase `rows` until its end
// packet; with SERVER_MORE_RESULTS_EXIST the phase becomes `more_results`
// and next_result() reads the next head.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/protocol/wire.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/row.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"

namespace sluice::mariadb::detail {

enum class Phase { idle, rows, more_results };

struct LocalInfileSource;  // src/client/upload.cpp
struct Session;

// A reply the client asked for but has not read yet: a cursor's pipelined
// COM_STMT_FETCH (src/client/cursor.cpp). begin_command() has it read
// first, so the stream stays in step and the cursor keeps its rows.
struct PendingReply {
    virtual void read(Session& s) = 0;

protected:
    ~PendingReply() = default;
};

struct Session {
    std::optional<PacketChannel> channel;
    ConnectOptions options;
    std::uint64_t capabilities = 0;
    bool deprecate_eof = false;
    std::uint32_t connection_id = 0;
    std::string server_version;
    bool is_broken = false;
    std::string broken_reason;

    std::vector<std::uint8_t> out;  // encoding buffer, reused

    // The current command's result.
    Phase phase = Phase::idle;
    bool binary = false;
    std::uint64_t generation = 0;
    // Columns read from the wire for the current result.
    std::vector<Column> columns;
    // The current result's columns: `columns`, or the executing statement's
    // cache (held by `cached_columns`, so it outlives a Statement destroyed
    // while its rows are read) when the server skipped the definitions.
    const std::vector<Column>* result_columns = &columns;
    std::shared_ptr<const std::vector<Column>> cached_columns;
    std::vector<protocol::ColumnType> types;
    std::vector<protocol::FieldSlice> fields;
    OkInfo ok;
    Row row;

    // Statements destroyed while a result was being read: closed before the
    // next command.
    std::vector<std::uint32_t> deferred_closes;

    // Hooks of the speed features (bulk, metadata cache, upload, text batch).
    // The last server status flags seen (login OK, every OK and EOF): text
    // escaping follows NO_BACKSLASH_ESCAPES from here.
    std::uint16_t server_status = 0;
    // Without deprecate-EOF: the status of the EOF that ends the column
    // definitions (a cursor's execute says CURSOR_EXISTS there, and no rows
    // or second EOF follow).
    std::uint16_t definitions_eof_status = 0;
    // @@max_allowed_packet, read when a bulk execute first needs it.
    std::size_t max_allowed_packet = 0;
    // Set by a statement execute for the next read_result_head: the
    // statement's cached column definitions, used as they are (no copy)
    // when the server skips them (MARIADB_CLIENT_CACHE_METADATA) and
    // replaced when it sends new ones.
    std::shared_ptr<std::vector<Column>>* statement_columns = nullptr;
    // The LOAD DATA LOCAL source registered for the current command; without
    // one every LOCAL INFILE request is refused and nothing is read.
    LocalInfileSource* local_infile = nullptr;
    // Set while the last command sent is a pipelined fetch whose reply is
    // unread (the session is otherwise idle).
    PendingReply* pending_reply = nullptr;
    // Answers a LOCAL INFILE request: streams the registered source or
    // refuses, then reads the server's final OK/ERR (src/client/upload.cpp).
    void answer_local_infile(protocol::Bytes request);

    // Runs f; a failure that leaves the stream position unknown (any Error
    // but server, usage and conversion, or a fatal server error) marks the
    // session broken before propagating.
    template <class F>
    decltype(auto) guarded(F&& f) {
        check_usable();
        try {
            return f();
        } catch (const Error& e) {
            on_error(e);
            if (lacks_peer(e)) throw naming_peer(e);
            throw;
        }
    }
    void check_usable() const;
    void on_error(const Error& e) noexcept;
    // The protocol and auth decoders are sans-I/O and do not know which
    // server sent the bytes; errors from them get the peer appended here, so
    // every malformed-reply message says where it came from.
    bool lacks_peer(const Error& e) const noexcept;
    Error naming_peer(const Error& e) const;
    void mark_broken(std::string reason) noexcept;

    PacketChannel& chan() { return *channel; }
    protocol::Bytes read() { return chan().read_packet(); }
    // Starts a command: reads a pending reply, discards the previous
    // result, flushes deferred closes, resets the sequence, bumps the
    // generation.
    void begin_command();
    // Encodes into `out` via f(Writer&) and sends it as one packet.
    template <class F>
    void send(F&& encode) {
        out.clear();
        protocol::Writer w(out);
        encode(w);
        chan().send_packet(out);
    }

    // After COM_QUERY / COM_STMT_EXECUTE: OK, ERR or a result set head.
    void read_result_head(bool binary_rows);
    // Reads n column definitions (and the EOF that follows without
    // deprecate-EOF) into `into`.
    void read_column_definitions(std::size_t n, std::vector<Column>& into);
    // Next row of the current result into `row`; false at its end.
    bool next_row();
    // Moves to the next result; false when none.
    bool next_result();
    void drain();
    void set_ok(const protocol::OkPacket& ok_packet);
    void end_rows(protocol::Bytes end_packet);
};

}  // namespace sluice::mariadb::detail
