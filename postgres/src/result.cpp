#include "sluice/postgres/result.hpp"

#include <cstdlib>
#include <utility>

#include "codec.hpp"
#include "handle.hpp"

// [[gnu::hot]] marks what runs once per executed statement or per row: GCC
// places those functions together (.text.hot), so a query's path through
// the layer touches a few code pages rather than a dozen spread over the
// program. A client waiting on the server between queries often resumes
// with cold caches and TLB, where each page and cache line costs.

namespace sluice::postgres {

[[gnu::hot]] Result::Result(pg_result* result, std::shared_ptr<const std::vector<Column>> columns, Format format)
    : result_(result), columns_(std::move(columns)), format_(format) {
    if (!columns_) {
        try {
            columns_ = std::make_shared<const std::vector<Column>>(detail::columns_of(result_));
        } catch (...) {
            PQclear(result_);
            throw;
        }
    }
}
[[gnu::hot]] Result::Result(Result&& other) noexcept
    : result_(std::exchange(other.result_, nullptr)), columns_(std::move(other.columns_)), format_(other.format_) {}
[[gnu::hot]] Result& Result::operator=(Result&& other) noexcept {
    if (this != &other) {
        if (result_ != nullptr) PQclear(result_);
        result_ = std::exchange(other.result_, nullptr);
        columns_ = std::move(other.columns_);
        format_ = other.format_;
    }
    return *this;
}
[[gnu::hot]] Result::~Result() {
    if (result_ != nullptr) PQclear(result_);
}


[[gnu::hot]] int Result::size() const noexcept { return PQntuples(result_); }

[[gnu::hot]] Row Result::row(int index) const {
    if (index < 0 || index >= size())
        throw Error(ErrorKind::usage, "row " + std::to_string(index) + " of a result with " +
                                          std::to_string(size()) + " rows");
    return Row(this, index);
}

std::uint64_t Result::affected_rows() const {
    const char* n = PQcmdTuples(result_);
    return (n != nullptr && *n != '\0') ? std::strtoull(n, nullptr, 10) : 0;
}

std::string Result::command_tag() const {
    const char* tag = PQcmdStatus(result_);
    return tag != nullptr ? tag : "";
}

void Row::throw_no_column(int index) const {
    throw Error(ErrorKind::usage, "column " + std::to_string(index) + " of a row with " + std::to_string(size()) +
                                      " columns");
}

[[gnu::hot]] bool Row::is_null(int index) const {
    column(index);
    return PQgetisnull(result_->result_, index_, index) != 0;
}

namespace {

struct Field {
    std::string_view bytes;
    bool null;
};

Field field_of(const PGresult* r, int row, int column) {
    if (PQgetisnull(r, row, column)) return {{}, true};
    return {std::string_view(PQgetvalue(r, row, column), static_cast<std::size_t>(PQgetlength(r, row, column))),
            false};
}


}  // namespace

[[noreturn]] void Row::throw_null(int index) const {
    throw Error(ErrorKind::conversion,
                detail::FieldName(column(index), index).str() + " is NULL; read it as std::optional to accept NULL");
}

[[gnu::hot]] std::optional<std::string_view> Row::raw(int index) const {
    column(index);
    const Field f = field_of(result_->result_, index_, index);
    if (f.null) return std::nullopt;
    return f.bytes;
}

#define SLUICE_PG_READ(name, value_type, decoder)                                                  \
    [[gnu::hot]] std::optional<value_type> Row::name(int index) const {                                          \
        const Column& c = column(index);                                                     \
        const Field f = field_of(result_->result_, index_, index);             \
        if (f.null) return std::nullopt;                                                     \
        return detail::decoder(f.bytes, c.type, result_->format(), detail::FieldName(c, index));       \
    }

SLUICE_PG_READ(read_int, std::int64_t, decode_int)
SLUICE_PG_READ(read_float, double, decode_float)
SLUICE_PG_READ(read_bool, bool, decode_bool)
SLUICE_PG_READ(read_text, std::string_view, decode_text)
SLUICE_PG_READ(read_bytes, Bytes, decode_bytes)
#undef SLUICE_PG_READ

}  // namespace sluice::postgres
