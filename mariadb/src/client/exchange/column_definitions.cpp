#include "sluice/mariadb/exchange/column_definitions.hpp"

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/column.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

bool ColumnDefinitions::begin(std::size_t n, std::vector<Column>& into, std::uint64_t capabilities,
                              bool deprecate_eof) {
    into.clear();
    into_ = &into;
    remaining_ = n;
    eof_pending_ = !deprecate_eof && n > 0;
    capabilities_ = capabilities;
    return n == 0;
}

bool ColumnDefinitions::consume(Bytes p) {
    if (remaining_ > 0) {
        if (is_err(p)) throw_server_error(p);
        into_->push_back(Column::from(parse_column_definition(p, capabilities_)));
        --remaining_;
        return remaining_ == 0 && !eof_pending_;
    }
    if (!is_end_of_rows(p, false)) {
        throw Error(ErrorKind::protocol, "malformed result set: expected EOF after the column definitions");
    }
    eof_status_ = end_of_rows_status(p, false, capabilities_, nullptr);
    eof_pending_ = false;
    return true;
}

}  // namespace sluice::mariadb::exchange
