# One diagnostics case: `keal check` must fail with exit status 1 and print
# exactly the expected diagnostics. A first line `// args: ...` adds options.
# With KEAL_REGENERATE=1 in the environment the expected file is rewritten.
include(${CMAKE_CURRENT_LIST_DIR}/../regenerate.cmake)
keal_regenerate(regenerate)  # first: refused under CI before anything runs
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME)
file(STRINGS ${CASE} first LIMIT_COUNT 1)
set(args "")
if(first MATCHES "^// args: (.*)$")
  separate_arguments(args UNIX_COMMAND "${CMAKE_MATCH_1}")
endif()
execute_process(COMMAND ${KEAL} check ${name} ${args}
                WORKING_DIRECTORY ${dir}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(regenerate)
  file(WRITE ${EXPECTED} "${err}")
  message(STATUS "regenerated ${EXPECTED}")
  return()
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit status 1, got ${rc}\nstderr:\n${err}")
endif()
file(READ ${EXPECTED} expected)
if(NOT err STREQUAL expected)
  message(FATAL_ERROR "diagnostics differ\n--- expected\n${expected}--- actual\n${err}")
endif()
