#pragma once
// The MariaDB client, all of it.
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/row.hpp"
#include "sluice/mariadb/statement.hpp"
#include "sluice/mariadb/values.hpp"
