# cmake -DSOURCE_DIR=... -DOUTPUT=... -DVERSION=... [-DFALLBACK_COMMIT=...] -P SluiceVersionStamp.cmake
# Writes OUTPUT, the definitions of sluice/common/version.hpp, with the
# commit SOURCE_DIR is checked out at ("+dirty" when tracked files differ
# from it). configure_file rewrites OUTPUT only when its text changes.
set(commit "${FALLBACK_COMMIT}")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_rc EQUAL 0 AND NOT head STREQUAL "")
    set(commit "${head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} diff-index --quiet HEAD --
                    RESULT_VARIABLE dirty_rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT dirty_rc EQUAL 0)
      string(APPEND commit "+dirty")
    endif()
  endif()
endif()
if(commit STREQUAL "")
  set(commit "unknown")
endif()
set(SLUICE_VERSION "${VERSION}")
set(SLUICE_COMMIT "${commit}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/sluice_version.cpp.in ${OUTPUT} @ONLY)
