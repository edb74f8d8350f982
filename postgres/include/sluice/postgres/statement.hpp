#pragma once
// A statement prepared on one connection (PQprepare), with what the server
// said about it (PQdescribePrepared): parameter types and result columns.
// Valid only on the Connection that prepared it, for that connection's life;
// executing it elsewhere is Error{usage}.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/postgres/result.hpp"

namespace sluice::postgres {

class Statement {
public:
    const std::string& sql() const noexcept { return sql_; }
    // The server's type for each $n, in order.
    const std::vector<Oid>& param_types() const noexcept { return param_types_; }
    // The result's columns (empty for a statement that returns no rows).
    const std::vector<Column>& columns() const noexcept { return *columns_; }

private:
    friend class Connection;
    Statement() = default;

    std::string name_;
    std::string sql_;
    std::vector<Oid> param_types_;
    // Shared with every Result of the statement (no per-execution copy).
    std::shared_ptr<const std::vector<Column>> columns_ = std::make_shared<const std::vector<Column>>();
    std::uint64_t connection_serial_ = 0;
};

}  // namespace sluice::postgres
