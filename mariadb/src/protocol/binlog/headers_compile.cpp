// Compiles every public binlog header on its own terms (self-contained).
#include "sluice/mariadb/binlog/binlog.hpp"
