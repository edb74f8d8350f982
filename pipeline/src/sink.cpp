// The sink's SQL. Identifiers are always double-quoted (NAME is checked to
// be a plain identifier first); values are always bound or COPYed, never
// pasted. New rows of NAME are COPYed straight into it; rows it already
// holds, and late and rejected rows, go through temporary staging tables
// (COPY, then one INSERT ... SELECT ... ON CONFLICT or DELETE ... USING):
// a 100,000-row batch is a handful of round trips.
#include "sluice/pipeline/sink.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "sluice/pipeline/error.hpp"
#include "sluice/postgres/copy.hpp"
#include "sluice/postgres/transaction.hpp"

namespace sluice::pipeline {

namespace pg = sluice::postgres;

namespace {

constexpr std::string_view state_table = "sluice_pipeline_state";

struct ColumnSpec {
    const char* name;
    const char* type;  // as format_type() prints it
};

const std::vector<ColumnSpec> rows_columns = {{"key", "text"},
                                              {"start", "bigint"},
                                              {"end", "bigint"},
                                              {"count", "bigint"},
                                              {"sum", "double precision"},
                                              {"min", "double precision"},
                                              {"max", "double precision"},
                                              {"final", "boolean"}};
const std::vector<ColumnSpec> late_columns = {{"id", "text"},    {"key", "text"}, {"ts", "bigint"},
                                              {"gtid", "text"},  {"seq", "bigint"}, {"op", "text"},
                                              {"value", "double precision"}};
const std::vector<ColumnSpec> rejected_columns = {{"gtid", "text"}, {"seq", "bigint"}, {"image", "text"},
                                                  {"id", "text"},   {"key", "text"},   {"ts", "text"},
                                                  {"value", "text"}, {"reason", "text"}};
const std::vector<ColumnSpec> state_columns = {
    {"name", "text"}, {"gtid", "text"}, {"checkpoint", "bytea"}, {"settings", "text"}};

std::string quote_ident(std::string_view s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

std::string describe(const std::vector<std::pair<std::string, std::string>>& cols) {
    std::string s = "(";
    for (std::size_t i = 0; i < cols.size(); ++i) s += (i ? ", " : "") + cols[i].first + " " + cols[i].second;
    return s + ")";
}

std::string describe(const std::vector<ColumnSpec>& cols) {
    std::vector<std::pair<std::string, std::string>> v;
    for (const auto& c : cols) v.emplace_back(c.name, c.type);
    return describe(v);
}

std::string create_sql(const std::string& table, const std::vector<ColumnSpec>& cols, const std::string& pk,
                       bool temp = false) {
    std::string s = temp ? "create temp table if not exists " : "create table if not exists ";
    s += quote_ident(table) + " (";
    for (std::size_t i = 0; i < cols.size(); ++i) {
        s += (i ? ", " : "") + quote_ident(cols[i].name) + " " + cols[i].type;
        if (!temp && (std::string_view(cols[i].name) == "gtid" || std::string_view(cols[i].name) == "settings"))
            s += " not null";
    }
    if (!pk.empty()) s += ", primary key (" + pk + ")";
    s += ")";
    if (temp) s += " on commit delete rows";
    return s;
}

// The existing table's columns, empty when it does not exist.
std::vector<std::pair<std::string, std::string>> columns_of(pg::Connection& conn, const std::string& table) {
    pg::Result r = conn.query(
        "select a.attname::text, format_type(a.atttypid, a.atttypmod) from pg_attribute a "
        "where a.attrelid = to_regclass(quote_ident($1)) and a.attnum > 0 and not a.attisdropped order by a.attnum",
        {table});
    std::vector<std::pair<std::string, std::string>> out;
    for (pg::Row row : r) out.emplace_back(row.get<std::string>(0), row.get<std::string>(1));
    return out;
}

std::string check_table(pg::Connection& conn, const std::string& table, const std::vector<ColumnSpec>& want) {
    auto have = columns_of(conn, table);
    if (have.empty()) return {};
    bool same = have.size() == want.size();
    for (std::size_t i = 0; same && i < have.size(); ++i)
        same = have[i].first == want[i].name && have[i].second == want[i].type;
    if (same) return {};
    return "sink table \"" + table + "\" has columns " + describe(have) + ", expected " + describe(want);
}

pg::Bytes bytes_of(const std::string& s) { return pg::Bytes(s.begin(), s.end()); }

}  // namespace

void check_sink_name(const std::string& name) {
    bool ok = !name.empty() && name.size() <= 54 && !(name[0] >= '0' && name[0] <= '9');
    for (char c : name)
        ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
    if (!ok)
        throw Error(ErrorKind::usage, "--sink-table \"" + name +
                                          "\": expected a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 54 bytes)");
}

Sink::Sink(pg::Connection conn, std::string name, std::string state_name)
    : conn_(std::move(conn)), name_(std::move(name)), state_name_(std::move(state_name)) {
    if (state_name_.empty()) state_name_ = name_;
}

Sink Sink::open(const std::string& url, const std::string& name, const std::string& state_name) {
    check_sink_name(name);
    pg::Connection conn = pg::Connection::open(url);
    conn.set_notice_handler({});
    // Named in pg_stat_activity, for operators (and the test that cuts its connection).
    conn.run_script("set application_name = 'sluice-pipeline'");
    const std::string late = name + "_late", rejected = name + "_rejected";
    std::string problems;
    for (const auto& [table, cols] : {std::pair{name, &rows_columns}, std::pair{late, &late_columns},
                                      std::pair{rejected, &rejected_columns},
                                      std::pair{std::string(state_table), &state_columns}}) {
        std::string p = check_table(conn, table, *cols);
        if (!p.empty()) problems += (problems.empty() ? "" : "; ") + p;
    }
    if (!problems.empty()) throw Error(ErrorKind::sink_schema, problems + " (nothing was written)");
    return Sink(std::move(conn), name, state_name);
}

// Workers starting together race on CREATE TABLE: the loser sees a
// duplicate (42P07; 23505 on pg_type; or 42710, `type "NAME" already
// exists`, when the winner's row type commits between the loser's two
// checks, as a fresh-clone CI run of the README's two workers showed) and
// simply creates again. A type of that name that is not the winner's table
// fails the same way each time: after five attempts the error stands.
void Sink::create_tables(bool shared) {
    for (int attempt = 0;; ++attempt) {
        try {
            return create_tables_once();
        } catch (const postgres::Error& e) {
            const std::string& state = e.sqlstate();
            const bool race = e.kind() == postgres::ErrorKind::server &&
                              (state == "42P07" || state == "23505" || state == "42710");
            if (!shared || !race || attempt >= 5) throw;
        }
    }
}

void Sink::create_tables_once() {
    const std::string late = name_ + "_late", rejected = name_ + "_rejected";
    {
        pg::Transaction tx(conn_);
        conn_.run_script(create_sql(name_, rows_columns, "key, start") + ";" +
                         create_sql(late, late_columns, "gtid, seq") + ";" +
                         create_sql(rejected, rejected_columns, "gtid, seq") + ";" +
                         create_sql(std::string(state_table), state_columns, "name"));
        tx.commit();
    }
    // Staging tables of this session, emptied by every commit.
    conn_.run_script(create_sql("sluice_stage_put", rows_columns, "", true) + ";" +
                     "create temp table if not exists sluice_stage_remove (key text, start bigint) on commit delete rows;" +
                     create_sql("sluice_stage_late", late_columns, "", true) + ";" +
                     create_sql("sluice_stage_rejected", rejected_columns, "", true));
    prepare_statements();
}

void Sink::prepare_statements() {
    const std::string t = quote_ident(name_);
    upsert_ = conn_.prepare("insert into " + t +
                            " select * from sluice_stage_put on conflict (key, start) do update set "
                            "\"end\" = excluded.\"end\", count = excluded.count, sum = excluded.sum, "
                            "min = excluded.min, max = excluded.max, final = excluded.final");
    remove_ = conn_.prepare("delete from " + t + " t using sluice_stage_remove r where t.key = r.key and t.start = r.start");
    reopen_ = conn_.prepare("update " + t +
                            " t set final = false from sluice_stage_remove r where t.key = r.key and t.start = r.start");
    late_ = conn_.prepare("insert into " + quote_ident(name_ + "_late") +
                          " select * from sluice_stage_late on conflict (gtid, seq) do nothing");
    reject_ = conn_.prepare("insert into " + quote_ident(name_ + "_rejected") +
                            " select * from sluice_stage_rejected on conflict (gtid, seq) do nothing");
    state_insert_ = conn_.prepare("insert into sluice_pipeline_state (name, gtid, checkpoint, settings) "
                                  "values ($1, $2, $3, $4) on conflict (name) do nothing");
    state_update_ = conn_.prepare("update sluice_pipeline_state set gtid = $2 where name = $1 and gtid = $3");
    state_lock_ = conn_.prepare("select from sluice_pipeline_state where name = $1 and gtid = $2 for update");
    state_update_checkpoint_ = conn_.prepare(
        "update sluice_pipeline_state set gtid = $2, checkpoint = $4 where name = $1 and gtid = $3");
}

std::optional<StoredState> Sink::load() {
    open_ = OpenSinkRows{};
    // Before create_tables() (a first run), NAME or the state table may not exist.
    pg::Result exist = conn_.query("select to_regclass(quote_ident($1)) is not null, "
                                   "to_regclass(quote_ident($2)) is not null",
                                   {name_, std::string(state_table)});
    const bool have_rows_table = exist.row(0).get<bool>(0), have_state_table = exist.row(0).get<bool>(1);
    // No state: a NAME that already holds rows (its state row deleted by
    // hand) is merged into by upserts only, as nothing is known of it.
    auto no_state = [&] {
        trusted_ = !have_rows_table ||
                   conn_.query("select not exists (select from " + quote_ident(name_) + ")").row(0).get<bool>(0);
        return std::nullopt;
    };
    if (!have_state_table) return no_state();
    pg::Result r = conn_.query("select gtid, checkpoint, settings from sluice_pipeline_state where name = $1",
                               {state_name_}, pg::Format::binary);
    if (r.empty()) return no_state();
    StoredState s;
    s.gtid = r.row(0).get<std::string>(0);
    auto cp = r.row(0).get<std::optional<pg::Bytes>>(1);
    if (!cp) throw Error(ErrorKind::sink_state, "sluice_pipeline_state row of \"" + state_name_ + "\" has no checkpoint");
    s.checkpoint.assign(cp->begin(), cp->end());
    s.settings = r.row(0).get<std::string>(2);
    if (have_rows_table)
        for (pg::Row row : conn_.query("select key, start from " + quote_ident(name_) + " where not final", {},
                                       pg::Format::binary))
            open_.add(row.get<std::string_view>(0), row.get<std::int64_t>(1));
    trusted_ = true;
    return s;
}

namespace {

void copy_session_row(pg::CopyIn& copy, const SessionRow& r, std::vector<pg::Param>& cells) {
    cells[0] = pg::Param(r.key);
    cells[1] = r.start;
    cells[2] = r.end;
    cells[3] = r.count;
    cells[4] = r.sum;
    cells[5] = r.min;
    cells[6] = r.max;
    cells[7] = r.final;
    copy.row(cells);
}

}  // namespace

void Sink::end_slice_copy() {
    if (!slice_copy_) return;
    // Reset first: a COPY that failed is over either way.
    std::optional<pg::CopyIn> copy = std::move(slice_copy_);
    slice_copy_.reset();
    copy->finish();
}

void Sink::write_rows(const std::vector<NetChange>& net, bool idempotent, bool reuse_stages, bool keep_copy) {
    const OpenSinkRows::Plan plan = open_.plan(net, idempotent);
    in_place_ += plan.in_place;
    std::vector<pg::Param> cells(8, pg::Param(nullptr));
    if (!plan.insert.empty()) {
        if (!slice_copy_) slice_copy_.emplace(conn_.copy_in("copy " + quote_ident(name_) + " from stdin"));
        for (const SessionRow* r : plan.insert) copy_session_row(*slice_copy_, *r, cells);
    }
    if (keep_copy && plan.upsert.empty() && plan.remove.empty()) {
        if (slice_copy_) slice_copy_->flush();
        return;
    }
    end_slice_copy();
    if (!plan.upsert.empty()) {
        pg::CopyIn copy = conn_.copy_in("copy sluice_stage_put from stdin");
        for (const SessionRow* r : plan.upsert) copy_session_row(copy, *r, cells);
        copy.finish();
        conn_.execute(*upsert_);
        if (reuse_stages) conn_.run_script("truncate sluice_stage_put");
    }
    if (!plan.remove.empty()) {
        pg::CopyIn copy = conn_.copy_in("copy sluice_stage_remove from stdin");
        for (const SessionRow* r : plan.remove) copy.row({r->key, r->start});
        copy.finish();
        conn_.execute(*remove_);
        if (reuse_stages) conn_.run_script("truncate sluice_stage_remove");
    }
}

void Sink::reopen_left_ahead(const std::vector<NetChange>& net) {
    const auto left = open_.left_ahead(net);
    if (left.empty()) return;
    end_slice_copy();
    // The commit's removals may have left their keys in the stage (it is
    // emptied at the commit): harmless, those rows are gone, but this
    // update should name only the rows it reopens.
    conn_.run_script("truncate sluice_stage_remove");
    pg::CopyIn copy = conn_.copy_in("copy sluice_stage_remove from stdin");
    for (const auto& [key, start] : left) copy.row({key, start});
    copy.finish();
    conn_.execute(*reopen_);
    conn_.run_script("truncate sluice_stage_remove");
    reopened_ += left.size();
}

void Sink::begin_transaction(const std::optional<std::string>& previous_gtid) {
    open_tx_ = std::make_unique<pg::Transaction>(conn_);
    savepoint_ = false;
    // A first commit has no state row to lock: its insert (commit()) is the check.
    if (previous_gtid && conn_.execute(*state_lock_, {state_name_, *previous_gtid}).size() != 1)
        throw Error(ErrorKind::sink_moved,
                    "the state of \"" + state_name_ +
                        "\" in sluice_pipeline_state was changed by another writer (the last commit of a killed "
                        "predecessor, or a second sluice-pipeline for it); nothing was written, restoring again");
}

void Sink::write_slice(const SinkBatch& slice, const std::optional<std::string>& previous_gtid, bool replay) {
    if (!upsert_) throw std::logic_error("pipeline: Sink::write_slice before create_tables()");
    if (!open_tx_) begin_transaction(previous_gtid);
    const bool idempotent = replay || !trusted_;
    auto write = [&](std::size_t from, std::size_t to) {
        if (from == to) return;
        const std::vector<NetChange> net = slice.net(from, to);
        write_rows(net, idempotent, true, true);
        // The set follows the open transaction (take_back_slices and a
        // failure load it anew).
        open_.committed(net);
    };
    const std::size_t split = slice.savepoint_at().value_or(0);
    write(0, split);
    if (slice.savepoint_at()) {
        end_slice_copy();
        // An earlier transaction's rows put final ahead that its
        // finalization did not reach are open: NAME says so before this
        // transaction's savepoint (what a rollback to it reads back as
        // open is what NAME holds with final = false).
        reopen_left_ahead({});
        open_.none_ahead();
        // One savepoint at a time: the last transaction in slices is the
        // only one that can still be taken back.
        if (savepoint_) conn_.run_script("release savepoint sluice_transaction");
        conn_.run_script("savepoint sluice_transaction");
        savepoint_ = true;
    }
    write(split, slice.logged());
}

void Sink::take_back_slices() {
    if (!open_tx_ || !savepoint_) throw std::logic_error("pipeline: Sink::take_back_slices without a savepoint");
    end_slice_copy();
    conn_.run_script("rollback to savepoint sluice_transaction");
    // What NAME holds open as of the savepoint, read inside the transaction
    // (rare: a huge transaction refused after slices went).
    open_ = OpenSinkRows{};
    for (pg::Row row : conn_.query("select key, start from " + quote_ident(name_) + " where not final", {},
                                   pg::Format::binary))
        open_.add(row.get<std::string_view>(0), row.get<std::int64_t>(1));
}

void Sink::commit(const SinkBatch& batch, const std::optional<std::string>& previous_gtid, const std::string& gtid,
                  const std::string* checkpoint, const std::string& settings, bool replay) {
    if (!upsert_) throw std::logic_error("pipeline: Sink::commit before create_tables()");
    end_slice_copy();
    const std::vector<NetChange> net = batch.net();
    // The transaction slices went into, or a new one.
    std::unique_ptr<pg::Transaction> tx = std::move(open_tx_);
    savepoint_ = false;
    if (!tx) tx = std::make_unique<pg::Transaction>(conn_);
    // The state first: its compare-and-set is what tells a writer that
    // another one moved the sink since its load() (a killed predecessor's
    // last commit landing after the restart loaded the state, or a second
    // process on NAME). Done after the rows, a COPY of a row that the other
    // writer inserted fails first with a duplicate key (23505, not retried).
    // The update waits for a concurrent writer of the row to finish.
    std::uint64_t written = 0;
    if (!previous_gtid) {
        if (!checkpoint) throw std::logic_error("pipeline: the first commit must carry a checkpoint");
        written = conn_.execute(*state_insert_, {state_name_, gtid, bytes_of(*checkpoint), settings}).affected_rows();
    } else if (checkpoint) {
        written = conn_.execute(*state_update_checkpoint_, {state_name_, gtid, *previous_gtid, bytes_of(*checkpoint)})
                      .affected_rows();
    } else {
        written = conn_.execute(*state_update_, {state_name_, gtid, *previous_gtid}).affected_rows();
    }
    if (written != 1)
        throw Error(ErrorKind::sink_moved,
                    "the state of \"" + state_name_ +
                        "\" in sluice_pipeline_state was changed by another writer (the last commit of a killed "
                        "predecessor, or a second sluice-pipeline for it); nothing was written, restoring again");
    write_rows(net, replay || !trusted_, false);
    // Rows a slice put final ahead of this commit that its finalization did
    // not reach are open after all: NAME says so before anyone sees it.
    reopen_left_ahead(net);
    if (!batch.late_rows().empty()) {
        pg::CopyIn copy = conn_.copy_in("copy sluice_stage_late from stdin");
        for (const LateRow& l : batch.late_rows()) copy.row({l.id, l.key, l.ts, l.gtid, l.seq, l.op, l.value});
        copy.finish();
        conn_.execute(*late_);
    }
    if (!batch.rejected_rows().empty()) {
        pg::CopyIn copy = conn_.copy_in("copy sluice_stage_rejected from stdin");
        for (const RejectedSinkRow& r : batch.rejected_rows())
            copy.row({r.gtid, static_cast<std::int64_t>(r.row.change), r.row.image, r.row.id, r.row.key, r.row.ts,
                      r.row.value, r.row.reason});
        copy.finish();
        conn_.execute(*reject_);
    }
    tx->commit();
    // Only now: a failed commit leaves the set as the sink is (and the
    // retry that follows loads it anew anyway).
    open_.committed(net);
    open_.none_ahead();
}

}  // namespace sluice::pipeline
