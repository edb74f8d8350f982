#include "sluice/nats/stream_reader.hpp"

#include <nats/nats.h>

#include "sluice/nats/error.hpp"

namespace sluice::nats {

struct StreamReader::Handles {
    JetStreamClient* client = nullptr;
    natsSubscription* sub = nullptr;
    natsMsg* current = nullptr;
    std::string stream;
    ~Handles() {
        if (current) natsMsg_Destroy(current);
        if (sub) {
            // No more deliveries (and the ordered consumer is deleted); the
            // memory goes when the client's connection is closed: freed now,
            // the read loop may still be about to use it (client.hpp).
            natsSubscription_Unsubscribe(sub);
            client->destroy_after_close(sub);
        }
    }
};

StreamReader StreamReader::open(JetStreamClient& client, const std::string& stream, const std::string& subject,
                                std::uint64_t first_seq) {
    auto h = std::make_unique<Handles>();
    h->client = &client;
    h->stream = stream;
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = stream.c_str();
    so.Ordered = true;
    so.Config.DeliverPolicy = js_DeliverByStartSequence;
    so.Config.OptStartSeq = first_seq;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    check_nats(js_SubscribeSync(&h->sub, client.context(), subject.c_str(), nullptr, &so, &jerr), jerr,
               "ordered consumer of stream \"" + stream + "\" from sequence " + std::to_string(first_seq));
    // The library's queue of received messages: bounded so that a worker
    // holds at most this much (stream_reader.hpp; it was 256 MiB).
    check_nats(natsSubscription_SetPendingLimits(h->sub, max_pending_messages, max_pending_bytes), 0,
               "the pending limits of the consumer of stream \"" + stream + "\"");
    return StreamReader(std::move(h));
}

StreamReader::StreamReader(std::unique_ptr<Handles> h) noexcept : h_(std::move(h)) {}
StreamReader::StreamReader(StreamReader&&) noexcept = default;
StreamReader& StreamReader::operator=(StreamReader&&) noexcept = default;
StreamReader::~StreamReader() = default;

std::optional<DeliveredMessage> StreamReader::next(std::chrono::milliseconds timeout) {
    if (h_->current) {
        natsMsg_Destroy(h_->current);
        h_->current = nullptr;
    }
    natsStatus s = natsSubscription_NextMsg(&h_->current, h_->sub, timeout.count());
    if (s == NATS_TIMEOUT) return std::nullopt;
    check_nats(s, 0, "reading stream \"" + h_->stream + "\"");
    jsMsgMetaData* meta = nullptr;
    check_nats(natsMsg_GetMetaData(&meta, h_->current), 0, "metadata of a message of stream \"" + h_->stream + "\"");
    DeliveredMessage m;
    m.seq = meta->Sequence.Stream;
    jsMsgMetaData_Destroy(meta);
    m.data = std::string_view(natsMsg_GetData(h_->current), static_cast<std::size_t>(natsMsg_GetDataLength(h_->current)));
    return m;
}

bool StreamReader::pending() const {
    int msgs = 0, bytes = 0;
    if (natsSubscription_GetPending(h_->sub, &msgs, &bytes) != NATS_OK) return false;
    return msgs > 0;
}

StreamReader::Pending StreamReader::pending_now() const {
    Pending p;
    check_nats(natsSubscription_GetPending(h_->sub, &p.messages, &p.bytes), 0,
               "the pending messages of stream \"" + h_->stream + "\"");
    return p;
}

StreamReader::Pending StreamReader::pending_limits() const {
    Pending p;
    check_nats(natsSubscription_GetPendingLimits(h_->sub, &p.messages, &p.bytes), 0,
               "the pending limits of stream \"" + h_->stream + "\"");
    return p;
}

}  // namespace sluice::nats
