# One golden case: the C that `keal emit-c` generates for each target named
# on the first line (`// targets: pg native`) must equal cases/NAME.TARGET.c
# byte for byte, and must compile cleanly (-Wall -Wextra -Werror).
# KEAL_REGENERATE=1 rewrites the expected files (review the diff!).
include(${CMAKE_CURRENT_LIST_DIR}/../regenerate.cmake)
keal_regenerate(regenerate)  # first: refused under CI before anything runs
get_filename_component(dir ${CASE} DIRECTORY)
get_filename_component(name ${CASE} NAME)
get_filename_component(stem ${CASE} NAME_WE)
file(STRINGS ${CASE} first LIMIT_COUNT 1)
if(NOT first MATCHES "^// targets: (.*)$")
  message(FATAL_ERROR "${CASE}: the first line must be // targets: pg native")
endif()
separate_arguments(targets UNIX_COMMAND "${CMAKE_MATCH_1}")
foreach(target IN LISTS targets)
  set(expected_file ${dir}/${stem}.${target}.c)
  execute_process(COMMAND ${KEAL} emit-c ${name} --target ${target}
                  WORKING_DIRECTORY ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "keal emit-c --target ${target} failed (${rc}):\n${err}")
  endif()
  if(regenerate)
    file(WRITE ${expected_file} "${out}")
    message(STATUS "regenerated ${expected_file}")
  else()
    file(READ ${expected_file} expected)
    if(NOT out STREQUAL expected)
      file(WRITE ${WORK}/${stem}.${target}.actual.c "${out}")
      message(FATAL_ERROR "generated C differs from ${expected_file}; see ${WORK}/${stem}.${target}.actual.c\n"
                          "(diff them; KEAL_REGENERATE=1 accepts the new output)")
    endif()
  endif()
  file(MAKE_DIRECTORY ${WORK})
  file(WRITE ${WORK}/${stem}.${target}.c "${out}")
  set(cflags -std=gnu11 -O1 -Wall -Wextra -Werror -I ${RUNTIME})
  if(target STREQUAL "pg")
    list(APPEND cflags -fPIC -I ${PG_INCLUDE})
  elseif(target STREQUAL "sqlite")
    list(APPEND cflags -fPIC)
  elseif(target STREQUAL "mariadb")
    list(APPEND cflags -fPIC -I ${MARIADB_INCLUDE})
  endif()
  execute_process(COMMAND ${CC} ${cflags} -c ${WORK}/${stem}.${target}.c -o ${WORK}/${stem}.${target}.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the generated C for --target ${target} does not compile cleanly:\n${out}${err}")
  endif()
endforeach()
