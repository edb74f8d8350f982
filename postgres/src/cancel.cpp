#include "sluice/postgres/cancel.hpp"

#include "handle.hpp"

namespace sluice::postgres {

struct CancelRequest::Handle {
    PGcancel* cancel = nullptr;
    ~Handle() {
        if (cancel != nullptr) PQfreeCancel(cancel);
    }
};

CancelRequest::CancelRequest(std::unique_ptr<Handle> handle) : handle_(std::move(handle)) {}
CancelRequest::CancelRequest(CancelRequest&&) noexcept = default;
CancelRequest& CancelRequest::operator=(CancelRequest&&) noexcept = default;
CancelRequest::~CancelRequest() = default;

bool CancelRequest::send() const noexcept {
    if (!handle_ || handle_->cancel == nullptr) return false;
    char buffer[256];
    return PQcancel(handle_->cancel, buffer, sizeof buffer) == 1;
}

CancelRequest Connection::cancel_request() const {
    auto handle = std::make_unique<CancelRequest::Handle>();
    handle->cancel = PQgetCancel(session_->conn);
    if (handle->cancel == nullptr) throw Error(ErrorKind::connection, "libpq could not make a cancel request");
    return CancelRequest(std::move(handle));
}

}  // namespace sluice::postgres
