// Every field decoder, in both formats and for every well-known type, on
// arbitrary bytes: each must return a value or throw Error{conversion},
// never crash or read out of bounds. Decoded text and bytes go back through
// the parameter and COPY encoders.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "codec.hpp"
#include "sluice/postgres/copy.hpp"

using namespace sluice::postgres;

namespace {

constexpr Oid types[] = {type_oid::boolean, type_oid::bytea, type_oid::char_, type_oid::name,
                         type_oid::int8,    type_oid::int2,  type_oid::int4,  type_oid::text,
                         type_oid::json,    type_oid::float4, type_oid::float8, type_oid::unknown,
                         type_oid::bpchar,  type_oid::varchar, type_oid::numeric, 3802};

template <class F>
void attempt(F&& f) {
    try {
        f();
    } catch (const Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const Oid type = types[data[0] % (sizeof types / sizeof types[0])];
    const Format format = (data[0] & 0x80) ? Format::binary : Format::text;
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    using namespace sluice::postgres::detail;
    attempt([&] { encode_param(Param(decode_int(bytes, type, format, "c")), type, 1); });
    attempt([&] { encode_param(Param(decode_float(bytes, type, format, "c")), type, 1); });
    attempt([&] { decode_bool(bytes, type, format, "c"); });
    attempt([&] {
        std::string out;
        append_copy_row(out, {std::string(decode_text(bytes, type, format, "c"))});
    });
    attempt([&] {
        std::string out;
        append_copy_row(out, {decode_bytes(bytes, type, format, "c")});
    });
    return 0;
}
