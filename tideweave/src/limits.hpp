// The contract's ranges and the checkpoint's format tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::tideweave {

inline constexpr std::int64_t max_abs_ts = std::int64_t{1} << 60;      // ts, watermark, gap, lateness
inline constexpr double max_abs_integer_value = 9007199254740992.0;    // 2^53
inline constexpr std::size_t max_id_bytes = 256;
inline constexpr std::size_t max_key_bytes = 256;
inline constexpr std::string_view checkpoint_format = "tideweave-checkpoint-1";

}  // namespace sluice::tideweave
