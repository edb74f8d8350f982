#include "sink_writer.hpp"

#include <chrono>

namespace sluice::pipeline {

SinkWriter::SinkWriter(Sink& sink, std::string settings, RunObserver* observer)
    : sink_(sink), settings_(std::move(settings)), observer_(observer), thread_([this] { loop(); }) {}

SinkWriter::~SinkWriter() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void SinkWriter::rethrow_locked() {
    if (failure_) std::rethrow_exception(failure_);
}

void SinkWriter::submit(SinkJob& job) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return (!job_ && !busy_) || failure_; });
    rethrow_locked();
    job_.emplace(std::move(job));
    job.batch.clear();
    cv_.notify_all();
}

void SinkWriter::finish() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return (!job_ && !busy_) || failure_; });
    rethrow_locked();
}

void SinkWriter::rethrow_failure() {
    std::lock_guard lock(mu_);
    rethrow_locked();
}

bool SinkWriter::idle() const {
    std::lock_guard lock(mu_);
    return !job_ && !busy_;
}

std::uint64_t SinkWriter::commits() const {
    std::lock_guard lock(mu_);
    return commits_;
}

double SinkWriter::seconds() const {
    std::lock_guard lock(mu_);
    return seconds_;
}

void SinkWriter::loop() {
    for (;;) {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return job_ || stop_; });
        if (!job_) return;  // stop_ with nothing left
        SinkJob job = std::move(*job_);
        job_.reset();
        busy_ = true;
        lock.unlock();
        std::exception_ptr failure;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            switch (job.kind) {
                case SinkJob::Kind::commit:
                    sink_.commit(job.batch, job.previous_gtid, job.gtid, job.checkpoint ? &*job.checkpoint : nullptr,
                                 settings_, job.replay);
                    break;
                case SinkJob::Kind::slice: sink_.write_slice(job.batch, job.previous_gtid, job.replay); break;
                case SinkJob::Kind::take_back: sink_.take_back_slices(); break;
            }
        } catch (...) {
            failure = std::current_exception();
        }
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const bool commit = job.kind == SinkJob::Kind::commit;
        if (!failure && commit && observer_) observer_->sink_commit(took);
        lock.lock();
        busy_ = false;
        if (failure) failure_ = failure;
        else {
            if (commit) ++commits_;
            seconds_ += took;  // a slice's time is time inside the sink transaction too
        }
        cv_.notify_all();
        if (failure_) {
            // Nothing after a failed batch may be written: wait to be stopped.
            cv_.wait(lock, [&] { return stop_; });
            return;
        }
    }
}

}  // namespace sluice::pipeline
