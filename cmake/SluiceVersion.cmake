# The project's one version (project(VERSION) in the top CMakeLists.txt) and
# the git commit a build is from, for every tool's --version
# (sluice/common/version.hpp). The commit is read at build time, not at
# configure time, so that a commit without a reconfigure still shows; the
# generated source changes only when the commit does, so only it recompiles
# and only the tools relink. A build outside a git checkout (a source
# tarball) says "unknown", or what -DSLUICE_GIT_COMMIT=... names.
set(SLUICE_GIT_COMMIT "" CACHE STRING "Commit --version names when the source is no git checkout")
set(sluice_version_cpp ${PROJECT_BINARY_DIR}/generated/sluice_version.cpp)
add_custom_target(sluice_version_stamp
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${sluice_version_cpp}
          -DVERSION=${PROJECT_VERSION} -DFALLBACK_COMMIT=${SLUICE_GIT_COMMIT}
          -P ${CMAKE_CURRENT_LIST_DIR}/SluiceVersionStamp.cmake
  BYPRODUCTS ${sluice_version_cpp}
  VERBATIM)
add_library(sluice_version STATIC ${sluice_version_cpp})
add_dependencies(sluice_version sluice_version_stamp)
# The header is common's (common/include/sluice/common/version.hpp).
target_include_directories(sluice_version PUBLIC ${PROJECT_SOURCE_DIR}/common/include)
sluice_warnings(sluice_version)
