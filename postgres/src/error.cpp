#include "sluice/postgres/error.hpp"

namespace sluice::postgres {

namespace {

std::string describe(const ServerDiagnostics& d) {
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
    : std::runtime_error(describe(diagnostics)), kind_(ErrorKind::server), server_(std::move(diagnostics)) {}

}  // namespace sluice::postgres
