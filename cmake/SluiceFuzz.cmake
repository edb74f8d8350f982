# sluice_add_fuzzer(NAME SOURCES a.cpp ... LIBS lib ... CORPUS dir)
#
# With SLUICE_FUZZ (the `fuzz` preset, clang): a libFuzzer binary.
# Without it: the same entry point linked to a small standalone driver that
# replays every file of the seed corpus plus a fixed number of pseudo-random
# mutations of it, registered as a CTest test so the seeds run on every build.
function(sluice_add_fuzzer name)
  cmake_parse_arguments(F "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${F_SOURCES})
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  if(SLUICE_FUZZ)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
    set_property(GLOBAL APPEND PROPERTY SLUICE_FUZZERS "${name}|${F_CORPUS}")
  else()
    target_link_libraries(${name} PRIVATE sluice_fuzz_standalone)
    if(F_CORPUS)
      add_test(NAME fuzz_seeds.${name} COMMAND ${name} ${F_CORPUS})
      set_tests_properties(fuzz_seeds.${name} PROPERTIES LABELS "unit;fuzz")
    endif()
  endif()
endfunction()

# Called once at the end of the top-level CMakeLists: the `sluice_fuzzers`
# target builds every fuzzer, and fuzzers.txt lists them for scripts/fuzz.
function(sluice_finish_fuzzers)
  get_property(entries GLOBAL PROPERTY SLUICE_FUZZERS)
  set(names "")
  set(text "")
  foreach(e IN LISTS entries)
    string(REPLACE "|" ";" parts "${e}")
    list(GET parts 0 n)
    list(APPEND names ${n})
    string(APPEND text "${e}\n")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/fuzzers.txt "${text}")
  add_custom_target(sluice_fuzzers)
  if(names)
    add_dependencies(sluice_fuzzers ${names})
  endif()
endfunction()
