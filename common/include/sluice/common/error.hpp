#pragma once
// The one error pattern of sluice. Every part has one exception type of its
// own (sluice::mariadb::Error, sluice::postgres::Error, sluice::nats::Error,
// sluice::pipeline::Error, ...), each with its own enum of kinds; all of them
// derive from this class, so that code which joins parts (the pipeline's
// retry loop, a tool's top-level handler) asks an error what it is instead of
// triaging it with dynamic_cast chains:
//
//   - part():      which part raised it ("mariadb", "postgres", "nats", ...);
//   - kind_name(): the part's kind, as text ("io", "server", "usage", ...);
//   - transient(): whether the same operation may succeed if retried later
//                  (a lost connection, a server shutting down), as opposed to
//                  a failure that retrying cannot cure (bad credentials, a
//                  malformed packet, a usage error);
//   - what():      the message, naming what and where.
//
// A part that reports errors as values (Tideweave's Result<T>) keeps its
// value type for the hot path and throws its exception type, derived from
// this one, where an error leaves the part.
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice::common {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
    Error(const Error&) = default;
    Error& operator=(const Error&) = default;
    ~Error() override;

    // The part that raised the error, e.g. "mariadb".
    virtual std::string_view part() const noexcept = 0;
    // The part's kind of failure, e.g. "io" or "server".
    virtual std::string_view kind_name() const noexcept = 0;
    // True when retrying the same operation later may succeed.
    virtual bool transient() const noexcept = 0;
    // A one-line description for a log: the message and, where the message
    // does not say it, what kind of failure it was. Parts may add their own
    // detail (a server's code and SQLSTATE).
    virtual std::string describe() const;
};

// `e` as a sluice error, or nullptr for any other exception.
const Error* as_error(const std::exception& e) noexcept;

// True when `e` is a sluice error whose transient() says so; any other
// exception (std::bad_alloc, a logic error) is not transient.
bool is_transient(const std::exception& e) noexcept;

}  // namespace sluice::common
