// keal_bench: Keal functions against PL/pgSQL, SQL built-ins and hand-written
// C, inside one PostgreSQL server, in one run.
//
//   steps(n)   Collatz steps, sum over generate_series(1, 300000)
//   vowels(s)  vowel count, sum over 300,000 rows of 40 characters
//   loop       embedded SQL: a function looping over the 300,000 rows of
//              words (sum of id), against PL/pgSQL's FOR ... IN SELECT and
//              the SQL aggregate
//
// Every contender of a workload must return the same sum before any of them
// is timed. Timed rounds interleave the contenders (round-robin) so that a
// noisy neighbour on the shared machine hurts them all alike; the best and
// the median of the rounds are printed with the ratios the brief asks for.
//
// The server: --db URL (a superuser: C functions need one), else the private
// servers named by $SLUICE_ENV_FILE, else a PostgreSQL of its own started
// with scripts/servers/start --only postgres and stopped at the end.
#include "bench_support.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/postgres/connection.hpp"

#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef KEAL_EXE
#error "KEAL_EXE must name the keal compiler (set by CMake)"
#endif

namespace {

namespace fs = std::filesystem;
using namespace keal::bench;

// ------------------------------------------------------------ contenders ---

struct Contender {
    std::string workload;  // "steps" or "vowels"
    std::string name;      // "Keal", "C", "PL/pgSQL", ...
    std::string sql;       // one value: the sum
    std::string sum{};
    std::vector<double> ms{};

    double best() const { return *std::min_element(ms.begin(), ms.end()); }
    double median() const {
        std::vector<double> v = ms;
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    }
};

std::vector<Contender> contenders(long rows) {
    const std::string series = " FROM generate_series(1, " + std::to_string(rows) + ") AS n";
    return {
        {"steps", "Keal", "SELECT sum(steps(n))" + series},
        {"steps", "C", "SELECT sum(steps_c(n))" + series},
        {"steps", "C, checked", "SELECT sum(steps_c_checked(n))" + series},
        {"steps", "PL/pgSQL", "SELECT sum(steps_plpgsql(n))" + series},
        {"steps", "(no function)", "SELECT sum(n)" + series},
        {"vowels", "Keal", "SELECT sum(vowels(s)) FROM words"},
        {"vowels", "C", "SELECT sum(vowels_c(s)) FROM words"},
        {"vowels", "translate()",
         "SELECT sum(length(s) - length(translate(s, 'aeiouAEIOU', ''))) FROM words"},
        {"vowels", "PL/pgSQL", "SELECT sum(vowels_plpgsql(s)) FROM words"},
        {"vowels", "(no function)", "SELECT sum(id) FROM words"},
        {"loop", "Keal", "SELECT loop_sum()"},
        {"loop", "PL/pgSQL", "SELECT loop_sum_plpgsql()"},
        {"loop", "SQL sum()", "SELECT sum(id) FROM words"},
        {"loop", "(no function)", "SELECT 0"},
    };
}

// The functions that must agree: everything but the "(no function)" rows,
// which only show what the query costs around the function.
bool is_baseline(const Contender& c) { return c.name.front() == '('; }

const Contender& find(const std::vector<Contender>& all, const std::string& workload,
                      const std::string& name) {
    for (const Contender& c : all)
        if (c.workload == workload && c.name == name) return c;
    throw std::logic_error("no contender " + workload + "/" + name);
}

double time_ms(Connection& c, const std::string& sql, std::string* value) {
    const auto start = std::chrono::steady_clock::now();
    const std::string v = scalar(c, sql);
    const auto stop = std::chrono::steady_clock::now();
    if (value) *value = v;
    return std::chrono::duration<double, std::milli>(stop - start).count();
}

void create_c_functions(Connection& c, const std::string& so_dir) {
    const fs::path so = fs::path(so_dir) / "keal_bench_c.so";
    fs::copy_file(KEAL_BENCH_C_SO, so, fs::copy_options::overwrite_existing);
    fs::permissions(so, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read);
    for (const auto& [name, sig] : std::map<std::string, std::string>{
             {"steps_c", "(bigint)"}, {"steps_c_checked", "(bigint)"}, {"vowels_c", "(text)"}}) {
        exec(c, "CREATE FUNCTION " + name + sig + " RETURNS bigint AS '" + so.string() + "', '" + name +
                    "' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE");
    }
}

void print_settings(Connection& c) {
    std::cout << "server: " << scalar(c, "SELECT version()") << "\n";
    std::cout << "settings:";
    for (const char* name : {"jit", "max_parallel_workers_per_gather", "shared_buffers", "work_mem",
                             "fsync", "synchronous_commit", "full_page_writes"})
        std::cout << " " << name << "=" << scalar(c, std::string("SHOW ") + name);
    std::cout << "\n";
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

void print_results(const std::vector<Contender>& all, int runs) {
    std::cout << "\n| workload | contender | best of " << runs << " (ms) | median (ms) | sum |\n"
              << "|---|---|---:|---:|---:|\n";
    for (const Contender& c : all)
        std::cout << "| " << c.workload << " | " << c.name << " | " << fixed(c.best(), 1) << " | "
                  << fixed(c.median(), 1) << " | " << (is_baseline(c) ? "-" : c.sum) << " |\n";

    // Ratios of best times; "net" subtracts the query's cost without a
    // function, which is the same for every contender.
    const auto ratio = [&](const std::string& w, const std::string& a, const std::string& b) {
        const double ta = find(all, w, a).best();
        const double tb = find(all, w, b).best();
        const double base = find(all, w, "(no function)").best();
        std::cout << "  " << w << ": " << a << " / " << b << " = " << fixed(ta / tb, 2)
                  << "x  (net of the query without a function: "
                  << (tb - base > 0 ? fixed((ta - base) / (tb - base), 2) + "x" : std::string("n/a"))
                  << ")\n";
    };
    std::cout << "\nratios (best of " << runs << "):\n";
    ratio("steps", "Keal", "C");
    ratio("steps", "C, checked", "C");
    ratio("steps", "PL/pgSQL", "Keal");
    ratio("vowels", "Keal", "C");
    ratio("vowels", "PL/pgSQL", "Keal");
    ratio("vowels", "translate()", "Keal");
    ratio("loop", "Keal", "PL/pgSQL");
    ratio("loop", "Keal", "SQL sum()");
    const double loop_ratio = find(all, "loop", "Keal").best() / find(all, "loop", "PL/pgSQL").best();
    const double steps_ratio = find(all, "steps", "Keal").best() / find(all, "steps", "C").best();
    const double vowels_ratio = find(all, "vowels", "Keal").best() / find(all, "vowels", "C").best();
    const bool beats_translate =
        find(all, "vowels", "Keal").best() < find(all, "vowels", "translate()").best();
    std::cout << "\ngoals: steps within 1.2x of C: " << (steps_ratio <= 1.2 ? "met" : "MISSED")
              << "; vowels within 2x of C: " << (vowels_ratio <= 2.0 ? "met" : "MISSED")
              << "; vowels ahead of translate(): " << (beats_translate ? "met" : "MISSED")
              << "; query loop at most half of PL/pgSQL's time: " << (loop_ratio <= 0.5 ? "met" : "MISSED") << "\n";
}

int run(const std::string& db_url, int runs, long rows, bool keep) {
    std::unique_ptr<OwnServer> own;
    const std::string db = "keal_bench";
    std::string bench_url;
    const std::string admin_url = server_url(db_url, own, db, bench_url);

    {
        Connection admin = connect(admin_url);
        exec(admin, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        exec(admin, "CREATE DATABASE " + db);
    }
    const std::string so_dir = make_temp_dir("keal-bench-so-");
    Connection c = connect(bench_url);
    create_c_functions(c, so_dir);
    std::cerr << "creating the PL/pgSQL functions and the words table\n";
    exec(c, read_file(KEAL_BENCH_REFERENCE_SQL));
    exec(c, "VACUUM ANALYZE words");
    // After the table exists: deploy checks the embedded SQL against it.
    std::cerr << "deploying " << KEAL_BENCH_PROGRAM << "\n";
    run_command(shell_quote(KEAL_EXE) + " deploy " + shell_quote(KEAL_BENCH_PROGRAM) + " --db " +
                shell_quote(bench_url));
    // One core per query, no JIT compilation inside the timings: each row
    // measures the function itself, not the planner's choices around it.
    exec(c, "SET jit = off");
    exec(c, "SET max_parallel_workers_per_gather = 0");
    print_settings(c);
    std::cout << std::flush;

    std::vector<Contender> all = contenders(rows);
    // Agreement first: a contender that computes something else is not timed.
    for (Contender& x : all) time_ms(c, x.sql, &x.sum);
    bool agree = true;
    for (const Contender& x : all) {
        if (is_baseline(x)) continue;
        // Each workload's reference: hand-written C, or for the query loop
        // the SQL aggregate doing the same sum.
        const Contender& reference = find(all, x.workload, x.workload == "loop" ? "SQL sum()" : "C");
        if (x.sum != reference.sum) {
            std::cerr << "DISAGREE: " << x.workload << " " << x.name << " sums to " << x.sum
                      << ", " << reference.name << " to " << reference.sum << "\n";
            agree = false;
        }
    }
    if (!agree) return 1;

    for (int round = 1; round <= runs; ++round) {
        std::cerr << "round " << round << "/" << runs << "\n";
        for (Contender& x : all) x.ms.push_back(time_ms(c, x.sql, nullptr));
    }
    print_results(all, runs);

    { Connection closing = std::move(c); }  // our session ends before the DROP
    if (!keep) {
        Connection admin = connect(admin_url);
        exec(admin, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    }
    fs::remove_all(so_dir);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"keal_bench: Keal vs PL/pgSQL vs translate() vs C inside PostgreSQL"};
    std::string db_url;
    int runs = 3;
    long rows = 300000;
    bool keep = false;
    app.add_option("--db", db_url, "superuser URL of a running PostgreSQL (default: $SLUICE_ENV_FILE, "
                                   "else a private server of its own)");
    app.add_option("--runs", runs, "timed rounds per contender")->check(CLI::Range(1, 100));
    app.add_option("--rows", rows, "rows of generate_series for steps")->check(CLI::Range(1L, 100000000L));
    app.add_flag("--keep", keep, "keep the keal_bench database afterwards");
    CLI11_PARSE(app, argc, argv);
    try {
        return run(db_url, runs, rows, keep);
    } catch (const std::exception& e) {
        std::cerr << "keal_bench: " << e.what() << "\n";
        return 1;
    }
}
