#pragma once
// What /healthz answers: healthy while no part (the source, the sink) has
// a problem; else the problems, each with its reason ("source: connection
// refused; retrying"). The tools set a problem when a connection is lost
// (the process retrying) and clear it once the part answers again.
#include <map>
#include <mutex>
#include <string>

namespace sluice::service {

class Health {
public:
    void problem(const std::string& part, const std::string& reason) {
        std::lock_guard lock(mutex_);
        problems_[part] = reason;
    }
    void ok(const std::string& part) {
        std::lock_guard lock(mutex_);
        problems_.erase(part);
    }
    // Empty when healthy; else "part: reason" for each part, joined by "; ".
    std::string problems() const {
        std::lock_guard lock(mutex_);
        std::string out;
        for (const auto& [part, reason] : problems_) {
            if (!out.empty()) out += "; ";
            out += part + ": " + reason;
        }
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::string> problems_;
};

}  // namespace sluice::service
