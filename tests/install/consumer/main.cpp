// A program outside the sluice tree that uses the installed libraries: it
// reads readings from a MariaDB server through sluice::mariadb and puts
// them, as one transaction, into a Tideweave engine through
// sluice::tideweave, then prints the session that results.
//
//   sluice_consumer MARIADB_URL
//
// prints "sluice 0.1.0: 2 readings from MariaDB -> session k [0, 15): count 2, sum 4"
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <sluice/common/version.hpp>
#include <sluice/mariadb/mariadb.hpp>
#include <sluice/tideweave/engine.hpp>

namespace tw = sluice::tideweave;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: sluice_consumer MARIADB_URL\n";
        return 2;
    }
    try {
        auto connection = sluice::mariadb::Connection::connect(argv[1]);
        auto result = connection.query(
            "select 'a' as id, 'k' as sensor, 0 as ts, 1.5e0 as v union all select 'b', 'k', 5, 2.5e0");
        // The strings the mutations point at live here.
        struct Reading {
            std::string id, key;
            std::int64_t ts;
            double value;
        };
        std::vector<Reading> readings;
        for (const auto& row : result) {
            readings.push_back({row.get<std::string>(0), row.get<std::string>(1), row.get<std::int64_t>(2),
                                row.get<double>(3)});
        }
        std::vector<tw::Mutation> transaction;
        for (const Reading& r : readings) transaction.push_back(tw::Mutation::insert(r.id, r.key, r.ts, r.value));

        tw::Engine engine({.gap = 10, .lateness = 20});
        auto changes = engine.apply(transaction);
        if (!changes) {
            std::cerr << "sluice_consumer: " << changes.error().message << "\n";
            return 1;
        }
        for (const tw::Row& session : changes->after) {
            std::cout << "sluice " << sluice::version() << ": " << readings.size() << " readings from MariaDB -> session "
                      << session.key << " [" << session.start << ", " << session.end << "): count " << session.count
                      << ", sum " << session.sum << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "sluice_consumer: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
