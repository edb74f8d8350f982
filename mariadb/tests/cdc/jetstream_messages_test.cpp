// Where the publisher continues after the stream's last message, and the
// subject tokens of database and table names: values alone, no server.
#include <gtest/gtest.h>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"

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
    EXPECT_EQ(r.from.to_string(), "0-1-9,1-2-3");
    EXPECT_FALSE(r.skip_gtid);
}

TEST(JetStreamResume, TheLastChangeOfADebeziumTransactionResumesAfterIt) {
    ResumePoint r = resume_point(message({{gtid_header, "0-1-9"}, {state_header, "0-1-9"},
                                          {state_before_header, "0-1-8"}, {change_header, "5/5"}}),
                                 "S");
    EXPECT_EQ(r.from.to_string(), "0-1-9");
    EXPECT_FALSE(r.skip_gtid);
}

TEST(JetStreamResume, ADebeziumTransactionCutOffResumesBeforeItSkippingWhatIsStored) {
    ResumePoint r = resume_point(message({{gtid_header, "0-1-9"}, {state_header, "0-1-9"},
                                          {state_before_header, "0-1-8"}, {change_header, "2/5"}}),
                                 "S");
    EXPECT_EQ(r.from.to_string(), "0-1-8");
    ASSERT_TRUE(r.skip_gtid);
    EXPECT_EQ(r.skip_gtid->seq_no, 9U);
    EXPECT_EQ(r.skip_changes, 2U);
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

TEST(JetStreamSubjects, NamesBecomeSingleTokens) {
    EXPECT_EQ(subject_token("shop"), "shop");
    EXPECT_EQ(subject_token("my.db"), "my_db");
    EXPECT_EQ(subject_token("a b*c>d\te"), "a_b_c_d_e");
    EXPECT_EQ(subject_token(""), "_");
    EXPECT_EQ(subject_token("café"), "café");
}

}  // namespace
}  // namespace sluice::mariadb::jetstream
