#pragma once
// The servers' env file: KEY=VALUE lines written by scripts/servers/start,
// read by tests, benchmarks and tools to find the private servers.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

class EnvFile {
public:
    // Parses `KEY=VALUE` lines; `#` comments, blank lines and a leading
    // `export ` are ignored; single or double quotes around VALUE are removed.
    static EnvFile parse(std::string_view text);
    // Reads the file; throws std::runtime_error naming the path if unreadable.
    static EnvFile load(const std::string& path);
    // The file named by $SLUICE_ENV_FILE (set by the CTest fixture), else
    // build/dev/servers/env under the current directory's ancestors.
    // Throws std::runtime_error saying how to start the servers if none.
    static EnvFile from_environment();

    std::optional<std::string> get(std::string_view key) const;
    // Throws std::runtime_error naming the key when it is missing.
    std::string require(std::string_view key) const;
    const std::map<std::string, std::string, std::less<>>& values() const { return values_; }

private:
    std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace sluice
