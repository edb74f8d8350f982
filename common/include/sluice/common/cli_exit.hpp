#pragma once
// The exit statuses the sluice command lines share (keal, tideweave,
// sluice-mariadb, sluice-pipeline; the table is in docs/exit-status.md), and a CLI11 parse
// that maps every command-line error onto the usage status instead of
// CLI11's own codes (105, 106, 109, ...).
//
// Header-only: only the tools include CLI11.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

namespace sluice::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  // the command ran and failed (I/O, server, bad input data)
inline constexpr int exit_usage = 2;    // the command line is wrong: nothing was done

// What a failed parse says. Arguments that no option took come first:
// CLI11 checks required options before it reports them, so `run --bogus`
// said "--source is required" rather than naming the flag that is wrong.
inline std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
    std::string unknown, unexpected;
    for (const std::string& arg : app.remaining(/*recurse=*/true)) {
        std::string& list = arg.size() > 1 && arg[0] == '-' ? unknown : unexpected;
        list += (list.empty() ? "'" : ", '") + arg + "'";
    }
    if (!unknown.empty())
        return (unknown.find(',') == std::string::npos ? "unknown option " : "unknown options ") + unknown;
    if (!unexpected.empty())
        return (unexpected.find(',') == std::string::npos ? "unexpected argument " : "unexpected arguments ") +
               unexpected;
    return e.what();
}

// Parses argv into `app` (`program` names the tool in messages). Returns nullopt when the command should run, else
// the status to exit with: 0 after --help, exit_usage after an error (the
// message, prefixed "PROGRAM: error: ", and the "--help" hint are printed
// to standard error).
//
// A first argument that is no option and no subcommand of an app that
// requires a subcommand is named ("unknown command 'x'"): CLI11 would only
// say that a subcommand is required. (An app whose subcommands are optional
// may take positional arguments, such as sluice-mariadb's URL.)
inline std::optional<int> parse_or_exit(CLI::App& app, const std::string& program, int argc, char** argv) {
    const std::vector<CLI::App*> commands = app.get_subcommands([](CLI::App*) { return true; });
    if (app.get_require_subcommand_min() > 0 && !commands.empty() && argc > 1 && argv[1][0] != '-') {
        const std::string first = argv[1];
        std::string names;
        bool known = false;
        for (const CLI::App* c : commands) {
            known = known || c->check_name(first);
            names += (names.empty() ? "" : ", ") + c->get_name();
        }
        if (!known) {
            std::cerr << program << ": unknown command '" << first
                      << "' (the commands are: " << names << ")\nRun with --help for more information.\n";
            return exit_usage;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and version requests are ParseErrors too; CLI11 gives them 0.
        if (e.get_exit_code() == 0) return app.exit(e);
        std::cerr << program << ": error: " << parse_error_message(app, e) << "\nRun with --help for more information.\n";
        return exit_usage;
    }
    return std::nullopt;
}

// A CLI11 check that the value is an integer, so that `--gap abc` says
// "not a number" rather than "not in range" (a Range check alone says the
// latter). Put it before the Range check.
inline CLI::Validator integer_check() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            std::int64_t n = 0;
            if (CLI::detail::lexical_cast(value, n)) return {};
            return "'" + value + "' is not a number (expected an integer)";
        },
        "INT");
}

}  // namespace sluice::cli
