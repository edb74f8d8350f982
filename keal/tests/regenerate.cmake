# keal_regenerate(VAR): VAR is TRUE when KEAL_REGENERATE asks a runner to
# rewrite its expected files. Under CI (CI=true) that is refused with a
# fatal error before anything runs: CI checks the expected files against
# the compiler, and a regenerating run would pass whatever the compiler
# printed.
function(keal_regenerate var)
  if(DEFINED ENV{KEAL_REGENERATE} AND NOT "$ENV{KEAL_REGENERATE}" STREQUAL "0")
    if("$ENV{CI}" STREQUAL "true")
      message(FATAL_ERROR "KEAL_REGENERATE=$ENV{KEAL_REGENERATE} is refused under CI (CI=true): CI compares "
                          "against the expected files and never rewrites them; regenerate locally, review the "
                          "diff and commit it")
    endif()
    set(${var} TRUE PARENT_SCOPE)
  else()
    set(${var} FALSE PARENT_SCOPE)
  endif()
endfunction()
