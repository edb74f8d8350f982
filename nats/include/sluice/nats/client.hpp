#pragma once
// A NATS JetStream connection (the Debian C client, libnats 3.4), reduced to
// what the CDC publisher and the pipeline's stream source need: the stream's
// state, one stored message by sequence, stream creation, and the raw
// handles for asynchronous publishing and ordered consumers.
//
//   JetStreamClient c = JetStreamClient::connect("nats://127.0.0.1:4222,nats://127.0.0.1:4223");
//   if (auto s = c.stream_state("ORDERS")) { StoredMessage m = c.message("ORDERS", s->last_seq); ... }
//
// Errors are sluice::nats::Error (error.hpp): io (no server reachable),
// closed (connection lost), timeout (no answer in time: a leader election,
// a node down), server (a JetStream API error: api_code() is its err_code,
// e.g. 10059 stream not found), usage (a bad URL or name); transient() says
// which are worth retrying.
//
// LIFETIME: the client owns the connection and the JetStream context; the
// raw handles are valid while it lives. StoredMessage owns its bytes.
// Thread safety is libnats's: the client may be shared with the library's
// callback threads, not used from two of our threads at once.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/nats/error.hpp"

// libnats's handle types (nats/nats.h), declared here so that users of this
// header need not include the C client.
struct __natsConnection;
struct __jsCtx;
struct __natsSubscription;
struct __natsMsg;
struct jsPubAck;
struct jsPubAckErr;

namespace sluice::nats {

struct StreamState {
    std::uint64_t messages = 0;
    std::uint64_t first_seq = 0;
    std::uint64_t last_seq = 0;  // 0: the stream never held a message
    std::int64_t replicas = 0;
    std::vector<std::string> subjects;
};

struct StoredMessage {
    std::uint64_t seq = 0;
    std::string subject;
    std::map<std::string, std::string> headers;  // first value of each header
    std::string data;

    // The header's value; Error{protocol} naming the header and the
    // message when it is missing.
    const std::string& header(const std::string& name, std::string_view stream) const;
};

struct StreamConfig {
    std::string name;
    std::vector<std::string> subjects;
    std::int64_t replicas = 1;  // file storage, limits retention, no limits
};

struct ClientOptions {
    // Each JetStream API call waits this long for an answer.
    std::int64_t api_wait_ms = 10000;
    // Reconnects: forever (the caller decides when to give up), every 250 ms.
    std::int64_t reconnect_wait_ms = 250;
    // Async publishing: at most this many unacknowledged messages.
    std::int64_t max_pending = 1000;
    // Called by libnats's thread for every acknowledgment (publisher only).
    // (ack is null on failure, err null on success; see jsPubAckHandler.)
    void (*ack_handler)(__jsCtx*, __natsMsg*, jsPubAck*, jsPubAckErr*, void* closure) = nullptr;
    void* ack_closure = nullptr;
};

class JetStreamClient {
public:
    // `urls`: one or more nats://HOST:PORT, comma-separated (the client
    // also learns the cluster's other nodes from the server).
    static JetStreamClient connect(const std::string& urls, const ClientOptions& options = {});

    JetStreamClient(JetStreamClient&&) noexcept;
    JetStreamClient& operator=(JetStreamClient&&) noexcept;
    ~JetStreamClient();

    // nullopt when the stream does not exist.
    std::optional<StreamState> stream_state(const std::string& stream);
    void add_stream(const StreamConfig& config);
    // Deletes the stream and its messages; false when it did not exist.
    bool delete_stream(const std::string& stream);
    // The largest message the server accepts (its max_payload).
    std::int64_t max_payload();
    StoredMessage message(const std::string& stream, std::uint64_t seq);
    // One message, synchronously: returns the sequence the stream gave it.
    std::uint64_t publish(const std::string& subject, const std::string& data,
                          const std::vector<std::pair<std::string, std::string>>& headers);
    // Servers the connection knows (given and discovered).
    std::size_t known_servers();

    __natsConnection* connection() noexcept;
    __jsCtx* context() noexcept;
    // Takes an unsubscribed subscription and frees it once the connection
    // is closed (when the client is destroyed). libnats 3.4's read loop
    // looks a subscription up and then locks it without holding a
    // reference: a subscription freed in between is a use after free (a
    // SIGSEGV in natsConn_processMsg; nats.c issue 637, fixed upstream in
    // 3.10). Closing the connection joins the read loop first.
    void destroy_after_close(__natsSubscription* unsubscribed) noexcept;

private:
    struct Handles;
    explicit JetStreamClient(std::unique_ptr<Handles> h) noexcept;
    std::unique_ptr<Handles> h_;
};

// Throws Error for a failed libnats call: `what` says which call, on what.
// `js_code` is the JetStream API error code when the server gave one.
[[noreturn]] void throw_nats(int status, int js_code, const std::string& what);
inline void check_nats(int status, int js_code, const std::string& what) {
    if (status != 0) throw_nats(status, js_code, what);
}

}  // namespace sluice::nats
