#pragma once
// The state behind a Connection, shared by its ResultSets and Statements
// (which hold a pointer to it; the Connection owns it, so moving the
// Connection does not move it).
//
// It holds what the connection as a whole has (channel, capabilities,
// broken state, buffers); each exchange (src/client/exchange/) owns its own
// state, and the result being read is the ResultReader's.
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

#include "blocking_runner.hpp"
#include "feature_states.hpp"
#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/exchange/result_reader.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/protocol/wire.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/row.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"

namespace sluice::mariadb::exchange {
struct LocalInfileSource;  // exchange/local_infile.hpp
}  // namespace sluice::mariadb::exchange

namespace sluice::mariadb::detail {

using exchange::Phase;

struct Session;

// A reply the client asked for but has not read yet: a cursor's pipelined
// COM_STMT_FETCH (src/client/cursor.cpp, its CursorFetchExchange reads
// it), or a pipeline's steps. begin_command() has it read first, so the
// stream stays in step and the cursor keeps its rows.
struct PendingReply {
    virtual void read(Session& s) = 0;

protected:
    ~PendingReply() = default;
};

// A command's whole response, read ahead by an AsyncConnection: the
// session's reads take its packets instead of reading a channel, so the
// blocking API's ResultSet walks it (src/client/async_connection.cpp).
struct Replay {
    std::vector<std::uint8_t> bytes;
    std::vector<std::size_t> ends;  // where each packet ends in `bytes`
    std::size_t next = 0;

    void clear() noexcept {
        bytes.clear();
        ends.clear();
        next = 0;
    }
    void add(protocol::Bytes packet) {
        bytes.insert(bytes.end(), packet.begin(), packet.end());
        ends.push_back(bytes.size());
    }
    protocol::Bytes take() {
        if (next == ends.size()) {
            throw Error(ErrorKind::protocol, "read past the end of the response read ahead");
        }
        const std::size_t begin = next == 0 ? 0 : ends[next - 1];
        const std::size_t end = ends[next++];
        return protocol::Bytes(bytes.data() + begin, end - begin);
    }
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

    std::vector<std::uint8_t> out;  // encoding buffer of send(), reused
    exchange::Outbox outbox;        // what the exchanges ask to send, reused

    // The current command's results: their exchange and state (columns,
    // row, OK, phase, generation, last server status).
    exchange::ResultReader result;

    // Statements destroyed while a result was being read: closed before the
    // next command.
    std::vector<std::uint32_t> deferred_closes;

    // What features keep per connection without a field here (the bulk
    // exchange's @@max_allowed_packet cache).
    FeatureStates features;

    // The reply the stream owes before the next command can start: a
    // cursor's pipelined fetch, or a command pipeline's outstanding steps
    // (which refuse). The stream's position, not a feature's state, so it
    // stays here: every begin_command() consults it.
    PendingReply* pending_reply = nullptr;
    // Set by an AsyncConnection while its ResultSet reads a response it
    // read ahead.
    Replay* replay = nullptr;
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

    PacketChannel& chan() {
        if (!channel) {
            throw Error(ErrorKind::usage,
                        "this connection is an AsyncConnection's: run its commands through the AsyncConnection");
        }
        return *channel;
    }
    protocol::Bytes read() { return replay ? replay->take() : chan().read_packet(); }
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

    // Runs an exchange to its end over the channel (blocking_runner.hpp).
    template <class Resume>
    void run(exchange::Step first, Resume&& resume);

    // After COM_QUERY / COM_STMT_EXECUTE: OK, ERR or a result set head
    // (a statement's cached columns: see ResultReader::expect_head). A LOCAL
    // INFILE request is answered from `infile`, the source upload()
    // registered for its command; without one it is refused and nothing is
    // read (exchange/local_infile.hpp).
    void read_result_head(bool binary_rows, std::shared_ptr<std::vector<Column>>* statement_columns = nullptr,
                          exchange::LocalInfileSource* infile = nullptr);
    // Next row of the current result into result.row; false at its end.
    // Inline: it is the row loop of every blocking result.
    bool next_row() { return result.phase == Phase::rows && result.row_packet(read()); }
    // Moves to the next result; false when none.
    bool next_result();
    void drain();
    void set_ok(const protocol::OkPacket& ok_packet) { result.set_ok(ok_packet); }
};

template <class Resume>
void Session::run(exchange::Step step, Resume&& resume) {
    using exchange::Step;
    for (;;) {
        switch (step) {
            case Step::read: step = resume(read()); break;
            case Step::write:
                send_outbox(chan(), outbox);
                step = resume(protocol::Bytes{});
                break;
            case Step::done: return;
            case Step::start_tls:
            case Step::compress: throw Error(ErrorKind::usage, "only the login switches the transport");
        }
    }
}
}  // namespace sluice::mariadb::detail
