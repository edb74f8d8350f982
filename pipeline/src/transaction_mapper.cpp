#include "sluice/pipeline/transaction_mapper.hpp"

#include <stdexcept>

namespace sluice::pipeline {

namespace tw = sluice::tideweave;

RejectedRow rejected_row(std::size_t change, std::string image, const RowImage& cells, std::string reason) {
    RejectedRow r;
    r.change = change;
    r.image = std::move(image);
    r.id = text_of(cells[0]);
    r.key = text_of(cells[1]);
    r.ts = text_of(cells[2]);
    r.value = text_of(cells[3]);
    r.reason = std::move(reason);
    return r;
}

void TransactionMapper::begin() {
    arena_.clear();
    mutations_.clear();
    origins_.clear();
    rejected_.clear();
    images_.clear();
    max_after_ts_.reset();
    changes_ = 0;
    first_change_ = 0;
}

void TransactionMapper::end_part() {
    if (!part_handler_) throw std::logic_error("pipeline: TransactionMapper::end_part() without a part handler");
    if (changes_ == first_change_) return;
    part_handler_(*this);
    begin_part();
}

void TransactionMapper::begin_part() {
    arena_.clear();
    mutations_.clear();
    origins_.clear();
    rejected_.clear();
    images_.clear();
    first_change_ = changes_;
}

void TransactionMapper::add(const SourceChange& change) {
    if (part_handler_ && changes_ - first_change_ == part_changes_) [[unlikely]] {
        part_handler_(*this);
        begin_part();
    }
    const std::size_t index = changes_++;
    auto map = [&](const RowImage& image) { return map_event(names_, image[0], image[1], image[2], image[3], arena_); };
    auto push = [&](const tw::Mutation& m) {
        mutations_.push_back(m);
        origins_.push_back(index);
    };
    if (change.before && change.op != SourceChange::Op::insert) {
        const Mapped m = map(*change.before);
        if (const Event* e = std::get_if<Event>(&m)) push(tw::Mutation::retract(e->id, e->key, e->ts, e->value));
    }
    if (change.after && change.op != SourceChange::Op::remove) {
        const Mapped m = map(*change.after);
        if (const Event* e = std::get_if<Event>(&m)) {
            push(tw::Mutation::insert(e->id, e->key, e->ts, e->value));
            if (!max_after_ts_ || e->ts > *max_after_ts_) max_after_ts_ = e->ts;
        } else {
            rejected_.push_back(rejected_row(index, "after", *change.after, std::get<Rejection>(m).reason));
        }
    }
    if (change.op == SourceChange::Op::remove) images_.push_back({"before", change.before});
    else images_.push_back({"after", change.after});
}

std::vector<RejectedRow> TransactionMapper::reject_all(const std::string& reason) const {
    std::vector<RejectedRow> out;
    std::size_t next_own = 0;
    for (std::size_t at = 0; at < images_.size(); ++at) {
        const std::size_t i = first_change_ + at;
        while (next_own < rejected_.size() && rejected_[next_own].change < i) ++next_own;
        if (next_own < rejected_.size() && rejected_[next_own].change == i) {
            out.push_back(rejected_[next_own]);
            continue;
        }
        if (!images_[at].cells) continue;
        out.push_back(rejected_row(i, images_[at].image, *images_[at].cells, reason));
    }
    return out;
}

}  // namespace sluice::pipeline
