// tideweave: the command line.
//   tideweave stream [FILE|-] [--gap N] [--lateness N] [--restore FILE] [--keep-going]
//   tideweave compare-naive [options]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "compare_naive.hpp"
#include "sluice/common/cli_exit.hpp"
#include "sluice/common/version.hpp"
#include "sluice/tideweave/failure.hpp"
#include "sluice/tideweave/run.hpp"
#include "sluice/tideweave/stream.hpp"

namespace tw = sluice::tideweave;

namespace {

// Exit statuses (docs/tideweave.md, docs/exit-status.md): 0 every line
// processed, 1 a failure (unreadable input or checkpoint, I/O error, or the
// stream stopped at an error line), 2 usage, 3 --keep-going reached the end
// but some lines were error lines.
using sluice::cli::exit_failure;
using sluice::cli::exit_usage;
constexpr int exit_kept_going_past_errors = 3;

struct StreamArgs {
    std::string input = "-";
    std::optional<std::int64_t> gap;
    std::optional<std::int64_t> lateness;
    std::string restore;
    bool keep_going = false;
    std::string engine = "incremental";
};

// A directory where a file is needed is a usage error (status 2), as for
// keal: the command line names the wrong path (issue 32; read() used to
// report "read: Is a directory" without the path, with status 1).
bool is_directory(const std::string& path, const char* what) {
    struct stat st {};
    if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    std::cerr << "tideweave: error: " << what << " '" << path << "' is a directory; give a file\n";
    return true;
}

// The stream to run: fresh, or restored from --restore's checkpoint.
// Throws Failure: io (the file does not open), checkpoint (it does not
// restore), usage (--gap/--lateness against the checkpoint's).
tw::Stream open_stream(const StreamArgs& args, tw::EngineKind kind) {
    if (args.restore.empty()) {
        tw::Config config;
        if (args.gap) config.gap = *args.gap;
        if (args.lateness) config.lateness = *args.lateness;
        return tw::Stream(config, kind);
    }
    std::ifstream file(args.restore, std::ios::binary);
    if (!file) {
        const int error = errno;
        throw tw::Failure(tw::ErrorKind::io, "cannot open checkpoint " + args.restore + ": " + std::strerror(error));
    }
    std::ostringstream text;
    text << file.rdbuf();
    tw::Stream stream = tw::Stream::restore(text.str(), kind);
    if ((args.gap && *args.gap != stream.config().gap) || (args.lateness && *args.lateness != stream.config().lateness))
        throw tw::Failure(tw::ErrorKind::usage, "--gap/--lateness differ from the checkpoint's (gap " +
                                                    std::to_string(stream.config().gap) + ", lateness " +
                                                    std::to_string(stream.config().lateness) + ")");
    return stream;
}

// The input file (or standard input), closed at the end.
class Input {
public:
    explicit Input(const std::string& path) {
        if (path == "-") return;
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) {
            const int error = errno;
            throw tw::Failure(tw::ErrorKind::io, "cannot open " + path + ": " + std::strerror(error));
        }
    }
    Input(const Input&) = delete;
    Input& operator=(const Input&) = delete;
    ~Input() {
        if (fd_ != STDIN_FILENO) ::close(fd_);
    }
    int fd() const { return fd_; }

private:
    int fd_ = STDIN_FILENO;
};

int run_stream_command(const StreamArgs& args) {
    if (is_directory(args.input, "input") || (!args.restore.empty() && is_directory(args.restore, "checkpoint")))
        return exit_usage;
    const tw::EngineKind kind = args.engine == "naive" ? tw::EngineKind::naive : tw::EngineKind::incremental;
    tw::RunResult result;
    // One style: every failure is a thrown Failure (or, for a broken
    // precondition, another std::exception), reported here.
    try {
        tw::Stream stream = open_stream(args, kind);
        const Input input(args.input);
        tw::RunOptions options;
        options.keep_going = args.keep_going;
        result = tw::run_stream(stream, input.fd(), STDOUT_FILENO, options);
    } catch (const tw::Failure& e) {
        std::string what = e.what();
        if (e.kind() == tw::ErrorKind::io) {
            // Which file: "read: ..." alone did not say (issue 32).
            const std::string input = args.input == "-" ? "standard input" : args.input;
            if (what.rfind("read: ", 0) == 0) what = "cannot read " + input + ": " + what.substr(6);
            if (what.rfind("write: ", 0) == 0) what = "cannot write standard output: " + what.substr(7);
        }
        std::cerr << "tideweave: " << what << "\n";
        return e.kind() == tw::ErrorKind::usage ? exit_usage : exit_failure;
    } catch (const std::exception& e) {
        std::cerr << "tideweave: " << e.what() << "\n";
        return exit_failure;
    }
    if (result.stopped) {
        std::cerr << "tideweave: stopped at the error on line " << result.lines
                  << " (see the error object on stdout; --keep-going continues past errors)\n";
        return exit_failure;
    }
    if (result.errors > 0) {
        std::cerr << "tideweave: " << result.errors << " of " << result.lines << " lines were error lines"
                  << " (their error objects are on stdout); exit status " << exit_kept_going_past_errors << "\n";
        return exit_kept_going_past_errors;
    }
    return sluice::cli::exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tideweave: incremental event-time session windows with retractions, exact sums, "
                 "exact finality and a before/after changelog (NDJSON in, NDJSON out)"};
    app.set_version_flag("--version", sluice::version_line("tideweave"));
    app.require_subcommand(1);

    StreamArgs stream_args;
    CLI::App* stream = app.add_subcommand(
        "stream",
        "Process an NDJSON stream of {\"tx\"}, {\"watermark\"}, {\"forget\"}, {\"snapshot\"} and {\"checkpoint\"} "
        "lines; one output line per non-empty input line. Exit status 0 when every line was processed; 1 at "
        "the first error line, or for unreadable input or checkpoint; 2 for usage errors; with --keep-going, "
        "3 when some lines were error lines (their count goes to stderr).");
    stream->add_option("FILE", stream_args.input, "Input file, or - for standard input")->capture_default_str();
    stream->add_option("--gap", stream_args.gap, "Session gap, an integer in (0, 2^60] (default 10)")
        ->check(sluice::cli::integer_check())
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 60));
    stream->add_option("--lateness", stream_args.lateness, "Allowed lateness, an integer in [0, 2^60] (default 20)")
        ->check(sluice::cli::integer_check())
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 60));
    stream->add_option("--restore", stream_args.restore,
                       "Start from a checkpoint: a file holding a {\"version\":..,\"checkpoint\":{..}} output line "
                       "or its inner object");
    stream->add_flag("--keep-going", stream_args.keep_going,
                     "Report error lines and continue; at the end, their count goes to stderr and the exit "
                     "status is 3 if there were any");
    stream->add_option("--engine", stream_args.engine,
                       "incremental (default), or naive: rebuilds a key's sessions on every mutation "
                       "(same output, for comparison)")
        ->check(CLI::IsMember({"incremental", "naive"}));

    tw::CompareOptions compare_args;
    CLI::App* compare = app.add_subcommand(
        "compare-naive",
        "Run a generated workload with retractions through the exact engine and through a numbers-only "
        "session keeper (boundaries, count, double sum, min, max per session; it cannot split), and print a "
        "table of the differences");
    compare->add_option("--keys", compare_args.keys, "Number of keys")->capture_default_str()->check(sluice::cli::integer_check())->check(CLI::Range(1, 100000));
    compare->add_option("--events", compare_args.events, "Number of inserts")->capture_default_str()->check(sluice::cli::integer_check())->check(CLI::Range(1, 10000000));
    compare->add_option("--retract-percent", compare_args.retract_percent, "Inserts later retracted, in percent")
        ->capture_default_str()
        ->check(sluice::cli::integer_check())
        ->check(CLI::Range(0, 100));
    compare->add_option("--seed", compare_args.seed, "Random seed")->capture_default_str();
    compare->add_option("--gap", compare_args.gap, "Session gap")->capture_default_str()->check(sluice::cli::integer_check())->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
    compare->add_option("--rows", compare_args.rows_shown, "Differing sessions to list")->capture_default_str();

    if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "tideweave", argc, argv)) return *status;
    if (stream->parsed()) {
        const int status = run_stream_command(stream_args);
        // Everything is written; tearing down millions of held events would
        // only delay the exit.
        std::cout.flush();
        std::cerr.flush();
        std::_Exit(status);
    }
    return tw::compare_naive(compare_args, std::cout);
}
