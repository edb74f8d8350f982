#pragma once
// The process's own figures every Prometheus client library exports under
// these names: process_resident_memory_bytes, process_cpu_seconds_total.
#include "sluice/service/metrics.hpp"

namespace sluice::service {

double resident_memory_bytes();  // /proc/self/statm's resident pages times the page size
double cpu_seconds();            // user + system time (getrusage)

void register_process_metrics(Registry& registry);

}  // namespace sluice::service
