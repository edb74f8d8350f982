/* Keal set-returning functions in PostgreSQL (emit/rows_functions.cpp):
 * the SRF interface (funcapi.h) and heap_form_tuple, included only by a
 * module that has rows functions. funcapi.h pulls in the executor's
 * headers, whose inline functions have unused parameters and mixed-sign
 * comparisons: those warnings are the server's, not the generated code's,
 * so they are silenced around the includes alone. */
#ifndef KEAL_PG_ROWS_H
#define KEAL_PG_ROWS_H

#include "keal_pg.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "access/htup_details.h"
#include "funcapi.h"
#pragma GCC diagnostic pop

#endif
