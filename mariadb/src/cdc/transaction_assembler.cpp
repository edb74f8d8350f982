#include "transaction_assembler.hpp"

#include <cctype>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {

namespace {

// The statement's first words, upper-cased, for BEGIN / COMMIT / ROLLBACK /
// XA recognition (comments before them are not expected in these).
bool starts_with_word(std::string_view sql, std::string_view word) {
    while (!sql.empty() && std::isspace(static_cast<unsigned char>(sql.front()))) sql.remove_prefix(1);
    if (sql.size() < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(sql[i])) != word[i]) return false;
    return sql.size() == word.size() || !std::isalnum(static_cast<unsigned char>(sql[word.size()]));
}

bool is_word(std::string_view sql, std::string_view word) {
    while (!sql.empty() && std::isspace(static_cast<unsigned char>(sql.front()))) sql.remove_prefix(1);
    while (!sql.empty() && (std::isspace(static_cast<unsigned char>(sql.back())) || sql.back() == ';')) sql.remove_suffix(1);
    return sql.size() == word.size() && starts_with_word(sql, word);
}

std::string xa_key(const binlog::XaXid& x) {
    return std::to_string(x.format_id) + "/" + std::string(x.gtrid) + "/" + std::string(x.bqual);
}

}  // namespace

TransactionAssembler::TransactionAssembler(TableFilter filter, GtidState start)
    : filter_(std::move(filter)), position_(std::move(start)) {}

void TransactionAssembler::drop_partial_group() {
    open_ = false;
    txn_ = Transaction{};
}

TransactionAssembler::Outcome TransactionAssembler::complete(bool deliver, std::uint32_t timestamp) {
    open_ = false;
    position_.advance(group_gtid_);
    if (!deliver || txn_.empty()) {
        txn_ = Transaction{};
        return Outcome::skipped;
    }
    txn_.gtid = group_gtid_;
    txn_.timestamp = timestamp;
    return Outcome::transaction;
}

TransactionAssembler::Outcome TransactionAssembler::on_query(const binlog::EventHeader& h, const binlog::Query& q) {
    if (!open_) return Outcome::none;
    std::string_view sql = q.sql;
    if (is_word(sql, "BEGIN")) return Outcome::none;
    if (is_word(sql, "COMMIT")) return complete(true, h.timestamp);
    if (is_word(sql, "ROLLBACK")) return complete(false, h.timestamp);
    if (starts_with_word(sql, "SAVEPOINT") || starts_with_word(sql, "ROLLBACK")) return Outcome::none;  // ROLLBACK TO
    if (starts_with_word(sql, "XA")) {
        // XA START / END inside the prepare group; XA COMMIT / ROLLBACK as
        // their own group (the xid is in the GTID event).
        if (gtid_.xa_complete() && gtid_.xa_xid) {
            auto it = prepared_xa_.find(xa_key(*gtid_.xa_xid));
            bool commit = sql.find("COMMIT") != std::string_view::npos || sql.find("commit") != std::string_view::npos;
            if (it != prepared_xa_.end()) {
                if (commit) txn_ = std::move(it->second);
                prepared_xa_.erase(it);
            }
            return complete(commit, h.timestamp);
        }
        return Outcome::none;
    }
    if (gtid_.standalone() || gtid_.ddl()) {
        open_ = false;
        position_.advance(group_gtid_);
        if (!filter_.selects_ddl(q.schema, q.sql)) return Outcome::skipped;
        ddl_ = Ddl{group_gtid_, h.timestamp, std::string(q.schema), std::string(q.sql)};
        return Outcome::ddl;
    }
    return Outcome::none;  // any other statement inside a transaction (none under ROW)
}

TransactionAssembler::Outcome TransactionAssembler::feed(const binlog::Event& event) {
    const binlog::EventHeader& h = event.header;
    return std::visit(
        [&](const auto& body) -> Outcome {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, binlog::Gtid>) {
                open_ = true;
                gtid_ = body;
                gtid_.xa_xid.reset();  // its views die with the event; keep a copy below
                group_gtid_ = GtidPosition{body.domain_id, h.server_id, body.seq_no};
                txn_ = Transaction{};
                if (body.xa_xid) {
                    xa_gtrid_ = std::string(body.xa_xid->gtrid);
                    xa_bqual_ = std::string(body.xa_xid->bqual);
                    gtid_.xa_xid = binlog::XaXid{body.xa_xid->format_id, xa_gtrid_, xa_bqual_};
                }
                return Outcome::none;
            } else if constexpr (std::is_same_v<T, binlog::Rows>) {
                if (open_ && body.table && filter_.selects(body.table->db, body.table->table)) txn_.add_rows(body);
                return Outcome::none;
            } else if constexpr (std::is_same_v<T, binlog::Xid>) {
                if (!open_) return Outcome::none;
                return complete(true, h.timestamp);
            } else if constexpr (std::is_same_v<T, binlog::XaPrepare>) {
                if (!open_) return Outcome::none;
                if (body.one_phase) return complete(true, h.timestamp);
                if (!txn_.empty()) prepared_xa_[xa_key(body.xid)] = std::move(txn_);
                return complete(false, h.timestamp);
            } else if constexpr (std::is_same_v<T, binlog::Query>) {
                return on_query(h, body);
            } else if constexpr (std::is_same_v<T, binlog::Incident>) {
                throw Error(ErrorKind::protocol, "binlog INCIDENT event (code " + std::to_string(body.code) +
                                                     "): the server lost events: " + std::string(body.message));
            } else {
                return Outcome::none;
            }
        },
        event.body);
}

}  // namespace sluice::mariadb::cdc::detail
