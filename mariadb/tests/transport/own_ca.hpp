#pragma once
// A copy of a CA file under a name no other test uses, so the test's TLS
// configuration starts with no cached context (and no kept sessions), and
// can be replaced on disk the way a rotation does it.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace sluice::mariadb::test {

class OwnCa {
public:
    explicit OwnCa(const std::string& name)
        : path_(std::filesystem::temp_directory_path() /
                ("sluice-tls-" + name + "-" + std::to_string(::getpid()) + ".pem")) {}
    ~OwnCa() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    OwnCa(const OwnCa&) = delete;
    OwnCa& operator=(const OwnCa&) = delete;
    // Replaces the file the way a rotation does: a new file renamed over it.
    void install(const std::string& from) {
        const std::filesystem::path next = path_.string() + ".next";
        std::filesystem::copy_file(from, next, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::rename(next, path_);
    }
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

}  // namespace sluice::mariadb::test
