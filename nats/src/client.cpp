#include "sluice/nats/client.hpp"

#include <nats/nats.h>

#include <cstdlib>
#include <sstream>
#include <utility>

#include "sluice/nats/error.hpp"

namespace sluice::nats {

namespace {

std::vector<std::string> split_urls(const std::string& urls) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(urls);
    while (std::getline(in, item, ',')) {
        while (!item.empty() && item.front() == ' ') item.erase(item.begin());
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (item.empty()) continue;
        if (item.rfind("nats://", 0) != 0)
            throw Error(ErrorKind::usage, "\"" + item + "\": expected a nats://HOST:PORT URL");
        out.push_back(item);
    }
    if (out.empty()) throw Error(ErrorKind::usage, "no NATS server URL given");
    return out;
}

}  // namespace

[[noreturn]] void throw_nats(int status, int js_code, const std::string& what) {
    const auto s = static_cast<natsStatus>(status);
    std::string message = what + ": " + natsStatus_GetText(s);
    if (js_code) message += " (JetStream error " + std::to_string(js_code) + ")";
    // The library's last error text often names the cause (e.g. the server's
    // description of an API error).
    natsStatus last = NATS_OK;
    if (const char* text = nats_GetLastError(&last); text && *text && last == s) message += ": " + std::string(text);
    switch (s) {
        case NATS_TIMEOUT:
        case NATS_NO_RESPONDERS: throw Error(ErrorKind::timeout, message);
        case NATS_CONNECTION_CLOSED:
        case NATS_CONNECTION_DISCONNECTED:
        case NATS_STALE_CONNECTION:
        case NATS_INSUFFICIENT_BUFFER: throw Error(ErrorKind::closed, message);
        case NATS_NO_SERVER:
        case NATS_IO_ERROR: throw Error(ErrorKind::io, message);
        case NATS_INVALID_ARG:
        case NATS_INVALID_SUBJECT: throw Error(ErrorKind::usage, message);
        default: break;
    }
    if (js_code) throw Error(js_code, message);
    throw Error(ErrorKind::protocol, message);
}

const std::string& StoredMessage::header(const std::string& name, std::string_view stream) const {
    auto it = headers.find(name);
    if (it == headers.end())
        throw Error(ErrorKind::protocol, "message " + std::to_string(seq) + " of stream \"" + std::string(stream) +
                                             "\" has no " + name + " header");
    return it->second;
}

struct JetStreamClient::Handles {
    natsOptions* options = nullptr;
    natsConnection* nc = nullptr;
    jsCtx* js = nullptr;
    std::vector<natsSubscription*> retired;
    ~Handles() {
        // Close first: it joins the read loop, so no subscription (ours, or
        // the context's one for asynchronous acknowledgments) is freed while
        // the loop may still hand it a message (destroy_after_close).
        if (nc) natsConnection_Close(nc);
        for (natsSubscription* sub : retired) natsSubscription_Destroy(sub);
        if (js) jsCtx_Destroy(js);
        if (nc) natsConnection_Destroy(nc);
        if (options) natsOptions_Destroy(options);
    }
};

JetStreamClient JetStreamClient::connect(const std::string& urls, const ClientOptions& o) {
    const std::vector<std::string> list = split_urls(urls);
    std::vector<const char*> servers;
    for (const auto& u : list) servers.push_back(u.c_str());
    auto h = std::make_unique<Handles>();
    check_nats(natsOptions_Create(&h->options), 0, "creating NATS options");
    check_nats(natsOptions_SetServers(h->options, servers.data(), static_cast<int>(servers.size())), 0,
               "NATS servers " + urls);
    natsOptions_SetMaxReconnect(h->options, -1);
    natsOptions_SetReconnectWait(h->options, o.reconnect_wait_ms);
    natsOptions_SetTimeout(h->options, 5000);
    check_nats(natsConnection_Connect(&h->nc, h->options), 0, "connecting to NATS at " + urls);
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = o.api_wait_ms;
    jo.PublishAsync.MaxPending = o.max_pending;
    jo.PublishAsync.AckHandler = o.ack_handler;
    jo.PublishAsync.AckHandlerClosure = o.ack_closure;
    // A full window blocks the publishing thread until acknowledgments free
    // a slot (it fails only after this long).
    jo.PublishAsync.StallWait = o.api_wait_ms;
    check_nats(natsConnection_JetStream(&h->js, h->nc, &jo), 0, "JetStream context on " + urls);
    return JetStreamClient(std::move(h));
}

JetStreamClient::JetStreamClient(std::unique_ptr<Handles> h) noexcept : h_(std::move(h)) {}
JetStreamClient::JetStreamClient(JetStreamClient&&) noexcept = default;
JetStreamClient& JetStreamClient::operator=(JetStreamClient&&) noexcept = default;
JetStreamClient::~JetStreamClient() = default;

natsConnection* JetStreamClient::connection() noexcept { return h_->nc; }

void JetStreamClient::destroy_after_close(natsSubscription* unsubscribed) noexcept {
    try {
        h_->retired.push_back(unsubscribed);
    } catch (...) {
        // Out of memory: leaking it is safe, freeing it now is not.
    }
}
jsCtx* JetStreamClient::context() noexcept { return h_->js; }

std::optional<StreamState> JetStreamClient::stream_state(const std::string& stream) {
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_GetStreamInfo(&si, h_->js, stream.c_str(), nullptr, &jerr);
    if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) return std::nullopt;
    check_nats(s, jerr, "stream info of \"" + stream + "\"");
    StreamState out;
    out.messages = si->State.Msgs;
    out.first_seq = si->State.FirstSeq;
    out.last_seq = si->State.LastSeq;
    out.replicas = si->Config ? si->Config->Replicas : 0;
    if (si->Config)
        for (int i = 0; i < si->Config->SubjectsLen; ++i) out.subjects.emplace_back(si->Config->Subjects[i]);
    jsStreamInfo_Destroy(si);
    return out;
}

void JetStreamClient::add_stream(const StreamConfig& c) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = c.name.c_str();
    std::vector<const char*> subjects;
    for (const auto& s : c.subjects) subjects.push_back(s.c_str());
    cfg.Subjects = subjects.data();
    cfg.SubjectsLen = static_cast<int>(subjects.size());
    cfg.Storage = js_FileStorage;
    cfg.Retention = js_LimitsPolicy;
    cfg.Replicas = c.replicas;
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_AddStream(&si, h_->js, &cfg, nullptr, &jerr);
    if (si) jsStreamInfo_Destroy(si);
    // Created meanwhile by another process with the same configuration:
    // the server answers success; with another one, "name already in use".
    check_nats(s, jerr, "creating stream \"" + c.name + "\" (" + std::to_string(c.replicas) + " replicas)");
}

StoredMessage JetStreamClient::message(const std::string& stream, std::uint64_t seq) {
    natsMsg* m = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    check_nats(js_GetMsg(&m, h_->js, stream.c_str(), seq, nullptr, &jerr), jerr,
               "message " + std::to_string(seq) + " of stream \"" + stream + "\"");
    StoredMessage out;
    out.seq = seq;
    out.subject = natsMsg_GetSubject(m);
    out.data.assign(natsMsg_GetData(m), static_cast<std::size_t>(natsMsg_GetDataLength(m)));
    const char** keys = nullptr;
    int count = 0;
    if (natsMsgHeader_Keys(m, &keys, &count) == NATS_OK) {
        for (int i = 0; i < count; ++i) {
            const char* v = nullptr;
            if (natsMsgHeader_Get(m, keys[i], &v) == NATS_OK && v) out.headers.emplace(keys[i], v);
        }
        free(static_cast<void*>(keys));
    }
    natsMsg_Destroy(m);
    return out;
}

std::uint64_t JetStreamClient::publish(const std::string& subject, const std::string& data,
                                       const std::vector<std::pair<std::string, std::string>>& headers) {
    natsMsg* m = nullptr;
    check_nats(natsMsg_Create(&m, subject.c_str(), nullptr, data.data(), static_cast<int>(data.size())), 0,
               "message for " + subject);
    for (const auto& [k, v] : headers) natsMsgHeader_Set(m, k.c_str(), v.c_str());
    jsPubAck* pa = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_PublishMsg(&pa, h_->js, m, nullptr, &jerr);
    natsMsg_Destroy(m);
    check_nats(s, jerr, "publishing to " + subject);
    const std::uint64_t seq = pa->Sequence;
    jsPubAck_Destroy(pa);
    return seq;
}

bool JetStreamClient::delete_stream(const std::string& stream) {
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_DeleteStream(h_->js, stream.c_str(), nullptr, &jerr);
    if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) return false;
    check_nats(s, jerr, "deleting stream \"" + stream + "\"");
    return true;
}

std::int64_t JetStreamClient::max_payload() { return natsConnection_GetMaxPayload(h_->nc); }

std::size_t JetStreamClient::known_servers() {
    char** servers = nullptr;
    int count = 0;
    if (natsConnection_GetServers(h_->nc, &servers, &count) != NATS_OK) return 0;
    for (int i = 0; i < count; ++i) free(servers[i]);
    free(static_cast<void*>(servers));
    return static_cast<std::size_t>(count);
}

}  // namespace sluice::nats
