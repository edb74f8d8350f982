// The speed features' exchanges without sockets (bulk execute, LOCAL INFILE
// uploads, cursor fetches): scripted server bytes fed split at every byte
// boundary and one byte at a time (scripted_exchange.hpp) must give the
// same results, the same errors and the same bytes sent as the unsplit run.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "scripted_exchange.hpp"
#include "sluice/mariadb/bulk.hpp"
#include "sluice/mariadb/exchange/bulk_execute.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/exchange/cursor_fetch.hpp"
#include "sluice/mariadb/exchange/local_infile.hpp"
#include "sluice/mariadb/exchange/result_reader.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb::test {
namespace {

using exchange::Step;

// OK with `affected` rows and `insert_id` (each under 251: one-byte lenenc).
Bytes ok_with(std::uint8_t affected, std::uint8_t insert_id = 0, std::uint16_t warnings = 0) {
    return PacketBuilder{}
        .raw({0x00, affected, insert_id})
        .u16(protocol::status::autocommit)
        .u16(warnings)
        .bytes;
}

// A protocol-4.1 column definition of a BIGINT UNSIGNED named `name`.
Bytes bigint_column_payload(std::string_view name) {
    return PacketBuilder{}
        .lenenc("def")
        .lenenc("")
        .lenenc("")
        .lenenc("")
        .lenenc(name)
        .lenenc(name)
        .u8(0x0C)
        .u16(63)  // binary
        .u32(20)
        .u8(0x08)    // LONGLONG
        .u16(0x20)   // UNSIGNED
        .u8(0)
        .u16(0)
        .bytes;
}

// The server's answer to SELECT @@max_allowed_packet (text protocol,
// classic EOFs), from sequence 1.
Script& max_allowed_packet_reply(Script& s, std::string_view value) {
    return s.packet(1, {0x01})
        .packet(2, bigint_column_payload("@@max_allowed_packet"))
        .packet(3, eof_payload())
        .packet(4, text_row({value}))
        .packet(5, eof_payload());
}

// BIGINT rows: with one parameter a bulk packet is 9 bytes of header
// (0xFA, id, flags, one type) and 9 bytes per row (indicator, 8 bytes).
struct IdRows {
    std::vector<std::tuple<std::int64_t>> ids;
    BulkRows erased() const {
        BulkRows r;
        r.count = ids.size();
        r.ctx = &ids;
        r.fill = [](const void* ctx, std::size_t i, std::span<protocol::BulkParam> out) {
            out[0] = bulk::param(std::get<0>((*static_cast<const std::vector<std::tuple<std::int64_t>>*>(ctx))[i]));
        };
        return r;
    }
};

IdRows ids(std::int64_t n) {
    IdRows r;
    for (std::int64_t i = 1; i <= n; ++i) r.ids.emplace_back(i);
    return r;
}

// Runs one bulk exchange; its result (or how far it got before the error)
// goes into the transcript.
Scenario bulk_scenario(IdRows rows, std::size_t max_packet_bytes, exchange::MaxAllowedPacket starting_cache = {}) {
    return [rows = std::move(rows), max_packet_bytes, given = starting_cache](Driver& d) {
        exchange::MaxAllowedPacket cache = given;  // each run starts from the same cache
        const BulkRows erased = rows.erased();
        std::vector<protocol::BulkParam> row(1);
        exchange::BulkExecuteExchange bulk(hostile_default_capabilities, false, 9, erased, row, max_packet_bytes, cache);
        auto report = [&] {
            const BulkResult& r = bulk.result();
            d.run.events.push_back("rows " + std::to_string(r.rows) + " in " + std::to_string(r.commands) +
                                   " packets, " + std::to_string(r.affected_rows) + " affected, first id " +
                                   std::to_string(r.first_insert_id) + ", " + std::to_string(r.warnings) +
                                   " warnings, max_allowed_packet " + std::to_string(cache.bytes));
        };
        try {
            d.drive(bulk.start(d.out), [&](std::span<const std::uint8_t> p) { return bulk.resume(d.out, p); });
        } catch (const Error&) {
            report();
            throw;
        }
        report();
    };
}

// The bulk packets the client sent, as (sequence, payload size, rows).
std::vector<std::string> bulk_packets(const Bytes& sent) {
    std::vector<std::string> packets;
    for (std::size_t at = 0; at + 4 <= sent.size();) {
        const std::size_t size = std::size_t{sent[at]} | std::size_t{sent[at + 1]} << 8 | std::size_t{sent[at + 2]} << 16;
        const std::uint8_t command = sent[at + 4];
        packets.push_back(std::to_string(sent[at + 3]) + ":" + std::to_string(command) + ":" + std::to_string(size));
        at += 4 + size;
    }
    return packets;
}

TEST(ExchangeSequencing, BulkSplitsByTheGivenLimitAndSumsEveryPacketsOk) {
    // 27 bytes hold two rows: 5 rows go as 2 + 2 + 1, one OK each.
    const Bytes server = Script{}
                             .packet(1, ok_with(2, 11))
                             .packet(1, ok_with(2, 13, 1))
                             .packet(1, ok_with(1, 15))
                             .bytes;
    const Transcript run = same_for_every_split(server, bulk_scenario(ids(5), 27));
    EXPECT_EQ(run.events, (std::vector<std::string>{
                              "rows 5 in 3 packets, 5 affected, first id 11, 1 warnings, max_allowed_packet 0"}));
    EXPECT_EQ(bulk_packets(run.sent), (std::vector<std::string>{"0:250:27", "0:250:27", "0:250:18"}));
}

TEST(ExchangeSequencing, BulkAsksMaxAllowedPacketOnceAndSplitsByIt) {
    Script script;
    max_allowed_packet_reply(script, "36").packet(1, ok_with(3, 1)).packet(1, ok_with(1, 4));
    const Transcript run = same_for_every_split(script.bytes, bulk_scenario(ids(4), 0));
    EXPECT_EQ(run.events, (std::vector<std::string>{
                              "rows 4 in 2 packets, 4 affected, first id 1, 0 warnings, max_allowed_packet 36"}));
    // COM_QUERY (3) of "SELECT @@max_allowed_packet", then packets of
    // 9 + 3 * 9 and 9 + 9 bytes.
    EXPECT_EQ(bulk_packets(run.sent), (std::vector<std::string>{"0:3:28", "0:250:36", "0:250:18"}));

    // With the cache filled, nothing is asked.
    const Bytes server = Script{}.packet(1, ok_with(4, 1)).bytes;
    const Transcript cached = same_for_every_split(server, bulk_scenario(ids(4), 0, exchange::MaxAllowedPacket{64}));
    EXPECT_EQ(bulk_packets(cached.sent), (std::vector<std::string>{"0:250:45"}));
}

TEST(ExchangeSequencing, BulkServerErrorMidwayStopsAfterThePacketsRun) {
    const Bytes server = Script{}
                             .packet(1, ok_with(2, 1))
                             .packet(1, err_payload(1062, "23000", "Duplicate entry '3' for key 'PRIMARY'"))
                             .bytes;
    const Transcript run = same_for_every_split(server, bulk_scenario(ids(6), 27));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[0], "rows 2 in 1 packets, 2 affected, first id 1, 0 warnings, max_allowed_packet 0");
    EXPECT_EQ(run.events[1], "error server: Duplicate entry '3' for key 'PRIMARY'");
    // The third packet was never sent.
    EXPECT_EQ(bulk_packets(run.sent), (std::vector<std::string>{"0:250:27", "0:250:27"}));
}

TEST(ExchangeSequencing, BulkRowLargerThanThePacketIsRefusedBeforeItIsSent) {
    const Transcript run = same_for_every_split({}, bulk_scenario(ids(2), 17));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[1],
              "error usage: bulk row 0 does not fit a packet of 17 bytes (max_allowed_packet); execute it alone");
    EXPECT_TRUE(run.sent.empty());
}

TEST(ExchangeSequencing, HostileBulkAnsweredWithAResultSet) {
    const Bytes server = Script{}.packet(1, {0x01}).packet(2, varchar_column_payload("a")).bytes;
    const Transcript run = same_for_every_split(server, bulk_scenario(ids(1), 100));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[1], "error protocol: bulk execute answered with a result set");
}

TEST(ExchangeSequencing, HostileMaxAllowedPacketWithoutARow) {
    const Bytes server = Script{}
                             .packet(1, {0x01})
                             .packet(2, bigint_column_payload("@@max_allowed_packet"))
                             .packet(3, eof_payload())
                             .packet(4, eof_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, bulk_scenario(ids(1), 0));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[1], "error protocol: SELECT @@max_allowed_packet returned no row");
    EXPECT_EQ(bulk_packets(run.sent), (std::vector<std::string>{"0:3:28"}));
}

// ---- LOAD DATA LOCAL INFILE ----------------------------------------------

// What upload() registers: the name and a reader handing out `chunks` (then
// 0, or, with `fail_at_end`, an Error{io} like the istream reader's).
struct InfileSourceScript {
    std::string name = "rows.csv";
    std::vector<std::string> chunks;
    bool fail_at_end = false;
};

// COM_QUERY of a LOAD DATA LOCAL statement, its head read by the
// ResultReader, the request answered as the blocking session does: from the
// source (nullopt: none registered, as during query()).
Scenario infile_scenario(std::optional<InfileSourceScript> script) {
    return [script = std::move(script)](Driver& d) {
        exchange::ResultReader reader;
        reader.set_connection(hostile_default_capabilities, false);
        exchange::write_query(d.out, "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE t");
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        d.run.sent.clear();  // what answers the request is what the tests look at
        reader.expect_head(false);
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return reader.resume(p); });
        if (reader.phase != exchange::Phase::local_infile) {
            d.run.events.push_back("no LOCAL INFILE request");
            return;
        }
        std::size_t next = 0;
        UploadReader read = [&](std::span<std::uint8_t> buf) -> std::size_t {
            if (next == script->chunks.size()) {
                if (script->fail_at_end) throw Error(ErrorKind::io, "reading the upload stream failed");
                return 0;
            }
            const std::string& chunk = script->chunks[next++];
            std::copy(chunk.begin(), chunk.end(), buf.begin());
            return chunk.size();
        };
        std::optional<exchange::LocalInfileSource> source;
        if (script) source.emplace(exchange::LocalInfileSource{script->name, &read, std::vector<std::uint8_t>(16)});
        exchange::LocalInfileExchange infile(hostile_default_capabilities, reader.local_infile_name,
                                             source ? &*source : nullptr);
        d.drive(infile.start(d.out), [&](std::span<const std::uint8_t> p) { return infile.resume(d.out, p); });
        reader.set_ok(infile.ok());
        d.run.events.push_back("server ok, " + std::to_string(reader.ok.affected_rows) + " affected, " +
                               reader.ok.info);
        infile.finish();
        d.run.events.push_back("uploaded");
    };
}

Bytes infile_request(std::string_view name) { return PacketBuilder{}.u8(0xFB).text(name).bytes; }

Bytes ok_with_info(std::uint8_t affected, std::string_view info) {
    return PacketBuilder{}.raw({0x00, affected, 0}).u16(protocol::status::autocommit).u16(0).text(info).bytes;
}

// The packets the client sent, as "sequence:payload".
std::vector<std::string> sent_packets(const Bytes& sent) {
    std::vector<std::string> packets;
    for (std::size_t at = 0; at + 4 <= sent.size();) {
        const std::size_t size = std::size_t{sent[at]} | std::size_t{sent[at + 1]} << 8 | std::size_t{sent[at + 2]} << 16;
        packets.push_back(std::to_string(sent[at + 3]) + ":" +
                          std::string(reinterpret_cast<const char*>(sent.data() + at + 4), size));
        at += 4 + size;
    }
    return packets;
}

TEST(ExchangeSequencing, LocalInfileIsAnsweredFromTheRegisteredSource) {
    const Bytes server =
        Script{}.packet(1, infile_request("rows.csv")).packet(5, ok_with_info(3, "Records: 3  Deleted: 0")).bytes;
    const Transcript run =
        same_for_every_split(server, infile_scenario(InfileSourceScript{"rows.csv", {"1,a\n2,b\n", "3,c\n"}, false}));
    EXPECT_EQ(run.events, (std::vector<std::string>{"server ok, 3 affected, Records: 3  Deleted: 0", "uploaded"}));
    // One packet per chunk, then the empty one that ends the file.
    EXPECT_EQ(sent_packets(run.sent), (std::vector<std::string>{"2:1,a\n2,b\n", "3:3,c\n", "4:"}));
}

TEST(ExchangeSequencing, LocalInfileWithoutASourceIsRefusedWithAnEmptyFile) {
    const Bytes server = Script{}.packet(1, infile_request("/etc/passwd")).packet(3, ok_with_info(0, "")).bytes;
    const Transcript run = same_for_every_split(server, infile_scenario(std::nullopt));
    EXPECT_EQ(run.events, (std::vector<std::string>{
                              "server ok, 0 affected, ",
                              "error usage: server requested LOCAL INFILE '/etc/passwd', which is not the source "
                              "registered for this statement: refused, nothing was read"}));
    EXPECT_EQ(sent_packets(run.sent), (std::vector<std::string>{"2:"}));
}

TEST(ExchangeSequencing, HostileLocalInfileForAnotherNameIsRefused) {
    const Bytes server = Script{}.packet(1, infile_request("/etc/shadow")).packet(3, ok_with_info(0, "")).bytes;
    const Transcript run = same_for_every_split(server, infile_scenario(InfileSourceScript{"rows.csv", {"1,a\n"}, false}));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[1], "error usage: server requested LOCAL INFILE '/etc/shadow', which is not the source "
                             "registered for this statement: refused, nothing was read");
    EXPECT_EQ(sent_packets(run.sent), (std::vector<std::string>{"2:"}));
}

TEST(ExchangeSequencing, LocalInfileServerErrorAfterTheData) {
    const Bytes server = Script{}
                             .packet(1, infile_request("rows.csv"))
                             .packet(4, err_payload(1062, "23000", "Duplicate entry '1' for key 'PRIMARY'"))
                             .bytes;
    const Transcript run = same_for_every_split(server, infile_scenario(InfileSourceScript{"rows.csv", {"1,a\n"}, false}));
    EXPECT_EQ(run.events, (std::vector<std::string>{"error server: Duplicate entry '1' for key 'PRIMARY'"}));
    EXPECT_EQ(sent_packets(run.sent), (std::vector<std::string>{"2:1,a\n", "3:"}));
}

TEST(ExchangeSequencing, LocalInfileReaderFailureEndsTheFileAndIsThrownAfterTheReply) {
    // The server keeps what it got (its OK is taken), then the reader's error.
    const Bytes ok_server =
        Script{}.packet(1, infile_request("rows.csv")).packet(4, ok_with_info(1, "Records: 1")).bytes;
    const Transcript run = same_for_every_split(ok_server, infile_scenario(InfileSourceScript{"rows.csv", {"1,a\n"}, true}));
    EXPECT_EQ(run.events, (std::vector<std::string>{"server ok, 1 affected, Records: 1",
                                                    "error io: reading the upload stream failed"}));
    EXPECT_EQ(sent_packets(run.sent), (std::vector<std::string>{"2:1,a\n", "3:"}));
    // A server ERR after a reader failure: the reader's error is the cause.
    const Bytes err_server = Script{}
                                 .packet(1, infile_request("rows.csv"))
                                 .packet(4, err_payload(1261, "01000", "Row 1 doesn't contain data for all columns"))
                                 .bytes;
    const Transcript failed =
        same_for_every_split(err_server, infile_scenario(InfileSourceScript{"rows.csv", {"1,a\n"}, true}));
    EXPECT_EQ(failed.events, (std::vector<std::string>{"error io: reading the upload stream failed"}));
}

// ---- Cursors ---------------------------------------------------------------

constexpr std::uint16_t cursor_open = protocol::status::autocommit | protocol::status::cursor_exists;
constexpr std::uint16_t cursor_last = cursor_open | protocol::status::last_row_sent;

Bytes binary_text_row(std::string_view value) { return PacketBuilder{}.u8(0x00).u8(0x00).lenenc(value).bytes; }
Bytes eof_with(std::uint16_t status) { return PacketBuilder{}.u8(0xFE).u16(0).u16(status).bytes; }

// A cursor over statement 9 (one VARCHAR column) driven as Cursor does:
// the execute's head, the open, then batch by batch with the next fetch sent
// before the current batch is walked. `before_walk` runs once, after the
// first fetch went out and before its reply is needed (another command).
Scenario cursor_scenario(std::uint64_t capabilities, std::uint32_t fetch_size,
                         std::function<void(Driver&, exchange::CursorFetchExchange&)> before_walk = {}) {
    return [=](Driver& d) {
        const bool deprecate_eof = capabilities & protocol::cap::deprecate_eof;
        exchange::ResultReader reader;
        reader.set_connection(capabilities, deprecate_eof);
        auto cached = std::make_shared<std::vector<Column>>();
        const protocol::ParamValue none[1];
        d.out.add(true, [&](protocol::Writer& w) {
            protocol::write_stmt_execute(w, 9, std::span(none, 0), protocol::cursor_flag::read_only);
        });
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        reader.expect_head(true, &cached);
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return reader.resume(p); });
        exchange::CursorFetchExchange cursor(capabilities, deprecate_eof, 9, fetch_size);
        const bool opened_in_head =
            !deprecate_eof && (reader.definitions_eof_status & protocol::status::cursor_exists);
        d.drive(cursor.open(opened_in_head, reader.definitions_eof_status),
                [&](std::span<const std::uint8_t> p) { return cursor.resume(p); });
        d.run.events.push_back("opened, " + std::to_string(cursor.current.rows()) + " rows" +
                               (cursor.server_done() ? ", no cursor left" : ""));
        const std::vector<Column>& columns = *reader.result_columns;
        const std::vector<protocol::ColumnType> types{columns.at(0).type};
        std::vector<protocol::FieldSlice> fields(1);
        const Row row(&columns, fields, true);
        auto walk = [&](const exchange::RowBatch& batch) {
            std::string text = "batch";
            for (std::size_t i = 0; i < batch.rows(); ++i) {
                const std::size_t at = batch.offsets[i];
                protocol::decode_binary_row(protocol::Bytes(batch.bytes.data() + at, batch.offsets[i + 1] - at), types,
                                            fields);
                text += " " + row[0].to_string();
            }
            d.run.events.push_back(text);
        };
        walk(cursor.current);
        auto fetch = [&] { d.drive(cursor.send_fetch(d.out), [&](std::span<const std::uint8_t> p) { return cursor.resume(p); }); };
        if (!cursor.server_done()) fetch();
        if (before_walk) before_walk(d, cursor);
        while (cursor.in_flight()) {
            d.drive(cursor.receive(), [&](std::span<const std::uint8_t> p) { return cursor.resume(p); });
            std::swap(cursor.current, cursor.next);
            if (!cursor.server_done()) fetch();  // batch N+1 asked for before batch N is walked
            walk(cursor.current);
        }
        d.run.events.push_back(std::to_string(cursor.fetches()) + " fetches");
    };
}

// The head of a cursor's execute on a classic server: the cursor opens on
// the definitions' EOF.
Script& cursor_head(Script& s) {
    return s.packet(1, {0x01}).packet(2, varchar_column_payload("a")).packet(3, eof_with(cursor_open));
}

// The COM_STMT_FETCH packets the client sent, each "sequence:statement/rows".
std::vector<std::string> fetches_sent(const Bytes& sent) {
    std::vector<std::string> fetches;
    for (std::size_t at = 0; at + 4 <= sent.size();) {
        const std::size_t size = std::size_t{sent[at]} | std::size_t{sent[at + 1]} << 8 | std::size_t{sent[at + 2]} << 16;
        if (sent[at + 4] == 0x1C) {
            fetches.push_back(std::to_string(sent[at + 3]) + ":" + std::to_string(sent[at + 5]) + "/" +
                              std::to_string(sent[at + 9]));
        }
        at += 4 + size;
    }
    return fetches;
}

TEST(ExchangeSequencing, CursorFetchesRowsUntilTheLastRowStatus) {
    Script script;
    cursor_head(script)
        .packet(1, binary_text_row("r1"))
        .packet(2, binary_text_row("r2"))
        .packet(3, eof_with(cursor_open))
        .packet(1, binary_text_row("r3"))
        .packet(2, eof_with(cursor_last));
    const Transcript run = same_for_every_split(script.bytes, cursor_scenario(hostile_default_capabilities, 2));
    EXPECT_EQ(run.events, (std::vector<std::string>{"opened, 0 rows", "batch", "batch r1 r2", "batch r3",
                                                    "2 fetches"}));
    EXPECT_EQ(fetches_sent(run.sent), (std::vector<std::string>{"0:9/2", "0:9/2"}));
}

TEST(ExchangeSequencing, CursorWithDeprecateEofOpensOnTheEndOfRows) {
    const std::uint64_t caps = hostile_default_capabilities | protocol::cap::deprecate_eof;
    const Bytes ok_end_open = PacketBuilder{}.raw({0xFE, 0, 0}).u16(cursor_open).u16(0).bytes;
    const Bytes ok_end_last = PacketBuilder{}.raw({0xFE, 0, 0}).u16(cursor_last).u16(0).bytes;
    const Bytes server = Script{}
                             .packet(1, {0x01})
                             .packet(2, varchar_column_payload("a"))
                             .packet(3, ok_end_open)
                             .packet(1, binary_text_row("r1"))
                             .packet(2, ok_end_last)
                             .bytes;
    const Transcript run = same_for_every_split(server, cursor_scenario(caps, 5));
    EXPECT_EQ(run.events, (std::vector<std::string>{"opened, 0 rows", "batch", "batch r1", "1 fetches"}));
}

TEST(ExchangeSequencing, CursorDeclinedByTheServerGivesEveryRowAtOnce) {
    const Bytes server = Script{}
                             .packet(1, {0x01})
                             .packet(2, varchar_column_payload("a"))
                             .packet(3, eof_payload())
                             .packet(4, binary_text_row("r1"))
                             .packet(5, binary_text_row("r2"))
                             .packet(6, binary_text_row("r3"))
                             .packet(7, eof_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, cursor_scenario(hostile_default_capabilities, 2));
    EXPECT_EQ(run.events,
              (std::vector<std::string>{"opened, 3 rows, no cursor left", "batch r1 r2 r3", "0 fetches"}));
    EXPECT_TRUE(fetches_sent(run.sent).empty());
}

TEST(ExchangeSequencing, CursorPipelinedFetchIsReadBeforeTheNextCommand) {
    // Another command (COM_PING) while the first fetch is in flight: the
    // fetch's reply is read first (as begin_command does) and kept, then
    // the ping runs, then the cursor walks what it kept.
    Script script;
    cursor_head(script)
        .packet(1, binary_text_row("r1"))
        .packet(2, eof_with(cursor_last))
        .packet(1, ok_payload());
    const Transcript run =
        same_for_every_split(script.bytes, cursor_scenario(hostile_default_capabilities, 1, [](Driver& d, auto& cursor) {
            d.drive(cursor.receive(), [&](std::span<const std::uint8_t> p) { return cursor.resume(p); });
            d.run.events.push_back("fetch reply kept, " + std::to_string(cursor.next.rows()) + " rows");
            exchange::SimpleCommand ping(hostile_default_capabilities);
            d.drive(ping.start(d.out, protocol::Command::ping), [&](std::span<const std::uint8_t> p) {
                return ping.resume(p);
            });
            d.run.events.push_back("ping answered");
            std::swap(cursor.current, cursor.next);
            d.run.events.push_back("walked " + std::to_string(cursor.current.rows()) + " rows" +
                                   (cursor.server_done() ? ", last" : ""));
        }));
    EXPECT_EQ(run.events, (std::vector<std::string>{"opened, 0 rows", "batch", "fetch reply kept, 1 rows",
                                                    "ping answered", "walked 1 rows, last", "1 fetches"}));
}

TEST(ExchangeSequencing, CursorFetchAnsweredWithAServerError) {
    Script script;
    cursor_head(script).packet(1, binary_text_row("r1")).packet(2, err_payload(1317, "70100", "Query execution was interrupted"));
    const Transcript run = same_for_every_split(script.bytes, cursor_scenario(hostile_default_capabilities, 2));
    EXPECT_EQ(run.events, (std::vector<std::string>{"opened, 0 rows", "batch",
                                                    "error server: Query execution was interrupted"}));
}

TEST(ExchangeSequencing, HostileFetchAnsweredWithMoreRowsThanAsked) {
    Script script;
    cursor_head(script);
    for (std::uint8_t i = 1; i <= 3; ++i) script.packet(i, binary_text_row("x"));
    script.packet(4, eof_with(cursor_last));
    const Transcript run = same_for_every_split(script.bytes, cursor_scenario(hostile_default_capabilities, 2));
    ASSERT_EQ(run.events.size(), 3U);
    EXPECT_EQ(run.events[2], "error protocol: server sent more than 2 rows in reply to a COM_STMT_FETCH of 2");
}

}  // namespace
}  // namespace sluice::mariadb::test
