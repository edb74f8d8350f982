// The `--schema` descriptions parser on arbitrary bytes: it accepts or
// rejects with a message, never crashes; what it accepts writes back to text
// that reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "driver/descriptions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<keal::driver::Description> parsed;
  std::string error;
  if (!keal::driver::read_descriptions(text, parsed, error)) {
    if (error.empty()) std::abort();  // a rejection always says why
    return 0;
  }
  const std::string written = keal::driver::write_descriptions(parsed);
  std::vector<keal::driver::Description> again;
  if (!keal::driver::read_descriptions(written, again, error)) std::abort();
  if (keal::driver::write_descriptions(again) != written) std::abort();
  return 0;
}
