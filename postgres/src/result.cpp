#include "sluice/postgres/result.hpp"

#include <cstdlib>

#include "codec.hpp"
#include "handle.hpp"

namespace sluice::postgres {

Result::Result(std::unique_ptr<Handle> handle, Format format) : handle_(std::move(handle)), format_(format) {
    if (!handle_->columns) handle_->columns = std::make_shared<const std::vector<Column>>(
                                 detail::columns_of(handle_->result.get()));
}
Result::Result(Result&&) noexcept = default;
Result& Result::operator=(Result&&) noexcept = default;
Result::~Result() = default;

const std::vector<Column>& Result::columns() const noexcept { return *handle_->columns; }

int Result::size() const noexcept { return PQntuples(handle_->result.get()); }

Row Result::row(int index) const {
    if (index < 0 || index >= size())
        throw Error(ErrorKind::usage, "row " + std::to_string(index) + " of a result with " +
                                          std::to_string(size()) + " rows");
    return Row(this, index);
}

std::uint64_t Result::affected_rows() const {
    const char* n = PQcmdTuples(handle_->result.get());
    return (n != nullptr && *n != '\0') ? std::strtoull(n, nullptr, 10) : 0;
}

std::string Result::command_tag() const {
    const char* tag = PQcmdStatus(handle_->result.get());
    return tag != nullptr ? tag : "";
}

int Row::size() const noexcept { return static_cast<int>(result_->columns().size()); }

const Column& Row::column(int index) const {
    if (index < 0 || index >= size())
        throw Error(ErrorKind::usage, "column " + std::to_string(index) + " of a row with " +
                                          std::to_string(size()) + " columns");
    return result_->columns()[static_cast<std::size_t>(index)];
}

bool Row::is_null(int index) const {
    column(index);
    return PQgetisnull(result_->handle_->result.get(), index_, index) != 0;
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

std::optional<std::string_view> Row::raw(int index) const {
    column(index);
    const Field f = field_of(result_->handle_->result.get(), index_, index);
    if (f.null) return std::nullopt;
    return f.bytes;
}

#define SLUICE_PG_READ(name, value_type, decoder)                                                  \
    std::optional<value_type> Row::name(int index) const {                                            \
        const Column& c = column(index);                                                     \
        const Field f = field_of(result_->handle_->result.get(), index_, index);             \
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
