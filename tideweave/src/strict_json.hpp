// Strict readers for the contract's scalar fields on a simdjson DOM element.
// Each returns false and sets `problem` (a phrase to follow the member's
// name) when the element does not fit.
#pragma once

#include <simdjson.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include "limits.hpp"

namespace sluice::tideweave {

namespace strict {

using simdjson::dom::element;
using simdjson::dom::element_type;

// An integer in [-2^60, 2^60]; a number with a fraction or an exponent is
// not an integer (simdjson types it DOUBLE), whatever its value.
inline bool read_ts(const element& e, std::int64_t& out, std::string& problem) {
    if (e.type() == element_type::INT64) {
        const std::int64_t v = e.get_int64().value_unsafe();
        if (v >= -max_abs_ts && v <= max_abs_ts) {
            out = v;
            return true;
        }
    }
    problem = e.type() == element_type::DOUBLE ? "expected an integer in [-2^60, 2^60] (no fraction or exponent)"
                                               : "expected an integer in [-2^60, 2^60]";
    return false;
}

// Any JSON number; integers must lie within +-2^53 (held exactly as doubles),
// and a number must not overflow a double: the caller's parse replaced such a
// number by `beyond_range_marker` (NaN if none was).
// -0 is read as 0: the value is a number, and its sign of zero would only
// leak into min and max.
inline bool read_value(const element& e, double& out, std::string& problem,
                       double beyond_range_marker = std::numeric_limits<double>::quiet_NaN()) {
    switch (e.type()) {
        case element_type::INT64: {
            const std::int64_t v = e.get_int64().value_unsafe();
            if (v >= -(std::int64_t{1} << 53) && v <= (std::int64_t{1} << 53)) {
                out = static_cast<double>(v);
                return true;
            }
            problem = "integer beyond 2^53 in magnitude";
            return false;
        }
        case element_type::UINT64:
            problem = "integer beyond 2^53 in magnitude";
            return false;
        case element_type::DOUBLE:
            out = e.get_double().value_unsafe() + 0.0;  // -0.0 + 0.0 == +0.0
            if (std::fabs(out) == beyond_range_marker) {
                problem = "number beyond the double range";
                return false;
            }
            return true;
        default:
            problem = "expected a number";
            return false;
    }
}

inline bool read_string(const element& e, std::string_view& out) {
    return e.type() == element_type::STRING && !e.get_string().get(out);
}

inline bool read_id(const element& e, std::string_view& out, std::string& problem) {
    if (!read_string(e, out) || out.empty() || out.size() > max_id_bytes) {
        problem = "expected a non-empty string of at most 256 bytes";
        return false;
    }
    return true;
}

inline bool read_key(const element& e, std::string_view& out, std::string& problem) {
    if (!read_string(e, out) || out.size() > max_key_bytes) {
        problem = "expected a string of at most 256 bytes";
        return false;
    }
    return true;
}

}  // namespace strict
}  // namespace sluice::tideweave
