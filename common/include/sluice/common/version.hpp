#pragma once
// The project's one version (the top CMakeLists.txt's project(VERSION)) and
// the git commit a build is from: what every tool's --version prints. The
// definitions are generated at build time (cmake/SluiceVersion.cmake,
// target sluice_version), so that only the tools relink after a commit.
#include <string>

namespace sluice {

// "0.1.0".
const char* version();
// The commit's hash (12 hex digits, then "+dirty" when tracked files had
// changes), "unknown" for a source tree that is no git checkout.
const char* git_commit();

// "<tool> 0.1.0 (git 83e2d5c7bf76)": the first line of --version, in the
// "program version" form help2man reads.
inline std::string version_line(const std::string& tool) {
    return tool + " " + version() + " (git " + git_commit() + ")";
}

}  // namespace sluice
