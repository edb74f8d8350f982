#pragma once
// `sluice-mariadb cdc ...`: argv starts at "cdc". Returns the exit status.
namespace sluice::mariadb::tools {
int run_cdc_command(int argc, char** argv);
}
