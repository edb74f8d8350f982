# Warnings for sluice's own targets: call sluice_warnings(target).
function(sluice_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wconversion -Wsign-conversion -Wnull-dereference -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough)
  if(SLUICE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Same, for C sources (generated Keal C, runtime).
function(sluice_c_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(SLUICE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
