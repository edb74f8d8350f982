# What `cmake --install` puts under a prefix (docs/install.md): the tools,
# the public headers, each installed part as one static and one shared
# library, the CMake package (sluiceConfig.cmake, find_package(sluice CONFIG
# COMPONENTS ...)) and a pkg-config file per part.
#
# A part installs its library with one call in its CMakeLists.txt:
#
#   sluice_install_library(mariadb
#     OBJECTS  sluice_mariadb_protocol sluice_mariadb_binlog ...   in-tree libraries whose objects it is made of
#     HEADERS  include/sluice/mariadb                             installed as <prefix>/include/sluice/mariadb
#     EXCLUDE  jetstream                                          header folders or files left out (not in the library)
#     SLUICE   common                                             installed sluice libraries it uses
#     LINK     OpenSSL::SSL ZLIB::ZLIB PkgConfig::SODIUM ...      what its objects link (private)
#     PACKAGES OpenSSL ZLIB                                       find_dependency() in the package
#     PKG_MODULES SODIUM=libsodium ...                            pkg_check_modules(PREFIX IMPORTED_TARGET module)
#                                                                 in the package (for PkgConfig::PREFIX in LINK)
#     PC_REQUIRES openssl zlib libsodium ...                      Requires.private of its .pc file
#     DESCRIPTION "...")
#
# The in-tree libraries stay as they are (static, with their own usage
# requirements, used by the tests and tools); the installed ones are new
# targets sluice_<name>_shared and sluice_<name>_static made of the same
# object files ($<TARGET_OBJECTS>: nothing is compiled twice;
# CMAKE_POSITION_INDEPENDENT_CODE is on, so the objects fit a shared library).
# They are exported as sluice::<name> (shared) and sluice::<name>_static.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SLUICE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sluice)
set(SLUICE_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(sluice_install_generated ${PROJECT_BINARY_DIR}/install)
# The installed libraries in one folder of the build tree, where a shared
# library finds its sluice dependencies while the tree is being linked.
set(sluice_install_lib_dir ${PROJECT_BINARY_DIR}/lib)
# The man pages are made with Debian's help2man (scripts/setup installs it).
find_program(SLUICE_HELP2MAN help2man)
if(NOT SLUICE_HELP2MAN)
  message(FATAL_ERROR "help2man not found: the tools' man pages are made with it (scripts/setup installs it)")
endif()
# Everything `cmake --install` copies is built by this target (scripts/build
# builds it), so that an install after a partial build finds its files.
add_custom_target(sluice_installables)
set_property(GLOBAL PROPERTY sluice_installed_components "")

function(sluice_install_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DESCRIPTION"
    "OBJECTS;HEADERS;EXCLUDE;SLUICE;LINK;PACKAGES;PKG_MODULES;PC_REQUIRES")
  set(objects "")
  foreach(lib IN LISTS arg_OBJECTS)
    list(APPEND objects $<TARGET_OBJECTS:${lib}>)
  endforeach()
  foreach(kind IN ITEMS shared static)
    string(TOUPPER ${kind} type)
    set(target sluice_${name}_${kind})
    add_library(${target} ${type} ${objects})
    set_target_properties(${target} PROPERTIES
      OUTPUT_NAME sluice_${name}
      LIBRARY_OUTPUT_DIRECTORY ${sluice_install_lib_dir}
      ARCHIVE_OUTPUT_DIRECTORY ${sluice_install_lib_dir}
      LINKER_LANGUAGE CXX)
    if(kind STREQUAL "shared")
      set_target_properties(${target} PROPERTIES EXPORT_NAME ${name}
        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
        # Its sluice dependencies (libsluice_common.so.0) sit beside it,
        # wherever the prefix is moved.
        INSTALL_RPATH "$ORIGIN")
      # Every symbol its objects use is resolved by what it links: a
      # missing LINK entry fails here, not in a user's program.
      target_link_options(${target} PRIVATE -Wl,--no-undefined)
    else()
      set_target_properties(${target} PROPERTIES EXPORT_NAME ${name}_static)
    endif()
    target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_compile_features(${target} INTERFACE cxx_std_20)
    set(sluice_deps "")
    foreach(dep IN LISTS arg_SLUICE)
      list(APPEND sluice_deps sluice_${dep}_${kind})
    endforeach()
    target_link_libraries(${target} PRIVATE ${sluice_deps} ${arg_LINK})
    add_dependencies(sluice_installables ${target})
    install(TARGETS ${target} EXPORT sluice-${name}-targets
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev NAMELINK_COMPONENT dev
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
  endforeach()

  set(exclude_args "")
  foreach(folder IN LISTS arg_EXCLUDE)
    list(APPEND exclude_args PATTERN ${folder} EXCLUDE)
  endforeach()
  foreach(dir IN LISTS arg_HEADERS)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${dir}
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sluice COMPONENT dev
      FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" ${exclude_args})
  endforeach()
  install(EXPORT sluice-${name}-targets NAMESPACE sluice:: FILE sluice-${name}-targets.cmake
    DESTINATION ${SLUICE_PACKAGE_DIR} COMPONENT dev)

  # What the package finds before it loads this part's targets.
  set(deps_text "# Generated by cmake/SluiceInstall.cmake: what sluice::${name} links.\n")
  foreach(dep IN LISTS arg_SLUICE)
    string(APPEND deps_text "sluice_load_component(${dep})\n")
  endforeach()
  foreach(package IN LISTS arg_PACKAGES)
    string(APPEND deps_text "find_dependency(${package})\n")
  endforeach()
  if(arg_PKG_MODULES)
    string(APPEND deps_text "find_dependency(PkgConfig)\n")
  endif()
  foreach(pair IN LISTS arg_PKG_MODULES)
    string(REPLACE "=" ";" pair ${pair})
    list(GET pair 0 prefix)
    list(GET pair 1 module)
    string(APPEND deps_text "if(NOT TARGET PkgConfig::${prefix})\n"
      "  pkg_check_modules(${prefix} REQUIRED QUIET IMPORTED_TARGET ${module})\nendif()\n")
  endforeach()
  file(WRITE ${sluice_install_generated}/sluice-${name}-dependencies.cmake "${deps_text}")
  install(FILES ${sluice_install_generated}/sluice-${name}-dependencies.cmake
    DESTINATION ${SLUICE_PACKAGE_DIR} COMPONENT dev)

  # pkg-config: the prefix is found from the .pc file's own place, so that a
  # moved prefix still works.
  file(RELATIVE_PATH pc_to_prefix /${SLUICE_PKGCONFIG_DIR} /)
  string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
  set(requires "")
  foreach(dep IN LISTS arg_SLUICE)
    list(APPEND requires sluice-${dep})
  endforeach()
  list(APPEND requires ${arg_PC_REQUIRES})
  list(JOIN requires ", " requires)
  set(pc_text "prefix=\${pcfiledir}/${pc_to_prefix}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: sluice-${name}
Description: ${arg_DESCRIPTION}
Version: ${PROJECT_VERSION}
Requires.private: ${requires}
Libs: -L\${libdir} -lsluice_${name}
Cflags: -I\${includedir}
")
  file(WRITE ${sluice_install_generated}/sluice-${name}.pc "${pc_text}")
  install(FILES ${sluice_install_generated}/sluice-${name}.pc DESTINATION ${SLUICE_PKGCONFIG_DIR} COMPONENT dev)
  set_property(GLOBAL APPEND PROPERTY sluice_installed_components ${name})
endfunction()

# sluice_install_tool(target NAME "what it is" [SUBCOMMANDS cmd ...] EXAMPLES file.h2m):
# the executable into <prefix>/bin, its man page (section 1, made by
# help2man from the tool's --help and --version, each subcommand's --help,
# and the EXAMPLES include file: scripts/lib/man_page.sh) and its bash
# completion (cmake/sluice-completion.bash.in).
function(sluice_install_tool target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;EXAMPLES" "SUBCOMMANDS")
  get_target_property(tool ${target} OUTPUT_NAME)
  if(NOT tool)
    set(tool ${target})
  endif()
  install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)

  set(man ${PROJECT_BINARY_DIR}/man/man1/${tool}.1)
  add_custom_command(OUTPUT ${man} ${man}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man/man1
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/lib/man_page.sh $<TARGET_FILE_DIR:${target}> ${tool} ${arg_NAME}
            ${CMAKE_CURRENT_SOURCE_DIR}/${arg_EXAMPLES} ${man} ${arg_SUBCOMMANDS}
    DEPENDS ${target} ${CMAKE_CURRENT_SOURCE_DIR}/${arg_EXAMPLES} ${PROJECT_SOURCE_DIR}/scripts/lib/man_page.sh
    COMMENT "Man page ${tool}.1"
    VERBATIM)
  add_custom_target(${target}_man ALL DEPENDS ${man}.gz)
  install(FILES ${man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)

  set(TOOL ${tool})
  string(MAKE_C_IDENTIFIER ${tool} FUNCTION)
  list(JOIN arg_SUBCOMMANDS " " SUBCOMMANDS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/sluice-completion.bash.in
    ${PROJECT_BINARY_DIR}/completions/${tool} @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/completions/${tool}
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tools)
  add_dependencies(sluice_installables ${target} ${target}_man)
endfunction()

# After every part: the package's config and version files.
function(sluice_finish_install)
  get_property(components GLOBAL PROPERTY sluice_installed_components)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sluiceConfig.cmake.in
    ${sluice_install_generated}/sluiceConfig.cmake
    INSTALL_DESTINATION ${SLUICE_PACKAGE_DIR})
  write_basic_package_version_file(${sluice_install_generated}/sluiceConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${sluice_install_generated}/sluiceConfig.cmake ${sluice_install_generated}/sluiceConfigVersion.cmake
    DESTINATION ${SLUICE_PACKAGE_DIR} COMPONENT dev)
endfunction()
