#include "sluice/mariadb/cdc/change_stream.hpp"

#include <random>
#include <map>
#include <thread>

#include "binlog_connection.hpp"
#include "failover.hpp"
#include "snapshot_reader.hpp"
#include "sluice/mariadb/binlog/decoder.hpp"
#include "sluice/mariadb/cdc/table_columns.hpp"
#include "transaction_assembler.hpp"

namespace sluice::mariadb::cdc {

namespace {

using Clock = std::chrono::steady_clock;

// Failures a new connection can cure: the peer went away (KILL, restart,
// network) or the session was broken by one of those.
bool is_retryable(const Error& e) noexcept {
    switch (e.kind()) {
        case ErrorKind::io:
        case ErrorKind::closed:
        case ErrorKind::timeout:
        case ErrorKind::broken: return true;
        case ErrorKind::server:
            switch (e.server_code()) {
                case 1053:  // server shutdown in progress
                case 1152:  // aborted connection
                case 1927:  // connection killed
                case 4031:  // interaction timeout
                case 1040:  // too many connections
                    return true;
                default: return false;
            }
        default: return false;
    }
}

std::string single_value(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("") : "";
    while (rs.next()) {
    }
    return v;
}

// Refuses servers a binlog client cannot follow, naming the cause.
void check_server(Connection& c) {
    std::string version(c.server_version());
    if (version.find("MariaDB") == std::string::npos) {
        throw Error(ErrorKind::usage, "server " + version + " is not MariaDB (this CDC client needs MariaDB's GTIDs)");
    }
    if (single_value(c, "SELECT @@global.log_bin") != "1") {
        throw Error(ErrorKind::usage, "the server has no binary log (log_bin is OFF): CDC needs log_bin=ON");
    }
    std::string format = single_value(c, "SELECT @@global.binlog_format");
    if (format != "ROW") {
        throw Error(ErrorKind::usage, "the server logs binlog_format=" + format + ": CDC needs binlog_format=ROW");
    }
}

std::uint32_t random_server_id() {
    std::random_device rd;
    std::uniform_int_distribution<std::uint32_t> pick(0x40000000U, 0x7FFFFFFFU);
    return pick(rd);
}

}  // namespace

struct ChangeStream::State {
    ConnectOptions options;
    StreamOptions stream;
    std::uint32_t server_id = 0;
    // Which server of the list is read, and the position check there.
    std::optional<detail::Failover> failover;
    // Since when the binlog connection is lost (reconnect), for failover_after.
    std::optional<Clock::time_point> lost_since;
    std::optional<Connection> side;  // information_schema
    std::unique_ptr<detail::SnapshotReader> snapshot;
    std::unique_ptr<detail::BinlogConnection> binlog;
    binlog::Decoder decoder;
    std::unique_ptr<detail::TransactionAssembler> assembler;
    // "db\0table" -> the TABLE_MAP shape its schema hint was made for.
    std::map<std::string, std::string, std::less<>> learned;
    ChangeEvent current;
    // A group completed with nothing to deliver since the last event
    // returned (StreamOptions::idle_events).
    bool skipped_since_event = false;
    bool resumable = true;
    bool finished = false;
    // until_end: @@gtid_binlog_pos when the stream opened; the stream ends
    // once the position covers it (or at the non-blocking dump's EOF),
    // so a writer that keeps committing cannot keep it going.
    GtidState until_state;
    // The server sent an event of the current dump, so it accepted the start
    // position (a GTID it cannot serve is an ERR before any event).
    bool dump_accepted = false;

    bool reached_until_state() const {
        if (!stream.until_end || until_state.empty() || !dump_accepted) return false;
        for (const GtidPosition& g : until_state.gtids()) {
            auto at = assembler->position().domain(g.domain_id);
            if (!at || at->seq_no < g.seq_no) return false;
        }
        return true;
    }
    std::size_t connects = 0;

    // Runs f on the side connection, made anew after a lost connection
    // (the server may have restarted since its last use) and retried like
    // the binlog connection.
    template <class F>
    void with_side_connection(F&& f) {
        const auto give_up = Clock::now() + stream.reconnect_for;
        auto pause = std::chrono::milliseconds(100);
        for (;;) {
            try {
                if (!side || side->broken()) side.emplace(Connection::connect(failover->current_options()));
                f(*side);
                return;
            } catch (const Error& e) {
                side.reset();
                if (!is_retryable(e) || Clock::now() >= give_up) throw;
            }
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::milliseconds(2000));
        }
    }

    // Column names and the types only the schema knows (UUID, INET6, JSON),
    // from the table's column definitions (table_columns), for tables the
    // stream selects. The schema is today's while the binlog may be older
    // (catching up over later DDL), so with binlog_row_metadata=FULL each
    // binlog column takes the type of the column of the same name; without
    // names the schema applies only when the column count matches (the
    // decoder checks it).
    void learn_schema(const binlog::TableMap& t) {
        std::string signature = std::to_string(t.columns.size());
        for (const binlog::ColumnInfo& c : t.columns) {
            signature += '\0';
            signature += c.name;
            signature += static_cast<char>(c.binlog_type);
        }
        std::string key = t.db + '\0' + t.table;
        auto it = learned.find(key);
        if (it != learned.end() && it->second == signature) return;
        std::vector<binlog::SchemaColumn> now;
        with_side_connection([&](Connection& side_conn) {
            now.clear();
            // table_columns: the result metadata of an empty SELECT, not
            // information_schema (which crashed MariaDB 10.11.19 right after
            // DDL). A table dropped later than the binlog being read: no hints.
            auto columns = table_columns(side_conn, t.db, t.table);
            if (!columns) return;
            for (const Column& col : *columns) {
                binlog::SchemaColumn c;
                c.name = column_name(col);
                const std::string& ext = col.extended_type;
                if (ext == "uuid" || ext == "inet6" || ext == "inet4") c.data_type = ext;
                const bool temporal = col.type == ColumnType::time || col.type == ColumnType::datetime ||
                                      col.type == ColumnType::timestamp;
                c.datetime_precision = temporal ? col.decimals : -1;
                now.push_back(std::move(c));
            }
        });
        binlog::TableSchema schema;
        if (t.has_column_names) {
            for (const binlog::ColumnInfo& c : t.columns) {
                binlog::SchemaColumn match;
                match.name = c.name;
                for (const binlog::SchemaColumn& n : now)
                    if (n.name == c.name) match = n;
                schema.columns.push_back(std::move(match));
            }
        } else {
            schema.columns = std::move(now);
        }
        decoder.set_schema(t.db, t.table, std::move(schema));
        learned[key] = std::move(signature);
    }

    std::string peer() const { return failover->current_name(); }

    // On `first` (the connection open() checked the server on) or a new one.
    void start_dump(std::optional<Connection> first = std::nullopt) {
        Connection c = first          ? std::move(*first)
                       : lost_since ? failover->reconnect(*lost_since)
                                    : Connection::connect(failover->current_options());
        ++connects;
        // With a list of servers: does this one hold the position?
        if (GtidState from = failover->hold_position(c, assembler->position()); from != assembler->position())
            assembler = std::make_unique<detail::TransactionAssembler>(stream.tables, from, stream.part_bytes,
                                                                       stream.max_transaction_bytes,
                                                                       stream.whole_transaction_hint);
        detail::DumpRequest req;
        req.start = assembler->position();
        req.server_id = server_id;
        req.heartbeat_seconds = static_cast<double>(stream.heartbeat.count()) / 1000.0;
        req.non_blocking = stream.until_end;
        binlog = std::make_unique<detail::BinlogConnection>(std::move(c), req);
        decoder = binlog::Decoder{};
        decoder.expect_checksum(binlog->checksum() == "CRC32" ? binlog::Checksum::crc32 : binlog::Checksum::off);
        assembler->drop_partial_group();
        learned.clear();  // a new decoder has no hints
        dump_accepted = false;
    }

    // Drops the broken dump and starts again from the last complete group,
    // retrying until reconnect_for has passed.
    void reconnect(const Error& first) {
        binlog.reset();
        side.reset();  // it may be to the same lost server
        lost_since = Clock::now();
        if (stream.observer) stream.observer->connection_lost(first.what());
        const auto give_up = Clock::now() + stream.reconnect_for;
        auto pause = std::chrono::milliseconds(100);
        std::string last = first.what();
        for (;;) {
            if (Clock::now() >= give_up) {
                throw Error(first.kind() == ErrorKind::server ? ErrorKind::closed : first.kind(),
                            "binlog connection lost and not regained within " +
                                std::to_string(stream.reconnect_for.count()) + " ms: " + last);
            }
            std::this_thread::sleep_for(failover->pause_before_attempt(*lost_since, pause));
            pause = std::min(pause * 2, std::chrono::milliseconds(2000));
            try {
                start_dump();
                lost_since.reset();
                if (stream.observer) stream.observer->connection_regained();
                return;
            } catch (const Error& e) {
                if (!is_retryable(e)) throw;
                last = e.what();
                if (stream.observer) stream.observer->connection_lost(last);
            }
        }
    }

    const ChangeEvent* next() {
        if (finished) return nullptr;
        if (!snapshot && reached_until_state()) {
            finished = true;
            return nullptr;
        }
        if (snapshot) {
            SnapshotChunk chunk;
            if (snapshot->next(chunk)) {
                current = std::move(chunk);
                return &current;
            }
            current = SnapshotDone{snapshot->position()};
            snapshot.reset();
            resumable = true;
            start_dump();
            return &current;
        }
        for (;;) {
            // Polled between groups only: once per group skipped, not once
            // per event of the groups read after it (tens of thousands of
            // polls for a table's big transaction among others' small ones).
            if (stream.idle_events && skipped_since_event && !assembler->in_group() && !binlog->input_pending()) {
                skipped_since_event = false;
                current = Idle{};
                return &current;
            }
            std::optional<protocol::Bytes> bytes;
            try {
                bytes = binlog->next_event();
            } catch (const Error& e) {
                if (stream.reconnect_for.count() == 0 || !is_retryable(e)) throw;
                reconnect(e);
                continue;
            }
            if (!bytes) {
                if (stream.until_end) {
                    finished = true;
                    return nullptr;
                }
                // A blocking dump ends only when the server goes away
                // (shutdown sends EOF before closing): follow it back.
                Error gone(ErrorKind::closed, "the server ended the binlog dump (shutdown?)");
                if (stream.reconnect_for.count() == 0) throw gone;
                reconnect(gone);
                continue;
            }
            dump_accepted = true;
            binlog::Event event;
            try {
                event = decoder.decode(*bytes);
            } catch (const Error& e) {
                // The decoder is sans-I/O: say which server sent the bytes.
                throw Error(e.kind(), std::string(e.what()) + " (server " + peer() + ")");
            }
            if (auto* map = std::get_if<binlog::TableMapEvent>(&event.body)) {
                if (map->table && stream.tables.selects(map->table->db, map->table->table)) learn_schema(*map->table);
                continue;
            }
            if (auto* rows = std::get_if<binlog::Rows>(&event.body)) {
                // The schema hint may have replaced the map after it was decoded.
                if (auto fresh = decoder.table(rows->table_id)) rows->table = std::move(fresh);
            }
            switch (assembler->feed(event)) {
                case detail::TransactionAssembler::Outcome::transaction:
                    skipped_since_event = false;
                    current = assembler->take_transaction();
                    return &current;
                case detail::TransactionAssembler::Outcome::part:
                    skipped_since_event = false;
                    current = assembler->take_part();
                    return &current;
                case detail::TransactionAssembler::Outcome::ddl:
                    skipped_since_event = false;
                    learned.clear();  // re-learn every table after DDL
                    current = assembler->take_ddl();
                    return &current;
                case detail::TransactionAssembler::Outcome::skipped:
                    if (std::holds_alternative<binlog::Query>(event.body)) learned.clear();
                    skipped_since_event = true;
                    continue;
                case detail::TransactionAssembler::Outcome::none:
                    // A heartbeat: the server has sent nothing for
                    // `heartbeat`. A caller that blocks in next() hears of
                    // the quiet, so it gets to look at its other work (a
                    // commit that failed meanwhile, a stop) that often.
                    if (stream.idle_events && std::holds_alternative<binlog::Heartbeat>(event.body) &&
                        !assembler->in_group() && !binlog->input_pending()) {
                        current = Idle{};
                        return &current;
                    }
                    continue;
            }
        }
    }
};

ChangeStream::ChangeStream(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
ChangeStream::ChangeStream(ChangeStream&&) noexcept = default;
ChangeStream& ChangeStream::operator=(ChangeStream&&) noexcept = default;
ChangeStream::~ChangeStream() = default;

ChangeStream ChangeStream::open(const ConnectOptions& options, StreamOptions stream) {
    auto s = std::make_unique<State>();
    s->options = options;
    s->server_id = stream.server_id != 0 ? stream.server_id : random_server_id();
    s->stream = std::move(stream);
    s->failover.emplace(options, s->stream);
    // The binlog connection checks the server and finds the start; the side
    // connection (information_schema) is made when a table first needs it.
    Connection first = s->failover->connect_first();
    check_server(first);
    if (s->stream.until_end) s->until_state = GtidState::parse(single_value(first, "SELECT @@global.gtid_binlog_pos"));
    GtidState start;
    switch (s->stream.start) {
        case StartAt::oldest: break;
        case StartAt::gtid: start = s->stream.gtid; break;
        case StartAt::now: start = GtidState::parse(single_value(first, "SELECT @@global.gtid_binlog_pos")); break;
        case StartAt::snapshot: {
            Connection snap = Connection::connect(s->failover->current_options());
            s->snapshot = std::make_unique<detail::SnapshotReader>(std::move(snap), s->stream.tables,
                                                                   s->stream.snapshot_chunk_rows);
            start = s->snapshot->position();
            s->resumable = false;
            break;
        }
    }
    s->assembler = std::make_unique<detail::TransactionAssembler>(s->stream.tables, start, s->stream.part_bytes,
                                                                  s->stream.max_transaction_bytes,
                                                                  s->stream.whole_transaction_hint);
    if (!s->snapshot) s->start_dump(std::move(first));
    return ChangeStream(std::move(s));
}

const ChangeEvent* ChangeStream::next() { return state_->next(); }
const GtidState& ChangeStream::position() const noexcept { return state_->assembler->position(); }
bool ChangeStream::resumable() const noexcept { return state_->resumable; }
bool ChangeStream::input_pending() const noexcept { return state_->binlog && state_->binlog->input_pending(); }
std::size_t ChangeStream::connects() const noexcept { return state_->connects; }
std::string ChangeStream::server() const { return state_->failover->current_name(); }
std::uint32_t ChangeStream::server_id() const noexcept { return state_->server_id; }

}  // namespace sluice::mariadb::cdc
