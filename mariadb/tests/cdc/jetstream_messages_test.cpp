// Where the publisher continues after the stream's last message, the
// messages of a snapshot, and the subject tokens of database and table
// names: values alone, no server.
#include <gtest/gtest.h>

#include <cstring>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/mariadb/jetstream/snapshot_messages.hpp"

namespace sluice::mariadb::jetstream {
namespace {

StoredMessage message(std::map<std::string, std::string> headers) {
    StoredMessage m;
    m.seq = 7;
    m.subject = "S";
    m.headers = std::move(headers);
    return m;
}

std::string error_of(const StoredMessage& m) {
    try {
        resume_point(m, "S");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        return e.what();
    }
    return "no error";
}

TEST(JetStreamResume, ATransactionMessageResumesAfterItsState) {
    ResumePoint r = resume_point(message({{gtid_header, "0-1-9"}, {state_header, "0-1-9,1-2-3"}}), "S");
    EXPECT_EQ(r.from->to_string(), "0-1-9,1-2-3");
    EXPECT_FALSE(r.skip_gtid);
}

TEST(JetStreamResume, TheLastChangeOfADebeziumTransactionResumesAfterIt) {
    ResumePoint r = resume_point(message({{gtid_header, "0-1-9"}, {state_header, "0-1-9"},
                                          {state_before_header, "0-1-8"}, {change_header, "5/5"}}),
                                 "S");
    EXPECT_EQ(r.from->to_string(), "0-1-9");
    EXPECT_FALSE(r.skip_gtid);
}

TEST(JetStreamResume, ADebeziumTransactionCutOffResumesBeforeItSkippingWhatIsStored) {
    ResumePoint r = resume_point(message({{gtid_header, "0-1-9"}, {state_header, "0-1-9"},
                                          {state_before_header, "0-1-8"}, {change_header, "2/5"}}),
                                 "S");
    EXPECT_EQ(r.from->to_string(), "0-1-8");
    ASSERT_TRUE(r.skip_gtid);
    EXPECT_EQ(r.skip_gtid->seq_no, 9U);
    EXPECT_EQ(r.skip_changes, 2U);
}

// Part messages (issue 25): the stream ending inside a transaction
// resumes at the next part, before the transaction, skipping the changes
// already published; after its last part, after it.
TEST(JetStreamResume, AStreamEndingBetweenPartsResumesAtTheNextPart) {
    const OutMessage middle = part_message("{}", cdc::GtidPosition{0, 1, 9}, 3, false, 1200, cdc::GtidState::parse("0-1-8"), "S");
    StoredMessage m = message({});
    for (const auto& [k, v] : middle.headers) m.headers[k] = v;
    EXPECT_EQ(m.headers[msg_id_header], "0-1-9#3");
    EXPECT_EQ(m.headers[part_header], "3");
    EXPECT_EQ(m.headers.count(last_header), 0U);
    ResumePoint r = resume_point(m, "S");
    EXPECT_EQ(r.from->to_string(), "0-1-8");
    ASSERT_TRUE(r.skip_gtid);
    EXPECT_EQ(r.skip_gtid->seq_no, 9U);
    EXPECT_EQ(r.skip_changes, 1200U);
    EXPECT_EQ(r.parts_published, 3U);

    const OutMessage last = part_message("{}", cdc::GtidPosition{0, 1, 9}, 4, true, 1500, cdc::GtidState::parse("0-1-9"), "S");
    StoredMessage l = message({});
    for (const auto& [k, v] : last.headers) l.headers[k] = v;
    EXPECT_EQ(l.headers[last_header], "true");
    ResumePoint after = resume_point(l, "S");
    EXPECT_EQ(after.from->to_string(), "0-1-9");
    EXPECT_FALSE(after.skip_gtid);
    EXPECT_EQ(after.parts_published, 0U);
}

TEST(JetStreamParts, PartHeadersThatDisagreeNameTheMessageAndTheHeader) {
    auto error_in = [](std::map<std::string, std::string> h) {
        try {
            message_part(message(std::move(h)), "message 7");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_FALSE(message_part(message({{gtid_header, "0-1-9"}, {msg_id_header, "0-1-9"}}), "m"));
    const auto p = message_part(message({{gtid_header, "0-1-9"}, {msg_id_header, "0-1-9#2"}, {part_header, "2"}}), "m");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->gtid, "0-1-9");
    EXPECT_EQ(p->part, 2U);
    EXPECT_FALSE(p->last);
    EXPECT_EQ(error_in({{gtid_header, "0-1-9"}, {msg_id_header, "0-1-9#3"}, {part_header, "2"}}),
              "message 7, header Nats-Msg-Id: expected \"0-1-9#2\", got \"0-1-9#3\"");
    EXPECT_EQ(error_in({{gtid_header, "0-1-9"}, {msg_id_header, "0-1-9#0"}, {part_header, "0"}}),
              "message 7, header Sluice-Part: part 0 (parts count from 1)");
    EXPECT_NE(error_in({{gtid_header, "0-1-9"}, {part_header, "x"}}).find("message 7, header Sluice-Part: \"x\" is not a number"),
              std::string::npos);
    EXPECT_EQ(error_in({{gtid_header, "0-1-9"}, {msg_id_header, "0-1-9#1"}, {part_header, "1"}, {last_header, "yes"}}),
              "message 7, header Sluice-Last: expected \"true\", got \"yes\"");
    EXPECT_EQ(error_in({{gtid_header, "0-1-9"}, {last_header, "true"}}),
              "message 7, header Sluice-Last: on a message without Sluice-Part");
    EXPECT_EQ(error_in({{msg_id_header, "0-1-9#1"}, {part_header, "1"}}), "message 7: a part without a Sluice-Gtid header");
}

TEST(JetStreamResume, MissingOrMalformedHeadersNameTheMessageAndTheHeader) {
    EXPECT_EQ(error_of(message({})),
              "message 7 of stream \"S\" has no Sluice-Gtid-State header (was it written by sluice-mariadb cdc?)");
    EXPECT_NE(error_of(message({{state_header, "0-1"}})).find("message 7 of stream \"S\", header Sluice-Gtid-State: "),
              std::string::npos);
    EXPECT_EQ(error_of(message({{state_header, "0-1-9"}, {change_header, "3"}})),
              "message 7 of stream \"S\", header Sluice-Change: expected I/N, got \"3\"");
    EXPECT_EQ(error_of(message({{state_header, "0-1-9"}, {change_header, "6/5"}})),
              "message 7 of stream \"S\", header Sluice-Change: expected 1 <= I <= N, got \"6/5\"");
    EXPECT_EQ(error_of(message({{state_header, "0-1-9"}, {change_header, "x/5"}})),
              "message 7 of stream \"S\", header Sluice-Change: \"x\" is not a number");
    EXPECT_NE(error_of(message({{state_header, "0-1-9"}, {change_header, "1/5"}})).find("no Sluice-Gtid-State-Before header"),
              std::string::npos);
}

// --- snapshots --------------------------------------------------------------

TEST(JetStreamSnapshotId, RoundTripsAndNamesWhatIsWrong) {
    SnapshotId id{cdc::GtidState::parse("0-1-9,1-2-3"), 1764576000123};
    EXPECT_EQ(id.to_string(), "0-1-9,1-2-3:1764576000123");
    SnapshotId back = SnapshotId::parse(id.to_string(), "here");
    EXPECT_EQ(back.at, id.at);
    EXPECT_EQ(back.started_ms, id.started_ms);
    // A server that never logged a transaction: the empty state.
    EXPECT_TRUE(SnapshotId::parse(":5", "here").at.empty());
    for (const char* bad : {"0-1-9", "0-1-9:", "0-1-9:x", "0-1-9:-4", "0-1:5"}) {
        try {
            SnapshotId::parse(bad, "here");
            ADD_FAILURE() << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::protocol) << bad;
            EXPECT_EQ(std::string(e.what()).rfind("here: ", 0), 0U) << e.what();
        }
    }
}

TEST(JetStreamResume, AChunkOfAnUnfinishedSnapshotLeavesTheStreamWithoutAPosition) {
    ResumePoint r = resume_point(message({{snapshot_header, "0-1-9:100"}, {snapshot_chunk_header, "3"}}), "S");
    EXPECT_FALSE(r.from);
    ASSERT_TRUE(r.unfinished_snapshot);
    EXPECT_EQ(r.unfinished_snapshot->at.to_string(), "0-1-9");
    EXPECT_EQ(r.unfinished_snapshot->started_ms, 100);
    // A debezium row that is not the last one: the same.
    r = resume_point(message({{snapshot_header, "0-1-9:100"}, {snapshot_row_header, "17"}}), "S");
    EXPECT_FALSE(r.from);
    EXPECT_TRUE(r.unfinished_snapshot);
}

TEST(JetStreamResume, ADoneSnapshotResumesAfterItsStateAnAbortedOneHasNoPosition) {
    ResumePoint r = resume_point(
        message({{snapshot_header, "0-1-9:100"}, {snapshot_end_header, "done"}, {state_header, "0-1-9"}}), "S");
    ASSERT_TRUE(r.from);
    EXPECT_EQ(r.from->to_string(), "0-1-9");
    EXPECT_FALSE(r.unfinished_snapshot);
    r = resume_point(message({{snapshot_header, "0-1-9:100"}, {snapshot_end_header, "aborted"}}), "S");
    EXPECT_FALSE(r.from);
    EXPECT_FALSE(r.unfinished_snapshot);
}

TEST(JetStreamResume, MalformedSnapshotHeadersNameTheMessageAndTheHeader) {
    EXPECT_EQ(error_of(message({{snapshot_header, "0-1-9"}})),
              "message 7 of stream \"S\", header Sluice-Snapshot: expected GTIDSTATE:STARTMS, got \"0-1-9\"");
    EXPECT_EQ(error_of(message({{snapshot_header, "0-1-9:1"}, {snapshot_end_header, "maybe"}})),
              "message 7 of stream \"S\", header Sluice-Snapshot-End: expected done or aborted, got \"maybe\"");
    EXPECT_NE(error_of(message({{snapshot_header, "0-1-9:1"}, {snapshot_end_header, "done"}}))
                  .find("no Sluice-Gtid-State header"),
              std::string::npos);
}

// A snapshot chunk of shop.orders (id INT, name VARCHAR) built from the
// binary protocol's bytes, as the snapshot reader gets them.
class Chunk {
public:
    Chunk(const std::string& at, std::vector<std::pair<std::int32_t, std::string>> rows) {
        auto cols = std::make_shared<std::vector<Column>>(2);
        (*cols)[0].name = (*cols)[0].org_name = "id";
        (*cols)[0].type = ColumnType::long_;
        (*cols)[1].name = (*cols)[1].org_name = "name";
        (*cols)[1].type = ColumnType::var_string;
        (*cols)[1].collation = 45;  // utf8mb4_general_ci
        chunk_.at = cdc::GtidState::parse(at);
        chunk_.db = "shop";
        chunk_.table = "orders";
        chunk_.columns = cols;
        for (const auto& [id, name] : rows) {
            std::uint8_t le[4];
            const auto u = static_cast<std::uint32_t>(id);
            for (int i = 0; i < 4; ++i) le[i] = static_cast<std::uint8_t>(u >> (8 * i));
            const protocol::FieldSlice fields[2] = {
                {protocol::Bytes(le, 4), false},
                {protocol::Bytes(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()), false}};
            chunk_.add_row(Row(cols.get(), fields, true));
        }
    }
    cdc::ChangeEvent event() const { return chunk_; }

private:
    cdc::SnapshotChunk chunk_;
};

cdc::ChangeEvent done_at(const std::string& at) { return cdc::SnapshotDone{cdc::GtidState::parse(at)}; }

std::map<std::string, std::string> headers_of(const OutMessage& m) {
    return {m.headers.begin(), m.headers.end()};
}

TEST(JetStreamSnapshotMessages, SluiceEnvelopeIsOneMessagePerChunkLineAndOneForTheDoneLine) {
    SnapshotMessages s({cdc::GtidState::parse("0-1-41"), 500}, Envelope::sluice, "SHOP");
    std::vector<OutMessage> out;
    EXPECT_FALSE(s.add(out, Chunk("0-1-41", {{1, "a"}, {2, "b"}}).event(), 9));
    EXPECT_FALSE(s.add(out, Chunk("0-1-41", {{3, "c"}}).event(), 9));
    EXPECT_TRUE(s.add(out, done_at("0-1-41"), 9));
    ASSERT_EQ(out.size(), 3U);
    EXPECT_EQ(out[0].subject, "SHOP");
    EXPECT_EQ(out[0].data,
              "{\"snapshot\":{\"gtid\":\"0-1-41\",\"db\":\"shop\",\"table\":\"orders\"},\"rows\":[{\"id\":1,\"name\":\"a\"},"
              "{\"id\":2,\"name\":\"b\"}]}");
    EXPECT_EQ(headers_of(out[0]), (std::map<std::string, std::string>{{msg_id_header, "snapshot:0-1-41:500:1"},
                                                                      {snapshot_header, "0-1-41:500"},
                                                                      {snapshot_chunk_header, "1"}}));
    EXPECT_EQ(headers_of(out[1]).at(msg_id_header), "snapshot:0-1-41:500:2");
    EXPECT_EQ(out[2].data, "{\"snapshot\":{\"gtid\":\"0-1-41\",\"done\":true}}");
    EXPECT_EQ(headers_of(out[2]), (std::map<std::string, std::string>{{msg_id_header, "snapshot:0-1-41:500:done"},
                                                                      {snapshot_header, "0-1-41:500"},
                                                                      {snapshot_end_header, "done"},
                                                                      {state_header, "0-1-41"}}));
    // What a restart makes of each: inside the snapshot, then after it.
    auto stored = [](const OutMessage& m) {
        StoredMessage sm;
        sm.seq = 1;
        sm.headers = headers_of(m);
        return sm;
    };
    EXPECT_TRUE(resume_point(stored(out[1]), "S").unfinished_snapshot);
    EXPECT_EQ(resume_point(stored(out[2]), "S").from->to_string(), "0-1-41");
}

TEST(JetStreamSnapshotMessages, DebeziumEnvelopeIsOneReadPerRowTheLastSayingLast) {
    SnapshotMessages s({cdc::GtidState::parse("0-1-41"), 500}, Envelope::debezium, "shop");
    std::vector<OutMessage> out;
    s.add(out, Chunk("0-1-41", {{1, "a"}, {2, "b"}}).event(), 9);
    EXPECT_EQ(out.size(), 1U);  // the chunk's last row waits: is it the snapshot's last?
    s.add(out, Chunk("0-1-41", {{3, "c"}}).event(), 9);
    EXPECT_EQ(out.size(), 2U);
    s.add(out, done_at("0-1-41"), 9);
    ASSERT_EQ(out.size(), 3U);
    EXPECT_EQ(out[0].subject, "shop.shop.orders");
    EXPECT_EQ(out[0].data,
              "{\"before\":null,\"after\":{\"id\":1,\"name\":\"a\"},\"source\":{\"version\":\"sluice\",\"connector\":"
              "\"mariadb\",\"name\":\"shop\",\"ts_ms\":500,\"snapshot\":\"true\",\"db\":\"shop\",\"table\":\"orders\","
              "\"server_id\":0,\"gtid\":\"0-1-41\",\"file\":\"\",\"pos\":0,\"row\":0,\"thread\":null,\"query\":null},"
              "\"op\":\"r\",\"ts_ms\":9,\"transaction\":null}");
    EXPECT_EQ(headers_of(out[0]), (std::map<std::string, std::string>{{msg_id_header, "snapshot:0-1-41:500:1"},
                                                                      {snapshot_header, "0-1-41:500"},
                                                                      {snapshot_row_header, "1"}}));
    EXPECT_NE(out[1].data.find("\"snapshot\":\"true\""), std::string::npos);
    EXPECT_NE(out[2].data.find("\"after\":{\"id\":3,\"name\":\"c\"}"), std::string::npos);
    EXPECT_NE(out[2].data.find("\"snapshot\":\"last\""), std::string::npos) << out[2].data;
    EXPECT_EQ(headers_of(out[2]), (std::map<std::string, std::string>{{msg_id_header, "snapshot:0-1-41:500:3"},
                                                                      {snapshot_header, "0-1-41:500"},
                                                                      {snapshot_row_header, "3"},
                                                                      {snapshot_end_header, "done"},
                                                                      {state_header, "0-1-41"}}));
}

TEST(JetStreamSnapshotMessages, ADebeziumSnapshotWithoutRowsPublishesNothing) {
    SnapshotMessages s({cdc::GtidState::parse("0-1-41"), 500}, Envelope::debezium, "shop");
    std::vector<OutMessage> out;
    s.add(out, Chunk("0-1-41", {}).event(), 9);
    EXPECT_TRUE(s.add(out, done_at("0-1-41"), 9));
    EXPECT_TRUE(out.empty());
}

TEST(JetStreamSnapshotMessages, AnEventOfAnotherPositionIsRefused) {
    SnapshotMessages s({cdc::GtidState::parse("0-1-41"), 500}, Envelope::sluice, "SHOP");
    std::vector<OutMessage> out;
    EXPECT_THROW(s.add(out, Chunk("0-1-42", {{1, "a"}}).event(), 9), Error);
    EXPECT_THROW(s.add(out, done_at("0-1-40"), 9), Error);
    EXPECT_THROW(s.add(out, cdc::Ddl{}, 9), Error);
    EXPECT_TRUE(out.empty());
}

TEST(JetStreamSnapshotMessages, TheAbortMessageClosesTheSnapshotForConsumersAndRestarts) {
    OutMessage m = snapshot_abort_message({cdc::GtidState::parse("0-1-41"), 500}, "SHOP");
    EXPECT_EQ(m.subject, "SHOP");
    EXPECT_EQ(m.data, "{\"snapshot\":{\"gtid\":\"0-1-41\",\"aborted\":true}}");
    StoredMessage sm;
    sm.seq = 4;
    sm.headers = headers_of(m);
    EXPECT_EQ(sm.headers.at(msg_id_header), "snapshot:0-1-41:500:aborted");
    ResumePoint r = resume_point(sm, "S");
    EXPECT_FALSE(r.from);
    EXPECT_FALSE(r.unfinished_snapshot);
}

TEST(JetStreamSubjects, NamesBecomeSingleTokens) {
    EXPECT_EQ(subject_token("shop"), "shop");
    EXPECT_EQ(subject_token("my.db"), "my_db");
    EXPECT_EQ(subject_token("a b*c>d\te"), "a_b_c_d_e");
    EXPECT_EQ(subject_token(""), "_");
    EXPECT_EQ(subject_token("café"), "café");
}

}  // namespace
}  // namespace sluice::mariadb::jetstream
