# Tests that talk to the private servers require the `servers` fixture: CTest
# starts MariaDB, PostgreSQL and the KDC once per run (tests/harness) and stops
# them at the end. Such tests find the servers through $SLUICE_ENV_FILE.
set(SLUICE_SERVERS_DIR ${CMAKE_BINARY_DIR}/servers)
set(SLUICE_ENV_FILE ${SLUICE_SERVERS_DIR}/env)
# Tests that start an instance of their own (scripts/servers/start --dir D)
# put D under this folder: scripts/test stops whatever is left there.
set(SLUICE_OWN_SERVERS_DIR ${CMAKE_BINARY_DIR}/servers-own)
set(SLUICE_SERVER_TEST_PROPERTIES
    FIXTURES_REQUIRED servers
    ENVIRONMENT SLUICE_ENV_FILE=${SLUICE_ENV_FILE}
    LABELS integration)

# sluice_server_tests(target): gtest_discover_tests with the fixture set.
# Every TEST of a gtest program becomes its own ctest test, and ctest -j runs
# them side by side; tests of one program share fixture tables (created in
# SetUp, dropped in TearDown), so a program's tests hold one RESOURCE_LOCK and
# run one at a time, while different programs still run in parallel.
function(sluice_server_tests target)
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST
    PROPERTIES ${SLUICE_SERVER_TEST_PROPERTIES} RESOURCE_LOCK ${target})
endfunction()
