// Assembling a transaction from its parts, as a consumer of `cdc --out`
// lines or of JetStream messages does (issue 25): any sequence of records,
// each an NDJSON line read by LineReader and, when it carries headers, a
// message whose part headers message_part reads; PartSequence checks the
// order. Every record is accepted or refused with Error{protocol}; a refused
// record voids the transaction in flight (rolled back, nothing of it
// applied); what is applied is only ever whole transactions: one line, or
// parts 1..K of one gtid in order ending with the last, checked here
// independently of PartSequence.
//
// Input: records separated by '\n'. A record with a tab is HEADERS<TAB>LINE,
// HEADERS being k=v pairs separated by ';' with i = Nats-Msg-Id,
// g = Sluice-Gtid, p = Sluice-Part, l = Sluice-Last.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/cdc/ndjson_reader.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"

namespace {

using namespace sluice::mariadb;
using cdc::ndjson::Line;
using cdc::ndjson::LineKind;
using cdc::ndjson::PartSequence;
using Step = PartSequence::Step;

sluice::nats::StoredMessage message_of(std::string_view headers) {
    sluice::nats::StoredMessage m;
    m.seq = 1;
    while (!headers.empty()) {
        const std::size_t end = std::min(headers.find(';'), headers.size());
        const std::string_view pair = headers.substr(0, end);
        headers.remove_prefix(std::min(end + 1, headers.size()));
        const std::size_t eq = pair.find('=');
        if (eq == std::string_view::npos || eq != 1) continue;
        const char* name = pair[0] == 'i'   ? jetstream::msg_id_header
                           : pair[0] == 'g' ? jetstream::gtid_header
                           : pair[0] == 'p' ? jetstream::part_header
                           : pair[0] == 'l' ? jetstream::last_header
                                            : nullptr;
        if (name) m.headers[name] = std::string(pair.substr(2));
    }
    return m;
}

// The consumer's own view of the transaction in flight, to check what
// PartSequence lets through.
struct Open {
    std::string gtid;
    std::uint64_t next = 0;  // 0: none
    std::size_t changes = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static cdc::ndjson::LineReader reader({{"id", "--id"}, {"v", ""}}, "shop", "ev");
    std::string_view input(reinterpret_cast<const char*>(data), size);
    PartSequence parts;
    Open open;
    std::size_t applied = 0;
    std::size_t record = 0;
    while (!input.empty()) {
        const std::size_t nl = std::min(input.find('\n'), input.size());
        std::string_view text = input.substr(0, nl);
        input.remove_prefix(std::min(nl + 1, input.size()));
        const std::string where = "record " + std::to_string(++record);
        try {
            if (const std::size_t tab = text.find('\t'); tab != std::string_view::npos) {
                const auto p = jetstream::message_part(message_of(text.substr(0, tab)), where);
                if (p && (p->part == 0 || p->gtid.empty())) __builtin_trap();
                text.remove_prefix(tab + 1);
            }
            const Line& l = reader.parse(text, where);
            const bool was_inside = parts.inside();
            const Step step = parts.next(l, where);
            switch (step) {
                case Step::whole:
                    if (was_inside || open.next != 0) __builtin_trap();
                    ++applied;
                    break;
                case Step::opens:
                    if (was_inside || l.part != 1 || l.last) __builtin_trap();
                    open = {std::string(l.gtid), 2, l.changes.size()};
                    break;
                case Step::continues:
                case Step::completes:
                case Step::rolled_back:
                    if (step == Step::rolled_back && !l.rolled_back) __builtin_trap();
                    if (step == Step::rolled_back && !was_inside) {
                        if (l.part != 1) __builtin_trap();  // a one-part void transaction
                        break;
                    }
                    if (!was_inside || open.next != l.part || open.gtid != l.gtid || l.kind != LineKind::transaction)
                        __builtin_trap();
                    open.changes += l.changes.size();
                    ++open.next;
                    if (step == Step::completes) ++applied;
                    if (step != Step::continues) open = Open{};
                    break;
            }
            if (parts.inside() != (open.next != 0)) __builtin_trap();
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::protocol) __builtin_trap();
            // The consumer rolls back what it held of the transaction.
            parts.reset();
            open = Open{};
        }
    }
    bool threw = false;
    try {
        parts.finish("the end");
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::protocol) __builtin_trap();
        threw = true;
    }
    if (threw != (open.next != 0)) __builtin_trap();
    (void)applied;
    return 0;
}
