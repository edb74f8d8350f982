#pragma once
// The speed features (bulk, cursors, uploads, the pool, text batches) live in
// their own files but need a Connection's session and a Statement's id and
// cached columns; Connection and Statement befriend this one struct instead
// of growing public accessors.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "session.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb::detail {

struct Access {
    static Session& session(Connection& c) {
        if (!c.session_) throw Error(ErrorKind::usage, "connection was moved from");
        return *c.session_;
    }
    static Session& session(const Statement& s) { return s.session(); }
    static std::uint32_t id(const Statement& s) noexcept { return s.id_; }
    static std::shared_ptr<std::vector<Column>>& columns(Statement& s) noexcept { return s.columns_; }
    // Forgets the statement without COM_STMT_CLOSE: after COM_RESET_CONNECTION
    // the server already dropped it, and its id may be reused.
    static void detach(Statement& s) noexcept { s.session_ = nullptr; }
};

}  // namespace sluice::mariadb::detail
