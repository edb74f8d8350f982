// The exchanges without sockets: scripted server bytes (built to the wire
// format with the hostile server's packet helpers) are fed through the
// sans-I/O framer, split at every byte boundary and one byte at a time, and
// every split must give the same transcript (rows, OKs, the error and its
// message) and make the client send the same bytes as the unsplit run.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hostile_server.hpp"
#include "scripted_exchange.hpp"
#include "sluice/mariadb/exchange/binlog_dump.hpp"
#include "sluice/mariadb/exchange/command_pipeline.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/exchange/login.hpp"
#include "sluice/mariadb/exchange/response_scanner.hpp"
#include "sluice/mariadb/exchange/result_reader.hpp"
#include "sluice/mariadb/protocol/replica.hpp"
#include "sluice/mariadb/statement.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"

namespace sluice::mariadb::test {
namespace {

using exchange::Outbox;
using exchange::Step;

ConnectOptions plain_options() {
    ConnectOptions o;
    o.host = "127.0.0.1";
    o.user = "scripted";
    o.password = "s3cret-password";
    o.ssl_mode = SslMode::disable;
    return o;
}

Scenario login_scenario(const ConnectOptions& o) {
    return [o](Driver& d) {
        exchange::LoginExchange login(o, PeerLocality::loopback, "scripted-server");
        d.drive(login.start(d.out), [&](std::span<const std::uint8_t> p) { return login.resume(d.out, p); });
        d.run.events.push_back("logged in, connection " + std::to_string(login.outcome().connection_id) + ", " +
                               login.outcome().server_version);
    };
}

Bytes auth_switch(std::string_view plugin, const Bytes& data) {
    Bytes p = PacketBuilder{}.u8(0xFE).nul(plugin).bytes;
    p.insert(p.end(), data.begin(), data.end());
    return p;
}

TEST(ExchangeSequencing, LoginWithNativePassword) {
    const Bytes server = Script{}.packet(0, handshake_payload()).packet(2, ok_payload()).bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0], "logged in, connection 7, 10.11.99-MariaDB-hostile");
    EXPECT_TRUE(contains(run.sent, "scripted"));
    EXPECT_TRUE(contains(run.sent, "mysql_native_password"));
}

TEST(ExchangeSequencing, LoginSwitchedToEd25519) {
    const Bytes nonce(32, 0x5A);
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, auth_switch("client_ed25519", nonce))
                             .packet(4, ok_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("logged in", 0), 0U);
    // HandshakeResponse, then the 64-byte signature as its own packet (sequence 3).
    const std::size_t signature_header = run.sent.size() - 64 - 4;
    EXPECT_EQ(run.sent[signature_header], 64);
    EXPECT_EQ(run.sent[signature_header + 3], 3);
}

TEST(ExchangeSequencing, LoginRefusesCleartextWithoutTls) {
    const Bytes server =
        Script{}.packet(0, handshake_payload()).packet(2, auth_switch("mysql_clear_password", {})).bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("error auth: ", 0), 0U) << run.events[0];
}

// Every plugin the client speaks runs through the login exchange on bytes
// alone (GSSAPI's success needs a KDC's ticket and the server's acceptor:
// Login.GssapiWithTheTicketFromTheKdc runs it against the real server).
TEST(ExchangeSequencing, LoginSwitchedToClearPasswordWhenPlainTcpIsAllowed) {
    ConnectOptions o = plain_options();
    o.allow_cleartext = true;
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, auth_switch("mysql_clear_password", {}))
                             .packet(4, ok_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(o));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("logged in", 0), 0U) << run.events[0];
    // The last packet sent: sequence 3, the password and its NUL.
    const std::string password = o.password + '\0';
    const std::size_t header = run.sent.size() - password.size() - 4;
    EXPECT_EQ(run.sent[header], password.size());
    EXPECT_EQ(run.sent[header + 3], 3);
    EXPECT_EQ(std::string(run.sent.begin() + static_cast<std::ptrdiff_t>(header) + 4, run.sent.end()), password);
}

TEST(ExchangeSequencing, LoginThroughThePamDialogAnswersEveryQuestion) {
    ConnectOptions o = plain_options();
    o.allow_cleartext = true;
    const std::string first = "\x04Password: ";
    const std::string second = "\x02One-time code: ";
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, auth_switch("dialog", Bytes(first.begin(), first.end())))
                             .packet(4, Bytes(second.begin(), second.end()))
                             .packet(6, ok_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(o));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("logged in", 0), 0U) << run.events[0];
    // Both questions answered with the password (sequence 3 and 5).
    const std::string sent(run.sent.begin(), run.sent.end());
    const std::size_t one = sent.find(o.password + '\0');
    ASSERT_NE(one, std::string::npos);
    EXPECT_EQ(sent[one - 1], 3);
    const std::size_t two = sent.find(o.password + '\0', one + 1);
    ASSERT_NE(two, std::string::npos);
    EXPECT_EQ(sent[two - 1], 5);
}

TEST(ExchangeSequencing, LoginThroughThePamDialogIsRefusedOnPlainTcp) {
    const std::string first = "\x04Password: ";
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, auth_switch("dialog", Bytes(first.begin(), first.end())))
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("error auth: ", 0), 0U) << run.events[0];
    const std::string sent(run.sent.begin(), run.sent.end());
    EXPECT_EQ(sent.find(plain_options().password), std::string::npos) << "the password never left";
}

TEST(ExchangeSequencing, LoginSwitchedToGssapiWithoutATicketIsAnAuthErrorNamingTheCache) {
    ::setenv("KRB5CCNAME", "FILE:/nonexistent/sluice-sequencing-no-ccache", 1);
    const std::string spn = std::string("mariadb/localhost@SLUICE.TEST") + '\0';
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, auth_switch("auth_gssapi_client", Bytes(spn.begin(), spn.end())))
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ::unsetenv("KRB5CCNAME");
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("error auth: ", 0), 0U) << run.events[0];
    EXPECT_NE(run.events[0].find("mariadb/localhost@SLUICE.TEST"), std::string::npos) << run.events[0];
    EXPECT_NE(run.events[0].find("/nonexistent/sluice-sequencing-no-ccache"), std::string::npos) << run.events[0];
}

TEST(ExchangeSequencing, LoginErrorFromTheServer) {
    const Bytes server = Script{}
                             .packet(0, handshake_payload())
                             .packet(2, err_payload(1045, "28000", "Access denied for user 'scripted'"))
                             .bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_NE(run.events[0].find("error server: "), std::string::npos);
    EXPECT_NE(run.events[0].find("Access denied for user 'scripted'"), std::string::npos);
}

TEST(ExchangeSequencing, HostileLoginThatNeverEndsIsCutAfterSixteenReplies) {
    Script script;
    script.packet(0, handshake_payload());
    std::uint8_t sequence = 2;
    for (int i = 0; i < 16; ++i) {
        script.packet(sequence, auth_switch("mysql_native_password", Bytes(20, 0x41)));
        sequence = static_cast<std::uint8_t>(sequence + 2);
    }
    const Transcript run = same_for_every_split(script.bytes, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0], "error protocol: authentication did not finish after 16 exchanges");
}

TEST(ExchangeSequencing, HostileSequenceIdIsAProtocolError) {
    const Bytes server = Script{}.packet(0, handshake_payload()).packet(5, ok_payload()).bytes;
    const Transcript run = same_for_every_split(server, login_scenario(plain_options()));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0], "error protocol: packet from scripted-server has sequence id 5, expected 2");
}

// The client side of COM_QUERY: the ResultReader walks every result.
Scenario query_scenario(std::uint64_t capabilities) {
    return [capabilities](Driver& d) {
        exchange::ResultReader reader;
        reader.set_connection(capabilities, false);
        exchange::write_query(d.out, "SELECT a, b FROM t; UPDATE t SET a = 1");
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        reader.expect_head(false);
        for (;;) {
            d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return reader.resume(p); });
            while (reader.phase == exchange::Phase::rows) {
                std::string text;
                d.drive(Step::read, [&](std::span<const std::uint8_t> p) {
                    if (reader.row_packet(p)) {
                        text = "row";
                        for (std::size_t i = 0; i < reader.row.size(); ++i) text += " " + reader.row[i].to_string();
                    } else {
                        text = "end of rows";
                    }
                    return Step::done;
                });
                d.run.events.push_back(text);
            }
            d.run.events.push_back("ok, " + std::to_string(reader.ok.affected_rows) + " affected");
            if (reader.phase != exchange::Phase::more_results) break;
            reader.expect_head(false);
        }
    };
}

constexpr std::uint16_t more_results = protocol::status::more_results_exist | protocol::status::autocommit;

TEST(ExchangeSequencing, TextResultsOfAMultiStatement) {
    const Bytes server = Script{}
                             .packet(1, {0x02})
                             .packet(2, varchar_column_payload("a"))
                             .packet(3, varchar_column_payload("b"))
                             .packet(4, eof_payload())
                             .packet(5, text_row({"1", "one"}))
                             .packet(6, text_row({"2", "two"}))
                             .packet(7, PacketBuilder{}.u8(0xFE).u16(0).u16(more_results).bytes)
                             .packet(8, PacketBuilder{}.raw({0x00, 3, 0}).u16(protocol::status::autocommit).u16(0).bytes)
                             .bytes;
    const Transcript run = same_for_every_split(server, query_scenario(hostile_default_capabilities));
    EXPECT_EQ(run.events, (std::vector<std::string>{"row 1 one", "row 2 two", "end of rows", "ok, 0 affected",
                                                    "ok, 3 affected"}));
}

TEST(ExchangeSequencing, ServerErrorInTheMiddleOfTheRows) {
    const Bytes server = Script{}
                             .packet(1, {0x01})
                             .packet(2, varchar_column_payload("a"))
                             .packet(3, eof_payload())
                             .packet(4, text_row({"1"}))
                             .packet(5, err_payload(1317, "70100", "Query execution was interrupted"))
                             .bytes;
    const Transcript run = same_for_every_split(server, query_scenario(hostile_default_capabilities));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_EQ(run.events[0], "row 1");
    EXPECT_NE(run.events[1].find("error server: Query execution was interrupted"), std::string::npos) << run.events[1];
}

TEST(ExchangeSequencing, HostileServerSkipsDefinitionsTheClientNeverCached) {
    const std::uint64_t caps = hostile_default_capabilities | protocol::cap::mariadb_cache_metadata;
    const Bytes server = Script{}.packet(1, {0x01, 0x00}).bytes;  // one column, metadata does not follow
    const Transcript run = same_for_every_split(server, query_scenario(caps));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0], "error protocol: server skipped the definitions of 1 columns the client has not cached");
}

TEST(ExchangeSequencing, PrepareThenExecuteWithBinaryRows) {
    const Bytes prepare_reply = Script{}
                                    .packet(1, PacketBuilder{}.u8(0).u32(9).u16(1).u16(1).u8(0).u16(0).bytes)
                                    .packet(2, varchar_column_payload("?"))
                                    .packet(3, eof_payload())
                                    .packet(4, varchar_column_payload("name"))
                                    .packet(5, eof_payload())
                                    .bytes;
    const Bytes execute_reply = Script{}
                                    .packet(1, {0x01})
                                    .packet(2, varchar_column_payload("name"))
                                    .packet(3, eof_payload())
                                    .packet(4, PacketBuilder{}.u8(0x00).u8(0x00).lenenc("alice").bytes)
                                    .packet(5, eof_payload())
                                    .bytes;
    Bytes server = prepare_reply;
    server.insert(server.end(), execute_reply.begin(), execute_reply.end());
    const Transcript run = same_for_every_split(server, [](Driver& d) {
        exchange::PrepareExchange prepare(hostile_default_capabilities, false);
        d.drive(prepare.start(d.out, "SELECT name FROM t WHERE id = ?"),
                [&](std::span<const std::uint8_t> p) { return prepare.resume(p); });
        d.run.events.push_back("prepared " + std::to_string(prepare.statement_id) + " with " +
                               std::to_string(prepare.params.size()) + " parameter, column " +
                               prepare.columns.at(0).name);
        auto columns = std::make_shared<std::vector<Column>>(prepare.columns);
        const protocol::ParamValue id = mariadb::bind::value(42);
        exchange::write_execute(d.out, prepare.statement_id, std::span(&id, 1), 1024);
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        exchange::ResultReader reader;
        reader.set_connection(hostile_default_capabilities, false);
        reader.expect_head(true, &columns);
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return reader.resume(p); });
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) {
            if (reader.row_packet(p)) d.run.events.push_back("row " + reader.row[0].to_string());
            return Step::done;
        });
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) {
            if (!reader.row_packet(p)) d.run.events.push_back("end of rows");
            return Step::done;
        });
    });
    EXPECT_EQ(run.events, (std::vector<std::string>{"prepared 9 with 1 parameter, column name", "row alice",
                                                    "end of rows"}));
}

// AsyncConnection reads a whole response with the scanner before the
// ResultReader decodes it: both must agree where the response ends.
TEST(ExchangeSequencing, TheScannerEndsWhereTheResultsEnd) {
    const Bytes server = Script{}
                             .packet(1, {0x01})
                             .packet(2, varchar_column_payload("a"))
                             .packet(3, eof_payload())
                             .packet(4, text_row({"x"}))
                             .packet(5, PacketBuilder{}.u8(0xFE).u16(0).u16(more_results).bytes)
                             .packet(6, err_payload(1146, "42S02", "Table 'sluice.nope' doesn't exist"))
                             .bytes;
    const Transcript run = same_for_every_split(server, [](Driver& d) {
        exchange::ResponseScanner scanner(hostile_default_capabilities, false);
        exchange::write_query(d.out, "SELECT a FROM t; SELECT * FROM nope");
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        int packets = 0;
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) {
            ++packets;
            return scanner.resume(d.out, p);
        });
        d.run.events.push_back("response of " + std::to_string(packets) + " packets");
        EXPECT_FALSE(d.framer.has_buffered_input());
    });
    EXPECT_EQ(run.events, (std::vector<std::string>{"response of 6 packets"}));
}

TEST(ExchangeSequencing, TheScannerRefusesLocalInfile) {
    const Bytes server = Script{}
                             .packet(1, PacketBuilder{}.u8(0xFB).text("/etc/passwd").bytes)
                             .packet(3, PacketBuilder{}.raw({0x00, 0, 0}).u16(protocol::status::autocommit).u16(0).bytes)
                             .bytes;
    const Transcript run = same_for_every_split(server, [](Driver& d) {
        exchange::ResponseScanner scanner(hostile_default_capabilities, false);
        exchange::write_query(d.out, "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t");
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        d.run.sent.clear();
        d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return scanner.resume(d.out, p); });
        d.run.events.push_back("refused " + scanner.refused_local_infile());
    });
    EXPECT_EQ(run.events, (std::vector<std::string>{"refused /etc/passwd"}));
    // The refusal is an empty file: one empty packet, sequence 2.
    EXPECT_EQ(run.sent, (Bytes{0, 0, 0, 2}));
}

// The command pipeline: five commands in one write (a close among them,
// without reply), then each reply read where its own command says it
// starts. A failing step ends only itself: the steps after it are read as
// if it had succeeded.
Scenario pipeline_scenario() {
    return [](Driver& d) {
        const std::uint64_t caps = hostile_default_capabilities;
        exchange::CommandPipeline pipe(8);
        pipe.set_connection(caps, false);
        exchange::ResultReader reader;
        reader.set_connection(caps, false);
        auto columns = std::make_shared<std::vector<Column>>();
        const protocol::ParamValue id = mariadb::bind::value(42);
        pipe.stage_query("SELECT a FROM t");
        EXPECT_TRUE(pipe.queue(d.out));
        pipe.stage_execute(9, std::span(&id, 1), 1024, &columns);
        EXPECT_TRUE(pipe.queue(d.out));
        pipe.stage_query("SELECT * FROM nope");
        EXPECT_TRUE(pipe.queue(d.out));
        pipe.stage_statement_command(StepKind::close_statement, 9);
        EXPECT_FALSE(pipe.queue(d.out));  // no reply to wait for
        pipe.stage_command(StepKind::ping);
        EXPECT_TRUE(pipe.queue(d.out));
        EXPECT_EQ(pipe.outstanding(), 4U);
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        while (pipe.outstanding() > 0) {
            const std::string kind(to_string(pipe.oldest_kind()));
            const exchange::ReplyStart at = pipe.begin_reply(reader);
            d.framer.expect_sequence(at.sequence);
            try {
                d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return pipe.resume(p); });
                while (reader.phase == exchange::Phase::rows) {
                    d.drive(Step::read, [&](std::span<const std::uint8_t> p) {
                        if (reader.row_packet(p)) d.run.events.push_back(kind + " row " + reader.row[0].to_string());
                        return Step::done;
                    });
                }
                d.run.events.push_back(kind + " ok, " + std::to_string(reader.ok.affected_rows) + " affected");
            } catch (const Error& e) {
                d.run.events.push_back(kind + " failed: " + std::string(to_string(e.kind())) + ": " + e.what());
            }
            pipe.end_reply();
        }
        EXPECT_FALSE(d.framer.has_buffered_input());
        EXPECT_EQ(columns->size(), 1U);  // the execute's reply filled the statement's cache
    };
}

TEST(ExchangeSequencing, PipelineOfTextAndBinaryStepsWithAnErrorInStepTwo) {
    const Bytes server =
        Script{}
            // step 0, COM_QUERY: one text row
            .packet(1, {0x01})
            .packet(2, varchar_column_payload("a"))
            .packet(3, eof_payload())
            .packet(4, text_row({"x"}))
            .packet(5, eof_payload())
            // step 1, COM_STMT_EXECUTE: one binary row
            .packet(1, {0x01})
            .packet(2, varchar_column_payload("name"))
            .packet(3, eof_payload())
            .packet(4, PacketBuilder{}.u8(0x00).u8(0x00).lenenc("alice").bytes)
            .packet(5, eof_payload())
            // step 2: the server's error
            .packet(1, err_payload(1146, "42S02", "Table 'sluice.nope' doesn't exist"))
            // (the close has no reply) step 4, COM_PING
            .packet(1, PacketBuilder{}.raw({0x00, 0, 0}).u16(protocol::status::autocommit).u16(0).bytes)
            .bytes;
    const Transcript run = same_for_every_split(server, pipeline_scenario());
    EXPECT_EQ(run.events,
              (std::vector<std::string>{"query row x", "query ok, 0 affected", "execute row alice",
                                        "execute ok, 0 affected",
                                        "query failed: server: Table 'sluice.nope' doesn't exist", "ping ok, 0 affected"}));
    // Five commands in one write, each from sequence 0: query, execute,
    // query, close, ping.
    std::vector<std::uint8_t> commands;
    for (std::size_t at = 0; at + 4 <= run.sent.size();) {
        const std::size_t length = std::size_t{run.sent[at]} | (std::size_t{run.sent[at + 1]} << 8) |
                                   (std::size_t{run.sent[at + 2]} << 16);
        EXPECT_EQ(run.sent[at + 3], 0) << "packet at byte " << at;
        commands.push_back(run.sent[at + 4]);
        at += 4 + length;
    }
    EXPECT_EQ(commands, (std::vector<std::uint8_t>{0x03, 0x17, 0x03, 0x19, 0x0E}));
}

TEST(ExchangeSequencing, PipelineReplyOutOfStepIsAProtocolError) {
    // The second reply claims sequence 2 where its command's reply starts at 1.
    const Bytes server = Script{}
                             .packet(1, PacketBuilder{}.raw({0x00, 0, 0}).u16(protocol::status::autocommit).u16(0).bytes)
                             .packet(2, PacketBuilder{}.raw({0x00, 0, 0}).u16(protocol::status::autocommit).u16(0).bytes)
                             .bytes;
    const Transcript run = same_for_every_split(server, [](Driver& d) {
        exchange::CommandPipeline pipe(2);
        pipe.set_connection(hostile_default_capabilities, false);
        exchange::ResultReader reader;
        for (int i = 0; i < 2; ++i) {
            pipe.stage_command(StepKind::ping);
            pipe.queue(d.out);
        }
        d.drive(Step::write, [](std::span<const std::uint8_t>) { return Step::done; });
        while (pipe.outstanding() > 0) {
            d.framer.expect_sequence(pipe.begin_reply(reader).sequence);
            d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return pipe.resume(p); });
            d.run.events.push_back("ping ok");
            pipe.end_reply();
        }
    });
    EXPECT_EQ(run.events, (std::vector<std::string>{
                              "ping ok", "error protocol: packet from scripted-server has sequence id 2, expected 1"}));
}

// The first `n` events of a binlog file captured from MariaDB 10.11
// (mariadb/tests/binlog/fixtures, capture.sh there): after the 4 magic
// bytes, each event's length is at offset 9 of its header.
std::vector<Bytes> captured_events(const std::string& fixture, std::size_t n) {
    std::ifstream in(std::string(SLUICE_BINLOG_FIXTURES) + "/" + fixture + ".hex");
    if (!in) throw std::runtime_error("no fixture " + fixture);
    std::stringstream text;
    text << in.rdbuf();
    std::string hex = text.str();
    std::erase_if(hex, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) == 0; });
    Bytes file;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        file.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    std::vector<Bytes> events;
    for (std::size_t at = 4; events.size() < n && at + 13 <= file.size();) {
        const std::size_t length = std::size_t{file[at + 9]} | (std::size_t{file[at + 10]} << 8) |
                                   (std::size_t{file[at + 11]} << 16) | (std::size_t{file[at + 12]} << 24);
        events.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(at),
                            file.begin() + static_cast<std::ptrdiff_t>(at + length));
        at += length;
    }
    if (events.size() != n) throw std::runtime_error("fixture " + fixture + " has fewer events");
    return events;
}

Bytes dump_event(const Bytes& event) {
    Bytes p{0x00};
    p.insert(p.end(), event.begin(), event.end());
    return p;
}

// The replica's side: register, start the dump, then one packet at a time
// until the dump ends or fails.
Scenario dump_scenario(bool non_blocking) {
    return [non_blocking](Driver& d) {
        exchange::BinlogDumpExchange dump;
        exchange::DumpStart start;
        start.server_id = 0x40000001;
        start.non_blocking = non_blocking;
        try {
            d.drive(dump.start(d.out, start), [&](std::span<const std::uint8_t> p) { return dump.resume(d.out, p); });
            d.run.events.push_back("dump started");
            for (;;) {
                d.drive(Step::read, [&](std::span<const std::uint8_t> p) { return dump.resume(d.out, p); });
                if (dump.ended()) {
                    d.run.events.push_back("end of dump");
                    return;
                }
                d.run.events.push_back("event type " + std::to_string(dump.event()[4]) + ", " +
                                       std::to_string(dump.event().size()) + " bytes");
            }
        } catch (const Error& e) {
            d.run.events.push_back(std::string(dump.failed_command()) + " failed: " + e.what());
        }
    };
}

// The commands the client sent, by their first byte; each from sequence 0.
std::vector<std::uint8_t> commands_sent(const Bytes& sent) {
    std::vector<std::uint8_t> commands;
    for (std::size_t at = 0; at + 4 <= sent.size();) {
        const std::size_t length =
            std::size_t{sent[at]} | (std::size_t{sent[at + 1]} << 8) | (std::size_t{sent[at + 2]} << 16);
        EXPECT_EQ(sent[at + 3], 0) << "packet at byte " << at;
        commands.push_back(sent[at + 4]);
        at += 4 + length;
    }
    return commands;
}

TEST(ExchangeSequencing, BinlogDumpStartsThenEventsThenTheEndOfANonBlockingDump) {
    const std::vector<Bytes> events = captured_events("xa", 3);
    const Bytes server = Script{}
                             .packet(1, ok_payload())  // COM_REGISTER_SLAVE's reply
                             .packet(1, dump_event(events[0]))
                             .packet(2, dump_event(events[1]))
                             .packet(3, dump_event(events[2]))
                             .packet(4, eof_payload())
                             .bytes;
    const Transcript run = same_for_every_split(server, dump_scenario(true));
    ASSERT_EQ(run.events.size(), 5U);
    EXPECT_EQ(run.events[0], "dump started");
    EXPECT_EQ(run.events[1], "event type 15, " + std::to_string(events[0].size()) + " bytes");  // FORMAT_DESCRIPTION
    EXPECT_EQ(run.events[4], "end of dump");
    EXPECT_EQ(commands_sent(run.sent), (std::vector<std::uint8_t>{protocol::com_register_slave,
                                                                  protocol::com_binlog_dump}));
    // COM_BINLOG_DUMP's flags (after the command byte and the 4-byte
    // position): ANNOTATE_ROWS, and the non-blocking flag asked for.
    const std::size_t dump_at = run.sent.size() - (4 + 1 + 4 + 2 + 4);
    EXPECT_EQ(run.sent[dump_at + 4 + 1 + 4], protocol::binlog_dump_flag::send_annotate_rows |
                                                 protocol::binlog_dump_flag::non_block);
}

TEST(ExchangeSequencing, BinlogDumpErrFromTheServerAfterEventsEndsIt) {
    const std::vector<Bytes> events = captured_events("xa", 2);
    const Bytes server =
        Script{}
            .packet(1, ok_payload())
            .packet(1, dump_event(events[0]))
            .packet(2, dump_event(events[1]))
            .packet(3, err_payload(1236, "HY000", "Could not find GTID state requested by slave in any binlog files"))
            .bytes;
    const Transcript run = same_for_every_split(server, dump_scenario(false));
    ASSERT_EQ(run.events.size(), 4U);
    EXPECT_EQ(run.events[3],
              "binlog dump failed: Could not find GTID state requested by slave in any binlog files");
}

TEST(ExchangeSequencing, BinlogDumpRefusedAtRegisterSendsNoDump) {
    const Bytes server =
        Script{}
            .packet(1, err_payload(1227, "42000", "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation"))
            .bytes;
    const Transcript run = same_for_every_split(server, dump_scenario(false));
    ASSERT_EQ(run.events.size(), 1U);
    EXPECT_EQ(run.events[0].rfind("COM_REGISTER_SLAVE failed: Access denied", 0), 0U) << run.events[0];
    EXPECT_EQ(commands_sent(run.sent), (std::vector<std::uint8_t>{protocol::com_register_slave}));
}

TEST(ExchangeSequencing, BinlogDumpPacketOfNoKnownKindIsAProtocolError) {
    const Bytes server = Script{}.packet(1, ok_payload()).packet(1, {0x42, 0x01}).bytes;
    const Transcript run = same_for_every_split(server, dump_scenario(false));
    ASSERT_EQ(run.events.size(), 2U);
    EXPECT_NE(run.events[1].find("unexpected first byte 0x42"), std::string::npos) << run.events[1];
}

TEST(PacketFramer, OversizedPacketIsRefusedFromItsHeader) {
    PacketFramer framer("scripted-server", 100);
    const Bytes header{101, 0, 0, 0};
    std::span<std::uint8_t> space = framer.input_space(header.size());
    std::copy(header.begin(), header.end(), space.begin());
    framer.received(header.size());
    try {
        framer.next_packet();
        FAIL() << "an oversized packet was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "packet from scripted-server would reach 101 bytes, over the limit of 100 bytes (max_packet_size)");
    }
}

TEST(PacketFramer, PiecesOfSixteenMegabytesAreJoined) {
    const Bytes big(PacketFramer::max_packet_piece + 10, 0x61);
    PacketFramer writer("client");
    writer.write_packet(big);
    const Bytes wire(writer.output().begin(), writer.output().end());
    ASSERT_EQ(wire.size(), big.size() + 8);  // two headers
    PacketFramer reader("scripted-server", 64 * 1024 * 1024);
    std::size_t at = 0;
    std::optional<std::span<const std::uint8_t>> p;
    while (!(p = reader.next_packet())) {
        const std::size_t n = std::min<std::size_t>(1 << 20, wire.size() - at);
        std::span<std::uint8_t> space = reader.input_space(n);
        std::copy(wire.begin() + static_cast<std::ptrdiff_t>(at), wire.begin() + static_cast<std::ptrdiff_t>(at + n),
                  space.begin());
        reader.received(n);
        at += n;
    }
    EXPECT_EQ(p->size(), big.size());
    EXPECT_EQ(reader.sequence(), 2);
}

}  // namespace
}  // namespace sluice::mariadb::test
