# KEAL_REGENERATE=1 under CI=true: each runner (golden/, native/,
# diagnostics/) fails saying why and leaves a stale expected file as it
# was. Control: without CI the same request does rewrite it (diagnostics/),
# so the refusal is CI's doing, not a runner that cannot regenerate.
# Works on copies of one case of each runner under WORK.
set(src ${CMAKE_CURRENT_LIST_DIR})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# run_script(RC OUTPUT ENV_ARGS... -- SCRIPT_ARGS...)
function(run_script rc_var out_var)
  cmake_parse_arguments(R "" "" "ENV;ARGS" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${R_ENV} ${CMAKE_COMMAND} ${R_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${rc_var} ${rc} PARENT_SCOPE)
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_refused what stale_file)
  run_script(rc out ENV --unset=CI CI=true KEAL_REGENERATE=1 ARGS ${ARGN})
  if(rc EQUAL 0)
    message(FATAL_ERROR "${what}: KEAL_REGENERATE=1 under CI=true exited 0:\n${out}")
  endif()
  if(NOT out MATCHES "KEAL_REGENERATE=1 is refused under CI \\(CI=true\\)")
    message(FATAL_ERROR "${what}: no clear refusal in:\n${out}")
  endif()
  file(READ ${stale_file} now)
  if(NOT now STREQUAL "stale\n")
    message(FATAL_ERROR "${what}: ${stale_file} was rewritten under CI")
  endif()
endfunction()

# golden/
file(COPY ${src}/golden/cases/control_flow.keal DESTINATION ${WORK}/golden)
file(WRITE ${WORK}/golden/control_flow.pg.c "stale\n")
expect_refused(golden ${WORK}/golden/control_flow.pg.c
  -DKEAL=${KEAL} -DCASE=${WORK}/golden/control_flow.keal -DWORK=${WORK}/golden/work
  -P ${src}/golden/run_case.cmake)

# native/
file(GLOB native_cases ${src}/native/cases/*.keal)
list(GET native_cases 0 native_case)
get_filename_component(native_stem ${native_case} NAME_WE)
file(COPY ${native_case} DESTINATION ${WORK}/native)
file(WRITE ${WORK}/native/${native_stem}.out "stale\n")
expect_refused(native ${WORK}/native/${native_stem}.out
  -DKEAL=${KEAL} -DCASE=${WORK}/native/${native_stem}.keal -P ${src}/native/run_case.cmake)

# diagnostics/, refused under CI ...
file(COPY ${src}/diagnostics/cases/assign_to_let.keal DESTINATION ${WORK}/diagnostics)
file(WRITE ${WORK}/diagnostics/assign_to_let.expected "stale\n")
set(diag_args -DKEAL=${KEAL} -DCASE=${WORK}/diagnostics/assign_to_let.keal
    -DEXPECTED=${WORK}/diagnostics/assign_to_let.expected -P ${src}/diagnostics/run_case.cmake)
expect_refused(diagnostics ${WORK}/diagnostics/assign_to_let.expected ${diag_args})
# ... and rewritten outside CI.
run_script(rc out ENV --unset=CI KEAL_REGENERATE=1 ARGS ${diag_args})
file(READ ${WORK}/diagnostics/assign_to_let.expected now)
file(READ ${src}/diagnostics/cases/assign_to_let.expected want)
if(NOT rc EQUAL 0 OR NOT now STREQUAL want)
  message(FATAL_ERROR "diagnostics: KEAL_REGENERATE=1 without CI did not regenerate (${rc}):\n${out}")
endif()
message(STATUS "KEAL_REGENERATE refused under CI by golden/, native/ and diagnostics/; honoured outside CI")
