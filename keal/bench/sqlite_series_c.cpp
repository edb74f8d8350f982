#include "sqlite_series_c.hpp"

#include <cstring>

namespace keal::bench {

namespace {

enum Column { kI, kSq, kN };

struct Cursor {
    sqlite3_vtab_cursor base;
    sqlite3_int64 i, n, sq;
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
    const int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(i INTEGER, sq INTEGER, n INTEGER HIDDEN)");
    if (rc != SQLITE_OK) return rc;
    auto* tab = static_cast<sqlite3_vtab*>(sqlite3_malloc(sizeof(sqlite3_vtab)));
    if (tab == nullptr) return SQLITE_NOMEM;
    std::memset(tab, 0, sizeof *tab);
    *out = tab;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab* tab) {
    sqlite3_free(tab);
    return SQLITE_OK;
}

int best_index(sqlite3_vtab*, sqlite3_index_info* index) {
    for (int c = 0; c < index->nConstraint; ++c) {
        const auto& k = index->aConstraint[c];
        if (k.iColumn != kN || k.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
        if (!k.usable) return SQLITE_CONSTRAINT;
        index->aConstraintUsage[c].argvIndex = 1;
        index->aConstraintUsage[c].omit = 1;
        index->estimatedCost = 1000.0;
        return SQLITE_OK;
    }
    return SQLITE_ERROR;  // series_c(n) needs its n
}

int open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
    auto* cur = static_cast<Cursor*>(sqlite3_malloc(sizeof(Cursor)));
    if (cur == nullptr) return SQLITE_NOMEM;
    std::memset(cur, 0, sizeof *cur);
    *out = &cur->base;
    return SQLITE_OK;
}

int close(sqlite3_vtab_cursor* cur) {
    sqlite3_free(cur);
    return SQLITE_OK;
}

int square(Cursor* cur) {
    if (__builtin_mul_overflow(cur->i, cur->i, &cur->sq)) {
        sqlite3_free(cur->base.pVtab->zErrMsg);
        cur->base.pVtab->zErrMsg = sqlite3_mprintf("integer overflow");
        return SQLITE_ERROR;
    }
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* base, int, const char*, int, sqlite3_value** argv) {
    auto* cur = reinterpret_cast<Cursor*>(base);
    cur->n = sqlite3_value_int64(argv[0]);
    cur->i = 1;
    return cur->i <= cur->n ? square(cur) : SQLITE_OK;
}

int next(sqlite3_vtab_cursor* base) {
    auto* cur = reinterpret_cast<Cursor*>(base);
    ++cur->i;
    return cur->i <= cur->n ? square(cur) : SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* base) {
    const auto* cur = reinterpret_cast<Cursor*>(base);
    return cur->i > cur->n;
}

int column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int i) {
    const auto* cur = reinterpret_cast<Cursor*>(base);
    sqlite3_result_int64(ctx, i == kI ? cur->i : i == kSq ? cur->sq : cur->n);
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* base, sqlite3_int64* out) {
    *out = reinterpret_cast<Cursor*>(base)->i;
    return SQLITE_OK;
}

sqlite3_module make_module() {
    sqlite3_module m{};
    m.xConnect = connect;  // no xCreate: eponymous-only, as Keal's
    m.xBestIndex = best_index;
    m.xDisconnect = disconnect;
    m.xOpen = open;
    m.xClose = close;
    m.xFilter = filter;
    m.xNext = next;
    m.xEof = eof;
    m.xColumn = column;
    m.xRowid = rowid;
    return m;
}

const sqlite3_module series_module = make_module();

}  // namespace

int register_series_c(sqlite3* db) { return sqlite3_create_module_v2(db, "series_c", &series_module, nullptr, nullptr); }

}  // namespace keal::bench
