#include "sluice/postgres/error.hpp"

namespace sluice::postgres {

namespace {

std::string server_text(const ServerDiagnostics& d) {
    std::string text = d.message + " [" + d.sqlstate + "]";
    std::string extra;
    if (!d.detail.empty()) extra = "DETAIL: " + d.detail;
    if (!d.hint.empty()) extra += (extra.empty() ? "" : "; ") + std::string("HINT: ") + d.hint;
    if (!extra.empty()) text += " (" + extra + ")";
    return text;
}

}  // namespace

std::string_view to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::connection: return "connection";
        case ErrorKind::server: return "server";
        case ErrorKind::usage: return "usage";
        case ErrorKind::conversion: return "conversion";
    }
    return "unknown";
}

Error::Error(ServerDiagnostics diagnostics)
    : common::Error(server_text(diagnostics)), kind_(ErrorKind::server), server_(std::move(diagnostics)) {}

bool Error::transient() const noexcept {
    if (kind_ == ErrorKind::connection) return true;
    if (kind_ != ErrorKind::server) return false;
    const std::string& s = server_.sqlstate;
    return s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03" || s == "40001" || s == "40P01" ||
           s == "53300";
}

}  // namespace sluice::postgres
