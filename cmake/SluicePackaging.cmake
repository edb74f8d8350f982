# Debian packages with CPack (scripts/package; docs/install.md):
#   sluice-tools   the four tools, their man pages and bash completions, and
#                  Keal's resources (runtime headers, the two archives native
#                  programs link); Depends from dpkg-shlibdeps over the tools,
#                  plus what keal runs and includes at run time
#   libsluice-dev  headers, static and shared libraries, the CMake package
#                  and the pkg-config files; Depends from dpkg-shlibdeps over
#                  the shared libraries, plus the -dev packages of what a
#                  static link or find_dependency() needs
# The install rules' COMPONENTs are these two (tools, dev). The packages
# install under /usr, whatever CMAKE_INSTALL_PREFIX says.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VENDOR "sluice maintainers")
set(CPACK_PACKAGE_CONTACT "sluice maintainers <maintainers@users.noreply.a-seed-08917074.example>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MariaDB client and CDC, Tideweave session windows, Keal, libpq layer")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tools dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/sluice")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME sluice-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION database)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
# keal runs the system's C compiler on the C it generates, which includes
# PostgreSQL's server headers and links its libpgcommon/libpgport
# (postgresql-server-dev-15), MariaDB's mysql.h (libmariadb-dev) and, for
# native programs with embedded SQL, libpq (libpq-dev); SQLite and MariaDB
# libraries with array parameters link libsimdjson (libsimdjson-dev).
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "gcc | c-compiler, libc6-dev, postgresql-server-dev-15, libpq-dev, libmariadb-dev, libsimdjson-dev")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "sluice command-line tools: sluice-mariadb, sluice-pipeline, tideweave, keal
 sluice-mariadb runs SQL on MariaDB and follows its binlog (change data
 capture); sluice-pipeline keeps Tideweave session windows of a MariaDB
 table in PostgreSQL, exactly once; tideweave computes event-time session
 windows over NDJSON; keal compiles Keal programs into PostgreSQL, SQLite
 and MariaDB functions and native programs.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libsluice-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS ON)
# A shlibs file for its shared libraries (CPack has no per-component
# switch; sluice-tools has none), and the ldconfig trigger Debian requires
# of a package that ships them.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_DEV_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libssl-dev, zlib1g-dev, libsodium-dev, libkrb5-dev, libdeflate-dev, libsimdjson-dev, libpq-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION "sluice C++ libraries: MariaDB client with CDC, Tideweave, libpq layer
 Headers, static and shared libraries, a CMake package
 (find_package(sluice CONFIG COMPONENTS mariadb tideweave postgres)) and
 pkg-config files (sluice-mariadb, sluice-tideweave, sluice-postgres) for
 the native MariaDB client with binlog change data capture, the Tideweave
 session-window engine and the C++ layer over libpq.")

# Debian wants a copyright file and a changelog in each package's doc folder
# (changelog.gz: a package without a Debian revision is a native one).
foreach(component IN ITEMS tools dev)
  string(TOUPPER ${component} upper)
  set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
  set(changelog ${PROJECT_BINARY_DIR}/packaging/${package}/changelog)
  set(PACKAGE ${package})
  set(VERSION ${PROJECT_VERSION})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in ${changelog} @ONLY)
  execute_process(COMMAND gzip -9 -n -f ${changelog} COMMAND_ERROR_IS_FATAL ANY)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright ${changelog}.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()

include(CPack)
