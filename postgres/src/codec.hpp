#pragma once
// Sans-I/O value codecs: parameters to the bytes libpq sends, field bytes
// (binary or text format) to C++ values. No libpq here, so they are
// unit-tested and fuzzed on bytes alone.
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/postgres/param.hpp"
#include "sluice/postgres/result.hpp"

namespace sluice::postgres::detail {

struct EncodedParam {
    Oid type = 0;        // the type sent with the parameter (0 = let the server infer)
    std::string bytes;   // the value (empty for NULL)
    bool is_null = false;
    int format = 0;      // 0 text, 1 binary
};

// Encodes `param` for a parameter whose server type is `target` (0 when the
// statement is not prepared: the value's own type is sent, text as unknown).
// `position` is the 1-based $n, for messages. Throws Error{conversion}.
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
