#pragma once
// Everything of the sans-I/O binlog decoders (see docs/mariadb-cdc.md).
#include "sluice/mariadb/binlog/decoder.hpp"
#include "sluice/mariadb/binlog/event_type.hpp"
#include "sluice/mariadb/binlog/events.hpp"
#include "sluice/mariadb/binlog/rows.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"
#include "sluice/mariadb/binlog/value.hpp"
