// The stream worker's parser of outside bytes: a CDC NDJSON line (a
// transaction, DDL, or a snapshot's chunk, done or aborted line) as a
// JetStream message holds it (any program may have written the stream).
// Every input either parses or throws sluice::pipeline::Error; the changes
// it gives are mapped, as the worker does next.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sluice::pipeline;
    static NdjsonTransactions lines({"id", "k", "t", "v"}, "shop", "ev");
    static TransactionMapper mapper({"id", "k", "t", "v"});
    try {
        const ParsedLine& l = lines.parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
        mapper.begin();
        for (const SourceChange& c : l.changes) mapper.add(c);
        // Changes come from transactions and snapshot chunks only.
        if (!l.transaction && l.snapshot != SnapshotPart::chunk && !l.changes.empty()) __builtin_trap();
        if (l.transaction && l.snapshot != SnapshotPart::none) __builtin_trap();
    } catch (const Error&) {
    }
    return 0;
}
