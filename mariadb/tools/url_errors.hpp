#pragma once
// URL errors of sluice-mariadb and its cdc subcommand, in one form:
//   sluice-mariadb: invalid URL: WHAT in URL
// with the whole URL shown and its password masked (docs/mariadb.md, CLI).
#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>

#include "sluice/common/cli_exit.hpp"

namespace sluice::mariadb::tools {

// The URL as error messages show it: whole, with the password masked.
inline std::string masked_url(std::string_view url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return std::string(url);
    const std::size_t begin = scheme_end + 3;
    // The authority ends where the parser's does: at '?', then at '/'.
    std::size_t end = std::min(url.find('?', begin), url.size());
    end = std::min(url.find('/', begin), end);
    const std::string_view authority = url.substr(begin, end - begin);
    const auto at = authority.rfind('@');
    if (at == std::string_view::npos) return std::string(url);
    const auto colon = authority.substr(0, at).find(':');
    if (colon == std::string_view::npos) return std::string(url);
    return std::string(url.substr(0, begin + colon + 1)) + "***" + std::string(url.substr(begin + at));
}

// Every URL problem, from the parser or from the command line, in one form:
//   sluice-mariadb: invalid URL: WHAT in URL (password masked)
inline int invalid_url(std::string_view what, std::string_view url,
                       std::string_view program = "sluice-mariadb") {
    constexpr std::string_view prefix = "invalid URL: ";
    if (what.substr(0, prefix.size()) == prefix) what.remove_prefix(prefix.size());
    std::cerr << program << ": invalid URL: " << what;
    if (!url.empty()) std::cerr << " in " << masked_url(url);
    std::cerr << "\n";
    return sluice::cli::exit_usage;
}

}  // namespace sluice::mariadb::tools
