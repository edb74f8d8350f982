#pragma once
// The binlog dump as an exchange: COM_REGISTER_SLAVE and its reply, then
// COM_BINLOG_DUMP (no reply of its own: the events follow), then the dump
// stream one packet at a time (protocol/replica.hpp: an event, the end of
// a non-blocking dump, or the server's ERR).
//
//   Step s = dump.start(out, request);                    // register, its reply, the dump request
//   run to Step::done                                     // the dump started
//   for (;;) {                                            // each packet of the stream:
//       dump.resume(out, packet);                         //   Step::done with event() or ended()
//   }
//
// The session variables the dump needs (protocol::replica_setup_statements)
// are plain queries before it. A server error throws Error{server}; which
// command it answered is failed_command(), for the caller's message (the
// CDC names the missing privilege or the purged GTIDs: src/cdc/).
#include <cstdint>
#include <string_view>

#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::exchange {

struct DumpStart {
    // The replica id registered (the server kills an older dump of the same id).
    std::uint32_t server_id = 0;
    // The server ends the dump with EOF at the end of its last binlog
    // instead of waiting for more.
    bool non_blocking = false;
};

class BinlogDumpExchange {
public:
    // COM_REGISTER_SLAVE into the outbox: Step::write.
    Step start(Outbox& out, const DumpStart& request);
    // After a write: resume(out, {}). With a packet: the register's reply
    // (then COM_BINLOG_DUMP goes out, and after that write Step::done: the
    // dump started), or once started one packet of the stream: Step::done,
    // with event() or ended().
    Step resume(Outbox& out, protocol::Bytes input);

    bool started() const noexcept { return state_ == State::streaming || state_ == State::ended; }
    // The last event's bytes (header to checksum), valid until the next
    // packet is read.
    protocol::Bytes event() const noexcept { return event_; }
    // The server ended a non-blocking dump (0xFE): nothing more follows.
    bool ended() const noexcept { return state_ == State::ended; }
    // The command a server error answered: "COM_REGISTER_SLAVE", or
    // "binlog dump" once COM_BINLOG_DUMP went out.
    std::string_view failed_command() const noexcept;

private:
    enum class State { register_sent, register_reply, dump_sent, streaming, ended };
    State state_ = State::register_sent;
    DumpStart request_;
    protocol::Bytes event_;
};

}  // namespace sluice::mariadb::exchange
