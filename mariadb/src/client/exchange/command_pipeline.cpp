#include "sluice/mariadb/exchange/command_pipeline.hpp"

#include <string>
#include <utility>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

namespace {
constexpr std::size_t header_size = 4;
// The wire's largest packet piece: a longer payload goes in several, each
// with its own header and sequence id.
constexpr std::size_t max_packet_piece = 0xFFFFFF;

std::size_t pieces_of(std::size_t payload) noexcept { return payload / max_packet_piece + 1; }
}  // namespace

CommandPipeline::CommandPipeline(std::size_t max_depth) {
    if (max_depth == 0) throw Error(ErrorKind::usage, "pipeline max_depth must be at least 1");
    slots_.resize(max_depth);
}

void CommandPipeline::stage_begin(StepKind kind, std::shared_ptr<std::vector<Column>>* statement_columns) {
    staged_.clear();
    staged_step_ = Outstanding{};
    staged_step_.kind = kind;
    staged_step_.statement_columns = statement_columns;
}

std::size_t CommandPipeline::staged_wire_bytes() const noexcept {
    std::size_t n = 0;
    for (const Outbox::Packet& p : staged_.packets()) n += p.size + header_size * pieces_of(p.size);
    return n;
}

std::size_t CommandPipeline::stage_query(std::string_view sql) {
    stage_begin(StepKind::query, nullptr);
    write_query(staged_, sql);
    return staged_step_.bytes = staged_wire_bytes();
}

std::size_t CommandPipeline::stage_execute(std::uint32_t statement_id, std::span<const ParamValue> values,
                                           std::size_t long_data_threshold,
                                           std::shared_ptr<std::vector<Column>>* statement_columns) {
    stage_begin(StepKind::execute, statement_columns);
    write_execute(staged_, statement_id, values, long_data_threshold);
    return staged_step_.bytes = staged_wire_bytes();
}

std::size_t CommandPipeline::stage_prepare(std::string_view sql) {
    stage_begin(StepKind::prepare, nullptr);
    staged_.add(true, [&](Writer& w) { write_command(w, Command::stmt_prepare, sql); });
    return staged_step_.bytes = staged_wire_bytes();
}

std::size_t CommandPipeline::stage_statement_command(StepKind kind, std::uint32_t statement_id) {
    Command command = Command::stmt_reset;
    switch (kind) {
        case StepKind::reset_statement: command = Command::stmt_reset; break;
        case StepKind::close_statement: command = Command::stmt_close; break;
        default:
            throw Error(ErrorKind::usage,
                        "a pipeline's statement command is reset or close, not " + std::string(to_string(kind)));
    }
    stage_begin(kind, nullptr);
    staged_.add(true, [&](Writer& w) { write_statement_command(w, command, statement_id); });
    return staged_step_.bytes = staged_wire_bytes();
}

std::size_t CommandPipeline::stage_command(StepKind kind, std::string_view argument) {
    Command command = Command::ping;
    switch (kind) {
        case StepKind::reset_session: command = Command::reset_connection; break;
        case StepKind::ping: command = Command::ping; break;
        case StepKind::select_database: command = Command::init_db; break;
        default:
            throw Error(ErrorKind::usage, "a pipeline's plain command is reset session, ping or select database, not " +
                                              std::string(to_string(kind)));
    }
    stage_begin(kind, nullptr);
    staged_.add(true, [&](Writer& w) { write_command(w, command, argument); });
    return staged_step_.bytes = staged_wire_bytes();
}

bool CommandPipeline::queue(Outbox& out) {
    for (const Outbox::Packet& p : staged_.packets()) out.add_bytes(p.new_command, staged_.payload(p));
    if (staged_step_.kind == StepKind::close_statement) {
        staged_.clear();
        return false;
    }
    if (size_ == slots_.size()) grow();
    // Its reply follows the step's last packet: one sequence id per piece
    // of it, and (compressed) one frame per max_packet_piece of the stream.
    const std::size_t last = staged_.packets().empty() ? 0 : staged_.packets().back().size;
    staged_step_.reply.sequence = static_cast<std::uint8_t>(pieces_of(last));
    const std::size_t stream = last + header_size * pieces_of(last);
    staged_step_.reply.frame = static_cast<std::uint8_t>((stream + max_packet_piece - 1) / max_packet_piece);
    slots_[(head_ + size_++) % slots_.size()] = staged_step_;
    staged_.clear();
    return true;
}

ReplyStart CommandPipeline::begin_reply(ResultReader& reader) {
    if (size_ == 0) throw Error(ErrorKind::usage, "pipeline reads a reply with no step outstanding");
    const Outstanding& step = slots_[head_];
    reader_ = &reader;
    // A reply without columns must not show the last step's.
    reader.reset();
    switch (step.kind) {
        case StepKind::execute:
            reading_ = Reading::results;
            reader.expect_head(true, step.statement_columns);
            break;
        case StepKind::query:
            reading_ = Reading::results;
            reader.expect_head(false);
            break;
        case StepKind::prepare:
            reading_ = Reading::prepare;
            prepare_.emplace(capabilities_, deprecate_eof_);
            prepare_->expect_reply();
            break;
        case StepKind::reset_statement:
        case StepKind::close_statement:
        case StepKind::reset_session:
        case StepKind::ping:
        case StepKind::select_database: reading_ = Reading::ok; break;
    }
    return step.reply;
}

Step CommandPipeline::resume(Bytes p) {
    switch (reading_) {
        case Reading::results: return reader_->resume(p);
        case Reading::prepare: return prepare_->resume(p);
        case Reading::ok:
            if (is_err(p)) throw_server_error(p);
            reader_->set_ok(parse_ok(p, capabilities_));
            reader_->phase = Phase::idle;
            return Step::done;
        case Reading::none: break;
    }
    throw Error(ErrorKind::usage, "pipeline resumed without a reply to read");
}

PrepareExchange& CommandPipeline::prepared() {
    if (reading_ != Reading::prepare || !prepare_) {
        throw Error(ErrorKind::usage, "the pipeline's current reply is not a prepare's");
    }
    return *prepare_;
}

void CommandPipeline::grow() {
    std::vector<Outstanding> bigger(slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = at(i);
    slots_ = std::move(bigger);
    head_ = 0;
}

void CommandPipeline::end_reply() noexcept {
    if (size_ == 0) return;
    slots_[head_] = Outstanding{};
    head_ = (head_ + 1) % slots_.size();
    --size_;
    reading_ = Reading::none;
    prepare_.reset();
}

void CommandPipeline::clear() noexcept {
    while (size_ > 0) end_reply();
    head_ = 0;
    staged_.clear();
}

}  // namespace sluice::mariadb::exchange
