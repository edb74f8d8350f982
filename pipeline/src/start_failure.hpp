#pragma once
// Failing fast at start (issue 32). Retrying with backoff is right for a
// connection that worked once and was lost; before every connection of a
// run has worked, a refused connection, an unknown host, a failed login or
// a TLS failure is a mistake in the command line to report at once (a typo
// in a URL used to hang for the five minutes of --retry-for). Patient
// callers (servers still starting) pass --connect-timeout.
#include <chrono>
#include <exception>
#include <string>

#include "sluice/pipeline/pipeline.hpp"

namespace sluice::pipeline {

// A failure to reach or log in to the source, the sink or NATS (a
// sluice::mariadb::Error, a sluice::nats::Error, or a
// sluice::postgres::Error of a connection), as opposed to the pipeline's
// own errors (a stream that does not exist yet, a stored state that moved).
bool is_connection_failure(const std::exception& e);

// Whether run_with_retries gives up on `e`: a connection failure of a side
// (source or sink) that has not answered once in this run, before the run
// first connected everything (`stats.connected`), once `waited` (since the
// start) reached `connect_timeout`. A side that answered once and is lost
// is an outage, retried, even while the other side never answered yet (a
// worker waiting for its stream to be created whose sink connection is
// killed).
bool gives_up_at_start(const std::exception& e, const RunStats& stats, std::chrono::steady_clock::duration waited,
                       std::chrono::milliseconds connect_timeout);

// What the message of such a failure adds: why it was not retried.
std::string start_failure_note(std::chrono::milliseconds connect_timeout);

}  // namespace sluice::pipeline
