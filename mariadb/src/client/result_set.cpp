#include "sluice/mariadb/result_set.hpp"

#include "session.hpp"

namespace sluice::mariadb {

detail::Session& ResultSet::session() const {
    if (session_->result.generation != generation_) {
        throw Error(ErrorKind::usage, "result set used after a later command on its connection discarded it");
    }
    return *session_;
}

const std::vector<Column>& ResultSet::columns() const { return *session().result.result_columns; }

const Row* ResultSet::next() {
    detail::Session& s = session();
    return s.guarded([&]() -> const Row* { return s.next_row() ? &s.result.row : nullptr; });
}

bool ResultSet::next_result() {
    detail::Session& s = session();
    return s.guarded([&] { return s.next_result(); });
}

const OkInfo& ResultSet::ok() const { return session().result.ok; }

void ResultSet::discard() {
    detail::Session& s = session();
    s.guarded([&] { s.drain(); });
}

}  // namespace sluice::mariadb
