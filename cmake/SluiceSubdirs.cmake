# sluice_add_subdirectories(dir ...): add each folder that has a CMakeLists.txt,
# so one layer can land before its neighbours.
function(sluice_add_subdirectories)
  foreach(d IN LISTS ARGN)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${d}/CMakeLists.txt)
      add_subdirectory(${d})
    endif()
  endforeach()
endfunction()
