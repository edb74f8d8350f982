#pragma once
// Answering a LOAD DATA LOCAL INFILE request as an exchange: after the
// ResultReader stopped at the request (Phase::local_infile), the file goes
// out chunk by chunk from the source registered for the command, or, when
// none was registered or the server asked for another name, an empty file
// (a refusal: nothing is read); then the server's final OK or ERR is read.
//
//   LocalInfileExchange infile(capabilities, reader.local_infile_name, &source);  // or nullptr: refuse
//   Step s = infile.start(out);               // write
//   ... s = infile.resume(out, packet) ...    // until Step::done
//   result.set_ok(infile.ok());                // the server's OK
//   infile.finish();                           // throws the reader's failure or the refusal
//
// Errors are the blocking upload's: a server ERR throws from resume() (a
// reader failure before it wins, it is the cause); the reader's failure and
// the refusal come from finish(), after the OK, since the exchange itself
// ended in step and the connection stays usable.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/upload.hpp"

namespace sluice::mariadb::exchange {

// What upload() registers for its one command: the only name the server
// may ask for, the reader of its bytes and the chunk buffer it fills.
struct LocalInfileSource {
    std::string_view name;
    const UploadReader* reader = nullptr;
    std::vector<std::uint8_t> buffer;
};

class LocalInfileExchange {
public:
    // `source` (null: refuse every request) must outlive the exchange.
    LocalInfileExchange(std::uint64_t capabilities, std::string requested, LocalInfileSource* source) noexcept;

    Step start(Outbox& out);
    Step resume(Outbox& out, protocol::Bytes input);

    // After Step::done: the server's OK (its info points into the reply,
    // valid until the next read).
    const protocol::OkPacket& ok() const noexcept { return ok_; }
    // After Step::done: throws the reader's failure, or Error{usage} for a
    // refused request; returns when the file was sent.
    void finish() const;

private:
    enum class State { sending, end_sent, reply, finished };
    Step next_chunk(Outbox& out);

    std::uint64_t capabilities_;
    std::string requested_;
    LocalInfileSource* source_;
    bool registered_;
    State state_ = State::sending;
    std::exception_ptr reader_failure_;
    protocol::OkPacket ok_;
};

}  // namespace sluice::mariadb::exchange
