// mariadb_core_bench: sluice's client against MariaDB Connector/C on the same
// server in the same run.
//
// Workloads: 20,000 sequential prepared single-row inserts (one transaction),
// a 100,000-row narrow SELECT, a 10,000-row 50-column SELECT (both text
// protocol, streamed), and connect + TLS (verify-full) + native auth.
//
// Method: the driver fills the tables, then runs --samples rounds; each round
// starts one fresh process per client, in shuffled order. A process warms up,
// times --reps repetitions of every workload, validates each one by count and
// checksum, and reports its medians. The driver prints, per workload, the
// median over processes (with min..max) for each client and the ratio
// ours / Connector-C (below 1.00: ours is faster).
#include <CLI/CLI.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "connector_c.hpp"
#include "ours.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/connection.hpp"
#include "workloads.hpp"

namespace bench = sluice::mariadb::bench;
using sluice::EnvFile;

namespace {

struct Workload {
    const char* key;
    const char* label;
    const char* unit;
};

constexpr std::array<Workload, 4> workloads{{
    {"insert", "20,000 prepared single-row inserts", "ns/row"},
    {"narrow", "100,000-row narrow SELECT (2 cols)", "ns/row"},
    {"wide", "10,000-row 50-column SELECT", "ns/row"},
    {"connect", "connect + TLS verify-full + auth", "ms/conn"},
}};

constexpr std::array<const char*, 2> clients{"ours", "connector-c"};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One process: warm up, time `reps` repetitions, print "key.wall value" and
// "key.cpu value" lines (medians of the repetitions, per row or per connect).
int run_child(const std::string& client_name, const EnvFile& env, int reps, const std::vector<std::string>& only) {
    auto wanted = [&](const char* key) { return std::find(only.begin(), only.end(), key) != only.end(); };
    const bench::Target target = bench::target_from(env);
    auto client = client_name == "ours" ? bench::make_ours(target) : bench::make_connector_c(target);
    std::map<std::string, std::vector<double>> results;
    auto record = [&](const std::string& key, bench::Timing t, double divisor) {
        results[key + ".wall"].push_back(static_cast<double>(t.wall_ns) / divisor);
        results[key + ".cpu"].push_back(static_cast<double>(t.cpu_ns) / divisor);
    };

    if (wanted("insert")) {
        client->inserts(2000);  // warm-up: server caches, prepared-statement path
        for (int r = 0; r < reps; ++r) record("insert", client->inserts(bench::insert_rows), bench::insert_rows);
    }
    if (wanted("narrow")) {
        client->narrow_select();
        for (int r = 0; r < reps; ++r) record("narrow", client->narrow_select(), bench::narrow_rows);
    }
    if (wanted("wide")) {
        client->wide_select();
        for (int r = 0; r < reps; ++r) record("wide", client->wide_select(), bench::wide_rows);
    }
    if (wanted("connect")) {
        client->connects(2);
        for (int r = 0; r < reps; ++r) {
            record("connect", client->connects(bench::connects_per_run), bench::connects_per_run * 1e6);
        }
    }
    for (const auto& [key, values] : results) std::cout << key << ' ' << median(values) << '\n';
    return 0;
}

// Runs this program again as a child; returns its "key value" lines.
std::map<std::string, double> spawn_child(const std::string& self, const std::string& client,
                                          const std::string& env_path, int reps,
                                          const std::vector<std::string>& only) {
    std::string list;
    for (const auto& w : only) list += (list.empty() ? "" : ",") + w;
    const std::string command = "'" + self + "' --child " + client + " --env '" + env_path +
                                "' --reps " + std::to_string(reps) + " --workloads " + list;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("cannot start " + command);
    std::map<std::string, double> out;
    char line[256];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::istringstream in(line);
        std::string key;
        double value = 0;
        if (in >> key >> value) out[key] = value;
    }
    const int status = ::pclose(pipe);
    if (status != 0 || out.size() != 2 * only.size()) {
        throw std::runtime_error("child '" + client + "' failed (status " + std::to_string(status) + ")");
    }
    return out;
}

void prepare_tables(const EnvFile& env) {
    using namespace sluice::mariadb;
    Connection c = Connection::connect(bench::admin_options_from(env));
    c.execute("DROP TABLE IF EXISTS bench_narrow, bench_wide, bench_insert");
    c.execute("CREATE TABLE bench_narrow (id INT PRIMARY KEY, v BIGINT NOT NULL)");
    c.execute("INSERT INTO bench_narrow SELECT seq, seq * 37 % 1000003 FROM seq_1_to_" +
              std::to_string(bench::narrow_rows));
    c.execute(bench::wide_create_sql());
    c.execute(bench::wide_fill_sql());
    c.execute("CREATE TABLE bench_insert (id INT PRIMARY KEY, v BIGINT NOT NULL, s VARCHAR(32) NOT NULL)");
}

// Starts private servers when none are given; stops them on destruction.
struct OwnServers {
    std::string dir;
    ~OwnServers() {
        if (!dir.empty()) {
            const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir '" + dir + "' >/dev/null";
            if (std::system(stop.c_str()) != 0) {
                std::cerr << "warning: stopping the servers in " << dir << " failed; left in place\n";
            } else {
                std::error_code ignored;
                std::filesystem::remove_all(dir, ignored);
            }
        }
    }
    std::string start() {
        char templ[] = "/tmp/sluice-core-bench.XXXXXX";
        if (::mkdtemp(templ) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir = templ;
        const std::string cmd = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --only mariadb --dir '" +
                                dir + "' >&2";
        if (std::system(cmd.c_str()) != 0) throw std::runtime_error("scripts/servers/start failed");
        return dir + "/env";
    }
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"mariadb_core_bench: sluice's MariaDB client vs Connector/C, same run, same server"};
    int samples = 7;
    int reps = 3;
    std::string env_path;
    std::string child;
    std::string json_path;
    app.add_option("--samples", samples, "independent processes per client (at least 5)")
        ->check(CLI::Range(5, 1000));
    app.add_option("--reps", reps, "timed repetitions per workload inside each process")->check(CLI::Range(1, 100));
    app.add_option("--env", env_path, "servers' env file (default: $SLUICE_ENV_FILE, else start private servers)");
    app.add_option("--json", json_path, "write the raw per-process samples here");
    std::vector<std::string> only{"insert", "narrow", "wide", "connect"};
    app.add_option("--workloads", only, "run only these (comma-separated: insert,narrow,wide,connect)")
        ->delimiter(',')
        ->check(CLI::IsMember({"insert", "narrow", "wide", "connect"}));
    app.add_option("--child", child, "internal: run one client's workloads and print the results")
        ->check(CLI::IsMember({"ours", "connector-c"}));
    CLI11_PARSE(app, argc, argv);

    try {
        if (!child.empty()) return run_child(child, EnvFile::load(env_path), reps, only);

        OwnServers own;
        if (env_path.empty()) {
            if (const char* from_env = std::getenv("SLUICE_ENV_FILE")) env_path = from_env;
        }
        if (env_path.empty()) env_path = own.start();
        const EnvFile env = EnvFile::load(env_path);
        std::cerr << "preparing tables on " << env.require("SLUICE_HOST") << ':' << env.require("SLUICE_MARIADB_PORT")
                  << " ...\n";
        prepare_tables(env);

        const std::string self = std::filesystem::read_symlink("/proc/self/exe");
        std::map<std::string, std::map<std::string, std::vector<double>>> raw;  // client -> workload -> samples
        std::mt19937 rng(std::random_device{}());
        for (int s = 0; s < samples; ++s) {
            std::vector<std::string> order(clients.begin(), clients.end());
            std::shuffle(order.begin(), order.end(), rng);
            for (const auto& client : order) {
                std::cerr << "sample " << (s + 1) << '/' << samples << ": " << client << '\n';
                for (const auto& [key, value] : spawn_child(self, client, env_path, reps, only)) {
                    raw[client][key].push_back(value);
                }
            }
        }

        std::printf("\nmariadb_core_bench: %d processes per client, %d timed reps each (median per process), "
                    "server %s:%s\n",
                    samples, reps, env.require("SLUICE_HOST").c_str(), env.require("SLUICE_MARIADB_PORT").c_str());
        for (const char* measure : {"wall", "cpu"}) {
            std::printf("\n%s\n", std::string(measure) == "wall"
                                       ? "wall-clock time (includes the server and the scheduler)"
                                       : "client CPU time (this process only: the client's own cost)");
            std::printf("%-38s %-8s %24s %24s %8s\n", "workload", "unit", "ours median (min..max)",
                        "Connector/C (min..max)", "ours/C");
            for (const auto& w : workloads) {
                if (std::find(only.begin(), only.end(), w.key) == only.end()) continue;
                const std::string key = std::string(w.key) + "." + measure;
                const auto& a = raw["ours"][key];
                const auto& b = raw["connector-c"][key];
                const auto [amin, amax] = std::minmax_element(a.begin(), a.end());
                const auto [bmin, bmax] = std::minmax_element(b.begin(), b.end());
                char left[64];
                char right[64];
                std::snprintf(left, sizeof left, "%.1f (%.1f..%.1f)", median(a), *amin, *amax);
                std::snprintf(right, sizeof right, "%.1f (%.1f..%.1f)", median(b), *bmin, *bmax);
                std::printf("%-38s %-8s %24s %24s %8.2f\n", w.label, w.unit, left, right, median(a) / median(b));
            }
        }
        if (!json_path.empty()) {
            std::ofstream out(json_path);
            out << "{\"samples\":" << samples << ",\"reps\":" << reps << ",\"results\":{";
            bool first_client = true;
            for (const auto& [client, by_workload] : raw) {
                out << (first_client ? "" : ",") << '"' << client << "\":{";
                first_client = false;
                bool first_workload = true;
                for (const auto& [key, values] : by_workload) {
                    out << (first_workload ? "" : ",") << '"' << key << "\":[";
                    first_workload = false;
                    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
                    out << ']';
                }
                out << '}';
            }
            out << "}}\n";
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "mariadb_core_bench: " << e.what() << '\n';
        return 1;
    }
}
