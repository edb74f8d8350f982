#include "sluice/common/error.hpp"

namespace sluice::common {

// Out of line, so that the vtable has one home.
Error::~Error() = default;

std::string Error::describe() const {
    return std::string(what()) + " (" + std::string(kind_name()) + ")";
}

const Error* as_error(const std::exception& e) noexcept {
    // The one place that asks which kind of exception this is: every sluice
    // error answers for itself from here on.
    return dynamic_cast<const Error*>(&e);
}

bool is_transient(const std::exception& e) noexcept {
    const Error* error = as_error(e);
    return error != nullptr && error->transient();
}

}  // namespace sluice::common
