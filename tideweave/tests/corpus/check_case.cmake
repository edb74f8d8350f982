# One case of the recorded CLI corpus: runs
#   tideweave stream NAME.ndjson <NAME.args> --engine ENGINE
# in the corpus directory and compares its standard output byte for byte with
# NAME.out (recorded from the CLI before the typed-API refactor, a83fe16).
# Only standard output is compared: exit statuses and stderr notes are the
# CLI tests' business (tests/unit/cli_test.cpp).
# Usage: cmake -DCLI=... -DDIR=... -DNAME=... -DENGINE=... -DWORK=... -P check_case.cmake
file(READ "${DIR}/${NAME}.args" args)
string(STRIP "${args}" args)
separate_arguments(args UNIX_COMMAND "${args}")
set(actual "${WORK}/${NAME}.${ENGINE}.out")
execute_process(
  COMMAND "${CLI}" stream "${NAME}.ndjson" ${args} --engine ${ENGINE}
  WORKING_DIRECTORY "${DIR}"
  OUTPUT_FILE "${actual}"
  ERROR_VARIABLE stderr_text
  RESULT_VARIABLE status)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${DIR}/${NAME}.out" "${actual}" RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "tideweave corpus case ${NAME} (--engine ${ENGINE}, exit status ${status}): standard output "
                      "differs from ${DIR}/${NAME}.out; actual output in ${actual}\n"
                      "compare with: diff ${DIR}/${NAME}.out ${actual}\nstderr: ${stderr_text}")
endif()
