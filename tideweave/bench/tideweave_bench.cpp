// Tideweave's benchmark: the reference workload in process, then end to end
// through the `tideweave` CLI (spawned as a process), with the naive engine
// on the same workloads in the same run. Prints medians, maxima and ratios;
// writes the raw samples as JSON. Not a test: nothing here asserts a time.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sluice/tideweave/engine.hpp"
#include "sluice/tideweave/stream.hpp"
#include "workloads.hpp"

extern char** environ;

namespace sluice::tideweave::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// One timing: wall-clock time, and the CPU time of the thread or child that
// did the work (on a shared, loaded machine the CPU time is the steadier figure).
struct Sample {
    double wall_ms = 0;
    double cpu_ms = 0;
};

struct Series {
    std::vector<double> samples;  // sorted, milliseconds
    double median() const {
        const auto n = samples.size();
        return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    }
    double max() const { return samples.back(); }
};

struct Stats {
    Series wall;
    Series cpu;
};

Stats measure(int warmups, int samples, const std::function<Sample()>& one) {
    for (int i = 0; i < warmups; ++i) one();
    Stats s;
    for (int i = 0; i < samples; ++i) {
        const Sample x = one();
        s.wall.samples.push_back(x.wall_ms);
        s.cpu.samples.push_back(x.cpu_ms);
    }
    std::sort(s.wall.samples.begin(), s.wall.samples.end());
    std::sort(s.cpu.samples.begin(), s.cpu.samples.end());
    return s;
}

// Times `work` in this thread.
template <typename F>
Sample time_in_process(F&& work) {
    const double cpu_start = thread_cpu_ms();
    const auto start = Clock::now();
    work();
    return {ms_since(start), thread_cpu_ms() - cpu_start};
}

const char* name_of(EngineKind k) { return k == EngineKind::incremental ? "incremental" : "naive"; }

// Feeds lines to a fresh Stream and returns the output bytes' size (so the
// work cannot be optimized away) and the stream, for the caller's checks.
Stream run_in_process(const std::vector<std::string>& lines, EngineKind kind, std::string& out) {
    Stream s(Config{10, 20}, kind);
    std::int64_t line_no = 0;
    for (const auto& line : lines) {
        if (s.process_line(line, ++line_no, out) == Stream::Outcome::error)
            throw std::runtime_error("unexpected error output: " + out.substr(out.rfind('{', out.size() - 2)));
    }
    return s;
}

// One sample of the reference workload: strict parsing, processing,
// before/after logging, checkpoint creation, complete JSON serialization.
Sample reference_sample(const std::vector<std::string>& lines, EngineKind kind) {
    std::string out;
    out.reserve(1 << 20);
    std::optional<Stream> s;
    const Sample sample = time_in_process([&] { s.emplace(run_in_process(lines, kind, out)); });
    if (s->active_events() != 4096 || s->row_count() != 64 || s->version() != 32 ||
        out.find("\"checkpoint\":") == std::string::npos) {
        throw std::runtime_error(fmt::format("reference workload ended with {} events, {} rows, version {}",
                                             s->active_events(), s->row_count(), s->version()));
    }
    return sample;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
    std::ofstream f(path, std::ios::binary);
    for (const auto& l : lines) f << l << '\n';
    if (!f) throw std::runtime_error("cannot write " + path);
}

// Spawns `cli stream args...` with stdout to `output` (and stdin from
// `stdin_fd` when >= 0); returns its pid.
pid_t spawn_cli(const std::string& cli, const std::vector<std::string>& args, const std::string& output,
                int stdin_fd = -1, int close_fd = -1) {
    std::vector<std::string> argv_store = {cli, "stream"};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    if (close_fd >= 0) posix_spawn_file_actions_addclose(&actions, close_fd);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, cli.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + cli);
    return pid;
}

// Waits for the CLI; returns its CPU time (user + system) in milliseconds.
double wait_ok(pid_t pid, const std::string& what) {
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(what + ": the CLI failed (status " + std::to_string(status) + ")");
    auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

Sample cli_sample(const std::string& cli, const std::string& input, const std::string& output,
                  EngineKind kind = EngineKind::incremental) {
    const auto start = Clock::now();
    const pid_t pid = spawn_cli(cli, {input, "--engine", name_of(kind)}, output);
    const double cpu = wait_ok(pid, input);
    return {ms_since(start), cpu};
}

long rss_kb(pid_t pid, const char* field = "VmRSS:") {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field, 0) == 0) return std::strtol(line.c_str() + std::char_traits<char>::length(field), nullptr, 10);
    return -1;
}

std::string machine() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string one, five, fifteen;
    f >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

std::string json_array(const std::vector<double>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{}{:.4f}", i ? "," : "", v[i]);
    return out + "]";
}

void row(const std::string& what, const Stats& s, const std::string& note = "") {
    fmt::print("  {:<36} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}  {}\n", what, s.cpu.median(), s.cpu.max(),
               s.wall.median(), s.wall.max(), note);
}

void header() {
    fmt::print("  {:<36} {:>10} {:>10} {:>10} {:>10}\n", "", "cpu med", "cpu max", "wall med", "wall max");
}

void keep(std::map<std::string, std::vector<double>>& raw, const std::string& name, const Stats& s) {
    raw[name + ".cpu_ms"] = s.cpu.samples;
    raw[name + ".wall_ms"] = s.wall.samples;
}

// The batched stream `shape` through the typed API alone (no JSON in or
// out), in this thread: apply per transaction, then advance_watermark past
// every event and forget. A fresh Engine per sample.
// Minor page faults of this thread so far: each is a page (or, where the
// kernel backs a region with a transparent huge page, 2 MiB) the kernel
// hands over fresh and zeroed.
long minor_faults() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}

// System (kernel) CPU time of this thread so far, in ms: mostly the kernel
// clearing the pages it hands over.
double system_ms() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return static_cast<double>(usage.ru_stime.tv_sec) * 1e3 + static_cast<double>(usage.ru_stime.tv_usec) / 1e3;
}

// `faults` and `kernel_ms`, if given, receive the minor page faults and the
// system CPU time of each sample (read outside the timed part).
Stats typed_api_throughput(const Shape& shape, int warmups, int samples, std::vector<double>* faults = nullptr,
                           std::vector<double>* kernel_ms = nullptr) {
    const TypedWorkload typed = typed_inserts(shape, 10, 20);
    const std::span<const Mutation> all(typed.mutations);
    int run = 0;
    return measure(warmups, samples, [&] {
        std::optional<Engine> engine;
        engine.emplace(Config{10, 20});
        std::size_t rows = 0;
        const long faults_before = minor_faults();
        const double system_before = system_ms();
        const Sample s = time_in_process([&] {
            for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(typed.per_tx)) {
                const auto n = std::min(static_cast<std::size_t>(typed.per_tx), all.size() - at);
                auto changes = engine->apply(all.subspan(at, n));
                if (!changes) throw std::runtime_error("typed API: " + changes.error().message);
                rows += changes->after.size();
            }
            auto finalized = engine->advance_watermark(typed.final_watermark);
            if (!finalized) throw std::runtime_error("typed API: " + finalized.error().message);
            rows += finalized->rows.size();
            engine->forget();
        });
        if (rows == 0 || engine->active_events() != 0)
            throw std::runtime_error("typed API: the stream did not end empty after forget");
        if (faults != nullptr && run >= warmups) faults->push_back(static_cast<double>(minor_faults() - faults_before));
        if (kernel_ms != nullptr && run >= warmups) kernel_ms->push_back(system_ms() - system_before);
        ++run;
        return s;
    });
}

// The engine's resident memory at its peak on the batched stream `shape`
// (every event applied, none finalized yet), per event: the VmRSS growth
// from before the engine is made, in bytes. Untimed, in a fresh engine
// before any other in this process (so no memory freed by an earlier
// engine is reused).
double typed_api_bytes_per_event(const Shape& shape) {
    const TypedWorkload typed = typed_inserts(shape, 10, 20);
    const std::span<const Mutation> all(typed.mutations);
    const long before_kb = rss_kb(getpid());
    Engine engine(Config{10, 20});
    for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(typed.per_tx)) {
        const auto n = std::min(static_cast<std::size_t>(typed.per_tx), all.size() - at);
        if (!engine.apply(all.subspan(at, n))) throw std::runtime_error("typed API: a transaction failed");
    }
    const long peak_kb = rss_kb(getpid());
    return static_cast<double>(peak_kb - before_kb) * 1024.0 / static_cast<double>(all.size());
}

}  // namespace

int run(int argc, char** argv) {
    CLI::App app{"Tideweave benchmark: reference workload, CLI end to end, throughput, memory"};
    std::string cli = TIDEWEAVE_CLI_PATH;
    std::string samples_path = "tideweave_bench_samples.json";
    std::string work_dir = "/tmp";
    std::int64_t throughput_events = 2'000'000;
    std::int64_t memory_events = 10'000'000;
    app.add_option("--cli", cli, "the tideweave CLI binary")->capture_default_str();
    app.add_option("--samples", samples_path, "where to write the raw samples (JSON)")->capture_default_str();
    app.add_option("--work-dir", work_dir, "where to write generated inputs and outputs")->capture_default_str();
    app.add_option("--throughput-events", throughput_events)->capture_default_str();
    app.add_option("--memory-events", memory_events)->capture_default_str();
    int typed_only = 0;
    app.add_option("--typed-only", typed_only,
                   "only the typed-API row: 1 warm-up, N samples (for profiling: no CLI, no other rows, no samples file)");
    CLI11_PARSE(app, argc, argv);

    if (typed_only > 0) {
        const Shape shape{throughput_events, 64, 1000, 8};
        const double bytes_per_event = typed_api_bytes_per_event(shape);
        Series faults;
        Series kernel;
        const Stats api = typed_api_throughput(shape, 1, typed_only, &faults.samples, &kernel.samples);
        std::sort(faults.samples.begin(), faults.samples.end());
        std::sort(kernel.samples.begin(), kernel.samples.end());
        header();
        row("typed API, batched", api);
        fmt::print("  = {:.2f} M inserts/s per CPU second, {:.2f} M inserts/s wall (load average {})\n",
                   static_cast<double>(throughput_events) / api.cpu.median() / 1000.0,
                   static_cast<double>(throughput_events) / api.wall.median() / 1000.0, load_average());
        fmt::print("  engine at its peak: {:.1f} bytes per event (VmRSS growth, first engine); "
                   "{:.0f} minor page faults and {:.1f} ms system CPU per sample (medians)\n",
                   bytes_per_event, faults.median(), kernel.median());
        return 0;
    }

    fmt::print("tideweave_bench on {} ({} cores), load average {}\n"
               "times in ms; cpu = CPU time of the thread (in process) or of the CLI process (user + system)\n\n",
               machine(), std::thread::hardware_concurrency(), load_average());
    std::map<std::string, std::vector<double>> raw;

    // 1. The reference workload, in process.
    const Shape reference{};  // 4096 events, 64 keys, 32 tx of 128, ts 8 apart
    auto reference_lines = transactions(reference);
    reference_lines.push_back(R"({"checkpoint":true})");
    fmt::print("Reference workload (4096 events, 64 keys, 32 tx x 128 inserts, gap 10, lateness 20;\n"
               "sample = parse + process + before/after log + checkpoint + serialization; 3 warm-ups, 10 samples)\n");
    header();
    std::map<EngineKind, Stats> ref;
    for (const auto kind : {EngineKind::incremental, EngineKind::naive}) {
        ref[kind] = measure(3, 10, [&] { return reference_sample(reference_lines, kind); });
        keep(raw, std::string("reference.") + name_of(kind), ref[kind]);
        row(name_of(kind), ref[kind], "(4096 events, 64 rows, version 32 checked)");
    }
    fmt::print("  naive / incremental: {:.2f}x cpu, {:.2f}x wall (goal for incremental: median <= 4 ms)\n\n",
               ref[EngineKind::naive].cpu.median() / ref[EngineKind::incremental].cpu.median(),
               ref[EngineKind::naive].wall.median() / ref[EngineKind::incremental].wall.median());

    // 2. End to end through the CLI: 5000 events batched vs one per transaction.
    const Shape batched{5000, 64, 125, 8};
    const Shape single{5000, 64, 1, 8};
    auto batched_lines = transactions(batched);
    auto single_lines = transactions(single);
    for (auto* lines : {&batched_lines, &single_lines})
        for (auto& l : close_and_forget(batched, 10, 20)) lines->push_back(l);
    const std::string batched_file = work_dir + "/tideweave_bench_batched.ndjson";
    const std::string single_file = work_dir + "/tideweave_bench_single.ndjson";
    const std::string out_file = work_dir + "/tideweave_bench_out.ndjson";
    write_lines(batched_file, batched_lines);
    write_lines(single_file, single_lines);
    fmt::print("End to end, 5000 events (64 keys, ts 8 apart) then watermark + forget\n"
               "  (CLI: {} stream FILE --engine E > {}; 1 warm-up, 10 samples; then the same in process)\n",
               cli, out_file);
    header();
    std::map<std::string, Stats> cli_runs;
    for (const auto kind : {EngineKind::incremental, EngineKind::naive}) {
        for (const auto& [label, file] : {std::pair{"batched", &batched_file}, std::pair{"single", &single_file}}) {
            const std::string name = std::string(name_of(kind)) + "." + label;
            cli_runs[name] = measure(1, 10, [&, kind_ = kind, file_ = file] { return cli_sample(cli, *file_, out_file, kind_); });
            keep(raw, "cli." + name, cli_runs[name]);
            row(fmt::format("CLI, {}, {}", name_of(kind), label), cli_runs[name]);
        }
    }
    auto cli_ratio = [&](const char* a, const char* b, auto Stats::*series) {
        return (cli_runs[a].*series).median() / (cli_runs[b].*series).median();
    };
    fmt::print("  one-event / batched, CLI: incremental {:.2f}x cpu, {:.2f}x wall (goal <= 2x); naive {:.2f}x cpu\n",
               cli_ratio("incremental.single", "incremental.batched", &Stats::cpu),
               cli_ratio("incremental.single", "incremental.batched", &Stats::wall),
               cli_ratio("naive.single", "naive.batched", &Stats::cpu));
    fmt::print("  naive / incremental, CLI (cpu): batched {:.2f}x, one-event {:.2f}x\n",
               cli_ratio("naive.batched", "incremental.batched", &Stats::cpu),
               cli_ratio("naive.single", "incremental.single", &Stats::cpu));
    std::map<std::string, Stats> inproc;
    for (const auto kind : {EngineKind::incremental, EngineKind::naive}) {
        for (const auto& [label, lines] : {std::pair{"batched", &batched_lines}, std::pair{"single", &single_lines}}) {
            const std::string name = std::string(name_of(kind)) + "." + label;
            inproc[name] = measure(1, 10, [&, kind_ = kind, lines_ = lines] {
                std::string out;
                return time_in_process([&] { run_in_process(*lines_, kind_, out); });
            });
            keep(raw, "in_process." + name, inproc[name]);
            row(fmt::format("in process, {}, {}", name_of(kind), label), inproc[name]);
        }
    }
    auto cpu = [&](const char* name) { return inproc[name].cpu.median(); };
    fmt::print("  one-event / batched, in process (cpu): incremental {:.2f}x, naive {:.2f}x\n",
               cpu("incremental.single") / cpu("incremental.batched"), cpu("naive.single") / cpu("naive.batched"));
    fmt::print("  naive / incremental, in process (cpu): batched {:.2f}x, one-event {:.2f}x\n\n",
               cpu("naive.batched") / cpu("incremental.batched"), cpu("naive.single") / cpu("incremental.single"));

    // The same 5000 one-event transactions on a single key: where rebuilding
    // the key per mutation (naive) turns quadratic.
    const Shape one_key{5000, 1, 1, 8};
    auto one_key_lines = transactions(one_key);
    for (auto& l : close_and_forget(one_key, 10, 20)) one_key_lines.push_back(l);
    fmt::print("5000 one-event transactions on one key (one session of 5000 events), in process\n");
    header();
    std::map<EngineKind, Stats> one_key_runs;
    for (const auto kind : {EngineKind::incremental, EngineKind::naive}) {
        one_key_runs[kind] = measure(1, 5, [&] {
            std::string out;
            return time_in_process([&] { run_in_process(one_key_lines, kind, out); });
        });
        keep(raw, std::string("in_process.one_key.") + name_of(kind), one_key_runs[kind]);
        row(fmt::format("in process, {}", name_of(kind)), one_key_runs[kind]);
    }
    fmt::print("  naive / incremental (cpu): {:.2f}x\n\n",
               one_key_runs[EngineKind::naive].cpu.median() / one_key_runs[EngineKind::incremental].cpu.median());

    // 3. Throughput through the CLI in batched transactions, output on.
    const Shape big{throughput_events, 64, 1000, 8};
    auto big_lines = transactions(big);
    for (auto& l : close_and_forget(big, 10, 20)) big_lines.push_back(l);
    const std::string big_file = work_dir + "/tideweave_bench_throughput.ndjson";
    write_lines(big_file, big_lines);
    big_lines.clear();
    big_lines.shrink_to_fit();
    fmt::print("Throughput: {} events in transactions of 1000, 64 keys, then watermark + forget\n"
               "  (CLI: {} stream {} > /dev/null; 1 warm-up, 3 samples)\n", throughput_events, cli, big_file);
    header();
    const Stats throughput = measure(1, 3, [&] { return cli_sample(cli, big_file, "/dev/null"); });
    keep(raw, "cli.throughput", throughput);
    row("CLI, batched", throughput);
    const auto per_second = [&](const Series& s) { return static_cast<double>(throughput_events) / s.median() / 1000.0; };
    fmt::print("  = {:.2f} M inserts/s per CPU second, {:.2f} M inserts/s wall (goal >= 1)\n",
               per_second(throughput.cpu), per_second(throughput.wall));
    std::remove(big_file.c_str());

    // The same batched stream through the typed API alone: no JSON in or
    // out, in this thread (one core).
    {
        fmt::print("Typed API: the same {} events as Mutation values, Engine::apply per transaction of {},\n"
                   "  then advance_watermark + forget; in process, one thread (1 warm-up, 3 samples)\n",
                   throughput_events, big.per_tx);
        header();
        const Stats api = typed_api_throughput(big, 1, 3);
        keep(raw, "typed_api.throughput", api);
        row("typed API, batched", api);
        fmt::print("  = {:.2f} M inserts/s per CPU second, {:.2f} M inserts/s wall (goal >= 10); CLI / typed API: {:.2f}x cpu\n",
                   per_second(api.cpu), per_second(api.wall), throughput.cpu.median() / api.cpu.median());
    }
    fmt::print("\n");

    // 4. Memory: a long stream through the CLI's stdin, with a watermark and
    // a forget after every 100k events; RSS read from /proc as it runs.
    fmt::print("Memory: {} events (64 keys, sessions of 16 events), watermark + forget every 100k events\n"
               "  (CLI: {} stream - > /dev/null, fed through a pipe; VmRSS of the CLI)\n", memory_events, cli);
    {
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe");
        const pid_t pid = spawn_cli(cli, {"-"}, "/dev/null", fds[0], fds[1]);
        close(fds[0]);
        FILE* to_cli = fdopen(fds[1], "w");
        const Shape stream{memory_events, 64, 1000, 8, 16, 100};
        std::string line;
        std::vector<double> rss_series;
        const auto start = Clock::now();
        for (std::int64_t i = 0; i < memory_events; ++i) {
            line += line.empty() ? R"({"tx":[)" : ",";
            line += insert_mutation(stream, i);
            if ((i + 1) % stream.per_tx == 0 || i + 1 == memory_events) {
                line += "]}\n";
                std::fwrite(line.data(), 1, line.size(), to_cli);
                line.clear();
            }
            if ((i + 1) % 100'000 == 0) {
                // Everything more than a session behind the newest event may close.
                const std::int64_t w = timestamp_of(stream, i) - 200;
                std::fprintf(to_cli, "{\"watermark\":%lld}\n{\"forget\":true}\n", static_cast<long long>(w));
            }
            if ((i + 1) % 1'000'000 == 0) {
                std::fflush(to_cli);
                const long kb = rss_kb(pid);
                rss_series.push_back(static_cast<double>(kb));
                fmt::print("  after {:>9} events: VmRSS {:>7} kB\n", i + 1, kb);
            }
        }
        std::fflush(to_cli);
        const long peak = rss_kb(pid, "VmHWM:");
        std::fclose(to_cli);
        const double cpu_seconds = wait_ok(pid, "memory stream") / 1000.0;
        const double seconds = ms_since(start) / 1000.0;
        fmt::print("  peak VmHWM {} kB; CLI CPU {:.1f} s ({:.2f} M events per CPU second), wall {:.1f} s\n\n", peak,
                   cpu_seconds, static_cast<double>(memory_events) / cpu_seconds / 1e6, seconds);
        raw["memory.vmrss_kb_per_million"] = rss_series;
    }

    std::ofstream f(samples_path);
    f << "{\n  \"machine\": \"" << machine() << "\",\n  \"unit\": \"ms (memory: kB)\"";
    for (const auto& [name, samples] : raw) f << ",\n  \"" << name << "\": " << json_array(samples);
    f << "\n}\n";
    fmt::print("raw samples: {}\n", samples_path);
    std::remove(batched_file.c_str());
    std::remove(single_file.c_str());
    std::remove(out_file.c_str());
    return 0;
}

}  // namespace sluice::tideweave::bench

int main(int argc, char** argv) {
    try {
        return sluice::tideweave::bench::run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tideweave_bench: %s\n", e.what());
        return 1;
    }
}
