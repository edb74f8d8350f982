#pragma once
// The exit statuses the sluice command lines share (keal, tideweave,
// sluice-mariadb; the table is in docs/exit-status.md), and a CLI11 parse
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

// Parses argv into `app` (`program` names the tool in messages). Returns nullopt when the command should run, else
// the status to exit with: 0 after --help, exit_usage after an error (the
// message and the "--help" hint are printed to standard error).
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
        return app.exit(e) == 0 ? exit_ok : exit_usage;
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
