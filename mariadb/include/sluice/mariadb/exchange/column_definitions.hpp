#pragma once
// Reading n column definitions (and, without deprecate-EOF, the EOF that
// follows them) one packet at a time: shared by result heads and prepares.
// The count alone never sizes memory: the vector grows packet by packet.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::exchange {

class ColumnDefinitions {
public:
    // Starts reading n definitions into `into` (cleared). True when there is
    // nothing to read (n == 0).
    bool begin(std::size_t n, std::vector<Column>& into, std::uint64_t capabilities, bool deprecate_eof);
    // Consumes one packet; true once the definitions (and their EOF) are in.
    bool consume(protocol::Bytes packet);
    // Without deprecate-EOF: the status of the EOF after the definitions (a
    // cursor's execute says CURSOR_EXISTS there).
    std::uint16_t eof_status() const noexcept { return eof_status_; }

private:
    std::vector<Column>* into_ = nullptr;
    std::size_t remaining_ = 0;
    bool eof_pending_ = false;
    std::uint64_t capabilities_ = 0;
    std::uint16_t eof_status_ = 0;
};

}  // namespace sluice::mariadb::exchange
