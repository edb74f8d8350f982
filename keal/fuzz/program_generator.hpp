#pragma once
// Random well-typed Keal programs, for checking the back end: every program
// the checker accepts must become C that compiles cleanly, and a native
// program must either finish or stop with a Keal runtime error, never crash.

#include <cstdint>
#include <string>

namespace keal::fuzz {

enum class Flavour : std::uint8_t { Pg, Native };

// The same seed always gives the same program.
std::string generate_program(std::uint64_t seed, Flavour flavour);

}  // namespace keal::fuzz
