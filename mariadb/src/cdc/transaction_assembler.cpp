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

TransactionAssembler::TransactionAssembler(TableFilter filter, GtidState start, std::size_t part_bytes,
                                           std::size_t max_whole_bytes, std::string hint)
    : filter_(std::move(filter)),
      position_(std::move(start)),
      part_bytes_(part_bytes),
      max_whole_bytes_(max_whole_bytes),
      hint_(std::move(hint)) {}

void TransactionAssembler::drop_partial_group() {
    // The consumer holds parts 1..parts_out_ of this group: when it is read
    // again, carry on after them instead of repeating them.
    if (open_ && parts_out_ > 0) resume_ = Resume{group_gtid_, parts_out_, rows_events_out_};
    open_ = false;
    txn_ = Transaction{};
}

TransactionAssembler::Outcome TransactionAssembler::hand_out_part(bool last, bool rolled_back) {
    ++parts_out_;
    rows_events_out_ += txn_.rows_events();
    part_ = TransactionPart{};
    // A rolled-back group's last part carries no changes (nothing of it applies).
    part_.changes = rolled_back ? Transaction{} : std::move(txn_);
    txn_ = Transaction{};
    part_.changes.gtid = group_gtid_;
    part_.changes.timestamp = group_timestamp_;
    part_.part = parts_out_;
    part_.last = last;
    part_.rolled_back = rolled_back;
    return Outcome::part;
}

TransactionAssembler::Outcome TransactionAssembler::complete(bool deliver, std::uint32_t timestamp) {
    open_ = false;
    position_.advance(group_gtid_);
    if (part_bytes_ != 0) {
        if (parts_out_ > 0) return hand_out_part(true, !deliver);
        if (!deliver || txn_.empty()) {
            txn_ = Transaction{};
            return Outcome::skipped;
        }
        return hand_out_part(true, false);
    }
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

TransactionAssembler::Outcome TransactionAssembler::on_gtid(const binlog::EventHeader& h, const binlog::Gtid& g) {
    const GtidPosition gtid{g.domain_id, h.server_id, g.seq_no};
    if (open_ && parts_out_ > 0) {
        throw Error(ErrorKind::protocol, "binlog group " + to_string(gtid) + " began before group " +
                                             to_string(group_gtid_) + " completed, after " +
                                             std::to_string(parts_out_) + " of its parts were returned");
    }
    open_ = true;
    gtid_ = g;
    gtid_.xa_xid.reset();  // its views die with the event; keep a copy below
    group_gtid_ = gtid;
    group_timestamp_ = h.timestamp;
    txn_ = Transaction{};
    parts_out_ = 0;
    rows_events_out_ = 0;
    skip_rows_events_ = 0;
    if (resume_) {
        // Read again from position(), the group cut off is the first one not
        // covered by it; anything else means the binlog is not the one the
        // parts came from.
        if (!(resume_->gtid == gtid)) {
            throw Error(ErrorKind::protocol,
                        "after reconnecting, the binlog continued with group " + to_string(gtid) + ", not with " +
                            to_string(resume_->gtid) + " whose first " + std::to_string(resume_->parts) +
                            " parts were already returned");
        }
        parts_out_ = resume_->parts;
        rows_events_out_ = resume_->rows_events;
        skip_rows_events_ = resume_->rows_events;
        resume_.reset();
    }
    if (g.xa_xid) {
        xa_gtrid_ = std::string(g.xa_xid->gtrid);
        xa_bqual_ = std::string(g.xa_xid->bqual);
        gtid_.xa_xid = binlog::XaXid{g.xa_xid->format_id, xa_gtrid_, xa_bqual_};
    }
    return Outcome::none;
}

TransactionAssembler::Outcome TransactionAssembler::on_rows(const binlog::Rows& rows) {
    if (!open_ || !rows.table || !filter_.selects(rows.table->db, rows.table->table)) return Outcome::none;
    if (skip_rows_events_ > 0) {  // resuming: returned in an earlier part
        --skip_rows_events_;
        return Outcome::none;
    }
    txn_.add_rows(rows);
    // An XA PREPARE group's rows are held whole until its XA COMMIT (they
    // commit under that group's GTID), so they are not parted here.
    const bool whole = part_bytes_ == 0 || gtid_.xa_prepare();
    if (whole && max_whole_bytes_ != 0 && txn_.bytes() > max_whole_bytes_) {
        throw Error(ErrorKind::usage, "transaction " + to_string(group_gtid_) + " is over the bound of " +
                                          std::to_string(max_whole_bytes_) +
                                          " bytes for a transaction held whole: its row changes of the selected "
                                          "tables reached " + std::to_string(txn_.bytes()) +
                                          " bytes of binlog row images before its commit" +
                                          (hint_.empty() ? std::string() : " (" + hint_ + ")"));
    }
    if (!whole && txn_.bytes() >= part_bytes_) return hand_out_part(false, false);
    return Outcome::none;
}

TransactionAssembler::Outcome TransactionAssembler::feed(const binlog::Event& event) {
    const binlog::EventHeader& h = event.header;
    return std::visit(
        [&](const auto& body) -> Outcome {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, binlog::Gtid>) {
                return on_gtid(h, body);
            } else if constexpr (std::is_same_v<T, binlog::Rows>) {
                return on_rows(body);
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
