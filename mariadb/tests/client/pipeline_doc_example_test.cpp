// docs/mariadb.md's pipeline example, extracted by CMake, compiled and run
// against the server; the table it changes is checked afterwards.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

void pipeline_doc_example(Connection& conn) {
#include "pipeline_example.inc"
    // What the example's comments claim.
    EXPECT_EQ(s.succeeded, 4u);
    EXPECT_EQ(s.failed, 1u);
    EXPECT_EQ(names, std::vector<std::string>{"ink"});
    ASSERT_EQ(s.errors.size(), 1u);
    EXPECT_EQ(s.errors[0].first, 1u);
    EXPECT_EQ(s.errors[0].second.server_code(), 1062);
}

TEST(PipelineDocs, ExampleCompilesAndDoesWhatItSays) {
    Connection conn = Connection::connect(test::admin_options());
    conn.execute("CREATE TEMPORARY TABLE item (id INT PRIMARY KEY, name VARCHAR(40), cents INT)");
    pipeline_doc_example(conn);
    ResultSet rs = conn.query("SELECT id, name, cents FROM item ORDER BY id");
    std::vector<std::string> rows;
    for (const Row& row : rs) {
        rows.push_back(std::to_string(row.get<int>(0)) + " " + row.get<std::string>(1) + " " +
                       std::to_string(row.get<int>(2)));
    }
    EXPECT_EQ(rows, (std::vector<std::string>{"1 pen 240", "2 ink 800"}));
}

}  // namespace
}  // namespace sluice::mariadb
