#include "sluice/common/env_file.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sluice {

static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

EnvFile EnvFile::parse(std::string_view text) {
    EnvFile env;
    while (!text.empty()) {
        auto nl = text.find('\n');
        std::string_view line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        if (line.empty() || line.front() == '#') continue;
        if (line.starts_with("export ")) line = trim(line.substr(7));
        auto eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        std::string_view key = trim(line.substr(0, eq));
        std::string_view value = trim(line.substr(eq + 1));
        if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
            value.back() == value.front()) {
            value = value.substr(1, value.size() - 2);
        }
        env.values_.insert_or_assign(std::string(key), std::string(value));
    }
    return env;
}

EnvFile EnvFile::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read servers env file " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse(ss.str());
}

EnvFile EnvFile::from_environment() {
    if (const char* p = std::getenv("SLUICE_ENV_FILE"); p && *p) return load(p);
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
        for (const char* rel : {"servers/env", "build/dev/servers/env", ".servers/env"}) {
            fs::path candidate = dir / rel;
            if (fs::exists(candidate, ec)) return load(candidate.string());
        }
        if (dir == dir.parent_path()) break;
    }
    throw std::runtime_error(
        "no servers env file: set SLUICE_ENV_FILE, or start servers with "
        "scripts/servers/start (ctest starts them itself)");
}

std::optional<std::string> EnvFile::get(std::string_view key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string EnvFile::require(std::string_view key) const {
    auto v = get(key);
    if (!v) throw std::runtime_error("servers env file has no " + std::string(key));
    return *v;
}

}  // namespace sluice
