#pragma once
// Sans-I/O value codecs: parameters to the bytes libpq sends, field bytes
// (binary or text format) to C++ values. No libpq here, so they are
// unit-tested and fuzzed on bytes alone.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/postgres/param.hpp"
#include "sluice/postgres/result.hpp"

namespace sluice::postgres::detail {

// One parameter as libpq sends it. Its bytes are either made here (binary
// scalars, the decimal text of a number: in `scratch`, so encoding allocates
// nothing) or borrowed from the Param's own text or bytes. A text-format
// value is NUL-terminated either way (libpq sends such a parameter up to its
// NUL and ignores the length).
//
// LIFETIME: bytes() of a borrowed value is valid while the Param it was
// encoded from lives (Connection's calls send it before returning).
struct EncodedParam {
    Oid type = 0;         // the type sent with the parameter (0 = let the server infer)
    bool is_null = false;
    int format = 0;       // 0 text, 1 binary

    std::string_view bytes() const noexcept {
        return borrowed != nullptr ? std::string_view(borrowed, length) : std::string_view(scratch, length);
    }
    // The bytes for libpq (nullptr for NULL): a pointer into this object or
    // into the Param, so the EncodedParam must not move before the call.
    const char* data() const noexcept { return is_null ? nullptr : borrowed != nullptr ? borrowed : scratch; }

    // Room for every encoding made here: an int8's 20 decimal digits and
    // sign, a float8's shortest round-trip text (at most 24 characters).
    static constexpr std::size_t kScratch = 32;
    const char* borrowed = nullptr;
    std::size_t length = 0;
    char scratch[kScratch];
};

// Encodes `param` for a parameter whose server type is `target` (0 when the
// statement is not prepared: the value's own type is sent, text as unknown).
// `position` is the 1-based $n, for messages. Throws Error{conversion}.
// Text and bytes are borrowed from `param` (see EncodedParam).
EncodedParam encode_param(const Param& param, Oid target, int position);

// The text form of a float8 that reads back to the same double
// ("Infinity", "-Infinity", "NaN" for the special values).
std::string float_text(double v);

// What a decoded value is called in an error message: a given name, or a
// result column ("column 2 (\"score\", int8)"). The text is made only when a
// decode fails, so reading a field builds no string.
class FieldName {
public:
    FieldName(const char* name) : name_(name) {}
    FieldName(const std::string& name) : name_(name.c_str()) {}
    FieldName(const Column& column, int index) : column_(&column), index_(index) {}
    std::string str() const;

private:
    const char* name_ = nullptr;
    const Column* column_ = nullptr;
    int index_ = 0;
};

// Field decoders. `bytes` is the field as received in `format`; `what`
// names the column for messages. Each throws Error{conversion} when the
// type or the bytes do not fit.
std::int64_t decode_int(std::string_view bytes, Oid type, Format format, const FieldName& what);
double decode_float(std::string_view bytes, Oid type, Format format, const FieldName& what);
bool decode_bool(std::string_view bytes, Oid type, Format format, const FieldName& what);
std::string_view decode_text(std::string_view bytes, Oid type, Format format, const FieldName& what);
Bytes decode_bytes(std::string_view bytes, Oid type, Format format, const FieldName& what);

}  // namespace sluice::postgres::detail
