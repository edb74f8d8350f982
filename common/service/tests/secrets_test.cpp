#include "sluice/service/secrets.hpp"

#include <gtest/gtest.h>

using sluice::service::mask_secrets;

TEST(Secrets, UrlPasswordsAreMaskedWhereverTheyAppear) {
    EXPECT_EQ(mask_secrets("mariadb://repl:s3cret@127.0.0.1:3306/"), "mariadb://repl:***@127.0.0.1:3306/");
    EXPECT_EQ(mask_secrets("error: cannot connect to postgresql://u:p%40ss@h:5432/db (refused)"),
              "error: cannot connect to postgresql://u:***@h:5432/db (refused)");
    EXPECT_EQ(mask_secrets("two: mariadb://a:x@h1 and \"nats://b:y@h2:4222\""),
              "two: mariadb://a:***@h1 and \"nats://b:***@h2:4222\"");
    // A password holding '@': the authority's last '@' ends it.
    EXPECT_EQ(mask_secrets("mariadb://u:a@b@h:1/"), "mariadb://u:***@h:1/");
}

TEST(Secrets, UrlsWithoutPasswordsAndPlainTextStayAsTheyAre) {
    EXPECT_EQ(mask_secrets("mariadb://repl@127.0.0.1:3306/"), "mariadb://repl@127.0.0.1:3306/");
    EXPECT_EQ(mask_secrets("nats://127.0.0.1:4222?stream=S"), "nats://127.0.0.1:4222?stream=S");
    EXPECT_EQ(mask_secrets("12 transactions, 0-1-42"), "12 transactions, 0-1-42");
    EXPECT_EQ(mask_secrets(""), "");
}

TEST(Secrets, PasswordKeyValuesAreMasked) {
    EXPECT_EQ(mask_secrets("host=h user=u password=secret dbname=d"), "host=h user=u password=*** dbname=d");
    EXPECT_EQ(mask_secrets("postgresql://h/db?user=u&password=pw&sslmode=off"),
              "postgresql://h/db?user=u&password=***&sslmode=off");
    EXPECT_EQ(mask_secrets("PASSWORD=x"), "PASSWORD=***");
    EXPECT_EQ(mask_secrets("old_password=kept"), "old_password=kept");
}
